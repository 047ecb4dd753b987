#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# What each instrumentation form costs when every site is a NOP,
# per machine and compiler, so that objpatch-cc's default form is measured,
# not guessed.  Lua 5.4 from Debian's source package (scripts/debian-source.sh)
# is built as one `lua` program from its own sources (src/*.c but luac.c,
# -O2 -g, no libtool) once per (machine, compiler, form):
#
#   plain      no instrumentation: the baseline
#   pg         -pg, recorded with `recordmcount --mode=user --nop`
#   fentry     -pg -mfentry, the same
#   nopmcount  -pg -mfentry -mrecord-mcount -mnop-mcount (NOPs from the
#              compiler, its __mcount_loc taken over by user mode)
#   padN       -fpatchable-function-entry=N, the N the runtime traces on the
#              machine (x86_64: 5, aarch64: 2), recorded in user mode
#   fp         (x86_64 gcc only, for the explanation) plain with
#              -fno-omit-frame-pointer: what -pg's forced frame pointer costs
#
# A form the compiler rejects is left out.  Each build is linked without -pg.
# The variants of a machine run side by side, alternating, INSTRUMENT_REPS
# times (5 natively, 3 under qemu-user); the figure is the median CPU time
# (user + system, of qemu itself under emulation) as a % over plain.  Every
# run's output (bench/lua/work.lua prints a checksum) must equal plain's.
# Then `objpatch run` must trace each instrumented build with typed return
# values: `#t` of a 3-element table shows as `luaH_getn(); /* ret=3 */`.  A
# build it does not trace is "not traced" and no candidate for a default.
# On x86_64, perf record tells where -pg's time goes.
#
# Writes bench/RESULTS-instrument.md (INSTRUMENT_RESULTS; empty: not written).
# Environment: INSTRUMENT_MACHINES (default: every machine with a runtime),
# INSTRUMENT_COMPILERS (default "gcc clang"), INSTRUMENT_SIZE (work.lua's
# rounds natively, default 20), INSTRUMENT_QEMU_SIZE (default 2),
# INSTRUMENT_REPS, INSTRUMENT_PERF=0 to skip perf.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
. "$top/scripts/machines.sh"

out=$top/build/bench/instrument
results=${INSTRUMENT_RESULTS-$top/bench/RESULTS-instrument.md}
size=${INSTRUMENT_SIZE:-20}
qsize=${INSTRUMENT_QEMU_SIZE:-2}
compilers=${INSTRUMENT_COMPILERS:-gcc clang}
work=$top/bench/lua/work.lua
mkdir -p "$out"
for tool in build/recordmcount build/objpatch; do
	[ -x "$tool" ] || { echo "bench/instrument.sh: $tool is missing: run make first" >&2; exit 2; }
done
src=$(scripts/debian-source.sh lua5.4)/src
[ -f "$src/lvm.c" ] || { echo "bench/instrument.sh: $src/lvm.c: no Lua sources there: check scripts/debian-source.sh lua5.4" >&2; exit 2; }
cc -O2 -Wall -Wextra -o "$out/timeit" bench/timeit.c

host=$(uname -m | sed 's/^i[3-6]86$/i386/')
# NAME:PREFIX:CLANG:QEMU of every machine with a runtime (arch/machines.h)
rows=$(machine_rows | awk -F'\t' '$5 != "-" { printf "%s:%s:%s:%s\n", $1, $2, $3, $6 }')
machines=${INSTRUMENT_MACHINES:-$(cut -d: -f1 <<< "$rows" | tr '\n' ' ')}

# The forms: name, compiler flags, recordmcount flags ("-" for none: not
# recorded), machines it is built on ("*" every one).  Pads only where the
# runtime traces them (docs/architectures.md, "Sites the compiler recorded itself").
FORMS=(
	"plain||-|*"
	"fp|-fno-omit-frame-pointer|-|x86_64"
	"pg|-pg|--nop|*"
	"fentry|-pg -mfentry|--nop|*"
	"nopmcount|-pg -mfentry -mrecord-mcount -mnop-mcount||*"
	"pad5|-fpatchable-function-entry=5||x86_64"
	"pad2|-fpatchable-function-entry=2||aarch64"
)
form_field() { local IFS='|'; read -r -a f <<< "$1|"; echo "${f[$2]}"; }

calc() { python3 -c "print(format($1, '$2'))"; }

# accepts CC...: the compiler takes these flags (a form it rejects is left out)
accepts() {
	echo 'int f(int x) { return x + 1; }' > "$out/probe.c"
	"$@" -Werror -c "$out/probe.c" -o "$out/probe.o" 2> "$out/probe.err"
}

