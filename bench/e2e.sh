#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# What a user waits for: a text trace on disk, from starting the
# program to the last line, against uftrace on the same -pg binaries.
#   ours:    objpatch run --output FILE -- PROG
#   uftrace: uftrace record -R NAME@retval... -- PROG, then uftrace replay > FILE
#            (one -R per non-void function, from objpatch list: the same
#            return values ours prints)
# on bench/runtime/calls.c (empty functions), bench/runtime/fib.c
# (recursion), bench/runtime/work.c (functions that work) and Lua 5.4 from
# Debian's source package running bench/lua/work.lua.  CPU time (user +
# system of every process, bench/runtime/runit.c), the tools alternating,
# medians.  Goal: ours at most 0.15x of uftrace's.
#
# Writes its section of bench/RESULTS-runtime.md (between the e2e markers,
# appended when they are missing; E2E_RESULTS names another file, empty: none).
# Environment: E2E_REPS (default 5), E2E_CALLS (calls.c iterations, default
# 2000000), E2E_FIB (default 28), E2E_WORK (work.c iterations, default
# 50000), E2E_LUA (work.lua's WORK_SIZE, default 1), E2E_BASE (the build
# directory of another objpatch, say an older commit's worktree's build/: its
# `objpatch run` is measured too, alternating with ours, in a column of its own).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

REPS=${E2E_REPS:-5}
out=$top/build/bench/e2e
tmp=$out/tmp
results=${E2E_RESULTS-$top/bench/RESULTS-runtime.md}
objpatch=$top/build/objpatch
base=${E2E_BASE:+$E2E_BASE/objpatch}
rmc=$top/build/recordmcount
PG=(-O2 -g -pg -mfentry)
die() { echo "bench/e2e.sh: $*" >&2; exit 1; }
. bench/results.sh
for t in "$objpatch" "$rmc" ${base:+"$base"}; do [ -x "$t" ] || die "$t is missing: run make first"; done
uftrace=$(command -v uftrace) || die "uftrace is missing: run scripts/deps.sh"
mkdir -p "$out" "$tmp"
rm -f "$out"/*.tsv

cc -O2 -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Werror -o "$out/runit" bench/runtime/runit.c

# prog NAME SOURCE: a -pg build, recorded in user mode, linked without -pg
prog() {
	gcc "${PG[@]}" -c "bench/runtime/$2" -o "$out/$1.o"
	"$rmc" --mode=user "$out/$1.o"
	gcc -o "$out/$1" "$out/$1.o"
}
prog calls calls.c
prog fib fib.c
prog work work.c

lua_src=$(scripts/debian-source.sh lua5.4)/src
[ -f "$lua_src/lvm.c" ] || die "$lua_src/lvm.c: no Lua sources there: check scripts/debian-source.sh lua5.4"
mkdir -p "$out/lua"
echo '#define DEB_HOST_MULTIARCH "bench"' > "$out/lua/lua5.4-deb-multiarch.h"
# shellcheck disable=SC2016
find "$lua_src" -maxdepth 1 -name '*.c' ! -name luac.c -print0 |
	xargs -0 -P2 -I{} sh -c 'gcc "$@" -std=gnu99 -I"$0" -DLUA_COMPAT_5_3 -DLUA_USE_POSIX -c {} -o "$0/$(basename {} .c).o"' "$out/lua" "${PG[@]}"
"$rmc" --mode=user "$out"/lua/*.o
gcc -o "$out/lua/lua" "$out"/lua/*.o -lm

declare -A ARGS=([calls]=${E2E_CALLS:-2000000} [fib]=${E2E_FIB:-28} [work]=${E2E_WORK:-50000}
		 [lua]=$top/bench/lua/work.lua)
declare -A BIN=([calls]=$out/calls [fib]=$out/fib [work]=$out/work [lua]=$out/lua/lua)
PROGS=(calls fib work lua)
export WORK_SIZE=${E2E_LUA:-1}

# retvals PROG: one uftrace -R per function objpatch list shows returning a
# value; more than fit uftrace 0.13's info file (it cannot read back a
# command line of 8 KiB): -R .@retval, every function's, the same cost per call
retvals() {
	"$objpatch" list "$1" | awk '$2 != "void" && $2 != "?" {
		name = $0; sub(/\(.*/, "", name); sub(/.*[ *]/, "", name); printf "-R\n%s@retval\n", name }' > "$out/retvals"
	if [ "$(wc -c < "$out/retvals")" -gt 2000 ]; then printf -- '-R\n.@retval\n'; else cat "$out/retvals"; fi
}

# one TAG RUNIT-ARGS...: a run's line (wall cpu sys rss status) appended to TAG.tsv
one() {
	local tag=$1 line
	shift
	line=$("$out/runit" "$@" 2>> "$out/$tag.log") || die "$tag: runit failed (see $out/$tag.log)"
	[ "$(cut -f5 <<< "$line")" = 0 ] || die "$tag: exited with status $(cut -f5 <<< "$line") (see $out/$tag.log)"
	echo "$line" >> "$out/$tag.tsv"
}

