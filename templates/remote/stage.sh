# shellcheck shell=sh disable=SC2154
# The stage of a submit (sqdeck(1): IMAGES AND STORAGE), after submit.sh's
# gate: the job dir with specs/ env/ meta/ sbatch/ logs/ results/ files/
# and the mode-600 sidecar, from a tar stream that holds those dirs.  Set
# by the caller, quoted: jd (the job dir), envf (the sidecar relative to it, empty: none), payload
# (the tar, base64; it may hold the sidecar, so only builtins and pipes see
# it), again (1: an earlier send of this submit may have made jd and no job
# uses it: it is removed first, its sidecar wiped; needs lib-wipe.sh).
LC_ALL=C; export LC_ALL
# umask 077 before anything is written: the sidecar is never readable.
umask 077
if [ "${again:-0}" = 1 ] && [ -d "$jd" ] && [ ! -L "$jd" ]; then
	[ -z "$envf" ] || sd_wipe "$jd/$envf" || true
	rm -rf -- "$jd"
fi
if ! err=$(mkdir -- "$jd" 2>&1); then
	payload=
	printf 'sqdeck-stage-error=%s\n' "$err"; exit 0
fi
cd -- "$jd" || exit 0
# specs/ env/ meta/ sbatch/ logs/ results/ files/ are entries of the tar
# (one program less than a mkdir of each).
if ! err=$(printf '%s' "$payload" | base64 -d | tar -x -f - --no-same-owner 2>&1); then
	payload=
	printf 'sqdeck-stage-error=%s\n' "$err"; exit 0
fi
payload=
if [ -n "$envf" ]; then
	# Its tar entry is mode 600 and umask is 077: stat says what it is.
	m=$(stat -c %a -- "$envf")
	printf 'sqdeck-env-mode=%s\n' "$m"
	if [ "$m" != 600 ]; then
		printf 'sqdeck-stage-error=the secrets file %s is mode %s, not 600, after staging; not launching\n' "$jd/$envf" "$m"
		exit 0
	fi
fi
echo sqdeck-stage=ok
[ "${cutat:-}" != stage ] || sd_cut
