# shellcheck shell=sh
# sd_say PREFIX TEXT: each line of TEXT that is not empty, after PREFIX
# (what sed '/^$/d; s/^/PREFIX/' printed, done by the shell).
sd_say() {
	sd_t=$2
	while [ -n "$sd_t" ]; do
		sd_l=${sd_t%%"$sd_nl"*}
		case $sd_t in
		*"$sd_nl"*) sd_t=${sd_t#*"$sd_nl"} ;;
		*) sd_t= ;;
		esac
		[ -z "$sd_l" ] || printf '%s%s\n' "$1" "$sd_l"
	done
}
sd_nl='
'
# release LOG_DIR JOB_NAME ID: the log directory must exist before the job
# starts (SLURM 22.05 fails the job with 0:53 otherwise), so jobs are
# submitted held and released after the mkdir.  squeue is asked only when
# the release failed (is the job still held?) or the job stays held
# ($hold = 1, submit --hold): a released job is PENDING, and the submit's
# record says so without another RPC.
release() {
	d=$1/$2-$3
	if ! mkdir -p -- "$d"; then
		echo sqdeck-mkdir=failed
		scancel "$3" </dev/null
		return
	fi
	rrc=0; msg=
	if [ "${hold:-0}" != 1 ]; then
		msg=$(scontrol release "$3" 2>&1 </dev/null); rrc=$?
	fi
	echo "sqdeck-release-rc=$rrc"
	sd_say sqdeck-release-msg= "$msg"
	# Released: PENDING, no need to ask.  Else: still held, or why.
	if [ "$rrc" != 0 ] || [ "${hold:-0}" = 1 ]; then
		st=$(squeue -h -j "$3" -o '%T %r' 2>/dev/null </dev/null)
		printf 'sqdeck-state=%s\n' "$st"
	fi
}
