#!/bin/sh
# Capture the SLURM output that tests/unit/check_slurm.c parses, from the
# real local cluster (tests/cluster/up), over ssh like the product does.
#
#   tests/data/slurm/capture.sh [OUTDIR]      (default: this directory)
#
# Every job it submits is named "$TAG-..." and only those jobs are cancelled
# (by id).  It takes about 90 s because of the TIMEOUT case.  Job ids, times
# and names change on every run: after re-running it, update the concrete
# values asserted in check_slurm.c.
#
# The field lists below must stay identical to SLURM_SQUEUE_FIELDS,
# SLURM_SACCT_FIELDS and SLURM_SINFO_FIELDS in src/slurm/slurm.h (check_slurm.c
# compares them).  Fields are joined with the ASCII unit separator 0x1f,
# put inside a single-quoted argument: it travels through ssh and the
# remote shell untouched (the captured files contain the raw 0x1f bytes).
# squeue and sacct rows end with the separator too (squeue's format ends
# with it, sacct -p): the product uses a random separator per command so no
# job name can break a row; the captured files use plain 0x1f.
set -eu

. "${SDTB_ENV:-/tmp/sdtb/env.sh}"
out=${1:-$(cd "$(dirname "$0")" && pwd)}
mkdir -p "$out"

TAG=sdslurm$$
US=$(printf '\037')
SQUEUE_FIELDS='%A %i %P %T %M %l %D %N %r %V %S %b %j'
SACCT_FIELDS='JobID JobIDRaw State%30 ExitCode Reason NodeList Partition Elapsed Timelimit NNodes Submit Start End JobName'
SINFO_FIELDS='%P %a %l %D %F %c %m %G'
SQFMT=$(printf '%s ' "$SQUEUE_FIELDS" | tr ' ' '\037')
SAFMT=$(printf '%s' "$SACCT_FIELDS" | tr ' ' ',')
SIFMT=$(printf '%s' "$SINFO_FIELDS" | tr ' ' '\037')
SINCE=now-2days

r() {
	ssh -p "$SLURM_PORT" -i "$SSH_KEY_PATH" -o BatchMode=yes \
	    -o StrictHostKeyChecking=yes -o UserKnownHostsFile="$SSH_KNOWN_HOSTS" \
	    "$SLURM_USER@$SLURM_HOSTNAME" "$1"
}
say() { echo "[capture] $*" >&2; }

# The commands the product runs (see src/slurm/slurm.c).
SQUEUE="squeue --me -h -o '$SQFMT'"
SACCT="sacct -X -n -p --delimiter='$US' -u \"\`id -un\`\" -S $SINCE -o $SAFMT"
SINFO="sinfo -h -o '$SIFMT'"

ids=""
cleanup() { [ -z "$ids" ] || r "scancel $ids" || true; }
trap cleanup EXIT

sub() {	# sub NAME SBATCH-ARGS...: prints the id
	name=$1; shift
	id=$(r "sbatch --parsable -J '$name' -o /dev/null $*")
	ids="$ids $id"
	say "$name -> $id"
	echo "$id"
}

# TIMEOUT first: it needs ~70 s.
t_timeout=$(sub "$TAG-timeout" "--time=0:01 --wrap='sleep 120'")

# sacct right after sbatch: nothing, then the 'allocation' placeholder.
# Submit and poll in one remote command: the window is 1-4 s long.  Up to
# three tries, a new job each time.
for try in 1 2 3; do
	r "id=\$(sbatch --parsable -J '$TAG-ph' -p cpu -o /dev/null --wrap=true)
	echo \$id >/tmp/$TAG.ph; i=0; while [ \$i -lt 200 ]; do
		o=\$($SACCT -j \$id); i=\$((i+1))
		case \$o in *allocation*) printf '%s\n' \"\$o\"; break;; esac
		sleep 0.02; done" >"$out/sacct_placeholder.txt"
	t_ph=$(r "cat /tmp/$TAG.ph; rm -f /tmp/$TAG.ph")
	ids="$ids $t_ph"
	say "$TAG-ph -> $t_ph"
	[ ! -s "$out/sacct_placeholder.txt" ] || break
