# shellcheck shell=sh disable=SC2154
# Cancel in one round trip (ops_cancel), after lib-wipe.sh: was it live,
# scancel, wipe the env sidecar (sd_wipe: never through a link, never a
# FIFO or a device).  Set by the caller, quoted: j (a job id, or an array task:
# "12_3", "12_[4-9]"), e (the sidecar, may be empty).  The reply: "live
# STATE TIME", "acct STATE", "wiped 0|1", "rc RC", then scancel's words.
# A job SLURM has forgotten (MinJobAge) is in neither squeue nor
# scontrol, and scancel says "Invalid job id specified" (exit 1) or
# nothing (exit 0), depending on the version: sacct says whether it ever
# existed.
st=$(squeue -h -j "$j" -o '%T %M' 2>/dev/null | head -n 1)
printf 'live %s\n' "$st"
out=$(scancel "$j" 2>&1); rc=$?
case "$out" in *'Invalid job id'*) rc=0; out= ;; esac
a=
if [ -z "$st" ]; then
	a=$(sacct -n -X -P -j "$j" -o State 2>/dev/null | head -n 1)
fi
printf 'acct %s\n' "$a"
w=0
if [ -n "$e" ] && { [ -e "$e" ] || [ -L "$e" ]; }; then
	! sd_wipe "$e" || w=1
fi
printf 'wiped %s\nrc %s\n%s\n' "$w" "$rc" "$out"
