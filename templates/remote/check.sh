# shellcheck shell=sh disable=SC2154
# The check of a submit (sqdeck(1): submit), after lib-report.sh and
# lib-cstat.sh; alone for a dry run, else the first part of submit.sh. Set
# by the caller, quoted: img (the image file, may be empty), reg (the
# registry whose enroot credentials are looked for, may be empty); the
# positional parameters are the paths to test -e.  Leaves miss (how many
# paths are missing) and imgtxt (the image's lines, as printed) for
# submit.sh's gate.
LC_ALL=C; export LC_ALL
# Indexes, not paths, come back: nothing to unquote.
i=0; miss=0
for p in "$@"; do
	if test -e "$p"; then echo "path $i 1"; else echo "path $i 0"; miss=$((miss + 1)); fi
	i=$((i + 1))
done
imgtxt=$(
	if [ -n "$img" ] && [ -f "$img" ] && [ -r "$img" ]; then
		printf 'image 1 %s\n' "$(report "$img")"
	else
		echo 'image 0'
	fi
	# A registry image's file is the shared cache's: who owns it?
	if [ -n "$reg" ] && [ -n "$img" ]; then
		cstat "$img" 'cache '
	fi
)
printf '%s\n' "$imgtxt"
c=${ENROOT_CONFIG_PATH:-${XDG_CONFIG_HOME:-$HOME/.config}/enroot}/.credentials
if [ -n "$reg" ] && [ -f "$c" ] && awk -v r="$reg" '$1 == "machine" && $2 == r { f = 1 } END { exit !f }' "$c" 2>/dev/null; then
	echo 'creds 1'
else
	echo 'creds 0'
fi
echo end
