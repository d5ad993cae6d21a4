# shellcheck shell=sh disable=SC2154
# mdig: the digest of the image's manifest, from the registry: sha256 of
# the manifest (or index) bytes it serves for $mref of $mrepo on $mreg,
# fetched with enroot's credentials (netrc; a Bearer token goes through
# curl -K on stdin, never in an argv).  Prints nothing when the registry
# cannot be asked.
mdig() {
	[ -n "$mreg" ] && command -v curl >/dev/null 2>&1 || return 0
	ah=${ENROOT_ALLOW_HTTP:-}
	e=$(command -v enroot 2>/dev/null) && e=$(dirname -- "$(dirname -- "$e")")/etc/enroot
	# shellcheck disable=SC2086 # a path list, split on purpose
	[ -n "$ah" ] || ah=$(for c in ${ENROOT_SYSCONF_PATH:-} $e /etc/enroot; do sed -n 's/^[[:space:]]*ENROOT_ALLOW_HTTP[[:space:]][[:space:]]*\([^[:space:]#]*\).*/\1/p' "$c/enroot.conf"; done 2>/dev/null | head -n 1)
	case $ah in y|Y|yes|YES|1|true|TRUE) pr=http ;; *) pr=https ;; esac
	url=$pr://$mreg/v2/$mrepo/manifests/$mref
	acc='Accept: application/vnd.oci.image.index.v1+json, application/vnd.docker.distribution.manifest.list.v2+json, application/vnd.docker.distribution.manifest.v2+json, application/vnd.oci.image.manifest.v1+json'
	cr=${ENROOT_CONFIG_PATH:-${XDG_CONFIG_HOME:-$HOME/.config}/enroot}/.credentials
	[ -f "$cr" ] || cr=/dev/null
	mt=$(mktemp) || return 0
	code=$(curl -sS --max-time 60 --proto "=$pr" --netrc-file "$cr" -H "$acc" -D "$mt.h" -o "$mt" -w '%{http_code}' -- "$url" 2>/dev/null)
	if [ "$code" = 401 ]; then
		ch=$(tr -d '\r' <"$mt.h" | sed -n 's/^[Ww][Ww][Ww]-[Aa]uthenticate: *[Bb]earer *//p' | head -n 1)
		mdig_f() { printf '%s' "$ch" | sed -n "s/.*$1=\"\([^\"]*\)\".*/\1/p"; }
		realm=$(mdig_f realm); svc=$(mdig_f service); scope=$(mdig_f scope)
		tok=
		# The realm is the registry's word: followed over https only
		# (http only to the registry itself when enroot allows http),
		# never to file:// or another scheme; the netrc goes along
		# only to the registry's own host, never to any host it names.
		rs=${realm%%://*}; rh=${realm#*://}; rh=${rh%%/*}
		rn=/dev/null
		[ "$rh" = "$mreg" ] && rn=$cr
		case $rs in
		https) ;;
		http) [ "$pr" = http ] && [ "$rh" = "$mreg" ] || realm= ;;
		*) realm= ;;
		esac
		case $realm in *://) realm= ;; esac
		[ -n "$realm" ] && tok=$(curl -fsS --max-time 60 --proto "=$rs" --max-redirs 0 --netrc-file "$rn" -G --data-urlencode "service=$svc" --data-urlencode "scope=$scope" -- "$realm" 2>/dev/null | sed -n 's/.*"\(access_\)\{0,1\}token" *: *"\([^"]*\)".*/\2/p' | head -n 1)
		[ -n "$tok" ] && code=$(printf 'header = "Authorization: Bearer %s"\n' "$tok" | curl -sS --max-time 60 --proto "=$pr" -K - -H "$acc" -o "$mt" -w '%{http_code}' -- "$url" 2>/dev/null)
		tok=
	fi
	[ "$code" = 200 ] && printf 'sha256:%s\n' "$(sha256sum <"$mt" | cut -d ' ' -f 1)"
	rm -f -- "$mt" "$mt.h"
}
