#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Time the kernel's recordmcount (scripts/ref-recordmcount.sh) and ours on the
# same objects (bench/gen-corpus.sh), run the way Kbuild runs it: one process
# per object, in place, on a fresh copy of the corpus for every tool and every
# repetition; batched, 64 objects per process (as `xargs -n64` or a build
# system that batches would run it); and one process for all objects of an
# architecture.  Then the
# DWARF prototype tables: their size against the BTF of `pahole -J` and their
# time against ours --no-protos and pahole, on objects built with -g.  Writes
# bench/RESULTS.md.
#
# Environment: BENCH_REPS (repetitions, default 5), BENCH_DIR (default
# build/bench), BENCH_RESULTS (default bench/RESULTS.md), BENCH_PROFILE=0 to
# skip the callgrind profiles.
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
# Ours is linked statically (the Makefile's default); the same sources linked
# dynamically show what loading libdw, libelf and their dependencies costs in
# each of the many short processes.
dyn=$bench/dyn/recordmcount
rm -rf "$bench/dyn"
make -s BUILD="$bench/dyn" STATIC=0 "$dyn" > "$bench/dyn.log" 2>&1 || dyn=""
# Ours as Kbuild would run it, and variants that show where per-process time goes.
tools="kernel ours"
noprotos=""
"$ours" --help 2>&1 | grep -q -- --no-protos && noprotos=--no-protos
[ -z "$noprotos" ] || tools+=" noprotos"
[ -z "$dyn" ] || tools+=" dyn"
pahole=$(command -v pahole || true)
tool_cmd() {	# sets CMD for a tool name
	case $1 in
	kernel) CMD=("$ref") ;;
	ours) CMD=("$ours") ;;
	noprotos) CMD=("$ours" --no-protos) ;;
	dyn) CMD=("$dyn") ;;
	pahole) CMD=("$pahole" -J) ;;
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
# Mode "each": a process per object; "batch": a process per 64 objects of an
# architecture; "all": a process per architecture for all its objects (the
# kernel tool crashes when one process mixes architectures, which Kbuild
# never does; see "single" below).
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
		local step=${#objs[@]} i
		[ "$mode" = batch ] && step=64
		for ((i = 0; i < ${#objs[@]}; i += step)); do
			(cd "$bench/work" && "$timeit" all "${CMD[@]}" -- "${objs[@]:i:step}") >> "$res/$tag.tsv" 2>> "$res/$tag.err"
		done
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
		timed "batch.$tool.$rep" batch "$tool" "${side[@]}"
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

# ---- DWARF prototype tables against BTF (pahole -J), on objects with DWARF:
# the corpus's -g objects (riscv64 too) and this repository's own sources
# compiled with -O2 -g -pg, whose DWARF describes real headers (libelf, libdw,
# stdio).  Each tool works on a fresh copy (pahole -J rewrites the object too).
dw=$bench/dwarf
dw_tools="ours noprotos pahole"
dw_ccs=""
dw_objs=()
if [ -n "$noprotos" ] && [ -n "$pahole" ]; then
	rm -rf "$dw"
	mkdir -p "$dw/pristine" "$dw/link"
	mapfile -t dw_corpus < <(awk -F'\t' '!/^#/ && $1 != "scale" && $6 ~ / -g/ { print $3 }' "$manifest")
	(cd "$corpus" && cp --parents "${dw_corpus[@]}" "$dw/pristine/")
	for cc in gcc clang; do
		command -v "$cc" > /dev/null || continue
		ok=1
		mkdir -p "$dw/pristine/repo-$cc"
		for f in recordmcount/*.c dwarf/*.c elf/*.c tables/*.c trace/*.c objpatch/*/*.c arch/*.c $(ls arch/*/*.c | grep -v /rt_); do
			"$cc" -std=gnu11 -D_GNU_SOURCE -DVERSION='"bench"' -I. -O2 -g -pg -c "$f" \
				-o "$dw/pristine/repo-$cc/$(tr / - <<< "${f%.c}").o" 2>> "$dw/compile.log" || ok=""
		done
		if [ -n "$ok" ]; then dw_ccs+=" $cc"; else rm -rf "$dw/pristine/repo-$cc"; fi
	done
	mapfile -t dw_repo < <(cd "$dw/pristine" && ls repo-*/*.o 2> /dev/null)
	dw_objs=("${dw_corpus[@]}" "${dw_repo[@]}")
	echo "bench: DWARF tables: ${#dw_objs[@]} objects, $REPS repetitions" >&2
	for rep in $(seq 1 "$REPS"); do
		order=$dw_tools
		for ((k = 0; k < rep % 3; k++)); do order="${order#* } ${order%% *}"; done
		for tool in $order; do
			tool_cmd "$tool"
			rm -rf "$dw/work"
			cp -a "$dw/pristine" "$dw/work"
			(cd "$dw/work" && "$timeit" each "${CMD[@]}" -- "${dw_objs[@]}") > "$res/dw.$tool.$rep.tsv" 2> "$res/dw.$tool.$rep.err"
			if [ "$rep" -eq 1 ] && [ "$tool" != noprotos ]; then
				rm -rf "$dw/out.$tool"
				mv "$dw/work" "$dw/out.$tool"
			fi
		done
	done
	rm -rf "$dw/work"
	# After a link: the objects of the recordmcount program (all but objpatch's
	# main), with our tables, merged by ld -r and linked into a program; pahole
	# -J on a copy of each linked file, where it deduplicates types across CUs.
	for cc in $dw_ccs; do
		lobjs=()
		for f in "$dw/out.ours/repo-$cc/"*.o; do
			[ "$(basename "$f")" = objpatch-cli-cli.o ] || lobjs+=("$f")
		done
		ld -r -o "$dw/link/$cc-r.o" "${lobjs[@]}" 2>> "$dw/link.log" || continue
		"$cc" -no-pie -o "$dw/link/$cc-prog" "${lobjs[@]}" -ldw -lelf 2>> "$dw/link.log" || rm -f "$dw/link/$cc-prog"
		for f in "$dw/link/$cc-r.o" "$dw/link/$cc-prog"; do
			[ -f "$f" ] || continue
			cp "$f" "$f.btf"
			"$pahole" -J "$f.btf" >> "$dw/link.log" 2>&1 || rm -f "$f.btf"
		done
	done
	echo "bench: DWARF table runs done" >&2
fi

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
# The prototype tables on the largest x86_64 -g object: ours whole, ours
# --no-protos, and ours collecting only inside emit_protos (the table's entry point).
dw_prof=""
if [ ${#dw_objs[@]} -gt 0 ] && [ "${BENCH_PROFILE:-1}" != 0 ] && command -v valgrind > /dev/null; then
	dw_prof=$(awk -F'\t' '$1 == "large" && $2 == "x86_64" && $6 ~ / -g/ { print $5, $3 }' "$manifest" | sort -n | tail -1 | cut -d' ' -f2)
fi
if [ -n "$dw_prof" ]; then
	for v in full noprotos emit; do
		args=()
		case $v in noprotos) args=(--no-protos) ;; emit) args=(--toggle-collect=emit_protos) ;; esac
		fresh_copy "$bench/work" "$dw_prof"
		if [ "$v" = emit ]; then
			(cd "$bench/work" && valgrind --tool=callgrind --callgrind-out-file="$res/callgrind.dw.$v" "${args[@]}" \
				"$ours" "$dw_prof") > /dev/null 2> "$res/callgrind.dw.$v.err"
		else
			(cd "$bench/work" && valgrind --tool=callgrind --callgrind-out-file="$res/callgrind.dw.$v" \
				"$ours" "${args[@]}" "$dw_prof") > /dev/null 2> "$res/callgrind.dw.$v.err"
		fi
	done
	callgrind_annotate --inclusive=no "$res/callgrind.dw.emit" 2> /dev/null > "$res/profile.dw.self"
	callgrind_annotate --inclusive=yes "$res/callgrind.dw.emit" 2> /dev/null > "$res/profile.dw.incl"
fi
rm -rf "$bench/work"

# ---- DWARF tables: sizes of the sections, per-object times
# secs FILE: name, size and entry size of every section
secs() { readelf -SW "$1" 2> /dev/null | sed -n 's/^ *\[ *[0-9]*\] *//p' | perl -lane 'print join("\t", $F[0], hex($F[4]), hex($F[5])) if @F >= 6 && $F[0] ne "Name"'; }
# our_tables FILE: records, __mcount_proto bytes, __mcount_str bytes, .rel(a)__mcount_proto bytes
# (records from the file's class: a linker sets the merged section's entry size to 0)
our_tables() {
	local rsize=16
	readelf -h "$1" 2> /dev/null | grep -q 'Class:.*ELF64' && rsize=20
	secs "$1" | awk -F'\t' -v rsize="$rsize" '
		$1 == "__mcount_proto" { p += $2; r += $2 / rsize }
		$1 == "__mcount_str" { s += $2 }
		$1 == ".rela__mcount_proto" || $1 == ".rel__mcount_proto" { l += $2 }
		END { printf "%d\t%d\t%d\t%d\n", r, p, s, l }'
}
# btf FILE: bytes of .BTF and its number of FUNC entries (either byte order)
btf() {
	local size off
	read -r size off < <(readelf -SW "$1" 2> /dev/null | sed -n 's/^ *\[ *[0-9]*\] *//p' | perl -lane 'print hex($F[4]), " ", hex($F[3]) if $F[0] eq ".BTF"')
	if [ -z "${size:-}" ]; then printf '0\t0\n'; return; fi
	perl -e '
		open(my $f, "<:raw", $ARGV[0]) or die "$ARGV[0]: $!\n";
		seek($f, $ARGV[1], 0); read($f, my $b, $ARGV[2]) == $ARGV[2] or die "$ARGV[0]: short .BTF\n";
		my $e = unpack("v", $b) == 0xeb9f ? "V" : "N";
		my ($hl, $to, $tl) = unpack("x4 $e$e$e", $b);
		my ($p, $end, $n) = ($hl + $to, $hl + $to + $tl, 0);
		# bytes after the 12-byte btf_type: fixed per kind, and per vlen item
		my %fixed = (1 => 4, 3 => 12, 14 => 4, 17 => 4);
		my %item = (4 => 12, 5 => 12, 6 => 8, 13 => 8, 15 => 12, 19 => 12);
		while ($p < $end) {
			my $info = unpack($e, substr($b, $p + 4, 4));
			my ($k, $vlen) = (($info >> 24) & 0x1f, $info & 0xffff);
			$n++ if $k == 12;
			$p += 12 + ($fixed{$k} // 0) + ($item{$k} // 0) * $vlen;
		}
		die "$ARGV[0]: .BTF types do not parse\n" if $p != $end;
		print "$ARGV[2]\t$n\n";' "$1" "$off" "$size"
}
if [ ${#dw_objs[@]} -gt 0 ]; then
	: > "$res/dw.sizes"	# path records proto str rela btf btf_funcs
	for o in "${dw_objs[@]}"; do
		printf '%s\t%s\t%s\n' "$o" "$(our_tables "$dw/out.ours/$o")" "$(btf "$dw/out.pahole/$o")" >> "$res/dw.sizes"
	done
	for f in "$dw"/link/*.btf; do
		[ -f "$f" ] || continue
		printf '%s\t%s\t%s\n' "link/$(basename "$f" .btf)" "$(our_tables "${f%.btf}")" "$(btf "$f")" >> "$res/dw.sizes"
	done
	for t in $dw_tools; do per_object "dw.$t" > "$res/dwobj.$t"; done
	# path ours_wall ours_cpu noprotos_wall noprotos_cpu pahole_wall pahole_cpu ours_st noprotos_st pahole_st
	join -t$'\t' "$res/dwobj.ours" "$res/dwobj.noprotos" | join -t$'\t' - "$res/dwobj.pahole" |
		awk -F'\t' -v OFS='\t' '{ print $1, $2, $3, $6, $7, $10, $11, $5, $9, $13 }' > "$res/dw.obj"
fi

k_total=$(median_total each.kernel)
o_total=$(median_total each.ours)
k_cpu=$(median_sum each.kernel 1 5)
o_cpu=$(median_sum each.ours 1 5)
nobj=${#side[@]}
size_kb=$(cd "$corpus" && du -ck "${side[@]}" | tail -1 | cut -f1)
linkage() { if readelf -lW "$1" 2>/dev/null | grep -q 'Requesting program interpreter'; then echo "dynamically linked"; else echo "statically linked"; fi; }
sections_of() { readelf -h "$corpus/$1" | awk '/Number of section headers/ { print $NF }'; }

{
	echo "# Benchmark: kernel recordmcount vs ours"
	echo
	echo "The tracing runtime's figures (against uftrace) are in bench/RESULTS-runtime.md (\`make bench-runtime\`); the cost of NOP'd sites over random code layouts in bench/RESULTS-layout.md (\`make bench-layout\`); the runtime on other machines under qemu-user, copied below from bench/RESULTS-cross.md (\`make bench-cross\`), at the end."
	echo
	echo "Written by \`bench/run.sh\` (\`make bench\`); every number below was measured by that run."
	echo
	echo "## Setup"
	echo
	echo "- Date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "- Machine: $(uname -srm), $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo), $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo) RAM; load average before the run: $load_before (the machine may be shared)"
	echo "- Command: \`BENCH_REPS=$REPS bench/run.sh\` (what \`make bench\` runs), $REPS repetitions, medians reported"
	echo "- Ours: \`build/recordmcount\` at $(git describe --always --dirty 2>/dev/null || echo unknown), built by \`make\` (CFLAGS -O2 -g), $(linkage "$ours"), libelf $(dpkg-query -W -f='${Version}' libelf1 2>/dev/null || echo '?')"
	echo "- Kernel tool: \`$(realpath --relative-to="$top" "$ref")\`, scripts/recordmcount.c of linux-source-6.1 $(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || echo '?'), built by \`scripts/ref-recordmcount.sh\` (cc -O2)"
	[[ $tools != *noprotos* ]] || echo "- Variant *ours --no-protos*: the same binary without the DWARF prototype table (\`--no-protos\`), to show what that costs."
	[ -z "$dyn" ] || echo "- Variant *ours, dynamically linked*: the same sources built by \`make BUILD=build/bench/dyn STATIC=0\` ($(linkage "$dyn")), to show what loading the shared libraries costs per process."
	echo "- Figures: *wall* is elapsed time; *CPU* is user + system time of the tool's processes (from wait4), which other work on the machine disturbs much less. The goals are judged on CPU time. The split of CPU time into user and system time is sampled by the kernel at its clock tick: meaningless for one process of a few milliseconds, a fair estimate summed over hundreds."
	echo "- Invocation: as Kbuild does, \`TOOL path/to/file.o\`, one process per object, in place, relative paths, no shell in between (\`bench/timeit.c\`: posix_spawn + wait4, wall time and max RSS per process); second figure: batched, one process \`TOOL file1.o ... file64.o\` per 64 objects of an architecture; third: one process per architecture. Every tool and every repetition works on a fresh copy of the corpus (copying is not timed); the tools alternate which goes first."
	echo
	echo "## Corpus"
	echo
	echo "\`bench/gen-corpus.sh\` into \`build/bench/corpus/\`: C files written by \`bench/gen-c.pl\` (kernel-flavoured functions: loops, switches, locking, list walks, allocations, printk; 15% of functions tiny, a tail up to 60 blocks; some static noinline, some notrace, a few in \`.init.text\` and in the untraced \`.meminit.text\`), compiled with \`-pg\` and kernel-style flags ($(grep -o "^COMMON='[^']*'" bench/gen-corpus.sh | cut -d"'" -f2) plus the flags of scripts/machines.sh and a few per arch; see MANIFEST)."
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
	label() { case $1 in noprotos) echo "ours --no-protos" ;; dyn) echo "ours, dynamically linked" ;; esac; }
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
	k_sys=$(median_sum each.kernel 1 6); o_sys=$(median_sum each.ours 1 6)
	echo "| of which system time (sum, median) | $(ms "$k_sys") ms | $(ms "$o_sys") ms | $(ratio "$o_sys" "$k_sys") |$(cols median_sum each. "1 6" "$k_sys")"
	echo "| max RSS of one process | $(max_rss kernel) KiB | $(max_rss ours) KiB | |$(for t in $extra; do printf ' %s KiB | |' "$(max_rss "$t")"; done)"
	echo "| objects the tool failed on | $(failed_objs kernel | wc -l) | $(failed_objs ours | wc -l) | |$(for t in $extra; do printf ' %s | |' "$(failed_objs "$t" | wc -l)"; done)"
	echo
	verdict() { awk -v a="$1" -v b="$2" 'BEGIN { print (a <= b) ? "met" : "not met" }'; }
	verdict_x() { awk -v a="$1" -v b="$2" -v x="$3" 'BEGIN { print (a <= x * b) ? "met" : "not met" }'; }
	kb_cpu=$(all_metric batch.kernel 5); ob_cpu=$(all_metric batch.ours 5)
	k_rss=$(max_rss kernel); o_rss=$(max_rss ours)
	echo "Goals: with the prototype tables (the default) at most 0.8x the kernel tool's CPU time one process per object and batched, without them at most 0.6x one process per object, and at most 1.5x its peak RSS either way:"
	echo
	echo "- one process per object (as Kbuild): $(ratio "$o_cpu" "$k_cpu")x, **$(verdict_x "$o_cpu" "$k_cpu" 0.8)** (wall time $(ratio "$o_total" "$k_total")x)"
	if [ -n "$noprotos" ]; then
		n_cpu=$(median_sum each.noprotos 1 5)
		echo "- one process per object, \`--no-protos\`: $(ratio "$n_cpu" "$k_cpu")x, **$(verdict_x "$n_cpu" "$k_cpu" 0.6)**"
	fi
	echo "- batched, 64 objects per process: $(ratio "$ob_cpu" "$kb_cpu")x, **$(verdict_x "$ob_cpu" "$kb_cpu" 0.8)**"
	echo "- peak RSS of one process: $o_rss KiB against $k_rss KiB, $(ratio "$o_rss" "$k_rss")x, **$(verdict_x "$o_rss" "$k_rss" 1.5)**$([ -z "$noprotos" ] || echo "; \`--no-protos\` $(max_rss noprotos) KiB, $(ratio "$(max_rss noprotos)" "$k_rss")x, **$(verdict_x "$(max_rss noprotos)" "$k_rss" 1.5)**")"
	echo
	echo "Batched, 64 objects per process (\`xargs -n64\` within each architecture: $(awk -F'\t' '$1 == "ALL"' "$res/batch.kernel.1.tsv" | wc -l) processes; sums over them, median over repetitions):"
	echo
	echo "| | kernel tool | ours | ours / kernel |$(hdr)"
	echo "|---|---|---|---|$(sep)"
	ka=$(all_metric batch.kernel 2); oa=$(all_metric batch.ours 2)
	echo "| wall | $(ms "$ka") ms | $(ms "$oa") ms | **$(ratio "$oa" "$ka")** |$(cols all_metric batch. 2 "$ka")"
	echo "| CPU | $(ms "$kb_cpu") ms | $(ms "$ob_cpu") ms | **$(ratio "$ob_cpu" "$kb_cpu")** |$(cols all_metric batch. 5 "$kb_cpu")"
	echo "| max RSS | $(all_metric batch.kernel 3) KiB | $(all_metric batch.ours 3) KiB | |$(for t in $extra; do printf ' %s KiB | |' "$(all_metric "batch.$t" 3)"; done)"
	echo "| exit status | $(all_status batch.kernel)| $(all_status batch.ours)| |$(for t in $extra; do printf ' %s| |' "$(all_status "batch.$t")"; done)"
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
		echo "\`valgrind --tool=callgrind build/recordmcount $obj\` on a fresh copy: $oir instructions executed (whole process, start-up included); the kernel tool on the same object: $kir; ours / kernel $(ratio "$oir" "$kir")."
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
		grep -E '^ *[0-9,]+ \(' "$res/profile.incl.$i" | grep -v -e " $top/" -e '(below main)' | sed 's/ \[[^]]*\]$//' | head -24
		echo '```'
	done
	if [ ${#dw_objs[@]} -gt 0 ]; then
		echo
		echo "## DWARF prototype tables against BTF"
		echo
		echo "By default ours also writes the prototype tables (\`__mcount_proto\` records + \`__mcount_str\` strings, man/mcount-tables.5) when an object has DWARF. Compared with the \`.BTF\` section that \`pahole -J\` ($("$pahole" --version)) writes for the same objects. Objects: the corpus's -g objects (${#dw_corpus[@]}, every arch, riscv64 included) and this repository's own sources (\`recordmcount dwarf elf tables trace objpatch arch\`, their DWARF describes libelf, libdw and stdio headers) compiled with \`-O2 -g -pg\` by$dw_ccs (x86_64)."
		echo
		echo "### Size"
		echo
		echo "Bytes per function: ours = (\`__mcount_proto\` + \`__mcount_str\`) / records (one record per function with a call site); *with .rela* adds the \`.rel(a)__mcount_proto\` sections, which exist in objects and are gone after a final link. BTF = \`.BTF\` / its FUNC entries (pahole leaves out some functions we record: .constprop/.isra clones, functions without a concrete DWARF instance). Sums over the objects where both sides describe at least one function (*n*); *median ratio* is the median over those objects of the per-object ratio (without .rela)."
		echo
		echo "| objects | n | records (ours) | proto + str | .rela | BTF FUNCs | .BTF | ours B/function | with .rela | BTF B/function | **ours / BTF** | with .rela / BTF | median ratio |"
		echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
		size_row() {	# LABEL AWK-CONDITION
			awk -F'\t' -v label="$1" "
				function med(a, n,   i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }; return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
				($2) { all++; if (\$2 > 0 && \$7 > 0) { n++; r += \$2; t += \$3 + \$4; l += \$5; b += \$6; f += \$7; q[n] = ((\$3 + \$4) / \$2) / (\$6 / \$7) } }
				END {
					if (!n) exit
					o = t / r; w = (t + l) / r; bb = b / f
					printf \"| %s | %d%s | %d | %d | %d | %d | %d | %.1f | %.1f | %.1f | **%.2f** | %.2f | %.2f |\n\", label, n, (all > n) ? \" of \" all : \"\", r, t, l, f, b, o, w, bb, o / bb, w / bb, med(q, n)
				}" "$res/dw.sizes"
		}
		# An arch where pahole's BTF has FUNC entries for fewer than half of the
		# functions we record is not compared: its BTF misses the functions.
		sums() { awk -F'\t' "($1) { r += \$2; t += \$3 + \$4; l += \$5; b += \$6; f += \$7 } END { print r + 0, t + 0, l + 0, b + 0, f + 0 }" "$res/dw.sizes"; }
		dw_skip=()
		for a in $(printf '%s\n' "${dw_corpus[@]}" | cut -d/ -f1 | awk '!seen[$0]++'); do
			read -r r t l b f < <(sums "index(\$1, \"$a/\") == 1")
			if [ $((2 * f)) -lt "$r" ]; then
				dw_skip+=("$a")
				echo "| corpus $a, ordinary -g | 0 of $(printf '%s\n' "${dw_corpus[@]}" | grep -c "^$a/") | $r | $t | $l | $f | $b | $(awk -v t="$t" -v r="$r" 'BEGIN { printf "%.1f", t / r }') | $(awk -v t="$t" -v l="$l" -v r="$r" 'BEGIN { printf "%.1f", (t + l) / r }') | - | n/a: BTF has $f FUNCs for $r functions | | |"
			else
				size_row "corpus $a, ordinary -g" "index(\$1, \"$a/\") == 1 && \$1 !~ /\\/large-/"
			fi
		done
		for o in $(printf '%s\n' "${dw_corpus[@]}" | grep /large-); do
			size_row "corpus $o" "\$1 == \"$o\""
		done
		compared="\$1 !~ /^(repo-|link\\/)/"
		for a in "${dw_skip[@]}"; do compared+=" && index(\$1, \"$a/\") != 1"; done
		size_row "**corpus -g objects compared**" "$compared"
		for cc in $dw_ccs; do
			size_row "**this repo, $cc, per object**" "index(\$1, \"repo-$cc/\") == 1"
		done
		for cc in $dw_ccs; do
			for f in "$cc-r.o" "$cc-prog"; do
				[ -f "$dw/link/$f.btf" ] || continue
				case $f in *-r.o) what="\`ld -r\` of the program's objects" ;; *) what="linked program (\`$cc -no-pie\`)" ;; esac
				size_row "**this repo, $cc, $what**" "\$1 == \"link/$f\""
			done
		done
		echo
		[ ${#dw_skip[@]} -eq 0 ] || echo "Not compared: ${dw_skip[*]}; \`pahole -J\` runs without an error there but its BTF has FUNC entries for almost none of the functions (its DWARF reader does not apply these arches' relocations of the debug sections in objects: \`pfunct -P\` on mips64/m03-g.o prints one function, \`void GNU C17 12.2.0 ...(void *)\`, names read from the wrong offsets)."
		echo
		echo "The corpus's generated functions nearly all have the prototype \`int fn(struct dev *d, int n)\` and use a handful of small types: BTF shares one FUNC_PROTO among them and pays 12 bytes + the name per function, while a record of ours is 20 bytes (16 in 32-bit files) + the name, since it also holds the function's address and size. The repository's own sources have varied prototypes and real headers, whose struct definitions BTF carries and our signatures only name."
		echo
		echo "Linked files: the objects of the recordmcount program (all of the repo's objects but objpatch/cli/cli.o) after ours ran on them; \`pahole -J\` on a copy of the same linked file, where it keeps one copy of each type across the compilation units; the linker keeps one copy of each string of \`__mcount_str\` (SHF_MERGE|SHF_STRINGS). A linker sets the entry size of the merged \`__mcount_proto\` to 0: records are counted as the section's size / 20 (64-bit) or 16 (32-bit)."
		echo
		echo "Goal of the issue, at most half of BTF's bytes per function:"
		echo
		goal_size() {	# LABEL AWK-CONDITION RELA(0/1)
			awk -F'\t' -v label="$1" -v rela="$3" "
				(\$2 > 0 && \$7 > 0) && ($2) { r += \$2; t += \$3 + \$4 + (rela ? \$5 : 0); b += \$6; f += \$7 }
				END { if (!r) exit; q = (t / r) / (b / f); printf \"- %s: %.2f of BTF per function, **%s**\n\", label, q, (q <= 0.5) ? \"met\" : \"not met\" }" "$res/dw.sizes"
		}
		goal_size "corpus -g objects compared, tables only (as after a link)" "$compared" 0
		goal_size "corpus -g objects compared, with .rela (as in the objects)" "$compared" 1
		for cc in $dw_ccs; do
			goal_size "this repo ($cc), per object, tables only" "index(\$1, \"repo-$cc/\") == 1" 0
			goal_size "this repo ($cc), per object, with .rela" "index(\$1, \"repo-$cc/\") == 1" 1
			goal_size "this repo ($cc), \`ld -r\` of the program's objects, with .rela" "\$1 == \"link/$cc-r.o\"" 1
			goal_size "this repo ($cc), linked program" "\$1 == \"link/$cc-prog\"" 0
		done
		echo
		echo "### Time"
		echo
		echo "CPU time (user + system from wait4; the machine may be shared, so this is the figure to judge on), one process per object, each tool on a fresh copy, $REPS repetitions alternating the order. *Totals*: sum over the objects, median over repetitions. *Per object*: the median over objects of each object's median. *Tables add*: ours (with tables, the default) over ours \`--no-protos\`, minus 1."
		echo
		echo "| objects | n | ours CPU | --no-protos CPU | **tables add** | pahole -J CPU | **ours / pahole** | per object: ours | --no-protos | tables add (median, worst) | pahole -J |"
		echo "|---|---|---|---|---|---|---|---|---|---|---|"
		time_row() {	# LABEL AWK-CONDITION
			local oc nc pc
			oc=$(median_sum dw.ours "$2" 5); nc=$(median_sum dw.noprotos "$2" 5); pc=$(median_sum dw.pahole "$2" 5)
			awk -F'\t' -v label="$1" -v oc="$oc" -v nc="$nc" -v pc="$pc" "
				function med(a, n,   i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }; return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
				($2) { n++; o[n] = \$3; p[n] = \$5; h[n] = \$7; q[n] = (\$5 > 0) ? \$3 / \$5 - 1 : 0; if (n == 1 || q[n] > worst) worst = q[n] }
				END {
					if (!n) exit
					printf \"| %s | %d | %.1f ms | %.1f ms | **%+.0f%%** | %.1f ms | **%.2f** | %.2f ms | %.2f ms | %+.0f%%, %+.0f%% | %.2f ms |\n\", label, n, oc / 1e6, nc / 1e6, (oc / nc - 1) * 100, pc / 1e6, oc / pc, med(o, n) / 1e6, med(p, n) / 1e6, med(q, n) * 100, worst * 100, med(h, n) / 1e6
				}" "$res/dw.obj"
		}
		time_row "corpus, ordinary -g" "\$1 !~ /^repo-/ && \$1 !~ /\\/large-/"
		time_row "corpus, large -g (2000 functions)" "\$1 ~ /\\/large-/"
		for cc in $dw_ccs; do
			time_row "this repo, $cc" "index(\$1, \"repo-$cc/\") == 1"
		done
		time_row "**all**" "1"
		echo
		ow=$(median_sum dw.ours 1 2); nw=$(median_sum dw.noprotos 1 2); pw=$(median_sum dw.pahole 1 2)
		echo "Wall time, all ${#dw_objs[@]} objects: ours $(ms "$ow") ms, \`--no-protos\` $(ms "$nw") ms, \`pahole -J\` $(ms "$pw") ms. Exit status other than 0: ours $(awk -F'\t' '$8 != 0' "$res/dw.obj" | wc -l), \`--no-protos\` $(awk -F'\t' '$9 != 0' "$res/dw.obj" | wc -l), pahole $(awk -F'\t' '$10 != 0' "$res/dw.obj" | wc -l) objects."
		echo
		oc=$(median_sum dw.ours 1 5); nc=$(median_sum dw.noprotos 1 5); pc=$(median_sum dw.pahole 1 5)
		echo "Goals of the issue, on the CPU time of all ${#dw_objs[@]} objects:"
		echo
		echo "- Tables add at most 50% to recordmcount's time: they add $(awk -v a="$oc" -v b="$nc" 'BEGIN { printf "%+.0f%%", (a / b - 1) * 100 }'), **$(awk -v a="$oc" -v b="$nc" 'BEGIN { print (a <= 1.5 * b) ? "met" : "not met" }')** on the total; per object $(awk -F'\t' '$3 <= 1.5 * $5' "$res/dw.obj" | wc -l) of ${#dw_objs[@]} objects are within +50%."
		echo "- Cost less than \`pahole -J\`: ours with tables takes $(ratio "$oc" "$pc")x pahole's time, **$(verdict "$oc" "$pc")** on the total; per object ours is cheaper on $(awk -F'\t' '$3 < $7' "$res/dw.obj" | wc -l) of ${#dw_objs[@]} objects."
		echo
		echo "Slowest objects for the tables (highest ours / \`--no-protos\` CPU):"
		echo
		echo "| object | ours CPU | --no-protos CPU | tables add | pahole -J CPU |"
		echo "|---|---|---|---|---|"
		awk -F'\t' '$5 > 0 { printf "%s\t%.6f\n", $0, $3 / $5 }' "$res/dw.obj" | sort -t$'\t' -k11,11gr | head -5 |
			while IFS=$'\t' read -r p _ oc _ nc _ pc _; do
				echo "| $p | $(ms "$oc") ms | $(ms "$nc") ms | $(awk -v a="$oc" -v b="$nc" 'BEGIN { printf "%+.0f%%", (a / b - 1) * 100 }') | $(ms "$pc") ms |"
			done
		if [ -n "$dw_prof" ]; then
			fir=$(awk '/^(summary|totals):/ { print $2; exit }' "$res/callgrind.dw.full")
			nir=$(awk '/^(summary|totals):/ { print $2; exit }' "$res/callgrind.dw.noprotos")
			eir=$(awk '/^(summary|totals):/ { print $2; exit }' "$res/callgrind.dw.emit")
			echo
			echo "### Where the table time goes: callgrind on $dw_prof"
			echo
			echo "\`valgrind --tool=callgrind build/recordmcount [--no-protos] $dw_prof\` on fresh copies ($(sections_of "$dw_prof") sections, $(awk -F'\t' -v p="$dw_prof" '$1 == p { print $2 }' "$res/dw.sizes") records): $fir instructions with tables, $nir with \`--no-protos\`; the difference, $((fir - nir)) ($(awk -v a="$fir" -v b="$nir" 'BEGIN { printf "%+.0f%%", (a / b - 1) * 100 }')), is what the tables cost in user space. Inside \`emit_protos\` (the tables' entry point; \`--toggle-collect=emit_protos\`): $eir instructions; the rest of the difference is writing the larger object. Callgrind counts user-space instructions only, while a large part of these processes' CPU time is system time (page faults, reading and writing the file: $(awk -v a="$o_sys" -v b="$o_cpu" 'BEGIN { printf "%.0f%%", 100 * a / b }') of ours' CPU time over the $nobj objects of the totals above), so the instruction ratio is not the time ratio: in CPU time the tables add $(awk -F'\t' -v p="$dw_prof" '$1 == p && $5 > 0 { printf "%+.0f%%", ($3 / $5 - 1) * 100 }' "$res/dw.obj") on this object (time table above), the figure to judge on."
			echo
			incl_of() { awk -v f="$1" '$0 ~ ":" f "$" { gsub(",", "", $1); print $1; exit }' "$res/profile.dw.incl"; }
			pir=$(incl_of protos_from_dwarf); iir=$(incl_of debug_image_open)
			[ -z "$pir" ] || [ -z "$iir" ] || echo "Of those: reading the DWARF (\`protos_from_dwarf\`) $(awk -v a="$pir" -v b="$eir" 'BEGIN { printf "%.0f%%", 100 * a / b }'), which includes building the relocated debug image for libdw (\`debug_image_open\`, $(awk -v a="$iir" -v b="$eir" 'BEGIN { printf "%.0f%%", 100 * a / b }')); the rest ($(awk -v a="$pir" -v b="$eir" 'BEGIN { printf "%.0f%%", 100 - 100 * a / b }')) is finding the functions, the strings and emitting the sections and their relocations."
			echo
			echo "Self cost inside \`emit_protos\`, top entries:"
			echo
			echo '```'
			grep -E '^ *[0-9,]+ \(' "$res/profile.dw.self" | grep -v " $top/" | sed 's/ \[[^]]*\]$//' | head -18
			echo '```'
			echo
			echo "Inclusive cost inside \`emit_protos\`, top entries:"
			echo
			echo '```'
			grep -E '^ *[0-9,]+ \(' "$res/profile.dw.incl" | grep -v -e " $top/" -e '(below main)' | sed 's/ \[[^]]*\]$//' | head -24
			echo '```'
		fi
	fi
	echo
	echo "Benchmark run time: $(($(date +%s) - started)) s (corpus generation excluded when cached)."
	# Where recordmcount's time went and what changed it, written by
	# hand from measurements whose commands it gives.
	if [ -s "$top/bench/RESULTS-speed.md" ]; then
		echo
		sed 's/^#/##/' "$top/bench/RESULTS-speed.md"
	fi
	# The runtime on the other machines: bench/cross.sh's last run, as it wrote it.
	if [ -s "$top/bench/RESULTS-cross.md" ]; then
		echo
		sed 's/^#/##/' "$top/bench/RESULTS-cross.md"
	fi
} > "$results_md"
echo "bench: wrote $results_md" >&2
