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
# Both forms of the table: the checks run on the vmlinux's own table, full
# (__mcount_proto) or compact (__mcount_ret, recordmcount --protos=compact),
# and on a compact table made from it (compact.py: from a full table, each
# signature cut to its return type as recordmcount cuts it) with its records
# in reverse address order, which the series' initcall must sort with its
# swap function (the records are self-relative) before a lookup, by way of
# kallsyms (the harness answers from System.map).  A full table also goes
# through compact.py in address order.
#
# Usage: kernel/test/run.sh OUT [OBJCOPY]
#   OUT: a build tree with vmlinux and System.map: one of
#        scripts/kernel-retval-test.sh (which also has trace.txt and
#        trace.annotated, for compare.py), e.g. build/kernel-6.12/out-x86_64,
#        or of scripts/kernel-series-test.sh, e.g.
#        build/kernel-series/7.3-compact/out-x86_64 (synthetic.py only);
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

# section NAME: "ADDRESS SIZE" (hex) of the vmlinux's section NAME, or nothing.
section() {
	readelf -SW "$out/vmlinux" | awk -v n="$1" '{ sub(/^ *\[ *[0-9]+\] /, "") } $1 == n { print $3, $5; exit }'
}

# harness DIR: the formatter on the table in DIR (proto.bin, ret.bin, str.bin).
harness() {
	cp "$here/table.S" "$1/"
	cc -O1 -D_GNU_SOURCE -DCONFIG_FUNCTION_GRAPH_RETVAL_TYPES -Wall -Wno-unused-parameter \
		-I"$here/include" -I"$tmp/tree/kernel/trace" -Wa,-I"$1" -o "$1/harness" "$here/harness.c" "$1/table.S"
}

rc=0
objpatch=${OBJPATCH:-$here/../../build/objpatch}
# checks NAME DIR: every check on the harness of DIR.
checks() {
	local h=$2/harness
	echo "run.sh: == $1"
	# The initcall's line ("fgraph_types: N functions..."), the harness's.
	"$h" < /dev/null 2> "$2/init.txt" > /dev/null || { echo "run.sh: $1: the harness failed"; rc=1; }
	sed 's/^/run.sh:   /' "$2/init.txt"
	if [ -f "$out/trace.annotated" ]; then
		/usr/bin/python3 "$here/compare.py" "$h" "$out/System.map" "$out/trace.txt" "$out/trace.annotated" || rc=1
	fi
	# Every function of the table, with values the trace did not have, when
	# objpatch is built.
	if [ -x "$objpatch" ]; then
		/usr/bin/python3 "$here/synthetic.py" "$h" "$objpatch" "$out/vmlinux" "$out/System.map" || rc=1
		/usr/bin/python3 "$here/synthetic.py" "$h" "$objpatch" "$out/vmlinux" "$out/System.map" --hex || rc=1
	else
		echo "run.sh: $objpatch not built: synthetic.py skipped"
	fi
}

"$objcopy" --dump-section __mcount_str="$tmp/str.bin" "$out/vmlinux" /dev/null
read -r ret_addr ret_size < <(section __mcount_ret) || true
if [ -n "${ret_size:-}" ] && [ $((16#$ret_size)) -gt 0 ]; then
	form=compact table=__mcount_ret addr=$ret_addr
else
	read -r addr _ < <(section __mcount_proto) || { echo "run.sh: $out/vmlinux has no prototype table"; exit 1; }
	form=full table=__mcount_proto
fi
"$objcopy" --dump-section "$table=$tmp/records.bin" "$out/vmlinux" /dev/null
export MOCK_SYSTEM_MAP=$out/System.map

# The vmlinux's own table.
mkdir "$tmp/own"
cp "$tmp/str.bin" "$tmp/own/"
if [ $form = full ]; then
	cp "$tmp/records.bin" "$tmp/own/proto.bin"
	: > "$tmp/own/ret.bin"
else
	cp "$tmp/records.bin" "$tmp/own/ret.bin"
	: > "$tmp/own/proto.bin"
fi
harness "$tmp/own"
if [ $form = full ]; then
	checks "vmlinux's own table ($form: $table)" "$tmp/own"
else
	MOCK_RET_AT=$addr checks "vmlinux's own table ($form: $table)" "$tmp/own"
fi

# compact tables made from it: in address order (from a full table only),
# and reversed.
for order in "" --reverse; do
	[ $form = full ] || [ -n "$order" ] || continue
	d=$tmp/compact$order
	mkdir "$d"
	: > "$d/proto.bin"
	read -r nrec nstr < <(/usr/bin/python3 "$here/compact.py" $form "$tmp/records.bin" "$tmp/str.bin" "$addr" \
		"$d/ret.bin" "$d/str.bin" $order)
	harness "$d"
	MOCK_RET_AT=$addr checks "compact table from the $form one ($nrec records, $nstr bytes of strings${order:+, in reverse order})" "$d"
	if [ -n "$order" ] && ! grep -q '(sorted at boot)' "$d/init.txt"; then
		echo "run.sh: the reversed compact table was not sorted at boot"
		rc=1
	fi
done
exit $rc
