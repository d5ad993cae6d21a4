# shellcheck shell=sh
# sqsh_ok FILE: the squashfs test the cluster side can do before renaming
# into the cache: magic, version 4.0, bytes_used within the file.  The C
# check (image_sqsh_check) is stricter and runs on the result as well.
sqsh_ok() {
	[ -f "$1" ] || return 1
	size=$(wc -c <"$1" | tr -d ' ') || return 1
	# shellcheck disable=SC2046 # one word per byte, on purpose
	set -- $(od -An -v -tu1 -N96 -- "$1")
	[ $# -eq 96 ] || return 1
	[ "$1 $2 $3 $4" = '104 115 113 115' ] || return 1
	[ "${29} ${30} ${31} ${32}" = '4 0 0 0' ] || return 1
	used=$(( ${41} + (${42} << 8) + (${43} << 16) + (${44} << 24) + (${45} << 32) + (${46} << 40) + (${47} << 48) ))
	[ "$used" -ge 96 ] && [ "$used" -le "$size" ]
}
