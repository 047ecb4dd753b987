#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Time the kernel's recordmcount (scripts/ref-recordmcount.sh) and ours on the
# same objects (bench/gen-corpus.sh), run the way Kbuild runs it: one process
# per object, in place, on a fresh copy of the corpus for every tool and every
# repetition; and, as a second figure, one process for all objects.  Writes
# bench/RESULTS.md.
#
# Environment: BENCH_REPS (repetitions, default 5), BENCH_DIR (default
# build/bench), BENCH_RESULTS (default bench/RESULTS.md), BENCH_PROFILE=0 to
# skip the callgrind profile.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
bench=${BENCH_DIR:-$top/build/bench}
corpus=$bench/corpus
res=$bench/results
results_md=${BENCH_RESULTS:-$top/bench/RESULTS.md}
REPS=${BENCH_REPS:-5}
started=$(date +%s)
load_before=$(cut -d' ' -f1-3 /proc/loadavg)

make -s all
ref=$(scripts/ref-recordmcount.sh)
ours=$top/build/recordmcount
BENCH_DIR=$bench bench/gen-corpus.sh
mkdir -p "$bench"
cc -O2 -Wall -Wextra -o "$bench/timeit" bench/timeit.c
timeit=$bench/timeit
# An experiment for the report: the same code linked statically (no dynamic
# loading of libelf and its dependencies in each of the many short processes).
static=$bench/static/recordmcount static_libs=""
rm -rf "$bench/static"
for libs in '-ldw -lelf -lz -llzma -lbz2 -lzstd -lpthread -ldl' '-ldw -lelf -lz -llzma -lbz2 -lpthread -ldl' '-lelf -lz'; do
	if make -s BUILD="$bench/static" LDFLAGS=-static LDLIBS="$libs" "$static" >> "$bench/static.log" 2>&1; then
		static_libs=$libs
		break
	fi
done
[ -n "$static_libs" ] || static=""
# Ours as Kbuild would run it, and variants that show where per-process time goes.
tools="kernel ours"
noprotos=""
"$ours" --help 2>&1 | grep -q -- --no-protos && noprotos=--no-protos
[ -z "$noprotos" ] || tools+=" noprotos"
[ -z "$static" ] || tools+=" static"
[ -z "$static" ] || [ -z "$noprotos" ] || tools+=" static-noprotos"
tool_cmd() {	# sets CMD for a tool name
	case $1 in
	kernel) CMD=("$ref") ;;
	ours) CMD=("$ours") ;;
	noprotos) CMD=("$ours" --no-protos) ;;
	static) CMD=("$static") ;;
	static-noprotos) CMD=("$static" --no-protos) ;;
	esac
}
rm -rf "$res"
mkdir -p "$res"

# ---- object lists (paths relative to the corpus, as Kbuild passes relative paths)
manifest=$corpus/MANIFEST
mapfile -t side < <(awk -F'\t' '!/^#/ && $1 != "scale" && $2 != "riscv64" { print $3 }' "$manifest")
mapfile -t riscv < <(awk -F'\t' '!/^#/ && $1 != "scale" && $2 == "riscv64" { print $3 }' "$manifest")
mapfile -t side_arches < <(printf '%s\n' "${side[@]}" | cut -d/ -f1 | awk '!seen[$0]++')

# fresh_copy DIR OBJ...: DIR holds a pristine copy of those objects' arch directories.
fresh_copy() {
	local dir=$1 a
	shift
	rm -rf "$dir"
	mkdir -p "$dir"
	for a in $(printf '%s\n' "$@" | cut -d/ -f1 | sort -u); do
		cp -a "$corpus/$a" "$dir/"
	done
}

# timed TAG MODE TOOL OBJ...: fresh copy, then time; results in $res/TAG.tsv, stderr in TAG.err.
# Mode "each": a process per object; "all": a process per architecture for all
# its objects (the kernel tool crashes when one process mixes architectures,
# which Kbuild never does; see "single" below).
timed() {
	local tag=$1 mode=$2 a
	local -a objs
	tool_cmd "$3"
	shift 3
	fresh_copy "$bench/work" "$@"
	if [ "$mode" = each ]; then
		(cd "$bench/work" && "$timeit" each "${CMD[@]}" -- "$@") > "$res/$tag.tsv" 2> "$res/$tag.err"
		return
	fi
	: > "$res/$tag.tsv"
	: > "$res/$tag.err"
	for a in $(printf '%s\n' "$@" | cut -d/ -f1 | awk '!seen[$0]++'); do
		mapfile -t objs < <(printf '%s\n' "$@" | grep "^$a/")
		(cd "$bench/work" && "$timeit" all "${CMD[@]}" -- "${objs[@]}") >> "$res/$tag.tsv" 2>> "$res/$tag.err"
	done
}

