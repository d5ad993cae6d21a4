# shellcheck shell=sh disable=SC2154
# GPU use of a running job (ops_gpu): one step on each of its nodes,
# beside its tasks (--overlap), asks nvidia-smi.  Set by the caller,
# quoted: j (the job id).  The reply: "state STATE NODES JOBID", then one line a
# "rc RC" (srun's), then one line a GPU "NODE, index, name, util %, used
# MiB, total MiB", or "NODE, -" where the node has no nvidia-smi, and
# srun's or nvidia-smi's own words.
# An array task's own job id (%A) is what srun --jobid takes.
st=$(squeue -h -j "$j" -o '%T %D %A' 2>/dev/null | head -n 1)
printf 'state %s\n' "$st"
case $st in
RUNNING*) ;;
*) exit 0 ;;
esac
n=${st#* }
id=${n#* }
n=${n%% *}
# shellcheck disable=SC2016
q='h=${SLURMD_NODENAME:-$(hostname)}
if command -v nvidia-smi >/dev/null 2>&1; then
	nvidia-smi --query-gpu=index,name,utilization.gpu,memory.used,memory.total --format=csv,noheader,nounits | sed "s/^/$h, /"
else
	printf "%s, -\n" "$h"
fi'
out=$(timeout 60 srun --jobid="$id" --overlap -N "$n" --ntasks-per-node=1 \
    sh -c "$q" 2>&1)
rc=$?
printf 'rc %s\n%s\n' "$rc" "$out"
