# shellcheck shell=sh
# report FILE: prints "size hex" of FILE, the header image_sqsh_check
# wants.  Each process counts on a busy login node: stat, not wc | tr.
report() {
	printf '%s %s\n' "$(stat -L -c %s -- "$1")" "$(od -An -v -tx1 -N96 -- "$1" | tr -d ' \n')"
}
