#!/bin/sh
# scripts/link-script.sh CC ORDER OUT - the linker script of the callus
# binary: the toolchain's own script for a static PIE, with the input
# sections ORDER lists (cli/text-order.ld) first in .text.  Called by the
# Makefile.  Where the toolchain prints no script, or one without the .text
# it expects (another linker), OUT is left empty and the binary is linked
# as before, in the objects' order: slower to start, never wrong.
set -u
cc=$1 order=$2 out=$3
tmp=$out.tmp
rm -f "$out" "$tmp"
: >"$out"
probe=$(mktemp -d "${TMPDIR:-/tmp}/callus-ld.XXXXXX") || exit 0
trap 'rm -rf "$probe"' EXIT
printf 'int main(void) { return 0; }\n' >"$probe/p.c"
# ld prints the script it links with between two lines of '='
if ! $cc -static-pie -Wl,--verbose -o "$probe/p" "$probe/p.c" >"$probe/v" 2>&1; then
	echo "link-script: $cc -static-pie -Wl,--verbose failed: .text in link order" >&2
	exit 0
fi
awk '/^=+$/ && length($0) >= 20 { n++; next } n == 1' "$probe/v" >"$probe/default.ld"
# the order's lines go right after the brace that opens .text's input list
awk -v order="$order" '
	placed == 0 && prev ~ /^[ \t]*\.text[ \t]*:[ \t]*$/ && $0 ~ /^[ \t]*\{[ \t]*$/ {
		print
		while ((getline line < order) > 0)
			print line
		placed = 1
		prev = $0
		next
	}
	{ print; prev = $0 }
	END { exit placed ? 0 : 1 }' "$probe/default.ld" >"$tmp" ||
	{ echo "link-script: no .text in $cc's script: .text in link order" >&2; rm -f "$tmp"; exit 0; }
mv "$tmp" "$out"
