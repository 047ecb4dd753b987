#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The runtime's benchmarks, on the same -pg binaries for every tool:
#  1. cost per traced call (entry, exit and return value recorded), recording
#     against recording: `build/objpatch record` (a raw recording that
#     `objpatch report` formats later) against `uftrace record -R` (which
#     `uftrace replay` formats later), on bench/runtime/calls.c; cost =
#     (time traced - time of the build without -pg) / traced calls.  Goal:
#     ours at most a third of uftrace's.  Also end to end, up to a text trace
#     on disk: uftrace record + replay against `objpatch run` (which formats
#     in the process) and against objpatch record + report; and the same on
#     bench/runtime/work.c.
#  2. every site NOP'd by the runtime (a filter that matches nothing) against
#     the same program built without -pg: on bench/runtime/work.c, whose
#     functions do some work (goal: within 2%), and on calls.c, whose
#     functions are empty (the worst case, shown).
#  3. start-up patching: the runtime's own CPU time per site (its
#     OBJPATCH_STATS=1 line) in programs of thousands of functions
#     (bench/runtime/gen-many.pl) with no filter at all (every site NOP'd, no
#     names read; goal: < 100 ns), with a filter that matches nothing, and
#     through `objpatch run`; and start-to-main against the binary alone.
# Prints a Markdown report, also written to BENCH_DIR/runtime/runtime.md and
# to BENCH_RUNTIME_RESULTS (default bench/RESULTS-runtime.md, the committed
# figures; empty: not written); raw figures in BENCH_DIR/runtime/results/.  With the defaults it takes
# about 4 minutes on 2 cores (the first time some 20 s more, to compile the
# start-up programs) and needs about 1.2 GB of disk for trace files.
#
#   bench/runtime.sh                  everything; fails when the runtime does not
#                                     work, rather than print half a report
#   bench/runtime.sh --uftrace-only   uftrace and the baselines only
#
# Environment: BENCH_DIR (default build/bench); BENCH_REPS (repetitions of
# the traced runs, default 5); RT_ITERS (loop iterations of a traced run of
# calls.c, 5 calls each, default 2000000); RT_WORK_ITERS (iterations of a
# traced run of work.c, about 42 calls each, default RT_ITERS / 40; 0 leaves
# work.c out of the per-call tables); RT_NOP_ITERS (iterations of the NOP'd
# runs of calls.c, default 20000000); RT_WORK_NOP_ITERS (of work.c, default
# RT_NOP_ITERS / 80); RT_NOP_REPS (default 15); RT_SITES (functions of the
# start-up programs, default "2000 20000"); RT_START_REPS (default 21); CC
# (default gcc); RT_CFLAGS (default -O2 -g: from the DWARF, recordmcount
# writes the prototype table that types our return values); RT_PG (default
# -pg -mfentry on x86_64, -pg elsewhere); RT_LDFLAGS (default none; e.g.
# RT_CFLAGS="-O2 -g -fno-pie" RT_LDFLAGS=-no-pie); RT_UFTRACE_PATCH=0 skips
# uftrace's own start-up patching; RT_MAKE=0 takes build/ as it is (no
# `make all`).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

only_uftrace=""
case ${1:-} in
"") ;;
--uftrace-only) only_uftrace=1 ;;
*) echo "usage: bench/runtime.sh [--uftrace-only]" >&2; exit 2 ;;
esac

out=${BENCH_DIR:-$top/build/bench}/runtime
res=$out/results
bld=$out/build
tmp=$out/tmp
REPS=${BENCH_REPS:-5}
ITERS=${RT_ITERS:-2000000}
WORK_ITERS=${RT_WORK_ITERS:-$((ITERS / 40))}
NOP_ITERS=${RT_NOP_ITERS:-20000000}
WORK_NOP_ITERS=${RT_WORK_NOP_ITERS:-$((NOP_ITERS / 80))}
NOP_REPS=${RT_NOP_REPS:-15}
read -ra SITES <<< "${RT_SITES:-2000 20000}"
START_REPS=${RT_START_REPS:-21}
CC=${CC:-gcc}
read -ra CFLAGS <<< "${RT_CFLAGS:--O2 -g}"
read -ra LDFLAGS <<< "${RT_LDFLAGS:-}"
if [ -n "${RT_PG:-}" ]; then
	read -ra PG <<< "$RT_PG"
elif [ "$(uname -m)" = x86_64 ]; then
	PG=(-pg -mfentry)
else
	PG=(-pg)
fi
NOMATCH=objpatch_bench_matches_nothing
hook=mcount
[[ " ${PG[*]} " != *" -mfentry "* ]] || hook=__fentry__
started=$(date +%s)
date_started=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
# The exact invocation, for the report: every setting, defaults included.
invocation="BENCH_REPS=$REPS RT_ITERS=$ITERS RT_WORK_ITERS=$WORK_ITERS RT_NOP_ITERS=$NOP_ITERS RT_WORK_NOP_ITERS=$WORK_NOP_ITERS RT_NOP_REPS=$NOP_REPS RT_SITES=\"${SITES[*]}\" RT_START_REPS=$START_REPS CC=$CC RT_CFLAGS=\"${CFLAGS[*]}\" RT_PG=\"${PG[*]}\" RT_LDFLAGS=\"${LDFLAGS[*]}\" bench/runtime.sh${only_uftrace:+ --uftrace-only}"

die() { echo "runtime.sh: $*" >&2; exit 1; }
# shellcheck source=bench/runtime/lib.sh
. "$top/bench/runtime/lib.sh"

[ "${RT_MAKE:-1}" = 0 ] || make -s all
uftrace=$(command -v uftrace || true)
[ -n "$uftrace" ] || die "uftrace is not installed (scripts/deps.sh installs it): the comparison needs it"
rm -rf "$res" "$tmp"
mkdir -p "$res" "$bld" "$tmp"
# b CMD...: runs a build command, logged for the report
b() { echo "${*//$top\//}" >> "$res/build-commands"; "$@"; }
# A copy of the tools, so that a rebuild of build/ during the run cannot mix
# versions (objpatch finds libobjpatch.so next to itself).
rm -rf "$bld/tools"
mkdir -p "$bld/tools"
[ -x build/recordmcount ] || die "build/recordmcount is missing (make)"
cp build/recordmcount "$bld/tools/"
for f in build/objpatch build/libobjpatch.so; do [ ! -f "$f" ] || cp "$f" "$bld/tools/"; done
rmc=$bld/tools/recordmcount
objpatch=$bld/tools/objpatch
lib=$bld/tools/libobjpatch.so

# ---- builds
runit=$bld/runit
b cc -O2 -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Werror -o "$runit" bench/runtime/runit.c
# The clock's own cost, read twice per traced call: the floor under recording's.
b cc -O2 -std=gnu11 -Wall -Wextra -Werror -o "$bld/clock" bench/runtime/clock.c
clock_line=$("$bld/clock" 20000000)

