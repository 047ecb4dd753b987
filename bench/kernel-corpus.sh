#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The kernel's recordmcount against ours on a real kernel's objects: those a
# Linux 7.3 build recorded, as the compiler left them, captured by
#
#   KERNEL_CORPUS=build/kernel-corpus MACHINES=arm scripts/kernel-matrix-test.sh
#
# (build/kernel-corpus/arm/...).  Each tool runs as Kbuild runs it, in place
# on a fresh copy of the corpus, relative paths: one process per object,
# and batched (64 objects a process); ours also with --no-protos.  Beside
# them, the floors no rewriter goes below (bench/floor.c, static): a
# process that does nothing, and one that copies each object to a
# temporary file and renames it over the object.  The tools alternate
# which goes first; BENCH_REPS repetitions (default 5); the figure is the
# median over them of the summed CPU time (user + system, wait4) of every
# process, and the largest peak RSS of one.
#
#   bench/kernel-corpus.sh [CORPUS_DIR]      (default build/kernel-corpus/arm)
#
# Environment: KERNEL_RECORDMCOUNT (default: scripts/recordmcount.c of the
# matrix's linux-source-7.3, built into build/ref-7.3/; else
# scripts/ref-recordmcount.sh's), RMC_FLAGS (arguments before the object,
# as Kbuild gives them: none on ARM), BENCH_RESULTS (default
# bench/RESULTS-kernel-corpus.md), BENCH_WORK (where the copies are made,
# default build/bench-kernel; a tmpfs such as /dev/shm/kc takes the file
# system's own cost, which drifts from run to run on ext4, out of the
# comparison).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
corpus=$(realpath "${1:-$top/build/kernel-corpus/arm}")
reps=${BENCH_REPS:-5}
results=${BENCH_RESULTS:-$top/bench/RESULTS-kernel-corpus.md}
work=${BENCH_WORK:-$top/build/bench-kernel}
read -ra flags <<< "${RMC_FLAGS:-}"

die() { echo "kernel-corpus: $*" >&2; exit 1; }

[ -d "$corpus" ] || die "$corpus: no corpus (KERNEL_CORPUS=build/kernel-corpus MACHINES=arm scripts/kernel-matrix-test.sh)"
make -s -C "$top" build/recordmcount
ours=$top/build/recordmcount
kernel_tool() {
	local src=$top/build/kernel-matrix/linux-source-7.3/scripts bin=$top/build/ref-7.3/recordmcount
	if [ -n "${KERNEL_RECORDMCOUNT:-}" ]; then
		echo "$KERNEL_RECORDMCOUNT"
	elif [ -f "$src/recordmcount.c" ]; then
		[ -x "$bin" ] || { mkdir -p "${bin%/*}" && cc -O2 -I"$src/../tools/include" -o "$bin" "$src/recordmcount.c"; }
		echo "$bin"
	else
		"$top/scripts/ref-recordmcount.sh"
	fi
}
kernel=$(kernel_tool)
mkdir -p "$work"
cc -O2 -Wall -Wextra -o "$work/timeit" "$top/bench/timeit.c"
cc -O2 -Wall -Wextra -static -o "$work/floor" "$top/bench/floor.c"
mapfile -t objs < <(cd "$corpus" && find . -name '*.o' -type f | sed 's|^\./||' | sort)
[ ${#objs[@]} -gt 0 ] || die "$corpus holds no object"

tool_cmd() {
	case $1 in
	kernel) cmd=("$kernel" "${flags[@]}") ;;
	ours) cmd=("$ours" "${flags[@]}") ;;
	noprotos) cmd=("$ours" --no-protos "${flags[@]}") ;;
	exec) cmd=("$work/floor" exec) ;;
	copy) cmd=("$work/floor" copy) ;;
	esac
}

