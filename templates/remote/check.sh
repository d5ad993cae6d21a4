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
# One stat for the image, its directory, its digest and our uid where it
# can (imgfast, which adds its fp line and reuses the header and digest
# of KNOWN lines when that line is theirs), else report and cstat.
if [ -n "$reg" ]; then sd_pfx='cache '; else sd_pfx=; fi
sd_nl='
'
sd_imgq=1; sd_img=
if [ -n "$img" ] && [ -f "$img" ] && [ -r "$img" ] &&
    imgfast "$img" "$sd_pfx" "${want:-}"; then
	imgtxt=${sd_img%"$sd_nl"}
else
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
fi
# shellcheck disable=SC2034 # sd_imgq: read by imgfast
sd_imgq=; sd_img=
printf '%s\n' "$imgtxt"
# The credentials file is read by the shell (no awk): the lines of
# another machine, and the secrets in them, go no further.
c=${ENROOT_CONFIG_PATH:-${XDG_CONFIG_HOME:-$HOME/.config}/enroot}/.credentials
sd_cr=0
if [ -n "$reg" ] && [ -f "$c" ] && [ -r "$c" ]; then
	# shellcheck disable=SC2034 # sd_z: the rest of the line, unread
	while read -r sd_a sd_b sd_z || [ -n "$sd_a" ]; do
		if [ "$sd_a" = machine ] && [ "$sd_b" = "$reg" ]; then
			sd_cr=1; break
		fi
		sd_a=
	done <"$c"
	unset sd_a sd_b sd_z
fi
echo "creds $sd_cr"
echo end
