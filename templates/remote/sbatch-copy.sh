# shellcheck shell=sh disable=SC2154
# A retry's sbatch file, checked before sbatch runs it (retry_run): the
# job dir is writable from inside the container, so the staged file may
# have been rewritten to run anything outside it.  It is copied (a
# regular file only, 8 MiB at most, in a process group killed after 10 s)
# into a private directory, and the copy runs only if its SHA-256 is the
# one the local record kept at submit; else sbatch is not run and this
# says why on stderr.  Runs inside launch.sh's eval (its stdout is
# sbatch's): sets sbc, the copy.  Set by the caller, quoted: sbf (the
# staged file), sbh (its SHA-256).
sbd=$(mktemp -d) || exit 1
trap 'rm -rf -- "$sbd"' EXIT
sbc=$sbd/job.sbatch
if command -v timeout >/dev/null 2>&1; then T="timeout -s KILL 10"; else T=; fi
if [ -f "$sbf" ]; then
	# shellcheck disable=SC2016,SC2086 # $T: a command and its words
	$T sh -c 'head -c 8388608 -- "$1" >"$2"' cp "$sbf" "$sbc" </dev/null
fi
h=$(sha256sum <"$sbc" 2>/dev/null) || h=
if [ -z "$sbh" ] || [ "${h%% *}" != "$sbh" ]; then
	echo "sbatch: error: sqdeck: $sbf is not the file submitted (its SHA-256 differs from the one in the local record): not run" >&2
	exit 1
fi
