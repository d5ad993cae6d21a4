# shellcheck shell=sh disable=SC2154
# Read a log from an offset (ops_log_read; ops_log_parse reads the reply):
# a header line, "missing", "unreadable" or "size SIZE OFFSET TRUNCATED",
# then at most m bytes from offset o (from 0, TRUNCATED 1, when the file
# is now shorter than o).  Set by the caller, quoted: f (the file), o, m.
# wc -c of a regular file is an fstat; tail -c +N seeks.
[ -e "$f" ] || { echo missing; exit 0; }
[ -r "$f" ] || { echo unreadable; exit 0; }
s=$(wc -c < "$f") || exit 3
s=$((s + 0)); t=0
if [ "$s" -lt "$o" ]; then o=0; t=1; fi
echo "size $s $o $t"
[ "$m" -gt 0 ] || exit 0
tail -c +$((o + 1)) -- "$f" | head -c "$m"
exit 0
