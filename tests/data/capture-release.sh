#!/bin/sh
# Capture, from a cluster of one SLURM release of the test cluster
# (tests/cluster/up starts 22.05, 24.11 and 26.05 side by side), the output
# of exactly the commands sqdeck runs, for one job of each outcome;
# check_slurm.c parses every file and expects the same result on every
# release.  Regenerate all of them with one command:
#
#   tests/cluster/releases capture
#
# which runs, for each line of $SDTB_DIR/releases,
#
#   SDTB_CAPTURE_PORT=PORT tests/data/capture-release.sh RELEASE [OUTDIR]
#
# (the ssh settings from $SDTB_DIR/env.sh, the login node's port from
# SDTB_CAPTURE_PORT).  OUTDIR defaults to tests/data/slurm-RELEASE.  About
# 40 s.  Writes, each file with a header
# of '#' lines (the parsers' tests drop them) whose last line is
# "# $ COMMAND", the command as sqdeck builds it (check_slurm.c compares
# it with src/slurm/slurm-cmd.c):
#   jobs.txt           OUTCOME ID, one a line: the job of each outcome
#   squeue.txt         the poll's squeue (slurm_cmd_squeue, --me)
#   squeue_name.txt    squeue by exact name (slurm_cmd_squeue_name)
#   squeue_start.txt   squeue --start of the held job (slurm_cmd_start)
#   squeue_start_gone.out/.err  ... of a job SLURM does not know
#   squeue_dependency.txt  squeue %E of a job waiting for the held one
#                      (afterok and afterany: unfulfilled)
#   squeue_dependency_never.txt  ... of one whose afterok job was cancelled
#                      (failed); both with slurm_cmd_dependency
#   sacct.txt          the poll's sacct of every job (slurm_cmd_sacct)
#   sinfo.txt          slurm_cmd_sinfo; gres.txt gres_cmd
#   joblog-OUTCOME.txt the job's log paths (joblog_cmd: squeue -O)
#   scontrol-OUTCOME.txt  scontrol show job -o while SLURM
#                      still knows the job; scontrol_gone.out/.err a job
#                      it does not know
# The field lists are SLURM_SQUEUE_FIELDS, SLURM_SACCT_FIELDS,
# SLURM_SINFO_FIELDS (src/slurm/slurm.h) joined with 0x1f, as in
# tests/data/slurm/capture.sh.
# shellcheck disable=SC1090,SC2154 # the env file; j_* are set by eval in sub()
set -eu

rel=${1:?usage: capture-release.sh RELEASE [OUTDIR]}
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${2:-$top/tests/data/slurm-$rel}
. "${SDTB_DIR:-/tmp/sdtb}/env.sh"
SSH_PORT=${SDTB_CAPTURE_PORT:-$SSH_PORT}
mkdir -p "$out"

US=$(printf '\037')
SQFMT=$(printf '%s ' '%A %i %P %T %M %l %D %N %r %V %S %b %j' | tr ' ' '\037')
SAFMT='JobID,JobIDRaw,State%30,ExitCode,Reason,NodeList,Partition,Elapsed,Timelimit,NNodes,Submit,Start,End,JobName'
SIFMT=$(printf '%s' '%P %a %l %D %F %c %m %G' | tr ' ' '\037')
# slurm_env_clean() of src/slurm/slurm-cmd.c, per tool
C='-u SLURM_TIME_FORMAT -u SLURM_BITSTR_LEN '
E_SQ="env -u SQUEUE_ACCOUNT -u SQUEUE_ALL -u SQUEUE_ARRAY -u SQUEUE_FEDERATION -u SQUEUE_FORMAT -u SQUEUE_FORMAT2 -u SQUEUE_LICENSES -u SQUEUE_LOCAL -u SQUEUE_NAMES -u SQUEUE_PARTITION -u SQUEUE_PRIORITY -u SQUEUE_QOS -u SQUEUE_SIBLING -u SQUEUE_SORT -u SQUEUE_STATES -u SQUEUE_USERS $C"
E_SA="env -u SACCT_FEDERATION -u SACCT_FORMAT -u SACCT_LOCAL $C"
E_SI="env -u SINFO_ALL -u SINFO_FEDERATION -u SINFO_FORMAT -u SINFO_LOCAL -u SINFO_PARTITION -u SINFO_SORT $C"
E_SC="env -u SCONTROL_ALL -u SCONTROL_FEDERATION -u SCONTROL_LOCAL $C"
GRESFMT="'PartitionName:0$US','NodeHost:0$US','StateCompact:0$US','Gres:0$US','GresUsed:0'"
SINCE=$(date -u -d '1 day ago' +%Y-%m-%d)

