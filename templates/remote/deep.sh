# shellcheck shell=sh disable=SC2154
# `preflight --deep`: a two-minute test job on the CPU partition runs
# node (the text of deep-node.sh) on a compute node.  Set by the caller,
# quoted: part, acct (may be empty), job (the job name), node.
LC_ALL=C; export LC_ALL
set -- srun --quiet -N1 -n1 -c1 -t 2 -p "$part"
[ -z "$acct" ] || set -- "$@" -A "$acct"
out=$("$@" -J "$job" /bin/sh -c "$node" 2>&1 </dev/null); rc=$?
echo "srun.rc=$rc"
printf '%s\n' "$out"
