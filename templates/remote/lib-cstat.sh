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
	elif [ -f "$1.digest" ]; then printf '%sdigest %s %s\n' "$2" "$(stat -c '%u %a' -- "$1.digest")" "$(head -c 100 -- "$1.digest" | tr -cd 'a-z0-9:')"; fi
}
