# shellcheck shell=sh
# cstat FILE PREFIX: owner and mode of a cached image, its directory and
# the digest recorded next to it, each line prefixed with PREFIX
# (image_cache_stat_line reads them).  Never through a symlink: one is
# reported as such.
cstat() {
	printf '%sme %s\n' "$2" "$(id -u)"
	if [ -L "$1" ]; then printf '%sfile link\n' "$2"
	elif [ -f "$1" ]; then printf '%sfile %s\n' "$2" "$(stat -c '%u %a %U' -- "$1")"; fi
	case $1 in */*) sd_cdir=${1%/*}; sd_cdir=${sd_cdir:-/} ;;
	*) sd_cdir=. ;; esac
	printf '%sdir %s\n' "$2" "$(stat -L -c '%u %a' -- "$sd_cdir")"
	if [ -L "$1.digest" ]; then printf '%sdigest link\n' "$2"
	elif [ -f "$1.digest" ]; then printf '%sdigest %s %s\n' "$2" "$(stat -c '%u %a' -- "$1.digest")" "$(sd_dgst "$1.digest")"; fi
}
# sd_dgst FILE: its first 100 bytes, only a-z 0-9 and ':' kept (what
# tr -cd would keep, done by the shell).
sd_dgst() {
	sd_t=$(head -c 100 -- "$1")
	sd_o=
	while [ -n "$sd_t" ]; do
		sd_r=${sd_t#?}
		case ${sd_t%"$sd_r"} in [a-z0-9:]) sd_o=$sd_o${sd_t%"$sd_r"} ;; esac
		sd_t=$sd_r
	done
	printf '%s' "$sd_o"
}
# imgfast FILE PREFIX [KNOWN]: report's "image 1 size hex" line, an
# "image fp" line, then (PREFIX not empty) cstat's lines, for a regular
# file that is no symlink: one stat for our uid (/proc/self is the stat
# process, it is ours), the file, its directory and the digest, where
# report and cstat start seven programs.  The fp line is the file's and
# the digest's device, inode, mtime and ctime: when KNOWN (the lines the
# client validated) holds the same fp line, neither was written or
# replaced since (ctime cannot be set back), so their header and digest
# are the ones KNOWN holds and od and head are not started.  False,
# having printed nothing, when that stat does not answer for each: the
# caller asks report and cstat.  The lines are left in sd_img as well;
# with sd_imgq=1 they are not printed (check.sh calls it in its own shell,
# not in a $(...): one fork less on the login node).
imgfast() {
	[ -f "$1" ] && [ ! -L "$1" ] || return 1
	case $1 in */*) sd_cdir=${1%/*}; sd_cdir=${sd_cdir:-/} ;;
	*) sd_cdir=. ;; esac
	sd_f=$1; sd_p=$2; sd_kn=${3:-}; sd_dg=; sd_dgf=; sd_n=3
	if [ -L "$1.digest" ]; then sd_dg='link'
	elif [ -f "$1.digest" ]; then sd_dg=$1.digest; sd_dgf=$sd_dg; sd_n=4; fi
	sd_s=$(stat -L -c '%d %i %y %z|%u %a %U %s' -- /proc/self "$1" \
	    "$sd_cdir" ${sd_dgf:+"$sd_dgf"} 2>/dev/null) || return 1
	sd_nl='
'
	set -f; IFS=$sd_nl
	# shellcheck disable=SC2086 # the lines of stat, split on newlines
	set -- $sd_s
	set +f; unset IFS
	[ "$#" = "$sd_n" ] || return 1
	sd_me=${1#*|}; sd_me=${sd_me%% *}; sd_fl=${2#*|}; sd_dl=${3#*|}
	sd_fp="image fp ${2%%|*}"
	sd_gl=
	if [ -n "${4:-}" ]; then sd_fp="$sd_fp / ${4%%|*}"; sd_gl=${4#*|}; fi
	# uid mode user size: the file's size is its last word.
	sd_sz=${sd_fl##* }
	sd_hx=; sd_dv=
	case $sd_nl$sd_kn$sd_nl in
	*"$sd_nl$sd_fp$sd_nl"*)
		sd_t=$sd_nl$sd_kn$sd_nl
		case $sd_t in *"${sd_nl}image 1 $sd_sz "*)
			sd_hx=${sd_t#*"${sd_nl}image 1 $sd_sz "}
			sd_hx=${sd_hx%%"$sd_nl"*} ;;
		esac
		case $sd_hx in *[!0-9a-f]*) sd_hx= ;; esac
		sd_t=${sd_gl% *}
		sd_t=$sd_nl$sd_p"digest ${sd_t% *} "
		case $sd_nl$sd_kn in *"$sd_t"*)
			sd_dv=${sd_kn#*"$sd_t"}
			sd_dv=${sd_dv%%"$sd_nl"*}
			case $sd_dv in *[!a-z0-9:]*) sd_dv= ;; esac ;;
		esac ;;
	esac
	[ -n "$sd_hx" ] || sd_hx=$(sd_hex "$sd_f")
	sd_img="image 1 $sd_sz $sd_hx$sd_nl$sd_fp$sd_nl"
	if [ -n "$sd_p" ]; then
		sd_img=$sd_img${sd_p}"me $sd_me$sd_nl"
		sd_img=$sd_img${sd_p}"file ${sd_fl% *}$sd_nl"
		sd_dl=${sd_dl% *}
		sd_img=$sd_img${sd_p}"dir ${sd_dl% *}$sd_nl"
		if [ "$sd_dg" = link ]; then sd_img=$sd_img${sd_p}"digest link$sd_nl"
		elif [ -n "$sd_dg" ]; then
			sd_gl=${sd_gl% *}
			[ -n "$sd_dv" ] || sd_dv=$(sd_dgst "$sd_dg")
			sd_img=$sd_img${sd_p}"digest ${sd_gl% *} $sd_dv$sd_nl"
		fi
	fi
	[ "${sd_imgq:-}" = 1 ] || printf '%s' "$sd_img"
}
# sd_hex FILE: the hex of its first 96 bytes, as report prints it.
sd_hex() {
	# shellcheck disable=SC2046 # od's words: hex bytes, no glob characters
	set -- $(od -An -v -tx1 -N96 -- "$1")
	sd_rh=
	for sd_rb; do sd_rh=$sd_rh$sd_rb; done
	printf '%s' "$sd_rh"
}
