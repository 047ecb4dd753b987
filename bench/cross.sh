#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The runtime on other machines under qemu-user: the cost of a
# traced call as a ratio to the same program untraced, per machine.
# bench/runtime/calls.c is built for each machine whose runtime exists
# (build/QEMU/libobjpatch.so) with gcc -O2 -g -pg and recorded with
# `recordmcount --mode=user` (MIPS PIC sequences have no NOP form, so no
# --nop anywhere: the runtime writes every site's disabled form), and run
# under qemu-QEMU through `objpatch`:
#   untraced:  objpatch run --filter main -- calls N   (every other site
#              disabled)
#   traced:    objpatch record --output F -- calls N   (every function's
#              entry, exit and return value recorded, formatted later)
# Each is timed end to end (CPU time of every process, median of CROSS_REPS
# runs) at N and
# at 0 iterations; the 0-iteration run (qemu and the runtime starting) is
# subtracted, so the figures are the loop's: ratio = traced loop / untraced
# loop, and ns per traced call = (traced loop - untraced loop) / traced
# calls.  A trace of `calls 1000` is checked to hold every call first.
# Writes a Markdown table to stdout and to CROSS_RESULTS (default
# bench/RESULTS-cross.md; empty: not written).
#
# Then each machine's runtime tests, t/95-rt-QEMU.t, are run (prove -v) and
# their passed and failed tests counted, unless CROSS_TESTS=0.
#
# Environment: CROSS_ITERS (iterations, 5 calls each; default 1000000),
# CROSS_REPS (default 5), CROSS_MACHINES (default: all below), CROSS_TESTS.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

