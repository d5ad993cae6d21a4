# tests/cluster/lib.sh: sourced by up, containers and mfa (after they set
# D, the state dir).
#
# started NAME PIDFILE EXE [SECONDS]: record a daemon this testbed started
# in $D/run/started, one line each: the list ./down stops from (by the PID
# in PIDFILE, only while that PID runs EXE), waiting up to SECONDS (default
# 10) after SIGTERM before SIGKILL.  Names starting with "sshd" are login
# daemons: ./down stops them and their sessions first.
# shellcheck shell=bash
started() {
	local m="$D/run/started" line="$1 $2 $3 ${4:-10}"
	mkdir -p "$D/run"
	grep -qxF -- "$line" "$m" 2>/dev/null || printf '%s\n' "$line" >>"$m"
}

# same_file A B: A and B are the same file (device and inode, symlinks
# followed).  How ./down and ./releases tell that a PID runs the program a
# record names: /proc/PID/exe of a daemon inside a release's root (a mount
# namespace of its own) reads "/usr/sbin/slurmd-wlm", the same text as the
# host's own slurmd; the inode tells them apart.
same_file() {
	local a b
	a=$(stat -L -c %d:%i "$1" 2>/dev/null) && b=$(stat -L -c %d:%i "$2" 2>/dev/null) &&
		[ "$a" = "$b" ]
}
