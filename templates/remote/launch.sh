# shellcheck shell=sh disable=SC2154
# The launch round trip (sqdeck(1): submit), after lib-release.sh (and
# lib-cut.sh for the test hook): cd to the job dir (the job's working
# directory), sbatch, then, when it printed a job id, the log dir and the
# release. Set by the caller, quoted: hold (1: leave the job held, --hold), jd,
# logs, name (the job dir, log dir and job name), cmd (the sbatch command
# line, every value in it quoted), fault (SQDECK_TEST_FAULT's launch
# fault, after-sbatch or empty-reply; empty: none), wcmd (may be unset:
# the sbatch command line of the job's cleanup job, quoted, without its
# --dependency), cutat (TEST HOOK: end cuts the connection after it all).
LC_ALL=C; export LC_ALL
cd -- "$jd" || { echo sqdeck-sbatch-rc=-1; exit 0; }
# sbatch's stderr goes to a new file: the job dir is the job's to write,
# and a fixed name could be a link to another file of the user.
e=$(mktemp sbatch/.sbatch.err.XXXXXX) || { echo sqdeck-sbatch-rc=-1; exit 0; }
out=$(eval "$cmd" 2>"$e" </dev/null)
rc=$?
case $fault in
after-sbatch)
	# TEST HOOK: kill this SSH session's sshd, so the client sees the
	# connection drop right after sbatch queued the job.
	sd_cut ;;
empty-reply)
	# TEST HOOK: sbatch's answer is lost.
	out=; : >"$e" ;;
esac
echo "sqdeck-sbatch-rc=$rc"
[ -z "$out" ] || printf '%s\n' "$out" | sed '/^$/d; s/^/sqdeck-out=/'
[ ! -s "$e" ] || sed '/^$/d; s/^/sqdeck-err=/' "$e"
rm -f -- "$e"
id=${out%%;*}
case $id in ''|*[!0-9]*) exit 0 ;; esac
# The cleanup job (sqdeck(1): SECURITY): once the job has ended, however
# (a signal or a KILL leaves the sidecar: SLURM may run it again), a tiny
# job wipes the sidecar, with no sqdeck process needed.  Its sbatch runs
# beside the release: two RPCs in the time of one.
wpid=
if [ -n "${wcmd:-}" ] && wo=$(mktemp sbatch/.wipe.XXXXXX); then
	eval "$wcmd --dependency=afterany:$id" >"$wo" 2>&1 </dev/null &
	wpid=$!
fi
release "$logs" "$name" "$id"
if [ -n "$wpid" ]; then
	wait "$wpid"
	wrc=$?
	printf 'sqdeck-wipejob=%s %s\n' "$wrc" "$(tr '\n' ' ' <"$wo")"
	rm -f -- "$wo"
fi
[ "${cutat:-}" != end ] || sd_cut