r() {
	ssh -p "$SSH_PORT" -i "$SSH_KEY_PATH" -o BatchMode=yes \
	    -o StrictHostKeyChecking=yes -o UserKnownHostsFile="$SSH_KNOWN_HOSTS" \
	    "$SLURM_USER@$SLURM_HOSTNAME" "$1"
}
say() { echo "[capture-release $rel] $*" >&2; }
ver=$(r 'sinfo -V')
hdr() {	# hdr FILE WHAT COMMAND: the header, then (from the caller) the output
	{
		echo "# captured by tests/data/capture-release.sh $rel, $(date -u +%Y-%m-%dT%H:%M:%SZ), over ssh"
		echo "# from the test cluster's $rel login node (127.0.0.1:$SSH_PORT): $ver"
		echo "# $2"
		printf '# $ %s\n' "$3"
	} >"$1"
}
# cap FILE WHAT COMMAND: stdout (stderr too, as the poll reads it) after the header
cap() { hdr "$1" "$2" "$3"; r "$3" >>"$1" 2>&1 || true; }

ids=""
cleanup() { [ -z "$ids" ] || r "scancel $ids" 2>/dev/null || true; }
trap cleanup EXIT
sub() {	# sub OUTCOME SBATCH-ARGS: the job's id into jobs.txt
	id=$(r "sbatch --parsable -o /dev/null $2")
	ids="$ids $id"
	echo "$1 $id" >>"$out/jobs.txt"
	say "$1 -> $id"
	eval "j_$1=\$id"
}
: >"$out/jobs.txt"
LONG=p23-running-job-with-a-name-longer-than-twenty
sub pending "-J p23-pending --hold --wrap='sleep 300'"
sub running "-J $LONG --wrap='sleep 300'"
sub cancelled "-J p23-cancelled --wrap='sleep 300'"
sub completed "-J p23-completed --wrap=true"
sub failed "-J p23-failed --wrap='exit 3'"
sub exit9 "-J p23-exit9 --wrap='exit 9'"
sub sigkill "-J p23-sigkill --wrap='sh -c '\\''kill -9 \$\$'\\''; exit \$?'"
sub sigkill_batch "-J p23-sigkill-batch --wrap='kill -9 \$\$'"
sub array "-J p23-array --array=1-3%1 --wrap='sleep 300'"
{ echo "# OUTCOME ID: sigkill is a child of the batch shell killed by SIGKILL (the"
  echo "# shell exits 137), sigkill_batch the batch shell itself; array runs 1-3%1"
  cat "$out/jobs.txt"; } >"$out/jobs.tmp" && mv "$out/jobs.tmp" "$out/jobs.txt"

# the short ones end, the long ones run
r "end=\$((\$(date +%s) + 60)); while [ \$(date +%s) -lt \$end ]; do
	n=\$(squeue -h -t PD,R,CG -j $j_completed,$j_failed,$j_exit9,$j_sigkill,$j_sigkill_batch -o %i 2>/dev/null | wc -l)
	s=\$(squeue -h -j $j_running,$j_cancelled -t R -o %i | wc -l)
	[ \$n = 0 ] && [ \$s = 2 ] && break; sleep 0.5; done"
r "scancel $j_cancelled"
sleep 3

