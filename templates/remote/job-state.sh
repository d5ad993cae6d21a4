# shellcheck shell=sh disable=SC2154
# Where a job runs, for sqdeck shell and forward.  Set by the caller,
# quoted: jid, want (a node asked for; "" = the first).  Prints "S STATE"
# and, while it runs, "N NODE" and "A ADDRESS" (its NodeAddr: how the
# login node reaches it), or "X NODELIST" when want is not one of them.
LC_ALL=C; export LC_ALL
st=$(squeue -h -j "$jid" -o '%T|%N' 2>/dev/null | head -n 1)
nl=${st#*|}
st=${st%%|*}
if [ -z "$st" ]; then
	st=$(sacct -X -n -P -j "$jid" -o State 2>/dev/null | head -n 1)
	nl=
fi
echo "S ${st:-UNKNOWN}"
if [ "$st" = RUNNING ] && [ -n "$nl" ]; then
	if [ -z "$want" ]; then
		n=$(scontrol show hostnames "$nl" 2>/dev/null | head -n 1)
	elif scontrol show hostnames "$nl" 2>/dev/null | grep -qxF -- "$want"; then
		n=$want
	else
		echo "X $nl"
		exit 0
	fi
	echo "N $n"
	echo "A $(sinfo -h -N -n "$n" -o %o 2>/dev/null | head -n 1)"
fi