done
r "$SACCT -j 999999999" >"$out/sacct_empty.txt"

t_held=$(sub "$TAG-held|pipe name" "--hold --wrap='sleep 300'")
t_arr=$(sub "$TAG-array" "--hold --array=1-3 --wrap='sleep 300'")
t_run=$(sub "$TAG-run" "-p cpu --wrap='sleep 300'")
t_2n=$(sub "$TAG-2node" "-p cpu -N 2 --wrap='srun sleep 15'")
t_ok=$(sub "$TAG-ok" "--wrap=true")
t_fail=$(sub "$TAG-fail" "--wrap='exit 3'")
sleep 4

say squeue
r "$SQUEUE" >"$out/squeue_me.txt"
r "squeue --me -h -t all -n '$TAG-held|pipe name' -o '$SQFMT'" >"$out/squeue_name.txt"
r "squeue --me --start -h -j $t_held -o '$SQFMT'" >"$out/squeue_start_held.txt"
r "squeue --me --start -h -j 999999999 -o '$SQFMT'" \
    >"$out/squeue_start_gone.out" 2>"$out/squeue_start_gone.err" || true

say "cancel $t_run, release $t_held"
r "scancel $t_run"
r "scontrol release $t_held"

say sinfo
r "$SINFO" >"$out/sinfo.txt"

say sbatch replies
r "sbatch --parsable -J '$TAG-reply' -o /dev/null --hold --wrap=true" \
    >"$out/sbatch_ok.out"
ids="$ids $(cat "$out/sbatch_ok.out")"
r "sbatch --parsable -M sdtb -J '$TAG-reply' -o /dev/null --hold --wrap=true" \
    >"$out/sbatch_cluster.out"
ids="$ids $(cut -d';' -f1 "$out/sbatch_cluster.out")"
r "sbatch --parsable -p gpu --time=5:00:00 --wrap=true" \
    >"$out/sbatch_timelimit.out" 2>"$out/sbatch_timelimit.err" || true
r "sbatch --parsable -p gpu --gres=gpu:5 --wrap=true" \
    >"$out/sbatch_gpus.out" 2>"$out/sbatch_gpus.err" || true

# An estimated start: a job that needs every GPU of both nodes, queued
# behind another such job with a time limit.  The backfill scheduler sets
# the estimate (every 30 s by default).
say "start estimate"
t_block=$(sub "$TAG-block" "-p gpu -N 2 --gres=gpu:4 --time=2 --wrap='sleep 100'")
t_wait=$(sub "$TAG-wait" "-p gpu -N 2 --gres=gpu:4 --time=1 --wrap=true")
r "i=0; while [ \$i -lt 90 ]; do
	o=\$(squeue --me --start -h -j $t_wait -o '$SQFMT')
	case \$o in *${US}N/A${US}*) ;; *) break;; esac
	i=\$((i+1)); sleep 0.5; done; printf '%s\n' \"\$o\"" \
    >"$out/squeue_start_resources.txt"
r "scancel $t_wait $t_block"

say "waiting for TIMEOUT of $t_timeout"
r "while :; do s=\$(sacct -X -n -P -j $t_timeout -o State); case \$s in
	PENDING|RUNNING|'') sleep 2;; *) break;; esac; done"
r "scancel $t_held $t_arr"
sleep 3

say sacct
r "$SACCT -j $t_timeout,$t_ph,$t_held,$t_arr,$t_run,$t_2n,$t_ok,$t_fail" \
    >"$out/sacct_batch.txt"
r "$SACCT --name='$TAG-held|pipe name'" >"$out/sacct_name.txt"
r "sacct -X -n -j $t_run -o State" >"$out/sacct_default_width.txt"
r "scancel $t_ok" >"$out/scancel_done.out" 2>"$out/scancel_done.err"

r "scancel $ids"
sleep 1
r "squeue --me -h -o '%i %j'" | grep "$TAG" && say "left over jobs above" || true
say "done; TAG=$TAG timeout=$t_timeout ph=$t_ph held=$t_held array=$t_arr" \
    "run=$t_run 2node=$t_2n ok=$t_ok fail=$t_fail block=$t_block wait=$t_wait"
