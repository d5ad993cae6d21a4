# shellcheck shell=sh disable=SC2154
# The preflight (sqdeck preflight, and the first step of a submit): the
# login node's SLURM tools, Pyxis, Enroot, the storage root and the
# partitions (the default one marked with a trailing *, as %P prints it),
# as key=value lines after the start marker (tests/data/
# preflight-*.txt are real captures; preflight_parse reads them).  Set by
# the caller, quoted: root (SLURM_BASE_RESULTS_DIR; empty: $HOME/sqdeck,
# created if missing).  Values are printed with printf: dash's echo would
# interpret backslashes.
LC_ALL=C; export LC_ALL
echo sqdeck-preflight=1
printf 'user=%s\n' "$(id -un 2>/dev/null)"
printf 'home=%s\n' "$HOME"
printf 'hostname=%s\n' "$(hostname 2>/dev/null)"
for t in sbatch squeue sacct scancel sinfo srun enroot; do
	p=$(command -v "$t" 2>/dev/null)
	case $p in /*) ;; *) echo "tool.$t="; continue ;; esac
	printf 'tool.%s=%s\n' "$t" "$p"
	if [ "$t" = enroot ]; then v=$("$p" version 2>&1 | head -n 1)
	else v=$("$p" --version 2>&1 | head -n 1); fi
	printf 'version.%s=%s\n' "$t" "$v"
done
# Pyxis adds --container-image; srun 22.05 has its own --container.
if command -v srun >/dev/null 2>&1; then
	srun --help 2>&1 | grep -e --container | sed 's/^/srun.help=/'
fi
if [ -z "$root" ]; then
	root=$HOME/sqdeck
	echo storage.default=1
	if [ ! -d "$root" ]; then
		if err=$(mkdir -p "$root" 2>&1); then echo storage.created=1
		else printf 'storage.error=%s\n' "$(printf '%s' "$err" | tr '\n' ' ')"; fi
	fi
fi
printf 'storage.root=%s\n' "$root"
if [ -d "$root" ]; then
	echo storage.exists=1
	# A new name, created exclusively: never through a planted link.
	if err=$( (umask 077
	    if command -v mktemp >/dev/null 2>&1; then
		p=$(mktemp "$root/.sqdeck-preflight.XXXXXXXX")
	    else
		p=$root/.sqdeck-preflight.$$; set -C; : >"$p"
	    fi && rm -f -- "$p") 2>&1 ); then
		echo storage.writable=1
	else
		echo storage.writable=0
		printf 'storage.error=%s\n' "$(printf '%s' "$err" | tr '\n' ' ')"
	fi
else
	echo storage.exists=0
fi
out=$(sinfo -h -a -o '%P|%l|%a|%D|%c|%G' 2>&1); rc=$?
echo "sinfo.rc=$rc"
if [ "$rc" -eq 0 ]; then printf '%s\n' "$out" | sed '/^$/d; s/^/sinfo=/'
else printf '%s\n' "$out" | sed '/^$/d; s/^/sinfo.error=/'; fi
echo end=1
