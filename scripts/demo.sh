#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The main job on the example that ships in the repo: record the mcount call
# sites of testdata/demo/demo.c compiled for several architectures, in kernel
# mode (as Kbuild runs the tool), compare with the kernel's own tool, then
# build and run the example as a program in user mode, and trace it while it
# runs with objpatch run.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
rmc=$top/build/recordmcount
work=$top/build/demo
rm -rf "$work" && mkdir -p "$work"
src=$top/testdata/demo/demo.c
ref=$("$top/scripts/ref-recordmcount.sh")

# One object per row of arch/machines.h, with the flags Kbuild would pass.
kernel_object() {	# name prefix clang kflags
	local obj=$work/demo.$1.o
	command -v "${2}gcc" > /dev/null || { printf '%-10s (no %sgcc)\n' "$1" "$2"; return; }
	"${2}gcc" -O2 -pg $4 -c "$src" -o "$obj"
	cp "$obj" "$obj.kernel"
	"$rmc" -w "$obj"
	printf '%-10s ours: %s\n' "$1" "$("$rmc" --list "$obj" | tr '\n' ' ')"
	if "$ref" "$obj.kernel" >/dev/null 2>&1; then
		printf '%-10s kernel tool: %s\n' "" "$("$rmc" --list "$obj.kernel" | tr '\n' ' ')"
	else
		printf '%-10s kernel tool: failed\n' ""
	fi
}

echo "== kernel mode, one object per machine (recordmcount -w FILE.o)"
. "$top/scripts/machines.sh"
for_each_arch kernel_object
echo
say_fault() { local f; f=$(kernel_fault "$1" gcc) && [ -n "$f" ] && printf '(%s: %s)\n' "$1" "${f#*$'\t'}"; return 0; }
for_each_arch say_fault
echo
echo "== the recorded x86_64 sites, disassembled"
objdump -dr "$work/demo.x86_64.o" | grep -B1 -A1 'mcount' | head -20
echo
echo "== user mode: a PIE program (recordmcount --mode=user), linked and run"
gcc -O2 -g -pg -ffunction-sections -c "$src" -o "$work/demo.o"
"$rmc" --mode=user "$work/demo.o"
gcc -Wl,--gc-sections "$work/demo.o" -o "$work/demo"	# no -pg at the link: no gprof start-up code
"$work/demo" 12
echo "every function that calls the hook is in the table (recordmcount --check):"
"$rmc" --check "$work/demo"
echo "table of the linked program (address, section+offset):"
"$rmc" --list "$work/demo"
if readelf -d "$work/demo" | grep -q TEXTREL; then echo "unexpected: TEXTREL"; exit 1; fi
echo "no text relocations: the table is self-relative"
echo
echo "== its prototypes, read from the stripped program (objpatch list)"
strip "$work/demo" -o "$work/demo.stripped"
"$top/build/objpatch" list "$work/demo.stripped"
echo
echo "== traced while it runs (objpatch run), stripped, linked without -pg"
"$top/build/objpatch" run --output "$work/trace.txt" -- "$work/demo.stripped" 3
cat "$work/trace.txt"