# run TOOL MODE: a fresh copy, the tool on every object; prints "CPU_NS MAX_RSS_KB FAILED".
run() {
	local i step=1
	tool_cmd "$1"
	rm -rf "$work/tree"
	cp -a "$corpus" "$work/tree"
	: > "$work/out.tsv"
	if [ "$2" = each ]; then
		(cd "$work/tree" && "$work/timeit" each "${cmd[@]}" -- "${objs[@]}") > "$work/out.tsv" 2> "$work/err.$1"
	else
		step=64
		for ((i = 0; i < ${#objs[@]}; i += step)); do
			(cd "$work/tree" && "$work/timeit" all "${cmd[@]}" -- "${objs[@]:i:step}") >> "$work/out.tsv" 2>> "$work/err.$1"
		done
	fi
	awk -F'\t' '$1 != "TOTAL" { cpu += $5; if ($3 > rss) rss = $3; if ($4 != 0) bad++ }
		END { printf "%d %d %d\n", cpu, rss, bad }' "$work/out.tsv"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

tools=(kernel ours noprotos exec copy)
declare -A cpu rss bad
for rep in $(seq 1 "$reps"); do
	for ((k = 0; k < ${#tools[@]}; k++)); do
		tool=${tools[$(((k + rep) % ${#tools[@]}))]}
		for mode in each batch; do
			read -r c r b < <(run "$tool" "$mode")
			cpu[$tool.$mode]+="$c "
			[ "${rss[$tool.$mode]:-0}" -ge "$r" ] || rss[$tool.$mode]=$r
			bad[$tool.$mode]=$b
		done
	done
	echo "kernel-corpus: repetition $rep of $reps done" >&2
done

# What a person wrote below the marker (the profile) stays; the tables above it are made anew.
by_hand=$(sed -n '/^<!-- by hand -->$/,$p' "$results" 2>/dev/null || true)
ms() { tr ' ' '\n' <<< "${cpu[$1]}" | grep . | median | awk '{ printf "%.0f", $1 / 1e6 }'; }
ratio() { awk -v a="$(ms "$1")" -v b="$(ms "$2")" 'BEGIN { printf "%.2fx", b ? a / b : 0 }'; }
rss_ratio() { awk -v a="${rss[$1]}" -v b="${rss[$2]}" 'BEGIN { printf "%.2fx", b ? a / b : 0 }'; }
{
	echo "# recordmcount on a real kernel's objects"
	echo
	echo "Written by \`bench/kernel-corpus.sh\` ($(date -u '+%Y-%m-%d %H:%M UTC'), load average before: $(cut -d' ' -f1-3 /proc/loadavg), $reps repetitions)."
	echo "Corpus: ${#objs[@]} objects, $(du -sh "$corpus" | cut -f1), \`$corpus\`; the kernel's tool: \`$kernel\`; copies made in \`$work\` ($(stat -f -c %T "$work"))."
	echo "CPU: median over the repetitions of the summed user + system time of every process; RSS: the largest peak of one process."
	echo
	echo "| mode | kernel CPU | ours CPU | ratio | ours --no-protos CPU | ratio | kernel max RSS | ours | ratio | --no-protos | ratio |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	for mode in each batch; do
		label="one process per object"
		[ "$mode" = batch ] && label="64 objects a process"
		echo "| $label | $(ms kernel.$mode) ms | $(ms ours.$mode) ms | $(ratio ours.$mode kernel.$mode) | $(ms noprotos.$mode) ms | $(ratio noprotos.$mode kernel.$mode) | ${rss[kernel.$mode]} KiB | ${rss[ours.$mode]} KiB | $(rss_ratio ours.$mode kernel.$mode) | ${rss[noprotos.$mode]} KiB | $(rss_ratio noprotos.$mode kernel.$mode) |"
	done
	echo
	echo "The floors, in the same runs: a static process that does nothing, $(ms exec.each) ms one per object ($(ratio exec.each kernel.each) of the kernel tool), $(ms exec.batch) ms batched; one that copies each object to a temporary file and renames it over it, $(ms copy.each) ms ($(ratio copy.each kernel.each)), $(ms copy.batch) ms batched ($(ratio copy.batch kernel.batch))."
	echo
	echo "Objects a tool failed on (non-zero exit): kernel ${bad[kernel.each]}, ours ${bad[ours.each]}, --no-protos ${bad[noprotos.each]}."
	[ -z "$by_hand" ] || printf '\n%s\n' "$by_hand"
} > "$results"
cat "$results"