# build DIR CFLAGS RMC CC...: lua in DIR; RMC "-" for no recording
build() {
	local dir=$1 cflags=$2 rmc=$3 link=$4
	shift 4
	mkdir -p "$dir"
	[ ! -x "$dir/lua" ] || [ "$(cat "$dir/stamp" 2> /dev/null)" != "$* $cflags $rmc" ] || return 0
	rm -f "$dir"/*.o "$dir/lua"
	# Debian's luaconf.h wants its multiarch header; the program needs no path from it.
	echo '#define DEB_HOST_MULTIARCH "bench"' > "$dir/lua5.4-deb-multiarch.h"
	# shellcheck disable=SC2086
	ls "$src"/*.c | grep -v '/luac\.c$' | xargs -P2 -I{} sh -c 'f=$(basename {} .c); "$@" -O2 -g -std=gnu99 -I"$0" -DLUA_COMPAT_5_3 -DLUA_USE_POSIX '"$cflags"' -c {} -o "$0/$f.o"' "$dir" "$@" \
		|| { echo "bench/instrument.sh: $dir: compiling failed" >&2; return 1; }
	if [ "$rmc" != - ]; then
		# shellcheck disable=SC2086
		build/recordmcount --mode=user $rmc "$dir"/*.o || { echo "bench/instrument.sh: $dir: recordmcount failed" >&2; return 1; }
	fi
	"$link" -o "$dir/lua" "$dir"/*.o -lm || { echo "bench/instrument.sh: $dir: link failed" >&2; return 1; }
	echo "$* $cflags $rmc" > "$dir/stamp"
}

# cpu_ns ERRFILE RUN...: CPU time of one run (timeit: the program's output
# goes to ERRFILE)
cpu_ns() {
	local errf=$1
	shift
	WORK_SIZE=$wsize "$out/timeit" all "$@" -- "$work" 2> "$errf" | awk -F'\t' '$1 == "ALL" { if ($4 != 0) exit 1; print $5 }'
}

# traced RUN LUA: objpatch run traces LUA with a typed return value
traced() {
	local dir=$1
	rm -f "$dir/trace.txt"
	build/objpatch run --filter luaH_getn --output "$dir/trace.txt" -- "$dir/lua" -e 'local t = {1, 2, 3}; assert(#t == 3)' > /dev/null 2>&1 || return 1
	grep -q 'luaH_getn(); /\* ret=3 \*/' "$dir/trace.txt"
}

# perf_table: perf's self samples per symbol, plain against -pg (x86_64
# gcc), as shares of each run's samples (one run each: the counts are noisy
# on a shared VM, so the shares are what to read); then valgrind's count of
# executed instructions per build (exact, unlike the times), and how many
# functions set up a frame pointer (mov %rsp,%rbp).
perf_table() {
	local c d v ir base
	echo "| symbol | plain: share of samples | -pg: share of samples |"
	echo "|---|---:|---:|"
	awk -F'\t' 'NR == FNR { p[$1] = $2; tp += $2; next } { g[$1] = $2; tg += $2 } END {
		for (s in g) printf "%s\t%.1f\t%.1f\n", s, 100 * p[s] / tp, 100 * g[s] / tg
		printf "(samples)\t%d\t%d\n", tp, tg
	}' "$out/perf-plain.tsv" "$out/perf-pg.tsv" | sort -t$'\t' -k3,3nr | head -13 |
		awk -F'\t' '{ printf "| `%s` | %s%% | %s%% |\n", $1, $2, $3 }' | sed 's/^\(| `(samples)`.*\)%\(.*\)%\( |\)$/\1\2\3/'
	echo
	echo "| compiler | build | instructions executed (valgrind, WORK_SIZE=1) | over plain | functions | with a frame pointer (\`mov %rsp,%rbp\`) |"
	echo "|---|---|---:|---:|---:|---:|"
	for c in gcc clang; do
		base=''
		for v in plain fp pg fentry pad5; do
			d=$out/x86_64-$c-$v
			[ -x "$d/lua" ] || continue
			objdump -d --no-show-raw-insn "$d/lua" > "$out/dis.txt"
			# valgrind 3.19 gives up on clang 14's DWARF 5: count a copy without it
			objcopy --strip-debug "$d/lua" "$out/lua-nodebug"
			ir=$(WORK_SIZE=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null "$out/lua-nodebug" "$work" 2>&1 >/dev/null | sed -n 's/.*Collected : \([0-9]*\).*/\1/p' || true)
			[ -n "$ir" ] || { echo "| $c | $v | valgrind failed | | | |"; continue; }
			base=${base:-$ir}
			echo "| $c | $v | $ir | $(calc "($ir - $base) * 100 / $base" +.2f)% | $(nm "$d/lua" | grep -ci ' t ') | $(grep -c 'mov    %rsp,%rbp' "$out/dis.txt") |"
		done
	done
}