# ---- the side by side runs; the order of the tools alternates between repetitions
echo "bench: ${#side[@]} objects side by side, ${#riscv[@]} riscv64 objects, $REPS repetitions" >&2
for rep in $(seq 1 "$REPS"); do
	order=$tools
	for ((k = 0; k < rep % $(wc -w <<< "$tools"); k++)); do order="${order#* } ${order%% *}"; done
	for tool in $order; do
		timed "each.$tool.$rep" each "$tool" "${side[@]}"
		if [ "$rep" -eq 1 ] && { [ "$tool" = kernel ] || [ "$tool" = ours ]; }; then
			rm -rf "$bench/out.$tool"	# kept for the sanity check
			mv "$bench/work" "$bench/out.$tool"
		fi
		timed "all.$tool.$rep" all "$tool" "${side[@]}"
	done
	timed "each.riscv.$rep" each ours "${riscv[@]}"
	timed "all.riscv.$rep" all ours "${riscv[@]}"
	echo "bench: repetition $rep done" >&2
done

# ---- once: every object in a single process
for tool in kernel ours; do
	tool_cmd "$tool"
	fresh_copy "$bench/work" "${side[@]}"
	(cd "$bench/work" && "$timeit" all "${CMD[@]}" -- "${side[@]}") > "$res/single.$tool.tsv" 2> "$res/single.$tool.err"
done

# ---- growth with the number of sections (x86_64, one object per process)
mapfile -t scale < <(awk -F'\t' '$1 == "scale" { print $3 }' "$manifest")
for obj in "${scale[@]}"; do
	for rep in $(seq 1 "$REPS"); do
		for tool in kernel ours; do
			timed "scale.$tool.$(basename "$obj" .o).$rep" each "$tool" "$obj"
		done
	done
done
echo "bench: growth runs done" >&2

# ---- sanity: both tools recorded the same number of sites (listed by ours, which reads both)
sanity=$res/sanity.tsv
: > "$sanity"
for obj in "${side[@]}"; do
	k=$("$ours" --list "$bench/out.kernel/$obj" 2>/dev/null | wc -l) || k=err
	o=$("$ours" --list "$bench/out.ours/$obj" 2>/dev/null | wc -l) || o=err
	same=no
	cmp -s <("$ours" --list "$bench/out.kernel/$obj" 2>/dev/null) \
		<("$ours" --list "$bench/out.ours/$obj" 2>/dev/null) && same=yes
	printf '%s\t%s\t%s\t%s\n' "$obj" "$k" "$o" "$same" >> "$sanity"
done

rm -rf "$bench/work"

