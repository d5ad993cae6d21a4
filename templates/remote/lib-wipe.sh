# shellcheck shell=sh
# sd_wipe PATH: remove a secrets sidecar without ever writing through a
# link.  The job dir is writable from inside the container, so the file
# there may have been replaced: a symlink (to ~/.bashrc, say), a FIFO, a
# device or a hard link to another file of the user.  Only a regular
# file with one link is overwritten, and dd opens it with O_NOFOLLOW and
# O_NONBLOCK (a link or a FIFO swapped in after the test is refused, not
# followed or waited on), in a process group killed after 10 s; anything
# else is only unlinked (rm removes a link, never its target).  True when
# nothing is left at PATH.
sd_wipe() {
	if [ -f "$1" ] && [ ! -L "$1" ]; then
		sd_n=$(stat -c '%h %s' -- "$1" 2>/dev/null) || sd_n=
		if [ "${sd_n%% *}" = 1 ]; then
			sd_n=${sd_n#* }
			sd_t=
			! command -v timeout >/dev/null 2>&1 ||
			    sd_t="timeout -s KILL 10"
			# shellcheck disable=SC2086 # $sd_t: a command and its words
			$sd_t dd if=/dev/zero of="$1" bs=4096 \
			    count=$(( (sd_n + 4095) / 4096 )) conv=notrunc,fsync \
			    oflag=nofollow,nonblock </dev/null >/dev/null 2>&1
		fi
	fi
	if [ -e "$1" ] || [ -L "$1" ]; then
		rm -f -- "$1" 2>/dev/null
	fi
	[ ! -e "$1" ] && [ ! -L "$1" ]
}