report() {
	echo "# Instrumentation forms with every site a NOP: CPU time over plain -O2 (bench/instrument.sh)"
	echo
	echo "\`bench/instrument.sh\` (make bench-instrument) on $(nproc) cores shared with other work, $(uname -r), $(gcc --version | head -1), $(clang --version | head -1), $(qemu-aarch64 --version | head -1)."
	echo "Lua 5.4 (Debian's source package lua5.4 $(sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' "$(dirname "$src")/debian/changelog")) built as one \`lua\` from src/*.c but luac.c with \`-O2 -g\`, linked without -pg; bench/lua/work.lua (fib, a table sort with a comparator, string building, closures), variants alternating (rounds and runs per machine below)."
	echo "Median CPU time (user + system; under qemu-user qemu's own, so a proxy for executed instructions, not a real core's time), % over plain.  Every run's output equals plain's."
	echo "traced: \`objpatch run\` shows \`luaH_getn(); /* ret=3 */\` for \`#t\` of a 3-element table (a typed return value).  hook: the hook symbols \`nm -u\` lists in the linked program (glibc defines \`mcount\`, so it links; no site calls it)."
	echo
	echo "| machine | compiler | form | CPU ms | over plain | traced | hook undefined |"
	echo "|---|---|---|---:|---:|---|---|"
	cat_rows table
	echo
	echo "Forms: plain (none), fp (\`-fno-omit-frame-pointer\`, to explain -pg), pg (\`-pg\`, \`recordmcount --mode=user --nop\`), fentry (\`-pg -mfentry\`, the same), nopmcount (\`-pg -mfentry -mrecord-mcount -mnop-mcount\`, \`--mode=user\`), pad5/pad2 (\`-fpatchable-function-entry=N\`, \`--mode=user\`).  A form the compiler rejects is not listed:"
	cat_rows rejected
	echo
	echo "Measured (each machine's rows are kept from its last run; INSTRUMENT_MACHINES re-measures some):"
	cat_rows meta
	if [ -s "$saved/perf.md" ]; then
		echo
		echo "## Where -pg's time goes on x86_64 (gcc; \`perf record -F 2000 -e cpu-clock\`, one run each, self samples by symbol; hardware counters are not available in this VM)"
		echo
		cat "$saved/perf.md"
	fi
	echo
	echo "## Defaults: per machine and compiler, the cheapest form the runtime traces with return values"
	echo
	echo "| machine | compiler | default form | cost over plain | work.lua output |"
	echo "|---|---|---|---:|---|"
	cat_rows defaults
}

