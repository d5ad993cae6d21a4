# shellcheck shell=sh disable=SC2154
# The stage of a submit (sqdeck(1): IMAGES AND STORAGE), after submit.sh's
# gate: the job dir with specs/ env/ meta/ sbatch/ logs/ results/ files/
# and the mode-600 sidecar.  Set by the caller, quoted: jd (the job dir),
# envf (the sidecar relative to it, empty: none), again (1: an earlier
# send of this submit may have made jd and no job uses it: it is removed
# first, its sidecar wiped; needs lib-wipe.sh), and either payload (a tar,
# base64, of those dirs and files: when a supporting file may hold any
# byte) or nfiles with fn0 ft0 fn1 ft1 ... (each file's path in jd and
# its text: the shell writes them, no program).  The sidecar is among
# them, so only builtins and pipes see payload and the ft values.
LC_ALL=C; export LC_ALL
# umask 077 before anything is written: the sidecar is never readable.
umask 077
if [ "${again:-0}" = 1 ] && [ -d "$jd" ] && [ ! -L "$jd" ]; then
	[ -z "$envf" ] || sd_wipe "$jd/$envf" || true
	rm -rf -- "$jd"
fi
if [ -n "${payload:-}" ]; then
	if ! err=$(mkdir -- "$jd" 2>&1); then
		payload=
		printf 'sqdeck-stage-error=%s\n' "$err"; exit 0
	fi
	cd -- "$jd" || exit 0
	# specs/ env/ meta/ sbatch/ logs/ results/ files/ are entries of the
	# tar (one program less than a mkdir of each).
	if ! err=$(printf '%s' "$payload" | base64 -d |
	    tar -x -f - --no-same-owner 2>&1); then
		payload=
		printf 'sqdeck-stage-error=%s\n' "$err"; exit 0
	fi
	payload=
else
	# One mkdir for the job dir and its folders.  It goes on past a job
	# dir that exists, so that is refused first: a name of this submit's
	# own, it exists only if something else made it.
	if [ -e "$jd" ] || [ -L "$jd" ]; then
		printf 'sqdeck-stage-error=%s exists already\n' "$jd"; exit 0
	fi
	if ! err=$(mkdir -m 700 -- "$jd" "$jd/specs" "$jd/env" "$jd/meta" \
	    "$jd/sbatch" "$jd/logs" "$jd/results" "$jd/files" 2>&1); then
		printf 'sqdeck-stage-error=%s\n' "$err"; exit 0
	fi
	cd -- "$jd" || exit 0
	# Nobody else can write in a new mode-700 dir: no link to follow.
	sd_i=0
	while [ "$sd_i" -lt "${nfiles:-0}" ]; do
		eval "sd_n=\$fn$sd_i; sd_t=\$ft$sd_i; ft$sd_i="
		if ! printf '%s' "$sd_t" >"$sd_n"; then
			sd_t=
			printf 'sqdeck-stage-error=cannot write %s\n' "$jd/$sd_n"
			exit 0
		fi
		sd_i=$((sd_i + 1))
	done
	sd_t=
fi
if [ -n "$envf" ]; then
	# Made mode 600 (tar's entry, or umask 077); a default ACL on the
	# results root ignores the umask: chmod then, before anything runs
	# (the dir is mode 700, the ACL's mask lets nobody else in it).
	m=$(stat -c %a -- "$envf")
	if [ "$m" != 600 ]; then
		chmod 600 -- "$envf"
		m=$(stat -c %a -- "$envf")
	fi
	printf 'sqdeck-env-mode=%s\n' "$m"
	if [ "$m" != 600 ]; then
		printf 'sqdeck-stage-error=the secrets file %s is mode %s, not 600, after staging; not launching\n' "$jd/$envf" "$m"
		exit 0
	fi
fi
echo sqdeck-stage=ok
[ "${cutat:-}" != stage ] || sd_cut
