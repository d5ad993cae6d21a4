# shellcheck shell=sh
# Read the NCCL probe's answers (nccl_learn), after lib-sec.sh: the
# positional parameters are pairs INDEX FILE, each job's own answer file.
# Its first line only, from a regular file, bounded, one section
# ("result INDEX") a job, so no job's text can stand for another's.
while [ $# -ge 2 ]; do
	f=$2
	r=
	if [ -f "$f" ] && [ ! -L "$f" ]; then r=$(head -c 512 -- "$f" 2>/dev/null </dev/null | head -n 1 | tr -cd '[:print:]'); fi
	sec result "$1"
	printf '%s' "$r"
	shift 2
done
sec end
