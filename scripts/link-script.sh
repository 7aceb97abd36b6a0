#!/bin/sh
# scripts/link-script.sh ORDER OUT CC [FLAG...] - the linker script of a
# binary linked by `CC FLAG...` (callus, callus-git: a static PIE): the
# script that link uses by default, with the input sections ORDER lists
# (cli/text-order.ld, helper/text-order.ld) first in .text.  Called by the
# Makefile at every link, with the link's own compiler and flags, so that
# the script is the one the toolchain would use now; OUT is replaced only
# when it changes.  Where the link prints no script (another linker), or
# one without the .text it expects, OUT is left empty and the binary is
# linked as before, in the objects' order: slower to start, never wrong.
set -u
[ $# -ge 3 ] || { echo "usage: scripts/link-script.sh ORDER OUT CC [FLAG...]" >&2; exit 2; }
order=$1 out=$2
shift 2
tmp=$out.tmp

# the script, or nothing, into $tmp; then $out replaced if it differs
made() {
	if [ -f "$out" ] && cmp -s "$tmp" "$out"; then
		rm -f "$tmp"
	else
		mv "$tmp" "$out"
	fi
	exit 0
}
none() {
	echo "link-script: $1: $out links in the objects' order" >&2
	: >"$tmp"
	made
}

rm -f "$tmp"
probe=$(mktemp -d "${TMPDIR:-/tmp}/callus-ld.XXXXXX") || none "no temporary folder"
trap 'rm -rf "$probe"' EXIT
printf 'int main(void) { return 0; }\n' >"$probe/p.c"
# ld prints the script it links with between two lines of '='
"$@" -Wl,--verbose -o "$probe/p" "$probe/p.c" >"$probe/v" 2>&1 || none "$* -Wl,--verbose failed"
awk '/^=+$/ && length($0) >= 20 { n++; next } n == 1' "$probe/v" >"$probe/default.ld"
# the order's lines go right after the brace that opens .text's input list
awk -v order="$order" '
	placed == 0 && prev ~ /^[ \t]*\.text[ \t]*:[ \t]*$/ && $0 ~ /^[ \t]*\{[ \t]*$/ {
		print
		while ((r = (getline line < order)) > 0)
			print line
		if (r < 0) {
			unread = 1
			exit
		}
		placed = 1
		prev = $0
		next
	}
	{ print; prev = $0 }
	END { if (unread) exit 2; if (!placed) exit 1 }' "$probe/default.ld" >"$tmp"
case $? in
0) made ;;
2) none "cannot read $order" ;;
*) none "no .text in the script $1 links with" ;;
esac
