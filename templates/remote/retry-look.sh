# shellcheck shell=sh disable=SC2154
# What SLURM says of a job before its retry (retry_run), after
# lib-sec.sh, one section each: its sacct row, its state if squeue still
# has it, the nodes of its partition with their states (retry_exclude
# reads them), whether its sbatch file is still there (a regular file)
# and its SHA-256 (its first 8 MiB, read within 10 s).  Set by the
# caller, quoted: sa (the sacct command line), sid, part, sbf (the sbatch
# file).
LC_ALL=C; export LC_ALL
sec sacct
eval "$sa" 2>&1
sec squeue
squeue -h -j "$sid" -o %T 2>/dev/null
sec sinfo
sinfo -h -N -p "$part" -o '%N %t' 2>&1
sec sbatch
if [ -f "$sbf" ]; then
	echo present
	if command -v timeout >/dev/null 2>&1; then T="timeout -s KILL 10"; else T=; fi
	# shellcheck disable=SC2016,SC2086 # $T: a command and its words
	$T sh -c 'head -c 8388608 -- "$1" | sha256sum' sum "$sbf" </dev/null
fi
sec end
