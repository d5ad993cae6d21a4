# shellcheck shell=sh
# The compute node's half of `sqdeck shell` (enter.sh runs it there with
# srun --overlap --pty): join the job's RUNNING Pyxis container, never a
# new one from the same image.  Pyxis names an unnamed container
# pyxis_JOBID.STEPID (container_scope=global) or pyxis_JOBID_JOBID.STEPID
# (scope job) and removes it at the step's end, so nothing of ours stays
# on the node.  `enroot list -f` gives its PID; where several nodes of one
# host share enroot's data dir, only a PID that SLURM counts as the job's
# on this node (scontrol listpids) is taken.  `enroot exec PID` enters its
# namespaces: the same rootfs and mounts, its environment.
# Arguments: the job id, want (1: the job has a container, wait for it;
# 0: container none, a shell on the node; ?: unknown, join one if it is
# there), the job dir ("" = the container's own working dir), then the
# command (none: a shell).
LC_ALL=C; export LC_ALL
jid=$1 want=$2 jd=$3
shift 3
if [ $# -eq 0 ]; then
	set -- /bin/sh -c 'command -v bash >/dev/null 2>&1 && exec bash; exec sh'
fi
if [ "$want" = 0 ]; then
	exec "$@"
fi
node=${SLURMD_NODENAME:-$(hostname)}
waitmax=60

# The first PID of the job's running container on this node, or nothing.
enter_find() {
	pids=$(scontrol listpids "$jid" "$node" 2>/dev/null |
	    awk 'NR > 1 && $1 ~ /^[0-9]+$/ { printf " %s ", $1 }')
	enroot list -f 2>/dev/null | awk -v jid="$jid" -v pids="$pids" '
	NR == 1 { next }
	/^[^ \t]/ { name = $1; pid = $2 }
	/^[ \t]/ { pid = $1 }
	pid !~ /^[0-9]+$/ { next }
	{
		ours = name ~ ("^pyxis_" jid "(_" jid ")?\\.[0-9]+$")
		if (pids != "") {
			if (index(pids, " " pid " ") == 0)
				next
			if (!ours && name != "<unknown>")
				next
		} else if (!ours)
			next
		print pid
		exit
	}'
}

if ! command -v enroot >/dev/null 2>&1; then
	if [ "$want" = 1 ]; then
		echo "sqdeck: no enroot on $node: cannot join job $jid's container" >&2
		exit 125
	fi
	exec "$@"
fi
pid=$(enter_find)
if [ -z "$pid" ] && [ "$want" = 1 ]; then
	echo "sqdeck: job $jid's container is not running on $node yet (still starting?): waiting up to ${waitmax}s" >&2
	i=0
	while [ -z "$pid" ] && [ "$i" -lt "$waitmax" ]; do
		sleep 1
		i=$((i + 1))
		pid=$(enter_find)
	done
fi
if [ -z "$pid" ]; then
	if [ "$want" = 1 ]; then
		echo "sqdeck: no running container of job $jid on $node after ${waitmax}s (its step may have ended, or not started there): no shell" >&2
		exit 125
	fi
	echo "sqdeck: no container of job $jid on $node: a shell on the node" >&2
	exec "$@"
fi
# shellcheck disable=SC2016
exec enroot exec -e TERM "$pid" /bin/sh -c \
    'if [ -n "$1" ]; then cd "$1" || exit 125; fi; shift; exec "$@"' \
    sqdeck-enter "$jd" "$@"
