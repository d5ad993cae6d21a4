# shellcheck shell=sh disable=SC2154
# Release an adopted job, after lib-release.sh: mkdir its log dir,
# release, state.  Set by the caller, quoted: logs, name, id.
LC_ALL=C; export LC_ALL
release "$logs" "$name" "$id"
