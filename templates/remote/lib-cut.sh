# shellcheck shell=sh
# sd_cut: TEST HOOK (SQDECK_TEST_FAULT): kill the sshd of this session, so
# the client sees the connection drop; prints sqdeck-fault=no-sshd and
# returns when there is none.
sd_cut() {
	p=$$
	while [ -n "$p" ] && [ "$p" -gt 1 ]; do
		if [ "$(ps -o comm= -p "$p")" = sshd ]; then
			kill -9 "$p"; sleep 2; exit 0
		fi
		p=$(ps -o ppid= -p "$p" | tr -d ' ')
	done
	echo sqdeck-fault=no-sshd
}
