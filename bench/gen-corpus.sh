#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build the benchmark corpus in build/bench/corpus/ (not committed): objects
# compiled with -pg and kernel-style flags for every architecture of
# scripts/machines.sh, from C files that bench/gen-c.pl writes.  Objects that exist
# are kept, so a second run only writes the manifest.
#
#   corpus/ARCH/mNN[-fs][-g].o   ordinary files, 2-300 functions (gcc)
#   corpus/ARCH/cNN[-fs].o       the same sources built by clang (4 arches)
#   corpus/ARCH/large-*.o        2000-5000 functions, -ffunction-sections
#   corpus/scale/KIND-N.o        x86_64, N functions in N sections (growth)
#   corpus/MANIFEST              one line per object: group arch path cc funcs flags
#
# Environment: BENCH_DIR (default build/bench), JOBS (default nproc).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
bench=${BENCH_DIR:-$top/build/bench}
corpus=$bench/corpus
src=$bench/src
# shellcheck source=../scripts/machines.sh disable=SC1091
. "$top/scripts/machines.sh"

# Flags Kbuild adds everywhere that matter for code generation, then per arch.
COMMON='-O2 -pg -ffreestanding -fno-common -fno-strict-aliasing -fno-stack-protector -w'
arch_extra() {
	case $1 in
	x86_64) echo '-mcmodel=kernel -mno-red-zone -fno-asynchronous-unwind-tables' ;;
	i386) echo '-mregparm=3 -fno-asynchronous-unwind-tables' ;;
	aarch64) echo '-mgeneral-regs-only' ;;
	arm|arm-arm) echo '-mabi=aapcs-linux' ;;
	mips*) echo '-msoft-float' ;;
	ppc|ppc64|ppc64le) echo '-msoft-float' ;;
	sparc64) echo '-mcmodel=medlow' ;;
	s390x) echo '-msoft-float' ;;
	esac
}
# Sizes of the ordinary files, in functions; cycled over the 32 files.
SIZES=(2 5 10 20 30 45 70 100 150 300)
LARGE_ALL=2000			# on every arch
LARGE_BIG=5000			# on the arches below only (compile time)
LARGE_BIG_ARCHES=' x86_64 aarch64 arm ppc64le '
LARGE_G_ARCHES=' x86_64 aarch64 '	# a large object with -g too
CLANG_ARCHES=' x86_64 aarch64 arm ppc64le '
SCALE_N=(1000 2000 4000 8000 16000)

# A job: group arch out cc funcs "flags" "generator args" (tab-separated).
jobs_file=$(mktemp)
trap 'rm -f "$jobs_file"' EXIT
job() { printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >> "$jobs_file"; }

