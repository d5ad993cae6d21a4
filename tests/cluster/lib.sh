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
