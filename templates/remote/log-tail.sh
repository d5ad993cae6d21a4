# shellcheck shell=sh disable=SC2154
# The last n lines of a log, within its last MiB (ops_log_tail;
# ops_log_parse reads the reply): a header line, "missing", "unreadable",
# "irregular" or "size SIZE START 0 CUT", then the lines.  Set by the
# caller, quoted: f (the file), n, rt (seconds the reads may take).
# Only a regular file is read, as in log-read.sh: stat for the size, the
# reads in one process group that timeout kills whole after rt seconds.
[ -e "$f" ] || { echo missing; exit 0; }
[ -f "$f" ] || { echo irregular; exit 0; }
[ -r "$f" ] || { echo unreadable; exit 0; }
s=$(stat -L -c %s -- "$f") || exit 3
s=$((s + 0)); b=0
[ "$s" -le 1048576 ] || b=$((s - 1048576))
if command -v timeout >/dev/null 2>&1; then T="timeout -s KILL $rt"; else T=; fi
# rd S B N F: the header (with whether the first line shown starts before
# the last MiB), then the lines.
# shellcheck disable=SC2016 # expanded by the inner sh
rd='s=$1 b=$2 n=$3 f=$4
cut=0
if [ "$b" -gt 0 ] && [ "$n" -gt 0 ]; then
	l=$(tail -c +$((b + 1)) -- "$f" | head -c $((s - b)) | wc -l)
	[ "$(tail -c 1 -- "$f" | od -An -tx1 | tr -d " ")" = 0a ] || l=$((l + 1))
	p=$(tail -c +$b -- "$f" | head -c 1 | od -An -tx1 | tr -d " ")
	[ "$l" -le "$n" ] && [ "$p" != 0a ] && cut=1
fi
echo "size $s $b 0 $cut"
[ "$n" -gt 0 ] || exit 0
tail -c +$((b + 1)) -- "$f" | head -c $((s - b)) | tail -n "$n"'
# shellcheck disable=SC2086 # $T: a command and its words
$T sh -c "$rd" rd "$s" "$b" "$n" "$f" </dev/null || exit 3
exit 0
