#!/bin/sh
# Capture what tests/unit/check_joblog.c parses, from the real local cluster
# (tests/cluster/up), over ssh like the product does:
#   scontrol-array-sdtb.txt  scontrol show job -o of task 2 of a plain
#                            sbatch --array with -o out-%A_%a.txt and
#                            -e 'err-%x-%a.txt' (a space in the job name)
#   testonly-sdtb.txt        the soonest script (src/core/soonest.c) for 2 GPUs on
#                            cpu and gpu (both fit: the same two nodes), then
#                            3 nodes on gpu (it has 2: refused), with the
#                            section marker MARK
#
#   tests/data/slurm/capture-arrays.sh [OUTDIR]      (default: this directory)
set -eu

. "${SDTB_ENV:-/tmp/sdtb/env.sh}"
out=${1:-$(cd "$(dirname "$0")" && pwd)}
TAG=sdarr$$
WD=$SDTB_LUSTRE/results/arrcap
r() {
	ssh -p "$SLURM_PORT" -i "$SSH_KEY_PATH" -o BatchMode=yes \
	    -o StrictHostKeyChecking=yes -o UserKnownHostsFile="$SSH_KNOWN_HOSTS" \
	    "$SLURM_USER@$SLURM_HOSTNAME" "$1"
}
r "mkdir -p '$WD'"
a=$(r "sbatch --parsable -p cpu -A sdtb --array=1-3 -J 'arr test' -D '$WD' -o 'out-%A_%a.txt' -e 'err-%x-%a.txt' --wrap 'sleep 60'")
i=0
while [ $i -lt 60 ]; do
	r "squeue -h -j ${a}_2 -o %T" | grep -q RUNNING && break
	i=$((i + 1)); sleep 1
done
r "scontrol show job -o ${a}_2" >"$out/scontrol-array-sdtb.txt"
r "scancel $a"
r "printf '%s %s\n' MARK cpu
sbatch --test-only -J sqdeck-test-only -p cpu -N 1 -c 4 -t 1:00:00 --gres=gpu:2 -A sdtb --wrap true 2>&1 </dev/null
printf '%s %s\n' MARK gpu
sbatch --test-only -J sqdeck-test-only -p gpu -N 1 -c 4 -t 1:00:00 --gres=gpu:2 -A sdtb --wrap true 2>&1 </dev/null
printf '%s %s\n' MARK gpu
sbatch --test-only -J sqdeck-test-only -p gpu -N 3 -c 4 -t 1:00:00 --gres=gpu:2 -A sdtb --wrap true 2>&1 </dev/null" \
    >"$out/testonly-sdtb.txt" || true
echo "array $a; TAG=$TAG" >&2