iters=${CROSS_ITERS:-1000000}
reps=${CROSS_REPS:-5}
results=${CROSS_RESULTS-$top/bench/RESULTS-cross.md}
out=$top/build/bench/cross
mkdir -p "$out"
# QEMU:TRIPLE of every machine with a runtime but this one (arch/machines.h)
. "$top/scripts/machines.sh"
host=$(uname -m | sed 's/^i[3-6]86$/i386/')
machines=${CROSS_MACHINES:-$(machine_rows | awk -F'\t' -v host="$host" '$6 != "-" && $6 != host {
	printf "%s:%s ", $6, substr($2, 1, length($2) - 1) }')}

now_ns() { date +%s%N; }

# cpu_ns CMD...: CPU time (user + system) of CMD and every process under
# it (objpatch, qemu, the program), in ns: the machine is shared, and wall
# time counts the others' work too.
cpu_ns() {
	python3 -c 'import resource, subprocess, sys
if subprocess.run(["bash", "-c", "\"$@\"", "-"] + sys.argv[1:], stdout=subprocess.DEVNULL,
                  stderr=subprocess.DEVNULL).returncode:
    sys.exit(1)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(round((r.ru_utime + r.ru_stime) * 1e9))' "$@"
}

# median_ns CMD...: the median of $reps runs' cpu_ns
median_ns() {
	local i v=() t
	for ((i = 0; i < reps; i++)); do
		t=$(cpu_ns "$@") || { echo "bench/cross.sh: failed: $*" >&2; return 1; }
		v+=("$t")
	done
	printf '%s\n' "${v[@]}" | sort -n | sed -n "$((reps / 2 + 1))p"
}

calc() { python3 -c "print(format($1, '$2'))"; }

# untraced_run PROG N: the runtime loaded, every site disabled but main's
# (a filter that selects nothing is a mistake objpatch refuses; main is
# one call)
untraced_run() {
	"$top/build/objpatch" run --filter main --output /dev/null -- "$@"
}

traced_run() {	# traced_run PROG N
	rm -f "$out"/rec*.data
	"$top/build/objpatch" record --output "$out/rec.data" -- "$@"
}

# cpu_ns runs them in a bash of its own.
export -f untraced_run traced_run
export top out

rows=()
tests=()
outer_path=$PATH
for m in $machines; do
	q=${m%%:*} p=${m#*:} d=$out/$q
	lib=$top/build/$q/libobjpatch.so
	# A machine with a toolchain of its own (sh4's): its bin/ and root for this row only.
	PATH=$outer_path
	if ! tc=$(machine_toolchain "$q"); then
		echo "bench/cross.sh: $q: $tc; left out" >&2
		continue
	elif [ -n "$tc" ]; then
		PATH=$tc/bin:$PATH
		export "OBJPATCH_ROOT_$q=$tc/root/usr/$p"
	fi
	if [ ! -e "$lib" ] || ! command -v "$p-gcc" > /dev/null || ! command -v "qemu-$q" > /dev/null; then
		echo "bench/cross.sh: $q: no runtime, cross gcc or qemu-$q; left out" >&2
		continue
	fi
	mkdir -p "$d"
	"$p-gcc" -O2 -g -pg -c bench/runtime/calls.c -o "$d/calls.o"
	build/recordmcount --mode=user "$d/calls.o"
	"$p-gcc" -pie -o "$d/calls" "$d/calls.o"
	calls=$(untraced_run "$d/calls" "$iters" | sed -n 's/.*traced_calls=\([0-9]*\).*/\1/p')
	u0=$(median_ns untraced_run "$d/calls" 0)
	un=$(median_ns untraced_run "$d/calls" "$iters")
	t0=$(median_ns traced_run "$d/calls" 0)
	tn=$(median_ns traced_run "$d/calls" "$iters")
	# The trace must hold every call: a broken runtime is no benchmark.
	# (objpatch report reads only its own machine's recordings: run formats in the guest.)
	want=$(untraced_run "$d/calls" 1000 | sed -n 's/.*traced_calls=\([0-9]*\).*/\1/p')
	build/objpatch run --format text --output "$out/check.text" -- "$d/calls" 1000 > /dev/null
	got=$(grep -cE '[a-z_]\(\)( \{|;)' "$out/check.text" || true)
	if [ "$got" != "$want" ]; then
		echo "bench/cross.sh: $q: the trace of \`calls 1000\` holds $got calls, the program made $want" >&2
		exit 1
	fi
	rows+=("| $q | $calls | $(calc "($un - $u0) / 1e6" .1f) | $(calc "($tn - $t0) / 1e6" .1f) | $(calc "($tn - $t0) / ($un - $u0)" .1f) | $(calc "(($tn - $t0) - ($un - $u0)) / $calls" .0f) |")
	if [ "${CROSS_TESTS:-1}" != 0 ] && [ -e "t/95-rt-$q.t" ]; then
		local_start=$(now_ns)
		prove -v "t/95-rt-$q.t" > "$out/$q.tests" 2>&1 || true
		tests+=("| $q | $(grep '^ok ' "$out/$q.tests" | grep -vic '# skip' || true) | $(grep -c '^not ok ' "$out/$q.tests" || true) | $(grep -ic '^ok .* # skip' "$out/$q.tests" || true) | $(calc "($(now_ns) - $local_start) / 1e9" .0f) |")
	fi
done
PATH=$outer_path

{
	echo "# The runtime under qemu-user: cost of a traced call (bench/cross.sh)"
	echo
	echo "\`CROSS_ITERS=$iters CROSS_REPS=$reps bench/cross.sh\` on $(nproc) cores, $(uname -r), $(qemu-aarch64 --version | head -1)."
	echo "bench/runtime/calls.c (gcc -O2 -g -pg, \`recordmcount --mode=user\`, PIE), $iters iterations of 5 calls."
	echo "Untraced: \`objpatch run --filter main\`, every other site in its disabled form.  Traced: \`objpatch record\`, every function's entry, exit and return value."
	echo "Loop times: CPU time (user + system of objpatch, qemu and the program), median of $reps runs, minus the median of the same run at 0 iterations."
	echo
	echo "| machine | traced calls | untraced loop (ms) | traced loop (ms) | ratio | ns per traced call |"
	echo "|---|---:|---:|---:|---:|---:|"
	printf '%s\n' "${rows[@]}"
	if [ ${#tests[@]} -gt 0 ]; then
		echo
		echo "## Each machine's runtime tests (\`prove -v t/95-rt-MACHINE.t\`, in the same run)"
		echo
		echo "| machine | passed | failed | skipped | seconds |"
		echo "|---|---:|---:|---:|---:|"
		printf '%s\n' "${tests[@]}"
	fi
} | if [ -n "$results" ]; then tee "$results"; else cat; fi
