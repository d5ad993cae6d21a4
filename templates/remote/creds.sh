# shellcheck shell=sh disable=SC2154
# Write enroot's credentials (sqdeck(1): creds).  Set by the caller, quoted:
# key (only builtins see it), login, machines (space-separated).  Lines for
# other machines are kept; ours are replaced.
umask 077
dir=${ENROOT_CONFIG_PATH:-${XDG_CONFIG_HOME:-$HOME/.config}/enroot}
f=$dir/.credentials
if ! err=$(mkdir -p -- "$dir" 2>&1); then
	printf 'sqdeck-creds-error=%s\n' "$err"; exit 0
fi
tmp=$f.tmp.$$
kept=0
if [ -f "$f" ]; then
	awk -v m="$machines" 'BEGIN { n = split(m, a, " "); for (i = 1; i <= n; i++) d[a[i]] = 1 } !($1 == "machine" && ($2 in d))' "$f" >"$tmp"
	kept=$(grep -c . "$tmp")
else
	: >"$tmp"
fi
for m in $machines; do
	printf 'machine %s login %s password %s\n' "$m" "$login" "$key" >>"$tmp"
done
key=
chmod 600 -- "$tmp"
if ! err=$(mv -f -- "$tmp" "$f" 2>&1); then
	rm -f -- "$tmp"
	printf 'sqdeck-creds-error=%s\n' "$err"; exit 0
fi
printf 'sqdeck-creds-path=%s\n' "$f"
echo "sqdeck-creds-kept=$kept"
echo "sqdeck-creds-mode=$(stat -c %a -- "$f")"
echo sqdeck-creds=ok
