# shellcheck shell=sh disable=SC2154
# A retry's env sidecar, written again before launch.sh (the poll wiped
# it when the job ended).  Set by the caller, quoted: side (its text; only
# builtins see it), sidef (its path).
# The job dir is writable from inside the container, so sidef may now be
# a symlink to another file of the user (the secrets would be written
# there) or a FIFO: the text goes to a new file that mktemp creates (mode
# 600, O_EXCL) beside it, renamed over sidef (rename replaces a link, it
# never writes through one; -T refuses a directory).
umask 077
if sidet=$(mktemp -- "$sidef.XXXXXX"); then
	if ! { printf '%s' "$side" >"$sidet" && chmod 600 -- "$sidet" &&
	    mv -f -T -- "$sidet" "$sidef"; }; then
		rm -f -- "$sidet"
	fi
fi
side=