# traceable BIN OBJ [--nop]: the way the spec builds a traced program: the
# object compiled with -pg, our tables added, linked without -pg.
traceable() {
	local bin=$1 obj=$2
	shift 2
	b "$rmc" --mode=user "$@" "$obj"
	b "$CC" "${LDFLAGS[@]}" -o "$bin" "$obj"
}
# Each benchmark program three ways: PROG-nopg (no -pg: the baseline), PROG-pg
# (-pg, tables added) and PROG-nop (the same with the sites NOP'd at build time).
declare -A psites
for p in calls work; do
	b "$CC" "${CFLAGS[@]}" -c "bench/runtime/$p.c" -o "$bld/$p-nopg.o"
	b "$CC" "${LDFLAGS[@]}" -o "$bld/$p-nopg" "$bld/$p-nopg.o"
	b "$CC" "${CFLAGS[@]}" "${PG[@]}" -c "bench/runtime/$p.c" -o "$bld/$p-pg.o"
	cp "$bld/$p-pg.o" "$bld/$p-nop.o"
	traceable "$bld/$p-pg" "$bld/$p-pg.o"
	traceable "$bld/$p-nop" "$bld/$p-nop.o" --nop
	psites[$p]=$("$rmc" --list "$bld/$p-pg" | wc -l)
done

# ---- is the runtime there, and does it trace?  No half-measured report.
# Counting what a text trace shows: every call has exactly one line with
# "NAME(" (objpatch: "NAME();" for a leaf, "NAME() {" otherwise; uftrace
# writes "NAME() = VALUE;" for a leaf that returns one), and every call that
# returns a value one line with it (objpatch: "ret=VALUE" in a comment;
# uftrace: "NAME() = VALUE;" or "} = VALUE;").  Fixed strings in the C
# locale: the traces have millions of lines, and no value of these programs
# looks like one of the strings.
count_calls() { LC_ALL=C grep -c -F -e '();' -e '() {' "$1" || true; }
count_rets() { LC_ALL=C grep -c -F 'ret=' "$1" || true; }
uf_count_calls() { LC_ALL=C grep -c -F -e '();' -e '() {' -e '() = ' "$1" || true; }
uf_count_rets() { LC_ALL=C grep -c -F -e '() = ' -e '} = ' "$1" || true; }
# The runtime's start-up line (OBJPATCH_STATS=1), as "N M P T C" per run:
# N sites in M modules, P patched in T ns (C ns of CPU)
stats_lines() {
	sed -nE 's/.*objpatch: ([0-9]+) sites in ([0-9]+) modules, ([0-9]+) patched in ([0-9]+) ns \(([0-9]+) ns of CPU\).*/\1 \2 \3 \4 \5/p' "$1" 2> /dev/null
}
# probe_text WHAT FILE LOG: the trace in FILE shows every call and return
# value that the program's result line (in LOG) promises; else sets why
probe_text() {
	local want void c r
	want=$(result "$3" traced_calls); void=$(result "$3" void_calls)
	c=$(count_calls "$2"); r=$(count_rets "$2")
	[ -n "$want" ] && [ "$c" = "$want" ] && [ "$r" = $((want - void)) ] ||
		why="$1 showed $c calls and $r return values, not the ${want:-?} calls and $((${want:-0} - ${void:-0})) return values the program made (see $2)"
}
if [ -z "$only_uftrace" ]; then
	why=""
	if [ ! -x "$objpatch" ] || [ ! -f "$lib" ]; then
		why="build/objpatch or build/libobjpatch.so is missing (make)"
	elif ! "$objpatch" run --output "$tmp/probe.txt" -- "$bld/calls-pg" 3 > "$tmp/probe.log" 2>&1; then
		why="\`build/objpatch run --output FILE -- calls-pg 3\` failed: $(head -3 "$tmp/probe.log" | tr '\n' ' ')"
	elif probe_text "\`objpatch run\` of calls-pg 3" "$tmp/probe.txt" "$tmp/probe.log"; [ -n "$why" ]; then
		:
	elif ! "$objpatch" record --output "$tmp/probe.raw" -- "$bld/calls-pg" 3 > "$tmp/probe-rec.log" 2>&1 ||
		! "$objpatch" report "$tmp/probe.raw" > "$tmp/probe-rep.txt" 2>> "$tmp/probe-rec.log"; then
		why="\`build/objpatch record --output FILE -- calls-pg 3\` + \`objpatch report FILE\` failed: $(head -3 "$tmp/probe-rec.log" | tr '\n' ' ')"
	elif probe_text "\`objpatch record\` + \`objpatch report\` of calls-pg 3" "$tmp/probe-rep.txt" "$tmp/probe-rec.log"; [ -n "$why" ]; then
		:
	elif ! "$objpatch" run --output "$tmp/probe-work.txt" -- "$bld/work-pg" 20 > "$tmp/probe-work.log" 2>&1; then
		why="\`build/objpatch run --output FILE -- work-pg 20\` failed: $(head -3 "$tmp/probe-work.log" | tr '\n' ' ')"
	elif probe_text "\`objpatch run\` of work-pg 20" "$tmp/probe-work.txt" "$tmp/probe-work.log"; [ -n "$why" ]; then
		:
	elif ! env LD_PRELOAD="$lib" OBJPATCH_STATS=1 "$bld/calls-pg" 1 > /dev/null 2> "$tmp/probe-stats.log" ||
		[ -z "$(stats_lines "$tmp/probe-stats.log")" ]; then
		why="the runtime preloaded with OBJPATCH_STATS=1 did not print \"objpatch: N sites in M modules, P patched in T ns (C ns of CPU)\": $(head -3 "$tmp/probe-stats.log" | tr '\n' ' ')"
	fi
	[ -z "$why" ] || die "the runtime is not usable: $why.
