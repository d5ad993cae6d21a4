# shellcheck shell=sh disable=SC2154
# sec KIND [ARG]: the header of a section of a batched reply, the line
# "$N KIND ARG" after a newline; N (the random marker of this script) is
# set by the caller, quoted.  remote_reply_parse (src/ssh/remote.h) cuts
# the reply at these lines; a job's output cannot forge one.
sec() { printf '\n%s %s %s\n' "$N" "$1" "$2"; }