plan_arch() {
	local name=$1 prefix=$2 ctarget=$3 kflags=$4 i n flags base out common
	common="$COMMON $kflags $(arch_extra "$name")"

	for i in $(seq 0 31); do
		n=${SIZES[i % ${#SIZES[@]}]}
		flags=$common base=$(printf 'm%02d' "$i")
		case $name in x86_64|i386) [ $((i % 2)) -eq 0 ] && flags+=' -mfentry' ;; esac
		out=$base
		[ $((i % 3)) -eq 1 ] && { flags+=' -ffunction-sections'; out+=-fs; }
		[ $((i % 4)) -eq 3 ] && { flags+=' -g'; out+=-g; }
		job regular "$name" "$name/$out.o" "${prefix}gcc" "$n" "$flags" "--seed=$i --funcs=$n --sections"
	done
	flags="$common -ffunction-sections"
	case $name in x86_64|i386) flags+=' -mfentry' ;; esac
	job large "$name" "$name/large-$LARGE_ALL-fs.o" "${prefix}gcc" $LARGE_ALL "$flags" \
		"--seed=1000 --funcs=$LARGE_ALL --sections --max-blocks=8"
	[[ $LARGE_BIG_ARCHES == *" $name "* ]] &&
		job large "$name" "$name/large-$LARGE_BIG-fs.o" "${prefix}gcc" $LARGE_BIG "$flags" \
			"--seed=1001 --funcs=$LARGE_BIG --sections --max-blocks=8"
	[[ $LARGE_G_ARCHES == *" $name "* ]] &&
		job large "$name" "$name/large-$LARGE_ALL-fs-g.o" "${prefix}gcc" $LARGE_ALL "$flags -g" \
			"--seed=1002 --funcs=$LARGE_ALL --sections --max-blocks=8"
	if [[ $CLANG_ARCHES == *" $name "* ]]; then
		for i in 0 1 2 3; do
			flags="-O2 -pg -ffreestanding -fno-common -fno-strict-aliasing -w $kflags --target=$ctarget"
			[ "$name" = x86_64 ] && flags+=' -mfentry -mcmodel=kernel -mno-red-zone'
			out=$(printf 'c%02d' $((i + 4)))
			[ $((i % 2)) -eq 1 ] && { flags+=' -ffunction-sections'; out+=-fs; }
			n=${SIZES[(i + 4) % ${#SIZES[@]}]}
			job regular "$name" "$name/$out.o" clang "$n" "$flags" "--seed=$((i + 4)) --funcs=$n --sections"
		done
	fi
}

plan_scale() {
	local n base='-O2 -pg -fno-pic -ffreestanding -w -ffunction-sections'

	for n in "${SCALE_N[@]}"; do
		# Unwind tables reference every function section: gas keeps their section symbols.
		job scale x86_64 "scale/unwind-$n.o" x86_64-linux-gnu-gcc "$n" "$base" \
			"--seed=2000 --funcs=$n --max-blocks=1"
		# Kernel x86 flags: no unwind tables, so gas drops unused section symbols.
		job scale x86_64 "scale/nounwind-$n.o" x86_64-linux-gnu-gcc "$n" \
			"$base -fno-asynchronous-unwind-tables" "--seed=2000 --funcs=$n --max-blocks=1"
		# ... and with only weak functions no symbol is left to base entries on.
		job scale x86_64 "scale/weak-$n.o" x86_64-linux-gnu-gcc "$n" \
			"$base -fno-asynchronous-unwind-tables" "--seed=2000 --funcs=$n --max-blocks=1 --weak-only"
	done
}

# build_one LINE: one job; the C file is shared by every arch that uses it.
build_one() {
	local out cc flags gargs cfile
	IFS=$'\t' read -r _ _ out cc _ flags gargs <<< "$1"
	[ -f "$corpus/$out" ] && return 0
	cfile=$src/$(echo "$gargs" | tr -c 'a-zA-Z0-9=\n' '_' | tr -s '_').c
	mkdir -p "$(dirname "$corpus/$out")"
	if [ ! -f "$cfile" ]; then
		# shellcheck disable=SC2086
		perl "$top/bench/gen-c.pl" $gargs > "$cfile.$$" && mv "$cfile.$$" "$cfile"
	fi
	# shellcheck disable=SC2086
	if ! $cc $flags -c "$cfile" -o "$corpus/$out.tmp.o"; then
		echo "gen-corpus: $cc failed for $out" >&2
		return 1
	fi
	mv "$corpus/$out.tmp.o" "$corpus/$out"
}

if [ "${1:-}" = --job ]; then
	build_one "$2"
	exit
fi

for_each_arch plan_arch
plan_scale
mkdir -p "$corpus" "$src"
missing=0
while IFS= read -r line; do
	out=$(cut -f3 <<< "$line")
	[ -f "$corpus/$out" ] || missing=$((missing + 1))
done < "$jobs_file"
if [ "$missing" -gt 0 ]; then
	echo "gen-corpus: compiling $missing of $(wc -l < "$jobs_file") objects into $corpus (about 10 minutes on 2 idle cores)" >&2
	# Biggest first, so the long compiles do not end up alone at the tail.
	sort -t$'\t' -k5,5nr "$jobs_file" | tr '\n' '\0' |
		xargs -0 -n1 -P "${JOBS:-$(nproc)}" bash "$0" --job
fi
{
	printf '# group\tarch\tobject\tcompiler\tfunctions\tflags\n'
	cut -f1-6 "$jobs_file"
} > "$corpus/MANIFEST"
echo "gen-corpus: $(($(wc -l < "$corpus/MANIFEST") - 1)) objects in $corpus" >&2
