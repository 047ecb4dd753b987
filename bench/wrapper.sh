#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# What objpatch-cc adds to a real project's build (at most 5%).
# Debian's zlib (its configure and Makefile) and cJSON (CMake) are built
# from scratch, configure step included, three ways, alternating, REPS times
# each; the figure is the median CPU time (user + system of every process of
# the build, from the shell's `times`):
#
#   plain     CC=gcc: the project as it builds itself
#   fullg     CC='gcc -g FORM': the instrumentation with a plain -g, as the
#             wrapper added it before (variable locations tracked)
#   flags     CC='gcc -g -fno-var-tracking FORM': the same compiler flags the
#             wrapper adds now (FORM: x86_64's, from objpatch-cc itself)
#   wrapper   CC='objpatch-cc gcc'
# (C++ projects: CXX, with g++ and objpatch-c++.)
#
# wrapper over flags is the wrapper's own cost (its -dumpmachine exec, the
# recording, the split of one-step compile-and-link commands); flags over
# plain is what the instrumentation and -g cost the compiler, and fullg
# over flags what var-tracking would add, for prototypes that need none.
#
#   bench/wrapper.sh     writes bench/RESULTS-wrapper.md (BENCH_WRAPPER_RESULTS)
#
# Environment: REPS (default 5), PROJECTS (default "zlib cjson fmtlib";
# fmtlib: the library alone, its tests off).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
reps=${REPS:-5}
projects=${PROJECTS:-zlib cjson fmtlib}
out=${BENCH_WRAPPER_RESULTS-$top/bench/RESULTS-wrapper.md}
work=$top/build/bench/wrapper
cc_wrapper=$top/build/objpatch-cc
[ -x "$cc_wrapper" ] || { echo "bench/wrapper.sh: build/objpatch-cc is missing: run make" >&2; exit 2; }
form=$(OBJPATCH_CC_VERBOSE=1 "$cc_wrapper" gcc -c -x c /dev/null -o /dev/null 2>&1 |
	grep -o -- '-fpatchable-function-entry=[0-9,]*\|-pg\|-mfentry' | sort -u | tr '\n' ' ')
[ -n "$form" ] || { echo "bench/wrapper.sh: cannot tell objpatch-cc's form (OBJPATCH_CC_VERBOSE)" >&2; exit 2; }
rm -rf "$work" && mkdir -p "$work"

# build PROJECT CC: one build from a fresh copy; prints its CPU seconds.
build() {
	local p=$1 cc=$2 src d t0 t1
	src=$("$top/scripts/debian-source.sh" "$p")
	d=$work/$p.tree
	rm -rf "$d" && cp -r "$src" "$d"
	times > "$work/times0"	# `times` in this shell: $(...) would count a subshell's children
	case $p in
	zlib) (cd "$d" && CC=$cc ./configure >/dev/null && make -j2 >/dev/null 2>&1) ;;
	cjson) (cd "$d" && CC=$cc cmake -S . -B b -DENABLE_CJSON_TEST=ON >/dev/null &&
		cmake --build b -j2 >/dev/null 2>&1) ;;
	fmtlib) (cd "$d" && CXX=$cc cmake -S . -B b -DFMT_TEST=OFF -DFMT_DOC=OFF >/dev/null &&
		cmake --build b -j2 >/dev/null 2>&1) ;;
	*) echo "bench/wrapper.sh: $p: no build recipe" >&2; exit 2 ;;
	esac || { echo "bench/wrapper.sh: $p with CC='$cc' failed to build" >&2; exit 1; }
	times > "$work/times1"
	echo "$(children_cpu "$work/times1") - $(children_cpu "$work/times0")" | bc
}
# The children's user + system seconds in a `times` output.
children_cpu() {
	# its last line: "XmY.YYYs XmY.YYYs"
	tail -1 "$1" | awk '{ for (i = 1; i <= 2; i++) { split($i, a, "m"); sub("s", "", a[2]); s += a[1] * 60 + a[2] } print s }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

declare -A runs
variants=(plain fullg flags wrapper)
for p in $projects; do
	"$top/scripts/debian-source.sh" "$p" >/dev/null
	compiler=gcc wrapper=$cc_wrapper
	[ "$p" = fmtlib ] && compiler=g++ wrapper=$top/build/objpatch-c++
	for ((i = 1; i <= reps; i++)); do
		for v in "${variants[@]}"; do
			case $v in
			plain) cc=$compiler ;;
			fullg) cc="$compiler -g $form" ;;
			flags) cc="$compiler -g -fno-var-tracking $form" ;;
			wrapper) cc="$wrapper $compiler" ;;
			esac
			s=$(build "$p" "$cc")
			runs[$p.$v]+="$s "
			echo "bench/wrapper.sh: $p $v run $i: $s s CPU" >&2
		done
	done
done

{
	echo "# objpatch-cc's cost on a real project's build"
	echo
	echo "Measured by \`bench/wrapper.sh\` (REPS=$reps) on $(date -u +%Y-%m-%d), $(nproc) cores, $(gcc -dumpfullversion -dumpversion | head -1 | sed 's/^/gcc /')."
	echo "Each build starts from a fresh copy of the Debian sources, configure included;"
	echo "CPU time (user + system of every process), median of $reps, variants alternating."
	echo "The wrapper's form here: \`$form\` plus \`-g -fno-var-tracking\`; fmtlib (C++) with g++ and objpatch-c++."
	echo
	echo "| project | plain CC=gcc | CC='gcc -g FORM' | CC='gcc -g -fno-var-tracking FORM' | CC='objpatch-cc gcc' | wrapper over same flags | wrapper over plain | with var-tracking, over plain |"
	echo "|---|---|---|---|---|---|---|---|"
	for p in $projects; do
		a=$(tr ' ' '\n' <<< "${runs[$p.plain]}" | grep . | median)
		g=$(tr ' ' '\n' <<< "${runs[$p.fullg]}" | grep . | median)
		b=$(tr ' ' '\n' <<< "${runs[$p.flags]}" | grep . | median)
		c=$(tr ' ' '\n' <<< "${runs[$p.wrapper]}" | grep . | median)
		printf '| %s | %.2f s | %.2f s | %.2f s | %.2f s | %+.1f%% | %+.1f%% | %+.1f%% |\n' "$p" "$a" "$g" "$b" "$c" \
			"$(echo "($c / $b - 1) * 100" | bc -l)" "$(echo "($c / $a - 1) * 100" | bc -l)" \
			"$(echo "($g / $a - 1) * 100" | bc -l)"
	done
	echo
	echo "Every run's CPU seconds:"
	echo
	for p in $projects; do
		for v in "${variants[@]}"; do
			echo "- $p $v: ${runs[$p.$v]}"
		done
	done
} > "$work/wrapper.md"
cat "$work/wrapper.md"
[ -z "$out" ] || cp "$work/wrapper.md" "$out"
