# shellcheck shell=sh disable=SC2154
# A retry's env sidecar, written again before launch.sh (the poll wiped
# it when the job ended).  Set by the caller, quoted: side (its text; only
# builtins see it), sidef (its path).
umask 077
printf '%s' "$side" >"$sidef" && chmod 600 -- "$sidef"
side=
