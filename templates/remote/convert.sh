# shellcheck shell=sh disable=SC2154
# Convert a registry image to .sqsh once (sqdeck(1): IMAGES AND STORAGE),
# after lib-report.sh, lib-sqsh-ok.sh, lib-cstat.sh and lib-mdig.sh: enroot
# import inside srun on the CPU partition, under flock, into a temp name,
# validated and renamed into the cache.  Set by the caller, quoted: mreg mrepo
# mref (the manifest the digest is taken from), pin (a pinned sha256:..., may
# be empty), cache name (the cache dir and file), uri (docker://...),
# part acct job (srun -p, --account, -J), tmo (seconds), mins (--time),
# force (1: convert even if a valid file is there).
LC_ALL=C; export LC_ALL
final=$cache/$name
lock=$cache/.$name.lock
tmp=$cache/.$name.tmp.$job
# Created for reading by all, writing by its owner only.
if ! err=$( (umask 022 && mkdir -p -- "$cache") 2>&1); then
	printf 'sqdeck-detail=cannot create %s: %s\n' "$cache" "$err"
	echo sqdeck-convert=error; exit 0
fi
if ! command -v flock >/dev/null 2>&1; then
	echo 'sqdeck-detail=flock (util-linux) is not installed on the login node'
	echo sqdeck-convert=error; exit 0
fi
# One converter per image: the others wait, then reuse.
exec 9>>"$lock" || { echo sqdeck-convert=error; exit 0; }
if ! flock -w $((tmo + 60)) 9; then
	echo sqdeck-convert=lock; exit 0
fi
if [ "$force" = 0 ] && sqsh_ok "$final"; then
	echo sqdeck-convert=cached
	printf 'sqdeck-file=%s\n' "$(report "$final")"
	cstat "$final" sqdeck-cache=
	exit 0
fi
# We hold the lock: any temp file left is from a killed import.
rm -f -- "$cache/.$name.tmp."*
# One task, 4 CPUs, 7200M (what a TAO-sized image needs), in /tmp with a
# node-local Enroot temp dir that is removed after.
# shellcheck disable=SC2016 # expanded by the bash -c of the import job
inner='export TMPDIR=/tmp ENROOT_TEMP_PATH=/tmp/enroot-sqdeck-$SLURM_JOB_ID
export SLURM_ENROOT_TEMP_PATH=$ENROOT_TEMP_PATH
mkdir -p -- "$ENROOT_TEMP_PATH" || exit 1
cd /tmp || exit 1
enroot import -o "$1" "$2"
rc=$?
rm -rf -- "$ENROOT_TEMP_PATH"
exit $rc'
ilog=$(mktemp "${TMPDIR:-/tmp}/sqdeck-import.XXXXXX") || { echo sqdeck-convert=error; exit 0; }
# conv MEM: the import job; a job that a QOS memory limit holds
# (QOSMaxMemoryPerJob, QOSGrpMemLimit, ...) is cancelled at once and
# "qos" says so.
conv() {
	set -- srun -p "$part" -J "$job" -n 1 -c 4 --chdir=/tmp --time="$mins" ${1:+--mem="$1"}
	[ -n "$acct" ] && set -- "$@" --account="$acct"
	timeout -k 10 "$tmo" "$@" bash -c "$inner" sqdeck-import "$tmp" "$uri" >"$ilog" 2>&1 </dev/null &
	p=$!
	qos=
	while kill -0 "$p" 2>/dev/null; do
		st=$(squeue -h -n "$job" -o '%T %r' 2>/dev/null | head -n 1)
		case $st in
		RUNNING*|COMPLETING*) break ;;
		'PENDING QOS'*Mem*)
			qos=${st#PENDING }
			scancel --me -n "$job" 2>/dev/null
			break ;;
		esac
		sleep 1
	done
	wait "$p"
	rc=$?
	if [ -z "$qos" ] && [ "$rc" -ne 0 ] && grep -qE 'QOS|MaxMemPer|[Mm]emory required by task' "$ilog"; then
		qos=$(grep -m1 -E 'QOS|MaxMemPer|[Mm]emory required' "$ilog")
	fi
	return 0
}
echo "sqdeck-detail=srun -p $part -J $job -n 1 -c 4 --mem=7200M --chdir=/tmp --time=$mins enroot import"
conv 7200M
if [ -n "$qos" ]; then
	# The site's memory limit is below 7200M: its default, once.
	cat -- "$ilog"
	printf 'sqdeck-qos=%s\n' "$qos"
	rm -f -- "$tmp"
	conv ""
fi
cat -- "$ilog"
rm -f -- "$ilog"
if [ -n "$qos" ]; then
	printf 'sqdeck-qos=%s\n' "$qos"
	rm -f -- "$tmp"; echo sqdeck-convert=qos; exit 0
fi
echo "sqdeck-rc=$rc"
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
	rm -f -- "$tmp"; echo sqdeck-convert=timeout; exit 0
fi
if [ "$rc" -ne 0 ]; then
	rm -f -- "$tmp"; echo sqdeck-convert=failed; exit 0
fi
if ! sqsh_ok "$tmp"; then
	if [ -f "$tmp" ]; then
		printf 'sqdeck-file=%s\n' "$(report "$tmp")"
	fi
	rm -f -- "$tmp"; echo sqdeck-convert=invalid; exit 0
fi
# What the registry serves for the ref; a pinned one must match.
dig=$(mdig)
if [ -n "$pin" ] && [ -n "$dig" ] && [ "$dig" != "$pin" ]; then
	rm -f -- "$tmp"
	printf 'sqdeck-detail=the registry serves %s for the pinned %s\n' "$dig" "$pin"
	echo sqdeck-convert=error; exit 0
fi
[ -n "$dig" ] || dig=$pin
chmod 644 -- "$tmp"
rm -f -- "$final.digest"
# rename(2) in one directory: readers see no file or a whole one.
if ! err=$(mv -f -- "$tmp" "$final" 2>&1); then
	rm -f -- "$tmp"
	printf 'sqdeck-detail=%s\n' "$err"
	echo sqdeck-convert=error; exit 0
fi
# The digest next to it, written exclusively (set -C).
if [ -n "$dig" ]; then
	rm -f -- "$final.digest.$job"
	( set -C; umask 022; printf '%s\n' "$dig" >"$final.digest.$job" ) 2>/dev/null &&
	    mv -f -- "$final.digest.$job" "$final.digest"
	printf 'sqdeck-digest=%s\n' "$dig"
fi
printf 'sqdeck-file=%s\n' "$(report "$final")"
cstat "$final" sqdeck-cache=
echo sqdeck-convert=converted
