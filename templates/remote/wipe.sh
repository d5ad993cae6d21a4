# shellcheck shell=sh disable=SC2154
# Remove a secrets sidecar; says so once it is known to be gone.  Set by
# the caller, quoted: f.
rm -f -- "$f" && [ ! -e "$f" ] && echo sqdeck-wiped=ok
