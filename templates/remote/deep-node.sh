# shellcheck shell=sh
# The compute node's half of `preflight --deep` (deep.sh runs it there
# with srun): enroot and Pyxis where jobs run, as key=value lines that
# deep_parse reads.
echo "node=$(hostname)"
if e=$(command -v enroot 2>/dev/null); then
	echo "enroot=$e"
	echo "enroot.version=$(enroot version 2>&1 | head -n 1)"
	enroot list >/dev/null 2>&1; echo "enroot.list=$?"
else
	echo enroot=
fi
if srun --help 2>/dev/null | grep -q -e --container-image; then
	echo pyxis=1
else
	echo pyxis=0
fi
echo deep.end=1
