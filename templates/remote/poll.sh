# shellcheck shell=sh disable=SC2154
# The poll of a cluster (monitor_poll, src/ops/monitor.h), after
# lib-sec.sh and lib-wipe.sh: one squeue for all of the user's jobs; for the tracked jobs
# no longer in the queue one sacct; for those that ended, status.json or
# the tail of their logs (triage) and the wipe of their env sidecar.  Each
# answer is a section (sec).  Set by the caller, quoted: sq (the squeue
# command line), sa (the sacct command line but its -j), sep (the field
# separator of both), ids (the tracked SLURM ids, space-separated), arr
# (those of arrays, in ids too), ic and
# sc (the JobIDRaw and State columns of sacct's rows), term and tri (the
# state words that end a job and those that need its logs, "A|B|C"), rs
# (seconds a file read may take), rb (seconds all reads may take), smax
# and lmax (bytes of status.json and of each log read).  The positional
# parameters are five per tracked job, in the order to read them: ID
# STATUS OUT ERR ENV (paths; empty: none).
nl='
'
q=$(eval "$sq" 2>&1); rc=$?
sec squeue "$rc"; printf '%s' "$q"
[ "$rc" -eq 0 ] || { sec end 0; exit 0; }
miss=
for id in $ids; do
	# An array (arr: its ids): sacct has every task, asked each time.
	case " $arr " in *" $id "*) miss="$miss${miss:+,}$id"; continue ;; esac
	case "$q" in
	"$id$sep"*|*"$nl$id$sep"*) ;;
	*) miss="$miss${miss:+,}$id" ;;
	esac
done
[ -n "$miss" ] || { sec end 0; exit 0; }
a=$(eval "$sa"' -j "$miss"' 2>&1); rc=$?
sec sacct "$rc"; printf '%s' "$a"
[ "$rc" -eq 0 ] || { sec end 0; exit 0; }
if command -v timeout >/dev/null 2>&1; then T="timeout -s KILL $rs"; else T=; fi
t0=$(date +%s)
# rd KIND ID head|tail MAX PATH: a regular file only (a FIFO, a device or
# a symlink to one is not opened), in a process of its own killed after
# rs seconds.  The marker goes in its environment, never its argv: ps
# shows argv to every user of the login node, environ only to its owner.
rd() {
	[ -n "$5" ] || return 0
	# shellcheck disable=SC2016,SC2086 # $T: a command and its words
	SQDECK_RD_N=$N $T sh -c 'if [ -f "$5" ]; then printf "\n%s %s %s\n" "$SQDECK_RD_N" "$1" "$2"; unset SQDECK_RD_N; exec "$3" -c "$4" -- "$5"; fi' rd "$1" "$2" "$3" "$4" "$5" </dev/null
	case $? in 124|137) stuck=1; sec stuck "$2" ;; esac
}
# inw WORD LIST: WORD is one of the words of LIST ("A|B|C").
inw() {
	case $1 in *'|'*) return 1 ;; esac
	case "|$2|" in *"|$1|"*) return 0 ;; esac
	return 1
}
# j ID STATUS OUT ERR ENV: what the end of a job that left the queue needs.
j() {
	case ",$miss," in *",$1,"*) ;; *) return 0 ;; esac
	s=$(printf '%s\n' "$a" | awk -F"$sep" -v id="$1" -v ic="$ic" -v sc="$sc" '$ic == id { print $sc; exit }')
	w=${s%% *}; w=${w%%,*}; w=${w%+}
	[ "$w" = COMPLETED ] || inw "$w" "$tri" || inw "$w" "$term" || return 0
	if [ $(( $(date +%s) - t0 )) -ge "$rb" ]; then sec skipped "$1"; return 0; fi
	stuck=
	[ "$w" != COMPLETED ] || rd status "$1" head "$smax" "$2"
	if inw "$w" "$tri"; then
		rd out "$1" tail "$lmax" "$3"; rd err "$1" tail "$lmax" "$4"
	fi
	[ -z "$stuck" ] || return 0
	if inw "$w" "$term" && [ -n "$5" ]; then
		# sd_wipe (lib-wipe.sh): a link the job put there is removed,
		# never followed.
		if [ -e "$5" ] || [ -L "$5" ]; then sd_wipe "$5"; fi
		[ -e "$5" ] || [ -L "$5" ] || sec wiped "$1"
	fi
}
while [ $# -ge 5 ]; do
	j "$1" "$2" "$3" "$4" "$5"
	shift 5
done
sec end 0
