# shellcheck shell=sh disable=SC2154
# Read a log from an offset (ops_log_read; ops_log_parse reads the reply):
# a header line, "missing", "unreadable", "irregular" or "size SIZE
# OFFSET TRUNCATED", then at most m bytes from offset o (from 0, TRUNCATED
# 1, when the file is now shorter than o).  Set by the caller, quoted: f
# (the file), o, m, rt (seconds the read may take).
# The job writes its logs' directory: f may be a FIFO, a device or a
# symlink to one.  Only a regular file is read (a link to one is): the
# size comes from stat, which opens nothing, and the bytes from tail and
# head in a process group of their own that timeout kills whole after rt
# seconds, so a file swapped after the test costs rt seconds and leaves
# no process behind.
[ -e "$f" ] || { echo missing; exit 0; }
[ -f "$f" ] || { echo irregular; exit 0; }
[ -r "$f" ] || { echo unreadable; exit 0; }
s=$(stat -L -c %s -- "$f") || exit 3
s=$((s + 0)); t=0
if [ "$s" -lt "$o" ]; then o=0; t=1; fi
echo "size $s $o $t"
[ "$m" -gt 0 ] || exit 0
if command -v timeout >/dev/null 2>&1; then T="timeout -s KILL $rt"; else T=; fi
# shellcheck disable=SC2016,SC2086 # $T: a command and its words
$T sh -c 'tail -c +"$1" -- "$3" | head -c "$2"' rd $((o + 1)) "$m" "$f" \
    </dev/null
exit 0
