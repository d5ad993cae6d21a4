# shellcheck shell=sh disable=SC2154
# What SLURM says of a job before its retry (retry_run), after
# lib-sec.sh, one section each: its sacct row, its state if squeue still
# has it, the nodes of its partition with their states (retry_exclude
# reads them), whether its sbatch file is still there.  Set by the caller,
# quoted: sa (the sacct command line), sid, part, sbf (the sbatch file).
LC_ALL=C; export LC_ALL
sec sacct
eval "$sa" 2>&1
sec squeue
squeue -h -j "$sid" -o %T 2>/dev/null
sec sinfo
sinfo -h -N -p "$part" -o '%N %t' 2>&1
sec sbatch
test -f "$sbf" && echo present
sec end
