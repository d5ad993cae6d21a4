# shellcheck shell=sh disable=SC2154
# sqdeck shell: a step in a running job, on its terminal (the PTY of the
# channel), that joins the job's running container (enter-node.sh, given
# as nodesh): whether the job has one, and its working dir, come from its
# staged script, taken only if the script still has the hash sqdeck
# rendered (the job dir is writable from inside the container).  Set by
# the caller, quoted: jid, node ("" = the first), sb and sha (the staged
# script and its hash; "" = no record: its container if one is there, else
# the node), jd (the job
# dir), cmdq (the command as quoted words; "" = a shell), nodesh.  Never runs
# anything on the login node but srun.
LC_ALL=C; export LC_ALL
st=$(squeue -h -j "$jid" -o '%T' 2>/dev/null | head -n 1)
if [ "$st" != RUNNING ]; then
	echo "sqdeck: job $jid is ${st:-no longer in the queue}, not RUNNING: no shell" >&2
	exit 125
fi
SQDECK_IMAGE='' SQDECK_WORKDIR=$jd
if [ -n "$sb" ]; then
	if [ ! -f "$sb" ] || [ -L "$sb" ] ||
	    [ "$(sha256sum <"$sb" | cut -d ' ' -f 1)" != "$sha" ]; then
		echo "sqdeck: the job's staged script $sb changed since submit: its container settings are not trusted" >&2
		exit 125
	fi
	eval "$(grep -E "^SQDECK_(IMAGE|WORKDIR)='[^']*'\$" "$sb")"
fi
if [ -n "$cmdq" ]; then
	eval "set -- $cmdq"
else
	set --
fi
# The node's half joins the running container (want 1), or runs on the
# node (0: container none), or joins one if there is one (?: no record).
if [ -z "$sb" ]; then
	want='?' njd=''
elif [ -n "$SQDECK_IMAGE" ]; then
	want=1 njd=$SQDECK_WORKDIR
else
	want=0 njd=$SQDECK_WORKDIR
fi
if [ -n "$node" ]; then
	nl=$(squeue -h -j "$jid" -o '%N' 2>/dev/null | head -n 1)
	if ! scontrol show hostnames "$nl" 2>/dev/null | grep -qxF -- "$node"; then
		echo "sqdeck: node $node is not one of job $jid's nodes (${nl:-none}): give one of them to --node" >&2
		exit 125
	fi
	set -- --nodelist="$node" --chdir="$SQDECK_WORKDIR" /bin/sh -c "$nodesh" \
	    sqdeck-enter "$jid" "$want" "$njd" "$@"
else
	set -- --chdir="$SQDECK_WORKDIR" /bin/sh -c "$nodesh" \
	    sqdeck-enter "$jid" "$want" "$njd" "$@"
fi
exec srun --jobid="$jid" --overlap --pty -N 1 -n 1 "$@"
