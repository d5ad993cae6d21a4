# shellcheck shell=sh disable=SC2154
# A job action on several jobs in one round trip (ops_act).  Set by the
# caller, quoted: a (hold, release, requeue, signal, batch, time), v (the
# signal or the time limit), ids (job ids, array tasks "12_3" and ranges
# "12_[4-9]", separated by spaces; checked by jobid_parse before).  One
# reply line a job: "ID<TAB>RC<TAB>WORDS", SLURM's own words on one line.
# Globbing is off: a range's brackets are SLURM's, not the shell's.
set -f
for j in $ids; do
	case $a in
	hold|release|requeue)
		out=$(scontrol "$a" "$j" 2>&1) ;;
	signal)
		out=$(scancel --signal="$v" "$j" 2>&1) ;;
	batch)
		out=$(scancel --batch --signal="$v" "$j" 2>&1) ;;
	time)
		out=$(scontrol update JobId="$j" TimeLimit="$v" 2>&1) ;;
	*)
		out="unknown action"; false ;;
	esac
	rc=$?
	printf '%s\t%s\t%s\n' "$j" "$rc" "$(printf '%s' "$out" | tr '\t\n' '  ')"
done