The objpatch half cannot be measured; \`bench/runtime.sh --uftrace-only\` measures uftrace and the baselines."
fi


# The start-up programs: compiling 20,000 functions takes gcc about 15 s of
# CPU, so the compiled objects are kept while the generator, compiler and
# flags stay the same; the tables and the link are redone every run.
jobs=$(nproc)
many_key=$( { cat bench/runtime/gen-many.pl; "$CC" --version; echo "${CFLAGS[*]} ${PG[*]} $jobs"; } | md5sum | cut -c1-16)
# many_objs DIR N FLAGS...: DIR/part-*.o, the N functions compiled in $jobs parts with FLAGS
many_objs() {
	local dir=$1 n=$2 p
	shift 2
	echo "(for P in 0..$((jobs - 1))) bench/runtime/gen-many.pl --funcs=$n --part=P --parts=$jobs > part-P.c; $CC $* -c part-P.c -o part-P.o" >> "$res/build-commands"
	if [ "$(cat "$dir/KEY" 2> /dev/null)" = "$many_key $*" ]; then return; fi
	rm -rf "$dir"
	mkdir -p "$dir"
	for ((p = 0; p < jobs; p++)); do
		bench/runtime/gen-many.pl --funcs="$n" --part=$p --parts="$jobs" > "$dir/part-$p.c"
	done
	echo "runtime.sh: compiling $n functions for the start-up runs" >&2
	for ((p = 0; p < jobs; p++)); do
		"$CC" "$@" -c "$dir/part-$p.c" -o "$dir/part-$p.o" &
	done
	for ((p = 0; p < jobs; p++)); do wait -n || die "compiling $dir failed"; done
	echo "$many_key $*" > "$dir/KEY"
}
# many_bin BIN N [--nop]: the program with N functions, our tables, linked without -pg
many_bin() {
	local bin=$1 n=$2 d=$bld/objs-many-$2 o
	shift 2
	many_objs "$d" "$n" "${CFLAGS[@]}" "${PG[@]}"
	rm -rf "$bin.objs"
	mkdir -p "$bin.objs"
	cp "$d"/part-*.o "$bin.objs/"
	echo "(for each part-P.o) ${rmc//$top\//} --mode=user${*:+ $*} part-P.o" >> "$res/build-commands"
	for o in "$bin.objs"/part-*.o; do "$rmc" --mode=user "$@" "$o"; done
	b "$CC" "${LDFLAGS[@]}" -o "$bin" "$bin.objs"/part-*.o
	rm -rf "$bin.objs"
}
largest=${SITES[0]}
small=${SITES[0]}
for n in "${SITES[@]}"; do
	[ "$n" -le "$largest" ] || largest=$n
	[ "$n" -ge "$small" ] || small=$n
	many_bin "$bld/many-$n" "$n"
done
many_bin "$bld/many-$largest-nop" "$largest" --nop
# uftrace's own start-up patching, for comparison: it patches the NOPs of
# gcc -mnop-mcount at the sites gcc records itself (-mrecord-mcount); gcc
# refuses -mnop-mcount with -fPIC, hence a non-PIE build.
ufpatch=""
if [ "${RT_UFTRACE_PATCH:-1}" != 0 ] && [ "$(uname -m)" = x86_64 ]; then
	uf_flags=(-fno-pie -pg -mfentry -mnop-mcount -mrecord-mcount)
	many_objs "$bld/objs-uf-$largest" "$largest" "${CFLAGS[@]}" "${uf_flags[@]}"
	b "$CC" -no-pie -o "$bld/many-uf-$largest" "$bld/objs-uf-$largest"/part-*.o
	ufpatch=$bld/many-uf-$largest
fi
declare -A sites
for n in "${SITES[@]}"; do sites[$n]=$("$rmc" --list "$bld/many-$n" | wc -l); done

# ---- measuring (run_one, rotate and the arithmetic: bench/runtime/lib.sh)

# Return values that uftrace records: the one spec per non-void function
# (format and size as its type: int, pointer, long, unsigned), like ours from
# the prototype table; void functions record none, as ours.
declare -A UF_RETVAL=(
	[calls]='ret_int@retval/i32 ret_ptr@retval/x ret_sum@retval/i64 main@retval/i32'
	[work]='hash_str@retval/u32 ht_insert@retval/i32 ht_lookup@retval/i32 cmp_rec@retval/i32 vm_run@retval/i64 pack_rec@retval/u64 main@retval/i32'
)
UF_COMMON=(record --no-libcall --no-event)
# cfg_cmd PROG CFG ITERS: sets CMD (runit arguments) for a per-call configuration
cfg_cmd() {
	local p=$1 d=$tmp/$2.data s
	local -a ufr=()
	for s in ${UF_RETVAL[$p]}; do ufr+=(-R "$s"); done
	rm -rf "$d" "$d.old" "$tmp/$2.txt" "$tmp/$2.raw" "$tmp/post.txt"
	case $2 in
	base) CMD=(-- "$bld/$p-nopg" "$3") ;;
	pgbare) CMD=(-- "$bld/$p-pg" "$3") ;;
	uft) CMD=(-- "$uftrace" "${UF_COMMON[@]}" -d "$d" "$bld/$p-pg" "$3") ;;
	uftR) CMD=(-- "$uftrace" "${UF_COMMON[@]}" -d "$d" "${ufr[@]}" "$bld/$p-pg" "$3") ;;
	uftRs) CMD=(-- "$uftrace" "${UF_COMMON[@]}" -d "$d" --libmcount-single "${ufr[@]}" "$bld/$p-pg" "$3") ;;
	oursR) CMD=(-- "$objpatch" record --output "$tmp/$2.raw" -- "$bld/$p-pg" "$3") ;;
	ours) CMD=(-- "$objpatch" run --output "$tmp/$2.txt" -- "$bld/$p-pg" "$3") ;;
	oursF) CMD=(-- "$objpatch" run --format folded --output "$tmp/$2.txt" -- "$bld/$p-pg" "$3") ;;
	esac
}
# post_cmd CFG: sets CMD to the configuration's formatting step (a text
# trace written to a file), if it has one: uftrace's replay of its
# recording, our report of ours
post_cmd() {
	case $1 in
	uftR) CMD=(-o "$tmp/post.txt" -- "$uftrace" replay -d "$tmp/uftR.data" --no-pager) ;;
	oursR) CMD=(-o "$tmp/post.txt" -- "$objpatch" report "$tmp/oursR.raw") ;;
	*) return 1 ;;
	esac
}
# text_check PREFIX TEXT COUNT-CALLS COUNT-RETS: calls, return values, first
# lines and size of a formatted trace
text_check() {
	"$3" "$2" > "$1.calls"
	"$4" "$2" > "$1.rets"
	head -12 "$2" > "$1.head"
	du -b "$2" | cut -f1 > "$1.textbytes"
}
# check PROG CFG: what the configuration recorded, checked once (repetition
# 1) on its real output, then thrown away: calls and return values shown,
# the first lines, the bytes written
check() {
	local c=$2 o=$res/check.$1.$2
	case $c in
	uft | uftRs)
		"$uftrace" report -d "$tmp/$c.data" --no-pager > "$o.report" 2>&1 || true
		awk '$NF ~ /^[A-Za-z_]/ && $(NF-1) ~ /^[0-9]+$/ { s += $(NF-1) } END { print s + 0 }' "$o.report" > "$o.calls"
		"$uftrace" replay -d "$tmp/$c.data" --no-pager 2> /dev/null | head -12 > "$o.head" || true
		;;
	uftR) text_check "$o" "$tmp/post.txt" uf_count_calls uf_count_rets ;;
	oursR)
		text_check "$o" "$tmp/post.txt" count_calls count_rets
		du -b "$tmp/oursR.raw" | cut -f1 > "$o.bytes"
		;;
	ours) text_check "$o" "$tmp/ours.txt" count_calls count_rets ;;
	oursF)
		head -12 "$tmp/oursF.txt" > "$o.head"
		du -b "$tmp/oursF.txt" | cut -f1 > "$o.textbytes"
		;;
	esac
	[ ! -d "$tmp/$c.data" ] || du -sb "$tmp/$c.data" | cut -f1 > "$o.bytes"
}
declare -A PITERS=([calls]=$ITERS [work]=$WORK_ITERS) CFGS
progs=(calls)
CFGS[calls]="base pgbare uft uftR uftRs"
[ -n "$only_uftrace" ] || CFGS[calls]+=" oursR ours oursF"
if [ "$WORK_ITERS" -gt 0 ]; then
	progs+=(work)
	CFGS[work]="base pgbare uftR"
	[ -n "$only_uftrace" ] || CFGS[work]+=" oursR ours"
fi

for p in "${progs[@]}"; do
	echo "runtime.sh: traced calls of $p, ${CFGS[$p]}, ${PITERS[$p]} iterations, $REPS repetitions" >&2
done
for rep in $(seq 1 "$REPS"); do
	for p in "${progs[@]}"; do
		# shellcheck disable=SC2086 # a list of words
		for cfg in $(rotate ${CFGS[$p]}); do
			for it in "${PITERS[$p]}" 0; do
				cfg_cmd "$p" "$cfg" "$it"
				run_one "$p.$cfg.$it" "${CMD[@]}"
				! post_cmd "$cfg" || run_one "$p.${cfg}post.$it" "${CMD[@]}"
				[ "$rep" != 1 ] || [ "$it" = 0 ] || check "$p" "$cfg"
				rm -rf "$tmp/$cfg.data" "$tmp/$cfg.data.old" "$tmp/$cfg.txt" "$tmp/$cfg.raw" "$tmp/post.txt"
			done
		done
	done
	echo "runtime.sh: repetition $rep done" >&2
done
declare -A TC TC0 VOID
for p in "${progs[@]}"; do
	TC[$p]=$(result "$res/$p.base.${PITERS[$p]}.log" traced_calls)
	TC0[$p]=$(result "$res/$p.base.0.log" traced_calls)
	VOID[$p]=$(result "$res/$p.base.${PITERS[$p]}.log" void_calls)
done

# NOP'd sites: the runtime loaded with a filter that matches nothing (it NOPs
# every site at start-up) on the -pg build, against the build without -pg.
# LD_PRELOAD directly, as `objpatch run` sets it: the launcher's own fork and
# exec are a constant that is no cost of a NOP'd site (shown on its own).
# Each also with 0 iterations, for the overhead without the fixed costs
# (start-up: loading the runtime and setting the sites, goal 3's business).
declare -A NITERS=([calls]=$NOP_ITERS [work]=$WORK_NOP_ITERS)
nop_cmd() {	# nop_cmd PROG CFG ITERS
	local n=$3
	want_status=0
	case $2 in
	base) CMD=(-- "$bld/$1-nopg" "$n") ;;
	nopbuild) CMD=(-- "$bld/$1-nop" "$n") ;;
	pgbare) CMD=(-- "$bld/$1-pg" "$n") ;;
	ours) CMD=(-e "LD_PRELOAD=$lib" -e "OBJPATCH_FILTER=$NOMATCH" -- "$bld/$1-pg" "$n") ;;
	# objpatch run exits 1 when a filter selects no function: said, as the user would want it.
	oursrun) CMD=(-- "$objpatch" run --filter "$NOMATCH" --output "$tmp/nop.txt" -- "$bld/$1-pg" "$n")
		want_status=1 ;;
	oursnop) CMD=(-e "LD_PRELOAD=$lib" -e "OBJPATCH_FILTER=$NOMATCH" -- "$bld/$1-nop" "$n") ;;
	esac
}
nop_progs=(work calls)
nop_cfgs=(base nopbuild pgbare)
[ -n "$only_uftrace" ] || nop_cfgs+=(ours oursrun oursnop)
echo "runtime.sh: NOP'd sites, ${nop_cfgs[*]}, work $WORK_NOP_ITERS and calls $NOP_ITERS iterations, $NOP_REPS repetitions" >&2
for rep in $(seq 1 "$NOP_REPS"); do
	for p in "${nop_progs[@]}"; do
		for cfg in $(rotate "${nop_cfgs[@]}"); do
			nop_cmd "$p" "$cfg" "${NITERS[$p]}"
			run_one "nop.$p.$cfg" "${CMD[@]}"
			nop_cmd "$p" "$cfg" 0
			run_one "nop.$p.$cfg.0" "${CMD[@]}"
		done
	done
done

# Start-up: start-to-main of the many-function programs, and the runtime's
# own figures.  No filter at all: every site is NOP'd and no name is read; a
# filter that matches nothing makes it read the names (and prototypes) to
# match them.
start_cmd() {	# start_cmd CFG N
	want_status=0
	rm -rf "$tmp/uf.data" "$tmp/uf.data.old"
	case $1 in
	bare) CMD=(-- "$bld/many-$2") ;;
	nofilt) CMD=(-e "LD_PRELOAD=$lib" -e OBJPATCH_STATS=1 -- "$bld/many-$2") ;;
	ours) CMD=(-e "LD_PRELOAD=$lib" -e "OBJPATCH_FILTER=$NOMATCH" -e OBJPATCH_STATS=1 -- "$bld/many-$2") ;;
	oursrun) CMD=(-e OBJPATCH_STATS=1 -- "$objpatch" run --filter "$NOMATCH" --output "$tmp/start.txt" -- "$bld/many-$2")
		want_status=1 ;;
	nopnofilt) CMD=(-e "LD_PRELOAD=$lib" -e OBJPATCH_STATS=1 -- "$bld/many-$2-nop") ;;
	oursnop) CMD=(-e "LD_PRELOAD=$lib" -e "OBJPATCH_FILTER=$NOMATCH" -e OBJPATCH_STATS=1 -- "$bld/many-$2-nop") ;;
	ufbare) CMD=(-- "$ufpatch") ;;
	ufnone) CMD=(-- "$uftrace" "${UF_COMMON[@]}" -d "$tmp/uf.data" -P "$NOMATCH" "$ufpatch") ;;
	ufall) CMD=(-- "$uftrace" "${UF_COMMON[@]}" -d "$tmp/uf.data" -P . "$ufpatch") ;;
	esac
}
start_cfgs=()
for n in "${SITES[@]}"; do
	start_cfgs+=("bare:$n")
	[ -n "$only_uftrace" ] || start_cfgs+=("nofilt:$n" "ours:$n" "oursrun:$n")
done
[ -n "$only_uftrace" ] || start_cfgs+=("nopnofilt:$largest" "oursnop:$largest")
[ -z "$ufpatch" ] || start_cfgs+=(ufbare:0 ufnone:0 ufall:0)
echo "runtime.sh: start-up, ${start_cfgs[*]}, $START_REPS repetitions" >&2
for rep in $(seq 1 "$START_REPS"); do
	for c in $(rotate "${start_cfgs[@]}"); do
		start_cmd "${c%%:*}" "${c#*:}"
		run_one "start.${c%%:*}.${c#*:}" "${CMD[@]}"
	done
done
rm -rf "$tmp"

# ---- report
set +o pipefail
colmin() { cut -f"$2" "$res/$1.tsv" | sort -g | head -1; }	# colmin TAG FIELD: its minimum
verdict() { awk -v c="$1" 'BEGIN { print (c) ? "met" : "**not met**" }'; }

# t PROG CFG ITERS FIELD: median time (or maximum resident set, field 4) of a
# per-call configuration; an end-to-end one (e2eU, e2eO) is its recording's
# plus its formatting step's (the larger of the two for the resident set)
t() {
	local op="+"
	[ "$4" != 4 ] || op=","
	case $2 in
	e2eU) calc "$([ "$op" = + ] || echo max)($(col "$1.uftR.$3" "$4") $op $(col "$1.uftRpost.$3" "$4"))" "%.0f" ;;
	e2eO) calc "$([ "$op" = + ] || echo max)($(col "$1.oursR.$3" "$4") $op $(col "$1.oursRpost.$3" "$4"))" "%.0f" ;;
	*) col "$1.$2.$3" "$4" ;;
	esac
}
# per_call PROG CFG FIELD: ns per traced call, whole run, against the build without -pg
per_call() {
	local it=${PITERS[$1]}
	calc "($(t "$1" "$2" "$it" "$3") - $(t "$1" base "$it" "$3")) / ${TC[$1]}" "%.1f"
}
# marginal PROG CFG FIELD: the same without the fixed costs (the runs of 0 iterations subtracted)
marginal() {
	local it=${PITERS[$1]}
	calc "(($(t "$1" "$2" "$it" "$3") - $(t "$1" "$2" 0 "$3")) - ($(t "$1" base "$it" "$3") - $(t "$1" base 0 "$3"))) / (${TC[$1]} - ${TC0[$1]})" "%.1f"
}
fixed() { calc "($(t "$1" "$2" 0 "$3") - $(t "$1" base 0 "$3")) / 1e6" "%.1f"; }	# ms
# post_figure PROG CFG: the formatting step alone, CPU
post_figure() {
	local it=${PITERS[$1]}
	echo "$(ms "$(col "$1.${2}post.$it" 2)") ms of CPU ($(calc "$(col "$1.${2}post.$it" 2) / ${TC[$1]}" "%.1f") ns per call; $(ms "$(col "$1.${2}post.$it" 1)") ms wall)"
}
label() {
	case $1 in
	base) echo "no -pg build (baseline)" ;;
	pgbare) echo "-pg build alone (calls glibc's \`$hook\`)" ;;
	uft) echo "\`uftrace record\`: entry + exit only" ;;
	uftR) echo "\`uftrace record -R ...\`: entry + exit + return values" ;;
	uftRs) echo "\`uftrace record --libmcount-single -R ...\`" ;;
	oursR) echo "\`objpatch record\`: entry + exit + return values" ;;
	ours) echo "\`objpatch run\`: recorded and formatted as text in the process" ;;
	oursF) echo "\`objpatch run --format folded\`: the same recorded, one line per stack written" ;;
	e2eU) echo "\`uftrace record -R ...\` + \`uftrace replay\` (text)" ;;
	e2eO) echo "\`objpatch record\` + \`objpatch report\` (text)" ;;
	esac
}
# The checks of repetition 1; an end-to-end row shows its recording's.
src() { case $2 in e2eU) echo "$res/check.$1.uftR" ;; e2eO) echo "$res/check.$1.oursR" ;; *) echo "$res/check.$1.$2" ;; esac; }
checked() {	# checked PROG CFG: calls the tool's output shows
	local f
	f=$(src "$1" "$2").calls
	if [ -f "$f" ]; then
		if [ "$(cat "$f")" = "${TC[$1]}" ]; then echo "$(cat "$f") (all)"; else echo "**$(cat "$f") of ${TC[$1]}**"; fi
	else
		echo "-"
	fi
}
rets() {	# rets PROG CFG: return values the tool's output shows
	local f want=$((TC[$1] - VOID[$1]))
	f=$(src "$1" "$2").rets
	if [ -f "$f" ]; then
		if [ "$(cat "$f")" = "$want" ]; then echo "$(cat "$f") (all)"; else echo "**$(cat "$f") of $want**"; fi
	else
		echo "-"
	fi
}
bytes() {	# bytes PROG CFG: the recording, and the text of an end-to-end row
	local s r="" x=""
	s=$(src "$1" "$2")
	[ ! -f "$s.bytes" ] || r=$(mib "$(cat "$s.bytes")")
	case $2 in ours | oursF | e2e*) [ ! -f "$s.textbytes" ] || x="$(mib "$(cat "$s.textbytes")") text" ;; esac
	if [ -n "$r" ] && [ -n "$x" ]; then echo "$r + $x"; else echo "${r:-${x:--}}"; fi
}
per_call_table() {	# per_call_table PROG CFG...
	local p=$1 cfg
	shift
	local it=${PITERS[$p]}
	echo "| configuration | CPU | of which system | wall | max RSS | **ns per call (CPU)** | ns per call (wall) | marginal ns (CPU) | fixed ms (CPU) | calls in its output | return values in its output | data written |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
	for cfg in "$@"; do
		echo -n "| $(label "$cfg") | $(ms "$(t "$p" "$cfg" "$it" 2)") ms | $(ms "$(t "$p" "$cfg" "$it" 3)") ms | $(ms "$(t "$p" "$cfg" "$it" 1)") ms | $(calc "$(t "$p" "$cfg" "$it" 4) / 1024" "%.0f") MiB | "
		if [ "$cfg" = base ]; then
			echo "- | - | - | - | - | - | - |"
		else
			echo "**$(per_call "$p" "$cfg" 2)** | $(per_call "$p" "$cfg" 1) | $(marginal "$p" "$cfg" 2) | $(fixed "$p" "$cfg" 2) | $(checked "$p" "$cfg") | $(rets "$p" "$cfg") | $(bytes "$p" "$cfg") |"
		fi
	done
	echo
}
# ratio PROG OURS UFTRACE FIELD FUNC: ours against uftrace, e.g. "0.25x (40.1 vs 160.2 ns)"
ratio() {
	local o u
	o=$("$5" "$1" "$2" "$4"); u=$("$5" "$1" "$3" "$4")
	echo "$(calc "$o / $u" "%.2f")x ($o vs $u ns)"
}
goal1() { echo "$(ratio "$@"), $(verdict "$(calc "$("$5" "$1" "$2" "$4") * 3 <= $("$5" "$1" "$3" "$4")" "%d")")"; }
# Start-up: the runtime's own figures, from its OBJPATCH_STATS=1 lines.
# own TAG K: median over the runs of field K (4 wall ns, 5 CPU ns) per site
own() { stats_lines "$res/$1.log" | awk -v k="$2" '$1 > 0 { print $k / $1 }' | median; }
own_abs() { stats_lines "$res/$1.log" | awk -v k="$2" '{ print $k }' | median; }	# own_abs TAG K: not per site
own_runs() { stats_lines "$res/$1.log" | wc -l; }
slabel() {
	case $1 in
	bare) echo "binary alone" ;;
	nofilt) echo "runtime preloaded, no filter (every site NOP'd)" ;;
	ours) echo "runtime preloaded, filter matching nothing" ;;
	oursrun) echo "\`objpatch run --filter $NOMATCH\`" ;;
	nopnofilt) echo "\`--nop\` build, runtime preloaded, no filter" ;;
	oursnop) echo "\`--nop\` build, runtime preloaded, filter matching nothing" ;;
	esac
}
start_row() {	# start_row CFG N
	local c=$1 n=$2 tag=start.$1.$2 b=start.bare.$2 s=${sites[$2]} k own_txt
	if [ "$c" = bare ]; then
		echo "| $n | $s | $(slabel bare) | $(calc "$(col "$b" 6) / 1e3" "%.0f") us | - | - | - | - | - |"
		return
	fi
	k=$(own_runs "$tag")
	if [ "$k" -gt 0 ]; then
		own_txt="**$(calc "$(own "$tag" 5)" "%.1f")** | $(calc "$(own "$tag" 4)" "%.1f") | $(stats_lines "$res/$tag.log" | tail -1 | cut -d' ' -f3)$([ "$k" = "$START_REPS" ] || echo " (**printed in $k of $START_REPS runs**)")"
	else
		own_txt="**not printed** | - | -"
	fi
	echo "| $n | $s | $(slabel "$c") | $(calc "$(col "$tag" 6) / 1e3" "%.0f") us | $(calc "($(col "$tag" 6) - $(col "$b" 6)) / $s" "%.1f") | $(calc "($(colmin "$tag" 6) - $(colmin "$b" 6)) / $s" "%.1f") | $own_txt |"
}
nlabel() {
	case $1 in
	base) echo "no -pg build (baseline)" ;;
	nopbuild) echo "\`recordmcount --nop\` build alone (NOPs written at build time)" ;;
	pgbare) echo "-pg build alone (every call goes to glibc's hook)" ;;
	ours) echo "-pg build, runtime preloaded, filter matching nothing (it NOPs every site)" ;;
	oursrun) echo "the same through \`objpatch run --filter $NOMATCH\` (adds the launcher)" ;;
	oursnop) echo "\`--nop\` build, runtime preloaded, filter matching nothing" ;;
	esac
}
ovh() { calc "($(col "nop.$1.$2" "$3") / $(col "nop.$1.base" "$3") - 1) * 100" "%+.1f%%"; }	# ovh PROG CFG FIELD
# movh PROG CFG FIELD: the same without the fixed costs (each run of 0 iterations subtracted)
movh() { calc "(($(col "nop.$1.$2" "$3") - $(col "nop.$1.$2.0" "$3")) / ($(col "nop.$1.base" "$3") - $(col "nop.$1.base.0" "$3")) - 1) * 100" "%+.1f%%"; }
ok2() { verdict "$(calc "$(col "nop.$1.ours" "$2") <= 1.02 * $(col "nop.$1.base" "$2")" "%d")"; }	# ok2 PROG FIELD

{
	echo "# Benchmark: the runtime"
	echo
	echo "Written by \`bench/runtime.sh${only_uftrace:+ --uftrace-only}\`; every number below was measured by that run."
	echo
	echo "## Setup"
	echo
	echo "- Date: started $date_started, finished $(date -u '+%Y-%m-%d %H:%M:%S UTC'); benchmark run time $(($(date +%s) - started)) s"
	echo "- Commit: $(git rev-parse HEAD 2> /dev/null || echo unknown) ($(git describe --always --dirty 2> /dev/null || echo unknown)$([ -z "$(git status --porcelain 2> /dev/null)" ] || echo "; the working tree had uncommitted changes"))"
	echo "- Machine: $(uname -srm), $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo), $(nproc) cores; load average before the run: $load_before, after: $(cut -d' ' -f1-3 /proc/loadavg) (the machine may be shared)"
	echo "- Invocation (every setting, defaults included): \`$invocation\`"
	echo "- Compiler: $("$CC" --version | head -1); programs built \`$CC ${CFLAGS[*]} ${PG[*]} -c\`, \`build/recordmcount --mode=user\` (\`--nop\` for the NOP build), linked without -pg${LDFLAGS[*]:+ (\`${LDFLAGS[*]}\`)} (with -g, recordmcount adds the prototype table from which ours types return values; -g changes no code); the baseline is the same source built \`$CC ${CFLAGS[*]}\`$([ ${#LDFLAGS[@]} -gt 0 ] || echo " (gcc's default here: PIE, so the hook calls are 6-byte \`call *__fentry__@GOTPCREL(%rip)\`)")"
	echo "- uftrace: $("$uftrace" --version 2>&1 | head -1) (Debian $(dpkg-query -W -f='${Version}' uftrace 2>/dev/null || echo '?')), \`uftrace ${UF_COMMON[*]} [-R ...] -d DIR PROG\`: \`--no-libcall\` so that it records the program's functions only, as ours; \`--no-event\` so that it records no scheduler events, which ours does not either. Return values with one \`-R FUNC@retval/FMT\` per non-void function; with any \`-R\` uftrace loads its full libmcount.so instead of libmcount-fast.so. \`uftrace replay -d DIR\` formats a recording as text"
	[ -n "$only_uftrace" ] || echo "- Ours: \`build/objpatch record --output FILE -- PROG\` writes a raw recording (every function traced) that \`build/objpatch report FILE\` formats as text later; \`build/objpatch run --output FILE -- PROG\` records and formats in the process"
	echo "- Times: every run by \`bench/runtime/runit.c\` (posix_spawn + wait4, no shell in between); *CPU* is user + system time of every process and thread of the run (a tracer's recorder included), *wall* the elapsed time; medians over the repetitions, the configurations alternating their order. Trace data and formatted text go to files on the disk of \`$(realpath --relative-to="$top" "$out")/tmp\` and are deleted between runs (not timed). The exact commands are at the end."
	echo
	echo "## 1. Cost per traced call"
	echo
	echo "*ns per call* = (median time - median time of the no -pg build) / traced calls; *marginal* subtracts each configuration's run with 0 iterations first, removing fixed costs (start-up, writing symbol files); *fixed* is that 0-iteration run's extra time; *max RSS* the largest resident set of a process of the run. An end-to-end row adds the median times of its two steps, the formatting step run on the recording just made, its text written to a file. *Calls* and *return values in its output* are counted in the text each tool wrote (uftrace's recording without \`-R\` through \`uftrace report\`), on repetition 1; all the calls made and all that return a value must be there."
	echo
	echo "### calls.c: empty functions"
	echo
	echo "\`calls $ITERS\` (bench/runtime/calls.c): ${TC[calls]} traced calls ($((TC[calls] - 1)) in the loop: int, void, pointer and a non-leaf long function; and main), ${VOID[calls]} of them void, ${psites[calls]} call sites. $REPS repetitions."
	echo
	echo "Recording (the trace written raw, to be formatted later):"
	echo
	# shellcheck disable=SC2046 # a list of words
	per_call_table calls $(for c in ${CFGS[calls]}; do case $c in ours | oursF) ;; *) echo "$c" ;; esac; done)
	if [ -z "$only_uftrace" ]; then
		echo "**Goal of the issue, ours at most a third of uftrace's cost per traced call**, recording against recording (\`objpatch record\` against \`uftrace record -R ...\`, both recording return values):"
		echo
		echo "- CPU time, whole run: $(goal1 calls oursR uftR 2 per_call)"
		echo "- wall time, whole run: $(goal1 calls oursR uftR 1 per_call)"
		echo "- CPU time, marginal: $(goal1 calls oursR uftR 2 marginal)"
		echo "- against uftrace's single-thread library (\`--libmcount-single -R\`, CPU, whole run): $(goal1 calls oursR uftRs 2 per_call)"
		echo
		rdtsc=${clock_line#rdtsc_ns=}; rdtsc=${rdtsc%% *}
		echo "**Goal: recording at most 30 ns per traced call** (\`objpatch record\`, CPU, whole run): $(per_call calls oursR 2) ns, $(verdict "$(calc "$(per_call calls oursR 2) <= 30" "%d")"). The floor under it on this machine: the runtime reads the TSC at every entry and every exit, and one read costs $rdtsc ns of CPU (\`bench/runtime/clock.c\`: \`$clock_line\`, the fastest of 5 passes of 20 M reads), so $(calc "2 * $rdtsc" "%.1f") ns of each call are the clock's."
		echo
		echo "End to end, up to a text trace on disk (uftrace's replay and our report timed on their own and added):"
		echo
		per_call_table calls e2eU ours e2eO oursF
		echo "- \`objpatch run\` against uftrace record + replay, CPU, whole run: $(ratio calls ours e2eU 2 per_call); marginal: $(ratio calls ours e2eU 2 marginal)"
		echo "- \`objpatch record\` + \`report\` against uftrace record + replay, CPU, whole run: $(ratio calls e2eO e2eU 2 per_call); marginal: $(ratio calls e2eO e2eU 2 marginal)"
		echo "- The formatting steps alone: \`uftrace replay\` $(post_figure calls uftR); \`objpatch report\` $(post_figure calls oursR)"
		echo
	fi
	if [[ " ${progs[*]} " == *" work "* ]]; then
		echo "### work.c: functions that do some work"
		echo
		echo "\`work $WORK_ITERS\` (bench/runtime/work.c: string hashing, hash table lookups and inserts, a qsort comparator, a bytecode interpreter, record serialisation): ${TC[work]} traced calls, ${VOID[work]} of them void, ${psites[work]} call sites; the baseline spends $(calc "$(t work base "$WORK_ITERS" 2) / ${TC[work]}" "%.1f") ns of CPU per traced call. $REPS repetitions."
		echo
		# shellcheck disable=SC2046 # a list of words
		per_call_table work $(for c in ${CFGS[work]}; do case $c in ours | oursF) ;; *) echo "$c" ;; esac; done)
		if [ -z "$only_uftrace" ]; then
			echo "- \`objpatch record\` against \`uftrace record -R ...\`, CPU, whole run: $(ratio work oursR uftR 2 per_call); marginal: $(ratio work oursR uftR 2 marginal)"
			echo
			echo "End to end, up to a text trace on disk:"
			echo
			per_call_table work e2eU ours e2eO
			echo "- \`objpatch run\` against uftrace record + replay, CPU, whole run: $(ratio work ours e2eU 2 per_call)"
			echo "- \`objpatch record\` + \`report\` against uftrace record + replay, CPU, whole run: $(ratio work e2eO e2eU 2 per_call)"
			echo "- The formatting steps alone: \`uftrace replay\` $(post_figure work uftR); \`objpatch report\` $(post_figure work oursR)"
			echo
		fi
	fi
	for p in "${progs[@]}"; do
		for cfg in ${CFGS[$p]}; do
			[ -s "$res/check.$p.$cfg.head" ] || continue
			what=$(label "$cfg")
			case $cfg in uftR) what="\`uftrace replay\` of $what" ;; oursR) what="\`objpatch report\` of $what" ;; esac
			echo "First lines of $what on $p.c, repetition 1:"
			echo
			echo '```'
			cat "$res/check.$p.$cfg.head"
			echo '```'
			echo
		done
	done

	echo "## 2. Every site NOP'd"
	echo
	echo "\`work $WORK_NOP_ITERS\`: $(result "$res/nop.work.base.log" traced_calls) calls, $(calc "$(col nop.work.base 2) / $(result "$res/nop.work.base.log" traced_calls)" "%.1f") ns of CPU each in the baseline; \`calls $NOP_ITERS\`: $(result "$res/nop.calls.base.log" traced_calls) calls, $(calc "$(col nop.calls.base 2) / $(result "$res/nop.calls.base.log" traced_calls)" "%.1f") ns each (loop included). $NOP_REPS repetitions. *Overhead* = median / median of the same program's no -pg build - 1; *marginal* subtracts each configuration's run with 0 iterations first, removing the fixed costs (loading the runtime, setting the sites: section 3)."
	echo
	echo "| program | configuration | CPU | wall | **overhead (CPU)** | overhead (wall) | marginal overhead (CPU) | fixed ms (CPU) |"
	echo "|---|---|---|---|---|---|---|---|"
	for p in "${nop_progs[@]}"; do
		for cfg in "${nop_cfgs[@]}"; do
			if [ "$cfg" = base ]; then
				echo "| $p.c | $(nlabel base) | $(ms "$(col "nop.$p.base" 2)") ms | $(ms "$(col "nop.$p.base" 1)") ms | - | - | - | - |"
			else
				echo "| $p.c | $(nlabel "$cfg") | $(ms "$(col "nop.$p.$cfg" 2)") ms | $(ms "$(col "nop.$p.$cfg" 1)") ms | **$(ovh "$p" "$cfg" 2)** | $(ovh "$p" "$cfg" 1) | $(movh "$p" "$cfg" 2) | $(calc "($(col "nop.$p.$cfg.0" 2) - $(col "nop.$p.base.0" 2)) / 1e6" "%.1f") |"
			fi
		done
	done
	echo
	if [ -z "$only_uftrace" ]; then
		echo "In this one layout of each program, on work.c, whole run: $(ovh work ours 2) on CPU time ($(ok2 work 2) within 2%); $(ovh work ours 1) on wall time ($(ok2 work 1)). Without the fixed costs: $(movh work ours 2) on CPU time. One layout against another moves work.c by more than the NOPs cost (compare the \`--nop\` build with no runtime at all), so the issue's goal (within 2%) is judged over many random layouts by \`bench/layout.sh\` (\`make bench-layout\`, bench/RESULTS-layout.md)."
		echo
		echo "Worst case, calls.c (empty functions: a NOP is a sizeable part of a call): $(ovh calls ours 2) on CPU time, $(ovh calls ours 1) on wall time (within 2%: $(ok2 calls 2) on CPU); without the fixed costs $(movh calls ours 2) on CPU time."
		echo
	fi

	echo "## 3. Start-up patching"
	echo
	echo "Programs of N functions from \`bench/runtime/gen-many.pl\` (none called; main returns at once), $START_REPS repetitions. *Start-to-main*: from before the spawn to the clock read first thing in main (\`bench/runtime/runit.c\`); *external ns per site* = (median start-to-main - median of the binary alone) / sites, and the same with the minima (fastest run of each: the least disturbance from other work). The *runtime's own* figures come from its OBJPATCH_STATS=1 line (\`objpatch: N sites in M modules, P patched in T ns (C ns of CPU)\`), timed inside its constructor around the scan of the modules and the patching (after the filter is parsed): C / N (CPU time of the thread) and T / N (elapsed), medians over the runs."
	echo
	if [ -z "$only_uftrace" ]; then
		echo "| functions | sites | configuration | start-to-main | external ns per site | external, minima | **runtime's own CPU ns per site** | runtime's own ns per site (elapsed) | sites patched |"
		echo "|---|---|---|---|---|---|---|---|---|"
		for n in "${SITES[@]}"; do
			for c in bare nofilt ours oursrun; do start_row "$c" "$n"; done
			if [ "$n" = "$largest" ]; then
				start_row nopnofilt "$n"
				start_row oursnop "$n"
			fi
		done
		echo
		echo "The \`--nop\` rows run the build whose sites recordmcount NOP'd already: nothing is written, so they show the scan and check alone (compared with the -pg binary alone)."
		echo
		slope=""
		if [ "$small" != "$largest" ]; then
			slope=$(calc "($(own_abs "start.nofilt.$largest" 5) - $(own_abs "start.nofilt.$small" 5)) / (${sites[$largest]} - ${sites[$small]})" "%.1f")
			echo "Marginal runtime CPU between $small and $largest functions, no filter (fixed costs cancel out): $slope ns per site; with the filter matching nothing: $(calc "($(own_abs "start.ours.$largest" 5) - $(own_abs "start.ours.$small" 5)) / (${sites[$largest]} - ${sites[$small]})" "%.1f") ns."
			echo
		fi
		per=$(calc "$(own "start.nofilt.$largest" 5)" "%.1f")
		echo "**Goal of the issue, under 100 ns per site at start-up** (runtime's own CPU per site, no filter, $largest functions): $per ns, $(verdict "$(calc "$per < 100" "%d")")${slope:+; marginal $slope ns, $(verdict "$(calc "$slope < 100" "%d")")}. Also shown: with a filter matching nothing $(calc "$(own "start.ours.$largest" 5)" "%.1f") ns; start-to-main under \`objpatch run\` $(calc "($(col "start.oursrun.$largest" 6) - $(col "start.bare.$largest" 6)) / ${sites[$largest]}" "%.1f") ns per site more than the binary alone."
		echo
	else
		echo "| functions | sites | start-to-main alone |"
		echo "|---|---|---|"
		for n in "${SITES[@]}"; do
			echo "| $n | ${sites[$n]} | $(calc "$(col "start.bare.$n" 6) / 1e3" "%.0f") us |"
		done
		echo
	fi
	if [ -n "$ufpatch" ]; then
		echo "For comparison, uftrace's own start-up patching (its \`-P\` dynamic tracing) on the same $largest functions built \`${CFLAGS[*]} ${uf_flags[*]}\` (gcc writes the NOPs and their table): start-to-main alone $(calc "$(col start.ufbare.0 6) / 1e3" "%.0f") us, under \`uftrace record -P $NOMATCH\` $(calc "$(col start.ufnone.0 6) / 1e3" "%.0f") us, under \`uftrace record -P .\` (patches every site) $(calc "$(col start.ufall.0 6) / 1e3" "%.0f") us: **$(calc "($(col start.ufall.0 6) - $(col start.ufnone.0 6)) / ($largest + 1)" "%.1f") ns per site** patched (external measure)."
		echo
	fi

	echo "## Commands"
	echo
	echo "Paths relative to the repository's top directory (build/bench/runtime/build/tools holds copies of build/'s recordmcount, objpatch and libobjpatch.so). Builds:"
	echo
	echo '```'
	cat "$res/build-commands"
	echo '```'
	echo
	echo "Measured runs, each started by \`build/bench/runtime/build/runit [-e VAR=VALUE]... [-o FILE] -- COMMAND\` (shown as \`VAR=VALUE... COMMAND [> FILE]\`), one line per result file in \`$(realpath --relative-to="$top" "$res")\`:"
	echo
	echo '```'
	awk -F'\t' '{ printf "%-28s %s\n", $1, $2 }' "$res/commands.tsv"
	echo '```'
} | tee "$out/runtime.md"
results_md=${BENCH_RUNTIME_RESULTS-$top/bench/RESULTS-runtime.md}
[ -z "$results_md" ] || { cp "$out/runtime.md" "$results_md" && echo "runtime.sh: wrote $results_md" >&2; }
