# shellcheck shell=sh disable=SC2154
# sqdeck shell: a step in a running job, on its terminal (the PTY of the
# channel), in the job's container: the .sqsh, mounts and working dir of
# its staged script, taken only if the script still has the hash sqdeck
# rendered (the job dir is writable from inside the container).  Set by
# the caller, quoted: jid, node ("" = the first), sb and sha (the staged
# script and its hash; "" = no record: a shell on the node), jd (the job
# dir), cmdq (the command as quoted words; "" = a shell).  Never runs
# anything on the login node but srun.
LC_ALL=C; export LC_ALL
st=$(squeue -h -j "$jid" -o '%T' 2>/dev/null | head -n 1)
if [ "$st" != RUNNING ]; then
	echo "sqdeck: job $jid is ${st:-no longer in the queue}, not RUNNING: no shell" >&2
	exit 125
fi
SQDECK_IMAGE='' SQDECK_MOUNTS='' SQDECK_WORKDIR=$jd
if [ -n "$sb" ]; then
	if [ ! -f "$sb" ] || [ -L "$sb" ] ||
	    [ "$(sha256sum <"$sb" | cut -d ' ' -f 1)" != "$sha" ]; then
		echo "sqdeck: the job's staged script $sb changed since submit: its container settings are not trusted" >&2
		exit 125
	fi
	eval "$(grep -E "^SQDECK_(IMAGE|MOUNTS|WORKDIR)='[^']*'\$" "$sb")"
fi
if [ -n "$cmdq" ]; then
	eval "set -- $cmdq"
else
	set -- /bin/sh -c 'command -v bash >/dev/null 2>&1 && exec bash; exec sh'
fi
if [ -n "$SQDECK_IMAGE" ]; then
	set -- --container-image="$SQDECK_IMAGE" \
	    --container-mounts="$SQDECK_WORKDIR:$SQDECK_WORKDIR${SQDECK_MOUNTS:+,$SQDECK_MOUNTS}" \
	    --container-workdir="$SQDECK_WORKDIR" "$@"
else
	set -- --chdir="$SQDECK_WORKDIR" "$@"
fi
if [ -n "$node" ]; then
	nl=$(squeue -h -j "$jid" -o '%N' 2>/dev/null | head -n 1)
	if ! scontrol show hostnames "$nl" 2>/dev/null | grep -qxF -- "$node"; then
		echo "sqdeck: node $node is not one of job $jid's nodes (${nl:-none}): give one of them to --node" >&2
		exit 125
	fi
	set -- --nodelist="$node" "$@"
fi
exec srun --jobid="$jid" --overlap --pty -N 1 -n 1 "$@"
