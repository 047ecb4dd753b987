#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The series' formatter, offline: builds kernel/trace/fgraph_types.c and
# fgraph_retval.c from the series (applied to a scratch copy of the few
# files it touches) for user space, against the stand-in headers of
# kernel/test/include and the prototype table of a real vmlinux, and checks
# that it prints every value of a real trace as `objpatch annotate` prints
# it (compare.py), then, with build/objpatch (or OBJPATCH), on every
# function of the table with a set of values, in decimal and in hex
# (synthetic.py).  Seconds, no kernel build: the kernel's own printing of
# the same values is what scripts/kernel-series-test.sh checks on a boot.
#
# Usage: kernel/test/run.sh OUT [OBJCOPY]
#   OUT: a build tree of scripts/kernel-retval-test.sh (vmlinux, System.map,
#        trace.txt, trace.annotated), e.g. build/kernel-6.12/out-x86_64;
#   OBJCOPY: one that reads that vmlinux (default objcopy).
# The host must be 64-bit little-endian like OUT's machine (x86_64, arm64).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
out=$1
objcopy=${2:-objcopy}
src=${LINUX_SOURCE_TREE:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The series' new files, from a scratch tree holding what it edits.
mkdir -p "$tmp/tree"
printf 'VERSION = 6\nPATCHLEVEL = 12\n' > "$tmp/tree/Makefile"
sed -n 's/^@@[0-9.]* [a-z]* \([^ ]*\) .*/\1/p' "$here"/../series/*.kpatch | sort -u | while read -r f; do
	case $f in kernel/trace/fgraph_*) continue ;; esac
	mkdir -p "$tmp/tree/$(dirname "$f")"
	if [ -n "$src" ]; then cp "$src/$f" "$tmp/tree/$f"; else : > "$tmp/tree/$f"; fi
done
if [ -z "$src" ]; then
	# Without a source tree only the new files are wanted: the edits of
	# existing files are left out.
	for p in "$here"/../series/*.kpatch; do
		awk '/^---$/ && !body { body = 1; print; next } body && /^@@[0-9.]* / { keep = ($2 == "new" || $3 ~ /^kernel\/trace\/fgraph_/) }
			!body || keep { print }' "$p" > "$tmp/$(basename "$p")"
	done
	mkdir -p "$tmp/series"
	mv "$tmp"/*.kpatch "$tmp/series/"
	grep -v '^#' "$here/../series/order" > "$tmp/series/order"
	cp "$here/../apply.sh" "$tmp/apply.sh"
	bash "$tmp/apply.sh" "$tmp/tree" > /dev/null
else
	bash "$here/../apply.sh" "$tmp/tree" > /dev/null
fi

"$objcopy" --dump-section __mcount_proto="$tmp/proto.bin" --dump-section __mcount_str="$tmp/str.bin" \
	"$out/vmlinux" /dev/null
cp "$here/table.S" "$tmp/"
cc -O1 -D_GNU_SOURCE -DCONFIG_FUNCTION_GRAPH_RETVAL_TYPES -Wall -Wno-unused-parameter \
	-I"$here/include" -I"$tmp/tree/kernel/trace" -Wa,-I"$tmp" -o "$tmp/harness" "$here/harness.c" "$tmp/table.S"
rc=0
/usr/bin/python3 "$here/compare.py" "$tmp/harness" "$out/System.map" "$out/trace.txt" "$out/trace.annotated" || rc=1
# Every function of the table, with values the trace did not have, when
# objpatch is built.
objpatch=${OBJPATCH:-$here/../../build/objpatch}
if [ -x "$objpatch" ]; then
	/usr/bin/python3 "$here/synthetic.py" "$tmp/harness" "$objpatch" "$out/vmlinux" "$out/System.map" || rc=1
	/usr/bin/python3 "$here/synthetic.py" "$tmp/harness" "$objpatch" "$out/vmlinux" "$out/System.map" --hex || rc=1
else
	echo "run.sh: $objpatch not built: synthetic.py skipped"
fi
exit $rc
