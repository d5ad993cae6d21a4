# shellcheck shell=sh disable=SC2154
# Remove a job dir that sbatch refused (only ever the one this submit
# made under the results root).  Set by the caller, quoted: jd.
rm -rf -- "$jd" && echo removed