# ---- report (head ends pipelines early: that is no failure here)
set +o pipefail
ms() { awk -v ns="$1" 'BEGIN { printf "%.1f", ns / 1e6 }'; }
# median of the numbers on stdin
median() { sort -g | awk '{ v[NR] = $1 } END { if (!NR) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
# loop wall time of a run kind, median over repetitions
median_total() { for r in $(seq 1 "$REPS"); do awk -F'\t' '$1 == "TOTAL" { print $2 }' "$res/$1.$r.tsv"; done | median; }
# sum of per-object times matching an awk condition on the path, median over repetitions
median_sum() {	# KIND AWK-CONDITION FIELD(2 = wall, 5 = cpu)
	for r in $(seq 1 "$REPS"); do
		awk -F'\t' "\$1 != \"TOTAL\" && ($2) { s += \$$3 } END { print s + 0 }" "$res/$1.$r.tsv"
	done | median
}
# per-object medians over repetitions: path wall_ns cpu_ns max_rss_kib status (nonzero if any run failed)
per_object() {
	cat "$res/$1".[0-9]*.tsv | awk -F'\t' '
		function med(str,   v, n, i, j, t) {
			n = split(str, v, " ")
			for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
			return (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
		}
		$1 != "TOTAL" && $1 != "ALL" {
			if (!($1 in wall)) order[++np] = $1
			wall[$1] = wall[$1] " " $2; cpu[$1] = cpu[$1] " " $5
			if ($3 > rss[$1]) rss[$1] = $3
			if ($4 != 0) st[$1] = $4
		}
		END { for (i = 1; i <= np; i++) { p = order[i]; print p "\t" med(wall[p]) "\t" med(cpu[p]) "\t" rss[p] "\t" (st[p] + 0) } }' |
		sort -t$'\t' -k1,1
}
per_object each.kernel > "$res/obj.kernel"
per_object each.ours > "$res/obj.ours"
per_object each.riscv > "$res/obj.riscv"
for t in $tools; do case $t in kernel|ours) ;; *) per_object "each.$t" > "$res/obj.$t" ;; esac; done
join -t$'\t' "$res/obj.kernel" "$res/obj.ours" > "$res/obj.both"	# path k_wall k_cpu k_rss k_st o_wall o_cpu o_rss o_st
all_metric() {	# KIND FIELD(2 = wall, 3 = rss, 5 = cpu): sum (rss: max) over the per-arch processes, median over repetitions
	for r in $(seq 1 "$REPS"); do
		awk -F'\t' -v f="$2" '$1 == "ALL" { s = (f == 3) ? (($f > s) ? $f : s) : s + $f } END { print s + 0 }' "$res/$1.$r.tsv"
	done | median
}
all_status() { for r in $(seq 1 "$REPS"); do awk -F'\t' '$1 == "ALL" { print $4 }' "$res/$1.$r.tsv"; done | sort -u | tr '\n' ' '; }
failed_objs() { awk -F'\t' '$5 != 0 { print $1 }' "$res/obj.$1"; }
max_rss() { cut -f4 "$res/obj.$1" | sort -n | tail -1; }

# ---- profiles (callgrind) of both tools: the largest x86_64 object, and
# the object where ours compares worst
profile_objs=()
big=$(awk -F'\t' '$1 == "large" && $2 == "x86_64" { print $5, $3 }' "$manifest" | sort -n | tail -1 | cut -d' ' -f2)
worst=$(awk -F'\t' '$5 == 0 && $3 > 0 { printf "%.6f\t%s\n", $7 / $3, $1 }' "$res/obj.both" | sort -gr | head -1 | cut -f2)
[ -n "$big" ] && profile_objs+=("$big")
[ -n "$worst" ] && [ "$worst" != "$big" ] && profile_objs+=("$worst")
if [ "${BENCH_PROFILE:-1}" = 0 ] || ! command -v valgrind > /dev/null; then
	profile_objs=()
fi
for i in "${!profile_objs[@]}"; do
	for tool in kernel ours; do
		tool_cmd "$tool"
		fresh_copy "$bench/work" "${profile_objs[i]}"
		(cd "$bench/work" && valgrind --tool=callgrind --callgrind-out-file="$res/callgrind.$tool.$i" \
			"${CMD[@]}" "${profile_objs[i]}") > /dev/null 2> "$res/callgrind.$tool.$i.err"
	done
	callgrind_annotate --inclusive=no "$res/callgrind.ours.$i" 2> /dev/null > "$res/profile.self.$i"
	callgrind_annotate --inclusive=yes "$res/callgrind.ours.$i" 2> /dev/null > "$res/profile.incl.$i"
done
rm -rf "$bench/work"

