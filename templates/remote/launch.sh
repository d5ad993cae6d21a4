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
# sbatch's stdout, stderr and status in one capture, with no file (the job
# dir is the job's to write: a name there could be a link) and no
# program: stderr goes straight to the outer capture (fd 4), then a line
# with a mark and the status, then stdout.  The last mark is the one.
# The command line goes inside the inner $(...) (eval of the whole
# assignment, the newline ends a comment): the shell of that $(...)
# becomes sbatch, one fork less than an eval inside it.
sd_mark="sqdeck-mark-$$"
sd_all=$( { eval "sd_o=\$($cmd
)" 2>&4 </dev/null; sd_r=$?
	printf '\n%s %s\n%s' "$sd_mark" "$sd_r" "$sd_o"; } 4>&1 )
err=${sd_all%"$sd_nl$sd_mark "*}
sd_all=${sd_all##*"$sd_nl$sd_mark "}
rc=${sd_all%%"$sd_nl"*}
case $sd_all in
*"$sd_nl"*) out=${sd_all#*"$sd_nl"} ;;
*) out= ;;
esac
sd_all=
case $fault in
after-sbatch)
	# TEST HOOK: kill this SSH session's sshd, so the client sees the
	# connection drop right after sbatch queued the job.
	sd_cut ;;
empty-reply)
	# TEST HOOK: sbatch's answer is lost.
	out=; err= ;;
esac
echo "sqdeck-sbatch-rc=$rc"
sd_say sqdeck-out= "$out"
sd_say sqdeck-err= "$err"
id=${out%%;*}
case $id in ''|*[!0-9]*) exit 0 ;; esac
release "$logs" "$name" "$id"
# The cleanup job (sqdeck(1): SECURITY): once the job has ended, however
# (a signal or a KILL leaves the sidecar: SLURM may run it again), a tiny
# job wipes the sidecar, with no sqdeck process needed.  Its sbatch runs
# after the reply, detached (nothing of the session's is open in it, so
# the session ends without it): the submit waits for one sbatch, not two.
# Its answer is left in sbatch/.wipe.XXXXXX (a new file: the job dir is
# the job's to write); refused, the poll and cancel still wipe the sidecar.
if [ -n "${wcmd:-}" ]; then
	(
		wo=$(mktemp sbatch/.wipe.XXXXXX) || wo=/dev/null
		eval "$wcmd --dependency=afterany:$id" >"$wo" 2>&1
	) </dev/null >/dev/null 2>&1 &
	echo "sqdeck-wipejob=queued $id"
fi
[ "${cutat:-}" != end ] || sd_cut