cap "$out/squeue.txt" "the poll's squeue: every outcome still in the queue (pending, running, array)" \
    "${E_SQ}squeue --me -h -o '$SQFMT'"
cap "$out/squeue_name.txt" "squeue by exact name, -t all: the running job (a name over 20 characters)" \
    "${E_SQ}squeue --me -h -t all -n '$LONG' -o '$SQFMT'"
cap "$out/squeue_start.txt" "squeue --start of the held (pending) job" \
    "${E_SQ}squeue --me --start -h -j $j_pending -o '$SQFMT'"
c="${E_SQ}squeue --me --start -h -j 999999999 -o '$SQFMT'"
hdr "$out/squeue_start_gone.out" "squeue --start of a job SLURM does not know: stdout (stderr in .err)" "$c"
hdr "$out/squeue_start_gone.err" "squeue --start of a job SLURM does not know: stderr" "$c"
r "$c" >>"$out/squeue_start_gone.out" 2>>"$out/squeue_start_gone.err" || true

for o in pending running cancelled completed failed exit9 sigkill sigkill_batch array; do
	eval "id=\$j_$o"
	cap "$out/scontrol-$o.txt" "scontrol show job -o of the $o job ($id)" \
	    "${E_SC}scontrol show job -o '$id'"
done
# the log paths as sqdeck asks for them (joblog_cmd: squeue -O, each
# field followed by the separator, here 0x1f)
JLFMT=$(printf 'JobID:0%s,ArrayJobID:0%s,ArrayTaskID:0%s,UserName:0%s,WorkDir:0%s,StdOut:0%s,StdErr:0%s,Name:0%s' \
    "$US" "$US" "$US" "$US" "$US" "$US" "$US" "$US")
for o in pending running cancelled completed failed exit9 sigkill sigkill_batch; do
	eval "id=\$j_$o"
	cap "$out/joblog-$o.txt" "the log paths of the $o job ($id), as sqdeck asks for them" \
	    "${E_SQ}squeue -h -t all -j '$id' -O '$JLFMT'"
done
c="${E_SC}scontrol show job -o '999999999'"
hdr "$out/scontrol_gone.out" "scontrol show job -o of a job SLURM does not know: stdout (stderr in .err)" "$c"
hdr "$out/scontrol_gone.err" "scontrol show job -o of a job SLURM does not know: stderr" "$c"
r "$c" >>"$out/scontrol_gone.out" 2>>"$out/scontrol_gone.err" || true

all=$(printf '%s' "${ids# }" | tr ' ' ',')
cap "$out/sacct.txt" "the poll's sacct of every job (the array by its job id: each task)" \
    "${E_SA}sacct -X -n -p '--delimiter=$US' -u \"\`id -un\`\" -S '$SINCE' -o '$SAFMT' -j $all"
cap "$out/sinfo.txt" "sinfo, the partitions" "${E_SI}sinfo -h -o '$SIFMT'"
cap "$out/gres.txt" "sinfo GRES per node" "${E_SI}sinfo -h -N -O $GRESFMT"

# Last (the files above hold none of them): two jobs waiting for others.
# The cancelled job's dependant turns DependencyNeverSatisfied (26.05: ~10 s).
dw=$(r "sbatch --parsable -o /dev/null -J p23-depwait --dependency=afterok:$j_pending,afterany:$j_pending --wrap=true")
dn=$(r "sbatch --parsable -o /dev/null -J p23-depnever --dependency=afterok:$j_cancelled --wrap=true")
ids="$ids $dw $dn"
r "for i in \$(seq 60); do squeue -h -j $dn -o %r | grep -q Never && break; sleep 0.5; done"
cap "$out/squeue_dependency.txt" "squeue %E of a job waiting for the held job (afterok and afterany)" \
    "${E_SQ}squeue --me -h -j $dw -o '%E'"
cap "$out/squeue_dependency_never.txt" "squeue %E of a job whose afterok job was cancelled" \
    "${E_SQ}squeue --me -h -j $dn -o '%E'"

r "scancel $ids" || true
ids=""
say "captured into $out"