# cat_rows KIND: every machine's saved rows of KIND, in arch/machines.h's order
cat_rows() {
	local n
	for n in $(cut -d: -f1 <<< "$rows"); do
		[ ! -f "$saved/$n.$1" ] || cat "$saved/$n.$1"
	done
}
saved=$out/rows
mkdir -p "$saved"
for m in $machines; do
	table=() defaults=() rejected=()
	row=$(grep "^$m:" <<< "$rows") || { echo "bench/instrument.sh: INSTRUMENT_MACHINES: $m has no runtime (arch/machines.h): use one of: $(cut -d: -f1 <<< "$rows" | tr '\n' ' ')" >&2; exit 2; }
	IFS=: read -r _ prefix ctarget qemu <<< "$row"
	triple=${prefix%-}
	if [ "$m" = "$host" ]; then
		run=() link=gcc reps=${INSTRUMENT_REPS:-5} wsize=$size
	else
		run=("$(command -v "qemu-$qemu" || echo "qemu-$qemu")" -L "/usr/$triple") link=${prefix}gcc reps=${INSTRUMENT_REPS:-3} wsize=$qsize
		for tool in "$link" "qemu-$qemu"; do
			command -v "$tool" > /dev/null || { echo "bench/instrument.sh: $m: $tool is not installed (scripts/deps.sh); left out" >&2; continue 2; }
		done
	fi
	for c in $compilers; do
		if [ "$c" = gcc ]; then cc=("$link"); else
			[ "$ctarget" != - ] || continue
			cc=(clang); [ "$m" = "$host" ] || cc+=("--target=$ctarget")
		fi
		variants=()
		for f in "${FORMS[@]}"; do
			name=$(form_field "$f" 0) cflags=$(form_field "$f" 1) rmc=$(form_field "$f" 2) where=$(form_field "$f" 3)
			[ "$where" = '*' ] || [[ " $where " == *" $m "* ]] || continue
			[ "$name" != fp ] || [ "$c" = gcc ] || continue
			# shellcheck disable=SC2086
			if ! accepts "${cc[@]}" $cflags; then
				echo "bench/instrument.sh: $m $c: $cflags: not accepted by the compiler ($(head -1 "$out/probe.err")); left out" >&2
				rejected+=("$m $c \`$cflags\`: $(head -1 "$out/probe.err" | sed 's/^[^:]*: //')")
				continue
			fi
			dir=$out/$m-$c-$name
			echo "bench/instrument.sh: building $m $c $name" >&2
			build "$dir" "$cflags" "$rmc" "$link" "${cc[@]}" || continue
			variants+=("$name")
		done
		[ ${#variants[@]} -gt 0 ] && [ "${variants[0]}" = plain ] || { echo "bench/instrument.sh: $m $c: no plain build; left out" >&2; continue; }
		declare -A times=()
		for ((r = 0; r < reps; r++)); do
			for v in "${variants[@]}"; do
				dir=$out/$m-$c-$v
				t=$(cpu_ns "$dir/out.txt" "${run[@]}" "$dir/lua") || { echo "bench/instrument.sh: $m $c $v: lua failed: $(head -3 "$dir/out.txt")" >&2; exit 1; }
				if ! cmp -s "$dir/out.txt" "$out/$m-$c-plain/out.txt"; then
					echo "bench/instrument.sh: $m $c $v: output differs from plain's: $(head -1 "$dir/out.txt") vs $(head -1 "$out/$m-$c-plain/out.txt")" >&2
					exit 1
				fi
				times[$v]+="$t "
			done
		done
		checksum=$(head -1 "$out/$m-$c-plain/out.txt")
		base=$(tr ' ' '\n' <<< "${times[plain]}" | grep . | sort -n | sed -n "$((reps / 2 + 1))p")
		best='' bestpct='' irbase='' metric='CPU time'
		for v in "${variants[@]}"; do
			med=$(tr ' ' '\n' <<< "${times[$v]}" | grep . | sort -n | sed -n "$((reps / 2 + 1))p")
			pct=$(calc "($med - $base) * 100 / $base" +.1f)
			# Natively, the choice goes by executed instructions (valgrind):
			# CPU times on a shared VM move by 10% between runs.
			if [ "$m" = "$host" ] && command -v valgrind > /dev/null; then
				objcopy --strip-debug "$out/$m-$c-$v/lua" "$out/lua-nodebug"
				ir=$(WORK_SIZE=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null "$out/lua-nodebug" "$work" 2>&1 >/dev/null | sed -n 's/.*Collected : \([0-9]*\).*/\1/p' || true)
				if [ -n "$ir" ]; then
					irbase=${irbase:-$ir} metric='executed instructions'
					pct=$(calc "($ir - $irbase) * 100 / $irbase" +.2f)
				fi
			fi
			trc=- hook=-
			if [ "$v" != plain ] && [ "$v" != fp ]; then
				if traced "$out/$m-$c-$v"; then trc=yes; else trc='not traced'; fi
				hook=$("${prefix}nm" -u "$out/$m-$c-$v/lua" 2> /dev/null | grep -oE ' (_?mcount|__fentry__|__gnu_mcount_nc)(@.*)?$' | tr -d ' ' | tr '\n' ' ' || true)
				hook=${hook:-none}
				if [ "$trc" = yes ] && { [ -z "$best" ] || python3 -c "import sys; sys.exit(not ($pct < $bestpct))"; }; then
					best=$v bestpct=$pct
				fi
			fi
			table+=("| $m | $c | $v | $(calc "$med / 1e6" .0f) | $(calc "($med - $base) * 100 / $base" +.1f)% | $trc | $hook |")
		done
		defaults+=("| $m | $c | ${best:-none traced} | ${bestpct:+$bestpct% $metric} | \`$checksum\` |")
		unset times
		if [ "$m" = x86_64 ] && [ "$c" = gcc ] && [ "${INSTRUMENT_PERF:-1}" != 0 ] && command -v perf > /dev/null; then
			for v in plain pg; do
				WORK_SIZE=$wsize perf record -q -F 2000 -e cpu-clock -o "$out/perf-$v.data" -- "$out/$m-$c-$v/lua" "$work" > /dev/null 2>&1 || true
				perf report -q -n -i "$out/perf-$v.data" --sort symbol --stdio 2> /dev/null | awk 'NF >= 4 { print $4 "\t" $2 }' > "$out/perf-$v.tsv" || true
			done
			perf_table > "$saved/perf.md"
		fi
	done
	# Saved after every machine, so an interrupted run keeps what it measured.
	printf '%s\n' "${table[@]}" > "$saved/$m.table"
	printf '%s\n' "${defaults[@]}" > "$saved/$m.defaults"
	if [ ${#rejected[@]} -gt 0 ]; then printf -- '- %s\n' "${rejected[@]}"; fi > "$saved/$m.rejected"
	echo "- $m: $(date -u '+%F %H:%M UTC'), $wsize rounds, $reps runs per variant" > "$saved/$m.meta"
	[ -z "$results" ] || report > "$results"
done

if [ -n "$results" ]; then report | tee "$results"; else report; fi

