# shellcheck shell=sh
# report FILE: prints "size hex" of FILE, the header image_sqsh_check
# wants.  Each process counts on a busy login node: stat and od, the
# words of od joined by the shell (no tr).
report() {
	sd_rs=$(stat -L -c %s -- "$1")
	# shellcheck disable=SC2046 # od's words: hex bytes, no glob characters
	set -- $(od -An -v -tx1 -N96 -- "$1")
	sd_rh=
	for sd_rb; do sd_rh=$sd_rh$sd_rb; done
	printf '%s %s\n' "$sd_rs" "$sd_rh"
}
