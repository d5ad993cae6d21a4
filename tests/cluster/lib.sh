# tests/cluster/lib.sh: sourced by up, containers, mfa, certs, duo and bastion
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

# env_replace ERE LINE...: replace the lines of $D/env.sh that match ERE
# by LINE... in one move: the file is written whole beside it and renamed
# over it, so a suite (or tests/cluster/again) that reads it meanwhile sees
# the old lines or the new, never neither (a sed -i and an append left a
# moment without them, and again's check caught it).
env_replace() {
	local re=$1 env="$D/env.sh"
	shift
	{
		grep -vE -- "$re" "$env" 2>/dev/null || true
		printf '%s\n' "$@"
	} >"$env.$$.new" && mv -f "$env.$$.new" "$env"
}
# env_own PREFIX LINE...: the lines that start with "export PREFIX".
env_own() {
	local prefix=$1
	shift
	env_replace "^export $prefix" "$@"
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