ours() {
	rm -f "$tmp/ours.txt"
	one "$1.ours" -- "$objpatch" run --output "$tmp/ours.txt" -- "${BIN[$1]}" "${ARGS[$1]}"
}

# base PROG: the other build's objpatch run (E2E_BASE)
base() {
	rm -f "$tmp/base.txt"
	one "$1.base" -- "$base" run --output "$tmp/base.txt" -- "${BIN[$1]}" "${ARGS[$1]}"
}

uft() {
	local -a r
	mapfile -t r < "$out/$1.retvals"
	rm -rf "$tmp/uf.data" "$tmp/uf.data.old" "$tmp/uf.txt"
	one "$1.ufrec" -- "$uftrace" record --no-libcall --no-event -d "$tmp/uf.data" "${r[@]}" "${BIN[$1]}" "${ARGS[$1]}"
	one "$1.ufrep" -o "$tmp/uf.txt" -- "$uftrace" replay -d "$tmp/uf.data" --no-pager
}

# calls FILE: the calls a text trace shows (ours and uftrace's: "f() {", "f();", "f() = v;")
calls() { grep -cE '[A-Za-z0-9_.]+\(\)( \{|;| = )' "$1" || true; }

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
col() { cut -f"$2" "$out/$1.tsv" | median; }
ms() { awk -v n="$1" 'BEGIN { printf "%.0f", n / 1e6 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

start=$(date -u '+%Y-%m-%d %H:%M:%S')
load0=$(cut -d' ' -f1-3 /proc/loadavg)
for p in "${PROGS[@]}"; do
	retvals "${BIN[$p]}" > "$out/$p.retvals"
	# Once, checked: both tools show every call.
	ours "$p"
	uft "$p"
	echo "$(calls "$tmp/ours.txt") $(calls "$tmp/uf.txt")" > "$out/$p.calls"
	rm -f "$out/$p".*.tsv
	for ((rep = 0; rep < REPS; rep++)); do
		if ((rep % 2)); then
			uft "$p"
			[ -z "$base" ] || base "$p"
			ours "$p"
		else
			ours "$p"
			[ -z "$base" ] || base "$p"
			uft "$p"
		fi
	done
done
rm -rf "$tmp"

section() {
	echo "<!-- e2e -->"
	echo "## End to end: a text trace on disk (bench/e2e.sh)"
	echo
	echo "Started $start UTC, finished $(date -u '+%Y-%m-%d %H:%M:%S') UTC; commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'); load average before: $load0 (the machine may be shared); $REPS repetitions, the tools alternating; CPU time (user + system of every process) by \`bench/runtime/runit.c\`, medians."
	echo "Programs built \`gcc ${PG[*]}\`, recorded by \`build/recordmcount --mode=user\`, linked without -pg; ours: \`objpatch run --output FILE -- PROG\`; uftrace $("$uftrace" --version | head -1 | cut -d' ' -f2): \`uftrace record --no-libcall --no-event -R NAME@retval... PROG\` (one -R per function that returns a value; for Lua \`-R .@retval\`, every function's: uftrace 0.13 cannot read back its info file after a command line of 8 KiB) then \`uftrace replay > FILE\`."
	echo
	if [ -n "$base" ]; then
		echo "Base: \`$base\` (E2E_BASE), its \`objpatch run\` measured in the same repetitions, alternating with ours."
		echo
		echo "| program | calls shown (ours / uftrace) | objpatch run: CPU | base's: CPU | its max RSS | uftrace record + replay: CPU | ratio | base's ratio |"
		echo "|---|---|---:|---:|---:|---:|---:|---:|"
	else
		echo "| program | calls shown (ours / uftrace) | objpatch run: CPU | its max RSS | uftrace record + replay: CPU | ratio |"
		echo "|---|---|---:|---:|---:|---:|"
	fi
	for p in "${PROGS[@]}"; do
		local o u
		o=$(col "$p.ours" 2)
		u=$(awk -v a="$(col "$p.ufrec" 2)" -v b="$(col "$p.ufrep" 2)" 'BEGIN { print a + b }')
		read -r co cu < "$out/$p.calls"
		if [ -n "$base" ]; then
			local b
			b=$(col "$p.base" 2)
			echo "| $p \`${ARGS[$p]##*/}\` | $co / $cu | $(ms "$o") ms | $(ms "$b") ms | $(($(col "$p.ours" 4) / 1024)) MiB | $(ms "$u") ms | **$(ratio "$o" "$u")x** | $(ratio "$b" "$u")x |"
		else
			echo "| $p \`${ARGS[$p]##*/}\` | $co / $cu | $(ms "$o") ms | $(($(col "$p.ours" 4) / 1024)) MiB | $(ms "$u") ms | **$(ratio "$o" "$u")x** |"
		fi
	done
	echo "<!-- /e2e -->"
}
section > "$out/e2e.md"
cat "$out/e2e.md"
results_put e2e "$out/e2e.md" "$results"
