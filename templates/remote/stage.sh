# shellcheck shell=sh disable=SC2154
# The stage round trip (sqdeck(1): IMAGES AND STORAGE): the job dir with
# specs/ env/ meta/ sbatch/ logs/ results/ files/ and the mode-600 sidecar,
# from a tar stream.  Set by the caller, quoted: jd (the job dir), envf (the
# sidecar relative to it, empty: none), payload (the tar, base64; it may hold
# the sidecar, so only builtins and pipes see it).
LC_ALL=C; export LC_ALL
# umask 077 before anything is written: the sidecar is never readable.
umask 077
if ! err=$(mkdir -- "$jd" 2>&1); then
	printf 'sqdeck-stage-error=%s\n' "$err"; exit 0
fi
cd -- "$jd" || exit 0
mkdir -p specs env meta sbatch logs results files || exit 0
if ! err=$(printf '%s' "$payload" | base64 -d | tar -x -f - --no-same-owner 2>&1); then
	printf 'sqdeck-stage-error=%s\n' "$err"; exit 0
fi
payload=
if [ -n "$envf" ]; then
	chmod 600 -- "$envf"
	printf 'sqdeck-env-mode=%s\n' "$(stat -c %a -- "$envf")"
fi
echo sqdeck-stage=ok
