# shellcheck shell=sh disable=SC2154
# The gate of a submit's one round trip (sqdeck(1): submit), between
# check.sh and stage.sh + launch.sh: nothing is staged or launched unless
# every path exists and the image's lines are the ones the client
# validated (its header, size, owner and modes: image_sqsh_check and
# image_cache_trust ran on exactly this text).  Set by the caller,
# quoted: want (those lines; "-": the client has just converted and
# validated it; empty: none known yet), cutat (TEST HOOK: where the
# connection is cut, see submit.h; empty: nowhere).
if [ "$miss" != 0 ]; then
	echo sqdeck-gate=check; exit 0
fi
case $want in
-) ;;
"$imgtxt") ;;
*) echo sqdeck-gate=image; exit 0 ;;
esac
echo sqdeck-gate=ok
[ "$cutat" != check ] || sd_cut