k_total=$(median_total each.kernel)
o_total=$(median_total each.ours)
k_cpu=$(median_sum each.kernel 1 5)
o_cpu=$(median_sum each.ours 1 5)
nobj=${#side[@]}
size_kb=$(cd "$corpus" && du -ck "${side[@]}" | tail -1 | cut -f1)
sections_of() { readelf -h "$corpus/$1" | awk '/Number of section headers/ { print $NF }'; }

{
	echo "# Benchmark: kernel recordmcount vs ours"
	echo
	echo "Written by \`bench/run.sh\` (\`make bench\`); every number below was measured by that run."
	echo
	echo "## Setup"
	echo
	echo "- Date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "- Machine: $(uname -srm), $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo), $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo) RAM; load average before the run: $load_before (the machine may be shared)"
	echo "- Command: \`BENCH_REPS=$REPS bench/run.sh\` (what \`make bench\` runs), $REPS repetitions, medians reported"
	echo "- Ours: \`build/recordmcount\` at $(git describe --always --dirty 2>/dev/null || echo unknown), built by \`make\` (CFLAGS -O2 -g), libelf $(dpkg-query -W -f='${Version}' libelf1 2>/dev/null || echo '?')"
	echo "- Kernel tool: \`$(realpath --relative-to="$top" "$ref")\`, scripts/recordmcount.c of linux-source-6.1 $(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || echo '?'), built by \`scripts/ref-recordmcount.sh\` (cc -O2)"
	[[ $tools != *noprotos* ]] || echo "- Variant *ours --no-protos*: the same binary without the DWARF prototype table (\`--no-protos\`), to show what that costs."
	[ -z "$static" ] || echo "- Variant *ours linked -static*: the same sources built by \`make BUILD=build/bench/static LDFLAGS=-static LDLIBS='$static_libs'\`, to show what dynamic loading costs per process."
	echo "- Figures: *wall* is elapsed time; *CPU* is user + system time of the tool's processes (from wait4), which other work on the machine disturbs much less. The goal (ours at most 1.0x the kernel tool) is judged on both."
	echo "- Invocation: as Kbuild does, \`TOOL path/to/file.o\`, one process per object, in place, relative paths, no shell in between (\`bench/timeit.c\`: posix_spawn + wait4, wall time and max RSS per process); second figure: one process \`TOOL file1.o file2.o ...\` per architecture. Every tool and every repetition works on a fresh copy of the corpus (copying is not timed); the tools alternate which goes first."
	echo
	echo "## Corpus"
	echo
	echo "\`bench/gen-corpus.sh\` into \`build/bench/corpus/\`: C files written by \`bench/gen-c.pl\` (kernel-flavoured functions: loops, switches, locking, list walks, allocations, printk; 15% of functions tiny, a tail up to 60 blocks; some static noinline, some notrace, a few in \`.init.text\` and in the untraced \`.meminit.text\`), compiled with \`-pg\` and kernel-style flags ($(grep -o "^COMMON='[^']*'" bench/gen-corpus.sh | cut -d"'" -f2) plus the flags of t/arches.sh and a few per arch; see MANIFEST)."
	echo
	echo "Side by side: $nobj objects on ${#side_arches[@]} architectures ($(printf '%s ' "${side_arches[@]}")), $((size_kb / 1024)) MiB:"
	echo
	echo "| group | objects | functions per object | notes |"
	echo "|---|---|---|---|"
	awk -F'\t' '!/^#/ && $1 == "regular" && $2 != "riscv64" && $4 !~ /clang/ { n++; if (!min || $5 < min) min = $5; if ($5 > max) max = $5; if ($6 ~ /function-sections/) fs++; if ($6 ~ / -g/) g++ }
		END { printf "| gcc ordinary | %d | %d-%d | %d with -ffunction-sections, %d with -g, x86 half with -mfentry |\n", n, min, max, fs, g }' "$manifest"
	awk -F'\t' '!/^#/ && $1 == "regular" && $4 ~ /clang/ { n++; a[$2] = 1; if ($6 ~ /function-sections/) fs++ }
		END { s = ""; for (k in a) s = s k " "; printf "| clang ordinary | %d | 10-100 | %s; %d with -ffunction-sections |\n", n, s, fs }' "$manifest"
	awk -F'\t' '!/^#/ && $1 == "large" && $2 != "riscv64" { n++; c[$5]++; if ($6 ~ / -g/) g++ }
		END { s = ""; for (k in c) s = s c[k] " x " k " "; printf "| large, -ffunction-sections | %d | %s| %d with -g |\n", n, s, g }' "$manifest"
	echo
	echo "riscv64 (ours only; the kernel tool does not know EM_RISCV): ${#riscv[@]} objects built the same way."
	echo
	echo "## Totals (one process per object, like Kbuild)"
	echo
	# Variants beyond ours as Kbuild runs it, as extra columns.
	extra=""
	for t in $tools; do case $t in kernel|ours) ;; *) extra+=" $t" ;; esac; done
	label() { case $1 in noprotos) echo "ours --no-protos" ;; static) echo "ours linked -static" ;; static-noprotos) echo "ours -static --no-protos" ;; esac; }
	hdr() { local t; for t in $extra; do printf ' %s | / kernel |' "$(label "$t")"; done; }
	sep() { local t; for t in $extra; do printf -- '---|---|'; done; }
	cols() {	# FUNC KIND-PREFIX "EXTRA ARGS" KERNEL-VALUE: a time and its ratio per variant
		local fn=$1 pre=$2 kv=$4 t v
		local -a after
		read -ra after <<< "$3"
		for t in $extra; do
			v=$("$fn" "$pre$t" "${after[@]}")
			printf ' %s ms | %s |' "$(ms "$v")" "$(ratio "$v" "$kv")"
		done
	}
	echo "| $nobj objects | kernel tool | ours | ours / kernel |$(hdr)"
	echo "|---|---|---|---|$(sep)"
	echo "| wall time of the whole loop (median) | $(ms "$k_total") ms | $(ms "$o_total") ms | **$(ratio "$o_total" "$k_total")** |$(cols median_total each. "" "$k_total")"
	echo "| CPU time, sum over the processes (median) | $(ms "$k_cpu") ms | $(ms "$o_cpu") ms | **$(ratio "$o_cpu" "$k_cpu")** |$(cols median_sum each. "1 5" "$k_cpu")"
	echo "| max RSS of one process | $(max_rss kernel) KiB | $(max_rss ours) KiB | |$(for t in $extra; do printf ' %s KiB | |' "$(max_rss "$t")"; done)"
	echo "| objects the tool failed on | $(failed_objs kernel | wc -l) | $(failed_objs ours | wc -l) | |$(for t in $extra; do printf ' %s | |' "$(failed_objs "$t" | wc -l)"; done)"
	echo
	verdict() { awk -v a="$1" -v b="$2" 'BEGIN { print (a <= b) ? "met" : "not met" }'; }
	echo "Goal of the issue, ours at most 1.0x the kernel tool, one process per object: **$(verdict "$o_cpu" "$k_cpu")** on CPU time ($(ratio "$o_cpu" "$k_cpu")x), **$(verdict "$o_total" "$k_total")** on wall time ($(ratio "$o_total" "$k_total")x)."
	echo
	echo "One process per architecture for all its objects ($((${#side_arches[@]})) processes; sums over them, median over repetitions):"
	echo
	echo "| | kernel tool | ours | ours / kernel |$(hdr)"
	echo "|---|---|---|---|$(sep)"
	ka=$(all_metric all.kernel 2); oa=$(all_metric all.ours 2)
	echo "| wall | $(ms "$ka") ms | $(ms "$oa") ms | **$(ratio "$oa" "$ka")** |$(cols all_metric all. 2 "$ka")"
	ka=$(all_metric all.kernel 5); oa=$(all_metric all.ours 5)
	echo "| CPU | $(ms "$ka") ms | $(ms "$oa") ms | **$(ratio "$oa" "$ka")** |$(cols all_metric all. 5 "$ka")"
	echo "| max RSS | $(all_metric all.kernel 3) KiB | $(all_metric all.ours 3) KiB | |$(for t in $extra; do printf ' %s KiB | |' "$(all_metric "all.$t" 3)"; done)"
	echo "| exit status | $(all_status all.kernel)| $(all_status all.ours)| |$(for t in $extra; do printf ' %s| |' "$(all_status "all.$t")"; done)"
	echo
	single() { awk -F'\t' '$1 == "ALL" { if ($4 == 0) printf "succeeds (%.1f ms wall, %.1f ms CPU)", $2 / 1e6, $5 / 1e6; else if ($4 > 128) printf "is killed by signal %d", $4 - 128; else printf "fails (exit %d)", $4 }' "$res/single.$1.tsv"; }
	echo "All $nobj objects in a single process (architectures mixed, once): the kernel tool $(single kernel); ours $(single ours)."
	echo
	echo "riscv64, ours only (${#riscv[@]} objects): one process per object $(ms "$(median_total each.riscv)") ms wall, $(ms "$(median_sum each.riscv 1 5)") ms CPU; one process for all $(ms "$(all_metric all.riscv 2)") ms wall, $(ms "$(all_metric all.riscv 5)") ms CPU; max RSS $(max_rss riscv) KiB; objects failed: $(failed_objs riscv | wc -l)."
	echo
	echo "## Per architecture (one process per object, sums of per-object times, median)"
	echo
	echo "| arch | objects | kernel wall | ours wall | ratio | kernel CPU | ours CPU | ratio |"
	echo "|---|---|---|---|---|---|---|---|"
	for a in "${side_arches[@]}"; do
		cond="index(\$1, \"$a/\") == 1"
		kw=$(median_sum each.kernel "$cond" 2); ow=$(median_sum each.ours "$cond" 2)
		kc=$(median_sum each.kernel "$cond" 5); oc=$(median_sum each.ours "$cond" 5)
		echo "| $a | $(printf '%s\n' "${side[@]}" | grep -c "^$a/") | $(ms "$kw") ms | $(ms "$ow") ms | $(ratio "$ow" "$kw") | $(ms "$kc") ms | $(ms "$oc") ms | $(ratio "$oc" "$kc") |"
	done
	echo
	echo "## Large objects (-ffunction-sections), one process each, median"
	echo
	echo "| object | sections | sites | kernel wall | ours wall | ratio | kernel CPU | ours CPU | ratio | max RSS kernel / ours |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	while IFS=$'\t' read -r path kw kc krss kst ow oc orss ost; do
		case $path in */large-*) ;; *) continue ;; esac
		sites=$(awk -F'\t' -v p="$path" '$1 == p { print $3 }' "$sanity")
		kt="$(ms "$kw") ms"; [ "$kst" = 0 ] || kt="failed ($kst)"
		echo "| $path | $(sections_of "$path") | $sites | $kt | $(ms "$ow") ms | $(ratio "$ow" "$kw") | $(ms "$kc") ms | $(ms "$oc") ms | $(ratio "$oc" "$kc") | $krss / $orss KiB |"
	done < "$res/obj.both"
	echo
	echo "## Worst cases per object (one process each, median of $REPS)"
	echo
	echo "Highest ours / kernel ratio of CPU time (objects where both tools succeed):"
	echo
	echo "| object | kernel CPU | ours CPU | ratio | kernel wall | ours wall |"
	echo "|---|---|---|---|---|---|"
	awk -F'\t' '$5 == 0 && $3 > 0 { printf "%s\t%.6f\n", $0, $7 / $3 }' "$res/obj.both" |
		sort -t$'\t' -k10,10gr | head -10 |
		while IFS=$'\t' read -r p kw kc _ _ ow oc _ _ _; do
			echo "| $p | $(ms "$kc") ms | $(ms "$oc") ms | $(ratio "$oc" "$kc") | $(ms "$kw") ms | $(ms "$ow") ms |"
		done
	echo
	echo "Slowest objects for ours (CPU):"
	echo
	echo "| object | kernel CPU | ours CPU | ratio | kernel wall | ours wall |"
	echo "|---|---|---|---|---|---|"
	sort -t$'\t' -k7,7gr "$res/obj.both" | head -10 |
		while IFS=$'\t' read -r p kw kc _ _ ow oc _ _; do
			echo "| $p | $(ms "$kc") ms | $(ms "$oc") ms | $(ratio "$oc" "$kc") | $(ms "$kw") ms | $(ms "$ow") ms |"
		done
	echo
	echo "## Growth with the number of sections (x86_64, one process, median of $REPS)"
	echo
	echo "Objects of N tiny functions, \`-O2 -pg -fno-pic -ffreestanding -ffunction-sections\` (\`bench/gen-c.pl --max-blocks=1\`). *unwind*: default unwind tables, so gas keeps a section symbol per function section; *nounwind*: \`-fno-asynchronous-unwind-tables\` (as x86 Kbuild), gas drops the unused section symbols; *weak*: the same with only weak functions."
	echo
	echo "| kind | N | sections | kernel wall | ours wall | ratio | kernel CPU | ours CPU | ratio | ours CPU per 1000 functions | max RSS kernel / ours |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|"
	for obj in "${scale[@]}"; do
		b=$(basename "$obj" .o); kind=${b%-*}; n=${b##*-}
		cat "$res/scale.kernel.$b".[0-9]*.tsv > "$res/m.kernel"
		cat "$res/scale.ours.$b".[0-9]*.tsv > "$res/m.ours"
		col() { awk -F'\t' -v f="$2" '$1 != "TOTAL" { print $f }' "$res/m.$1"; }
		kw=$(col kernel 2 | median); kc=$(col kernel 5 | median); krss=$(col kernel 3 | sort -n | tail -1)
		ow=$(col ours 2 | median); oc=$(col ours 5 | median); orss=$(col ours 3 | sort -n | tail -1)
		kst=$(col kernel 4 | sort -u | tr '\n' ' '); ost=$(col ours 4 | sort -u | tr '\n' ' ')
		if [ "$kst" = "0 " ]; then
			kcols="$(ms "$kw") ms | $(ms "$ow") ms | $(ratio "$ow" "$kw") | $(ms "$kc") ms | $(ms "$oc") ms | $(ratio "$oc" "$kc")"
		else
			kerr=$(head -1 "$res/scale.kernel.$b.1.err")
			kcols="fails: exit ${kst% }, \"$kerr\" | $(ms "$ow") ms | - | - | $(ms "$oc") ms | -"
		fi
		[ "$ost" = "0 " ] || kcols+=" (ours: exit ${ost% })"
		echo "| $kind | $n | $(sections_of "$obj") | $kcols | $(awk -v t="$oc" -v n="$n" 'BEGIN { printf "%.2f ms", t / 1e6 / n * 1000 }') | $krss / $orss KiB |"
	done
	echo
	echo "## Sanity check"
	echo
	echo "Sites recorded by each tool in its first-repetition output, as listed by \`recordmcount --list\`: $(awk -F'\t' '$2 == $3' "$sanity" | wc -l) of $nobj objects have the same number of sites, $(awk -F'\t' '$4 == "yes"' "$sanity" | wc -l) the same list. Objects that differ:"
	echo
	awk -F'\t' '$4 != "yes" { split($1, p, "/"); c[p[1]]++; if ($2 != $3) d[p[1]]++ } END { for (a in c) printf "- %s: %d objects list different sites (%d a different count)\n", a, c[a], d[a] + 0 }' "$sanity" | sort
	if grep -q '^mips' <(awk -F'\t' '$4 != "yes" { print $1 }' "$sanity"); then
		echo
		echo "MIPS: the kernel tool's MIPS_is_fake_mcount() keeps the offset of the previous call relocation in a static variable across sections (and files), and drops a call whose offset is 4 more than that one as the second half of a long call; with -ffunction-sections real calls are dropped. The extra sites ours lists below are \`jal _mcount\` calls (checked with objdump on mips/m04-fs.o, .text.fn_9+0x20)."
	fi
	if grep -q '^s390x' <(awk -F'\t' '$4 != "yes" { print $1 }' "$sanity"); then
		echo
		echo "s390x: same number of sites, different offsets: the kernel tool's entries point 14 bytes before the relocation, ours at the \`brasl\` (relocation - 2), as known."
	fi
	first_diff=$(awk -F'\t' '$4 != "yes" { split($1, p, "/"); if (!(p[1] in s)) { s[p[1]] = 1; print $1 } }' "$sanity")
	for obj in $first_diff; do
		echo
		echo "First lines that differ in $obj (kernel tool's output, then ours):"
		echo
		echo '```'
		diff <("$ours" --list "$bench/out.kernel/$obj" 2>&1) <("$ours" --list "$bench/out.ours/$obj" 2>&1) |
			grep '^[<>]' | head -4
		echo '```'
	done
	for i in "${!profile_objs[@]}"; do
		obj=${profile_objs[i]}
		echo
		echo "## Profile of ours on $obj"
		echo
		kir=$(awk '/^(summary|totals):/ { print $2; exit }' "$res/callgrind.kernel.$i")
		oir=$(awk '/^(summary|totals):/ { print $2; exit }' "$res/callgrind.ours.$i")
		echo "\`valgrind --tool=callgrind build/recordmcount $obj\` on a fresh copy: $oir instructions executed (whole process, dynamic loader included); the kernel tool on the same object: $kir; ours / kernel $(ratio "$oir" "$kir")."
		echo
		echo "Self cost (\`callgrind_annotate --inclusive=no\`), top entries:"
		echo
		echo '```'
		grep -E '^ *[0-9,]+ \(' "$res/profile.self.$i" | grep -v " $top/" | sed 's/ \[[^]]*\]$//' | head -16
		echo '```'
		echo
		echo "Inclusive cost (\`callgrind_annotate --inclusive=yes\`), top entries:"
		echo
		echo '```'
		grep -E '^ *[0-9,]+ \(' "$res/profile.incl.$i" | grep -v " $top/" | sed 's/ \[[^]]*\]$//' | head -24
		echo '```'
	done
	echo
	echo "Benchmark run time: $(($(date +%s) - started)) s (corpus generation excluded when cached)."
} > "$results_md"
echo "bench: wrote $results_md" >&2
