#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# User mode on native x86_64 programs, with gcc and clang, GNU ld and lld:
# C++ COMDAT functions (where kernel-mode tables cannot even link), PIE,
# --gc-sections and a shared library.  Each linked file's table must be exactly
# the calls to mcount found by disassembling it, one per function, and must
# need no text relocation and no dynamic relocation.  The programs are run.
# -pg -mfentry code (x86_64, i386, s390x) gets __fentry_rel instead, the same
# way, with every entry at its function's first byte.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../scripts/machines.sh"

SRC=$TOP/testdata/link

# sites FILE [HOOK]: "ADDR FUNC" of each call to HOOK (default mcount; direct,
# PLT, GOT, or a GOT call the linker relaxed to `addr32 call`) in FILE.
sites() {
	objdump -d --no-show-raw-insn "$1" | awk -F'\t' -v hook="${2:-mcount}" '
		/^[0-9a-f]+ <.*>:$/ { f = $0; sub(/^[0-9a-f]+ </, "", f); sub(/>:$/, "", f); next }
		/^ *[0-9a-f]+:\t/ && $2 ~ /^(addr32 )?call/ && $2 ~ ("<" hook "(@[^>]*)?>") && f !~ ("^" hook) {
			a = $1; gsub(/[ :]/, "", a); sub(/^0+/, "", a); print a, f
		}' | sort
}

# Functions the objects define: each must end up with exactly one entry.
object_functions() {
	readelf -sW "$@" | awk '$4 == "FUNC" && $(NF - 1) != "UND" { print $NF }' | sort -u
}

# Functions FILE defines, with repeats (a COMDAT copy kept twice would show).
linked_functions() {
	nm "$1" | awk '$2 ~ /^[TtWw]$/ { print $3 }' | sort
}

# table_dynrelocs FILE [TABLE]: dynamic relocations (all a linked file has)
# that land in its TABLE (default __mcount_rel).
table_dynrelocs() {
	local f=$1 table=${2:-__mcount_rel} addr size n=0 off
	read -r addr size < <(readelf -SW "$f" | sed 's/^ *\[ *[0-9]*\] //' |
		awk -v t="$table" '$1 == t { print $3, $5 }')
	[ -n "$addr" ] || { echo "no $table"; return; }
	for off in $(readelf -rW "$f" | awk '/^[0-9a-f]+ / { print $1 }'); do
		((0x$off >= 0x$addr && 0x$off < 0x$addr + 0x$size)) && n=$((n + 1))
	done
	echo "$n"
}

# check_linked FILE LABEL EXPECTED [HOOK TABLE]: the table of a linked file
# against its code; EXPECTED lists the functions that must have an entry
# (sorted).  HOOK and TABLE: mcount and __mcount_rel unless given.
check_linked() {
	local f=$1 label=$2 expected=$3 hook=${4:-mcount} table=${5:-__mcount_rel} entries
	sites "$f" "$hook" > "$f.sites"
	if ! entries=$("$RMC" --list "$f" 2>&1); then
		ok 1 "$label: --list"
		diag "$entries"
		return
	fi
	echo "$entries" | awk 'NF { a = $1; sub(/^0x0*/, "", a); print a }' | sort > "$f.entries"
	is "$(grep -c . "$f.entries")" "$(grep -c . "$f.sites")" "$label: as many entries as calls to $hook ($(grep -c . "$f.sites"))"
	is "$(uniq -d "$f.entries" | tr '\n' ' ')" "" "$label: no entry twice"
	is "$(cut -d' ' -f1 "$f.sites" | comm -13 - "$f.entries" | tr '\n' ' ')" "" "$label: every entry is a call to $hook"
	is "$(cut -d' ' -f1 "$f.sites" | comm -23 - "$f.entries" | tr '\n' ' ')" "" "$label: every call to $hook has an entry"
	is "$(cut -d' ' -f2 "$f.sites" | sort | tr '\n' ' ')" "$(echo "$expected" | tr '\n' ' ')" \
		"$label: one entry per traced function"
	is "$(linked_functions "$f" | uniq -d | comm -12 - <(cut -d' ' -f2 "$f.sites" | sort) | tr '\n' ' ')" "" \
		"$label: one copy of each traced function"
	is "$(readelf -d "$f" | grep -c TEXTREL)" 0 "$label: no TEXTREL"
	is "$(table_dynrelocs "$f" "$table")" 0 "$label: no dynamic relocation in the table"
}

# run_in DIR LABEL CMD...: run a program in DIR (gmon.out lands there).
run_in() {
	local dir=$1 label=$2 out
	shift 2
	if out=$(cd "$dir" && "$@" 2>&1); then ok 0 "$label: runs"; else ok 1 "$label: runs"; diag "$out"; fi
}

# link_fails_discarded LABEL CMD...: the link fails on a discarded COMDAT section.
link_fails_discarded() {
	local label=$1 out
	shift
	if out=$("$@" 2>&1); then
		ok 1 "$label: fails to link"
		return
	fi
	ok 0 "$label: fails to link"
	is "$(echo "$out" | grep -c 'discarded section')" 2 "$label: on the two discarded COMDAT copies"
}

is_pie() {
	readelf -hd "$1" | awk '/Type:/ { t = $2 } /FLAGS_1/ && /PIE/ { p = 1 } END { print t (p ? "+PIE" : "") }'
}


# C++: two units share an inline member function and a template instance.
cxx_case() {
	local cxx=$1 flags=$2 label=$3 dir=$T_TMP/cxx-$1$2 ld u
	mkdir -p "$dir/k" "$dir/u"
	for u in cxx_one cxx_two cxx_main; do
		compile_ok "$label" "$cxx" -O2 -pg -fPIE $flags -c "$SRC/$u.cc" -o "$dir/u/$u.o" || return
		cp "$dir/u/$u.o" "$dir/k/$u.o"
	done
	run_ok "$label: kernel mode" "$RMC" "$dir"/k/*.o
	run_ok "$label: user mode" "$RMC" --mode=user "$dir"/u/*.o
	for ld in bfd lld; do
		link_fails_discarded "$label kernel mode, ld.$ld" "$cxx" -pg -pie -fuse-ld=$ld -o "$dir/k/prog-$ld" "$dir"/k/*.o
		run_ok "$label user mode, ld.$ld: links" "$cxx" -pg -pie -fuse-ld=$ld -o "$dir/u/prog-$ld" "$dir"/u/*.o || continue
		is "$(is_pie "$dir/u/prog-$ld")" DYN+PIE "$label user mode, ld.$ld: is a PIE"
		run_in "$dir/u" "$label user mode, ld.$ld" "./prog-$ld"
		check_linked "$dir/u/prog-$ld" "$label user mode, ld.$ld" "$(object_functions "$dir"/u/*.o)"
	done
}

# gcc's own -mrecord-mcount writes the same kernel-style table, and fails alike.
gcc_record_mcount() {
	local dir=$T_TMP/mrecord u
	mkdir -p "$dir"
	for u in cxx_one cxx_two cxx_main; do
		compile_ok "g++ -mrecord-mcount" g++ -O2 -pg -mrecord-mcount -fPIE -c "$SRC/$u.cc" -o "$dir/$u.o" || return
	done
	link_fails_discarded "g++ -mrecord-mcount" g++ -pg -pie -o "$dir/prog" "$dir"/*.o
}

# A C PIE program, then --gc-sections: the unused functions go with their
# entries, the used ones keep theirs.
gc_case() {
	local cc=$1 dir=$T_TMP/gc-$1 ld fns
	mkdir -p "$dir"
	compile_ok "$cc PIE" "$cc" -O2 -pg -fPIE -c "$SRC/gc.c" -o "$dir/pie.o" || return
	compile_ok "$cc gc" "$cc" -O2 -pg -fPIE -ffunction-sections -c "$SRC/gc.c" -o "$dir/gc.o" || return
	compile_ok "$cc gc walk" "$cc" -O2 -pg -fPIE -ffunction-sections -DWALK -c "$SRC/gc.c" -o "$dir/walk.o" || return
	run_ok "$cc: user mode" "$RMC" --mode=user "$dir/pie.o" "$dir/gc.o" "$dir/walk.o"
	for ld in bfd lld; do
		run_ok "$cc PIE, ld.$ld: links" "$cc" -pg -pie -fuse-ld=$ld -o "$dir/pie-$ld" "$dir/pie.o" || continue
		is "$(is_pie "$dir/pie-$ld")" DYN+PIE "$cc PIE, ld.$ld: is a PIE"
		run_in "$dir" "$cc PIE, ld.$ld" "./pie-$ld"
		check_linked "$dir/pie-$ld" "$cc PIE, ld.$ld" "$(object_functions "$dir/pie.o")"

		run_ok "$cc -ffunction-sections, ld.$ld: links" "$cc" -pg -pie -fuse-ld=$ld -o "$dir/nogc-$ld" "$dir/gc.o"
		check_linked "$dir/nogc-$ld" "$cc without --gc-sections, ld.$ld" "$(object_functions "$dir/gc.o")"
		is "$(cut -d' ' -f2 "$dir/nogc-$ld.sites" | grep -c '^unused_')" 2 \
			"$cc without --gc-sections, ld.$ld: the unused functions have entries"

		run_ok "$cc --gc-sections, ld.$ld: links" "$cc" -pg -pie -fuse-ld=$ld -Wl,--gc-sections \
			-o "$dir/gc-$ld" "$dir/gc.o" || continue
		run_in "$dir" "$cc --gc-sections, ld.$ld" "./gc-$ld"
		fns=$(linked_functions "$dir/gc-$ld")
		is "$(echo "$fns" | grep -cE '^unused_(one|two)$')" 0 "$cc --gc-sections, ld.$ld: unused functions collected"
		is "$(echo "$fns" | grep -cE '^used_(one|two)$')" 2 "$cc --gc-sections, ld.$ld: used functions kept"
		check_linked "$dir/gc-$ld" "$cc --gc-sections, ld.$ld" "$(object_functions "$dir/gc.o" | comm -12 - <(echo "$fns" | sort -u))"
		is "$(grep -c . "$dir/gc-$ld.entries")" "$(($(grep -c . "$dir/nogc-$ld.entries") - 2))" \
			"$cc --gc-sections, ld.$ld: two entries fewer than without"
		gc_walk "$cc" "$ld" "$dir"
	done
}

# A program that reads its own table through __start_/__stop_: GNU ld keeps
# every section such symbols name unless told -z start-stop-gc (lld's
# default), and the tables would then keep every function alive.
gc_walk() {
	local cc=$1 ld=$2 dir=$3 out z=()
	[ "$ld" = bfd ] && z=("-Wl,-z,start-stop-gc")
	run_ok "$cc --gc-sections ${z[*]} reading its table, ld.$ld: links" "$cc" -pg -pie -fuse-ld=$ld \
		-Wl,--gc-sections "${z[@]}" -o "$dir/walk-$ld" "$dir/walk.o" || return
	is "$(linked_functions "$dir/walk-$ld" | grep -cE '^unused_(one|two)$')" 0 \
		"$cc --gc-sections reading its table, ld.$ld: unused functions collected"
	check_linked "$dir/walk-$ld" "$cc --gc-sections reading its table, ld.$ld" \
		"$(object_functions "$dir/walk.o" | comm -12 - <(linked_functions "$dir/walk-$ld" | sort -u))"
	out=$(cd "$dir" && "./walk-$ld" 2>&1)
	is "$(echo "$out" | sed -n 's/^entries //p')" "$(grep -c . "$dir/walk-$ld.sites")" \
		"$cc --gc-sections reading its table, ld.$ld: the program finds one call per entry"
	if [ "$ld" = bfd ] && "$cc" -pg -pie -Wl,--gc-sections -o "$dir/walk-keep" "$dir/walk.o" 2> /dev/null; then
		diag "$cc, ld.bfd --gc-sections without -z start-stop-gc keeps" \
			"$(linked_functions "$dir/walk-keep" | grep -cE '^unused_') of 2 unused functions (the tables are GC roots)"
	fi
}

# A shared library: user mode, position-independent code, no dynamic relocations for the table.
shlib_case() {
	local cc=$1 dir=$T_TMP/shlib-$1 ld
	mkdir -p "$dir"
	compile_ok "$cc shlib" "$cc" -O2 -pg -fPIC -c "$SRC/shlib.c" -o "$dir/shlib.o" || return
	compile_ok "$cc shlib main" "$cc" -O2 -pg -fPIE -c "$SRC/shlib_main.c" -o "$dir/main.o" || return
	run_ok "$cc shared library: user mode" "$RMC" --mode=user "$dir/shlib.o" "$dir/main.o"
	for ld in bfd lld; do
		run_ok "$cc shared library, ld.$ld: links" "$cc" -shared -fuse-ld=$ld -o "$dir/libshlib-$ld.so" "$dir/shlib.o" || continue
		check_linked "$dir/libshlib-$ld.so" "$cc shared library, ld.$ld" "$(object_functions "$dir/shlib.o")"
		mkdir -p "$dir/$ld"
		cp "$dir/libshlib-$ld.so" "$dir/$ld/libshlib.so"
		run_ok "$cc program on the library, ld.$ld: links" "$cc" -pg -pie -fuse-ld=$ld -o "$dir/$ld/prog" \
			"$dir/main.o" -L"$dir/$ld" -lshlib -Wl,-rpath,"$dir/$ld" || continue
		run_in "$dir/$ld" "$cc program on the library, ld.$ld" ./prog
		check_linked "$dir/$ld/prog" "$cc program on the library, ld.$ld" "$(object_functions "$dir/main.o")"
	done
}

# ---- -pg -mfentry: the calls to __fentry__ go to __fentry_rel ----
# A runtime finds the traced function's return address in another place when
# the hook runs before the prologue, so it must know each site's kind.

# section_count PREFIX FILE NAME: how many sections FILE has named NAME.
section_count() {
	"${1}readelf" -SW "$2" | sed 's/^ *\[ *[0-9]*\] //' | awk -v n="$3" '$1 == n' | grep -c .
}

# link_order PREFIX OBJ TABLE: per TABLE section "FLAGS ENTSIZE LINKED-SECTION-NAME".
link_order() {
	"${1}readelf" -SW "$2" | sed -n 's/^ *\[ *\([0-9]*\)\] /\1 /p' | awk -v t="$3" '
		{ name[$1] = $2 }
		$2 == t { want[$1] = $8 " " $7 " " $9 }
		END { for (i in want) { split(want[i], w, " "); print w[1], w[2], name[w[3]] } }' | sort
}

# function_starts PREFIX OBJ: "SECTION+0xOFF" of each function OBJ defines.
function_starts() {
	"${1}readelf" -sW "$2" > "$2.syms"
	"${1}readelf" -SW "$2" | sed -n 's/^ *\[ *\([0-9]*\)\] \([^ ]*\).*/\1 \2/p' |
		awk 'NR == FNR { name[$1] = $2; next }
		     $4 == "FUNC" && $7 ~ /^[0-9]+$/ { v = $2; sub(/^0+/, "", v); print name[$7] "+0x" (v == "" ? "0" : v) }' \
		- "$2.syms" | sort -u
}

# hook_calls PREFIX OBJ HOOK: "SECTION+0xOFF" of each instruction of OBJ that
# carries a relocation against HOOK, read from the disassembly.
hook_calls() {
	"${1}objdump" -dr --no-show-raw-insn "$2" | awk -v hook="$3" '
		/^Disassembly of section / { sec = $4; sub(/:$/, "", sec); next }
		/^ *[0-9a-f]+:\t/ && $0 !~ /R_[0-9A-Z_]+/ { a = $1; sub(/:$/, "", a); sub(/^0+/, "", a); next }
		/R_[0-9A-Z_]+/ && $NF ~ ("^" hook "([+-]0x[0-9a-f]+)?$") { print sec "+0x" (a == "" ? "0" : a) }' | sort -u
}

# table_entries PREFIX OBJ TABLE: "SECTION+0xOFF" of each entry of TABLE, from
# its RELA relocations as readelf shows them (section symbol + addend).
table_entries() {
	"${1}readelf" -rW "$2" | awk -v t="$3" '
		/^Relocation section / { on = $3 == "'"'"'.rela" t "'"'"'"; next }
		on && NF >= 7 && $6 == "+" { a = $7; sub(/^0+/, "", a); print $5 "+0x" (a == "" ? "0" : a) }' | sort -u
}

# fentry_object LABEL PREFIX CC...: a -pg -mfentry object and a plain -pg one
# of one target, processed in user mode (and kernel mode for comparison).
fentry_object() {
	local label=$1 prefix=$2 f
	shift 2
	f=$T_TMP/fentry-obj/${label// /-}
	mkdir -p "$T_TMP/fentry-obj"
	compile_ok "$label -mfentry" "$@" -O2 -pg -mfentry -ffunction-sections -c "$SRC/gc.c" -o "$f-fe.o" || return
	compile_ok "$label -pg" "$@" -O2 -pg -ffunction-sections -c "$SRC/gc.c" -o "$f-pg.o" || return
	cp "$f-fe.o" "$f-kernel.o"
	run_ok "$label -mfentry: user mode" "$RMC" --mode=user "$f-fe.o" "$f-pg.o" || return
	hook_calls "$prefix" "$f-fe.o" __fentry__ > "$f.calls"
	is "$(hook_calls "$prefix" "$f-fe.o" '_?mcount' | grep -c .)" 0 "$label -mfentry: the compiler calls only __fentry__"
	is "$(section_count "$prefix" "$f-fe.o" __mcount_rel)" 0 "$label -mfentry: no __mcount_rel"
	is "$(section_count "$prefix" "$f-fe.o" __fentry_rel)" "$(grep -c . "$f.calls")" \
		"$label -mfentry: one __fentry_rel per function section ($(grep -c . "$f.calls"))"
	is "$(($(section_count "$prefix" "$f-fe.o" .rela__fentry_rel) + $(section_count "$prefix" "$f-fe.o" .rel__fentry_rel)))" \
		"$(grep -c . "$f.calls")" "$label -mfentry: each with its relocation section"
	is "$(link_order "$prefix" "$f-fe.o" __fentry_rel | awk '$1 !~ /L/ || $1 !~ /A/ || $2 != "04"' | grep -c .)" 0 \
		"$label -mfentry: allocated, SHF_LINK_ORDER, 4-byte entries"
	is "$(link_order "$prefix" "$f-fe.o" __fentry_rel | awk '{ print $3 }' | sort | tr '\n' ' ')" \
		"$(sed 's/+.*//' "$f.calls" | sort | tr '\n' ' ')" "$label -mfentry: each follows its function's section"
	is "$("$RMC" --list "$f-fe.o" | sort | tr '\n' ' ')" "$(tr '\n' ' ' < "$f.calls")" \
		"$label -mfentry: --list shows the calls to __fentry__"
	is "$(tr '\n' ' ' < "$f.calls")" "$(function_starts "$prefix" "$f-fe.o" | tr '\n' ' ')" \
		"$label -mfentry: every function starts with its call to __fentry__"
	is "$(section_count "$prefix" "$f-pg.o" __fentry_rel)" 0 "$label -pg: no __fentry_rel"
	is "$(section_count "$prefix" "$f-pg.o" __mcount_rel)" \
		"$(hook_calls "$prefix" "$f-pg.o" '_?mcount' | sed 's/+.*//' | sort -u | grep -c .)" \
		"$label -pg: a __mcount_rel for each section with calls"
	run_ok "$label -mfentry: kernel mode" "$RMC" "$f-kernel.o"
	is "$(section_count "$prefix" "$f-kernel.o" __mcount_loc) $(section_count "$prefix" "$f-kernel.o" __fentry_rel)" "1 0" \
		"$label -mfentry, kernel mode: one __mcount_loc, no __fentry_rel"
	is "$("$RMC" --list "$f-kernel.o" | sort | tr '\n' ' ')" "$(tr '\n' ' ' < "$f.calls")" \
		"$label -mfentry, kernel mode: the same sites"
	cp "$f-fe.o" "$f-again.o"
	"$RMC" --mode=user "$f-again.o" && "$RMC" "$f-again.o" && cmp -s "$f-fe.o" "$f-again.o"
	ok $? "$label -mfentry: an object with __fentry_rel is left as it is"
}

# An object calling both hooks from one text section (ld -r of -mfentry and
# plain -pg code) gets both tables for it, each with its own kind of call.
fentry_mixed() {
	local dir=$T_TMP/fentry-mixed cc=x86_64-linux-gnu-gcc p=x86_64-linux-gnu-
	mkdir -p "$dir"
	compile_ok "mixed hooks" "$cc" -O2 -pg -mfentry -fcf-protection=none -c "$SRC/a.c" -o "$dir/a.o" || return
	compile_ok "mixed hooks" "$cc" -O2 -pg -c "$SRC/b.c" -o "$dir/b.o" || return
	run_ok "mixed hooks: ld -r" "${p}ld" -r -o "$dir/ab.o" "$dir/a.o" "$dir/b.o" || return
	run_ok "mixed hooks: user mode" "$RMC" --mode=user "$dir/ab.o" || return
	is "$(link_order "$p" "$dir/ab.o" __fentry_rel | awk '{ print $3 }')" .text "mixed hooks: a __fentry_rel for .text"
	is "$(link_order "$p" "$dir/ab.o" __mcount_rel | awk '{ print $3 }')" .text "mixed hooks: a __mcount_rel for .text"
	hook_calls "$p" "$dir/ab.o" __fentry__ > "$dir/fentry.calls"
	hook_calls "$p" "$dir/ab.o" mcount > "$dir/mcount.calls"
	ok "$([ -s "$dir/fentry.calls" ] && [ -s "$dir/mcount.calls" ]; echo $?)" "mixed hooks: .text calls both hooks"
	is "$(table_entries "$p" "$dir/ab.o" __fentry_rel | tr '\n' ' ')" "$(tr '\n' ' ' < "$dir/fentry.calls")" \
		"mixed hooks: __fentry_rel holds the calls to __fentry__"
	is "$(table_entries "$p" "$dir/ab.o" __mcount_rel | tr '\n' ' ')" "$(tr '\n' ' ' < "$dir/mcount.calls")" \
		"mixed hooks: __mcount_rel holds the calls to mcount"
	is "$("$RMC" --list "$dir/ab.o" | sort | tr '\n' ' ')" "$(sort -u "$dir"/*.calls | tr '\n' ' ')" \
		"mixed hooks: --list shows both"
}

# at_function_starts FILE: the sites (FILE.sites) that are not their function's first byte.
at_function_starts() {
	nm "$1" | awk '{ a = $1; sub(/^0+/, "", a); print a, $3 }' | sort | comm -23 "$1.sites" - | tr '\n' ' '
}

# code_groups OBJS...: a line per COMDAT group with code: "text" and the tables it holds.
code_groups() {
	readelf -gW "$@" | awk '
		function flush() { if (g ~ /text/) print substr(g, 2) }
		/^COMDAT group section/ { flush(); g = ""; next }
		$1 == "[" && $3 ~ /^\.text/ { g = g " text" }
		$1 == "[" && $3 ~ /^(\.rela?)?__(fentry|mcount)_rel$/ { g = g " " $3 }
		END { flush() }'
}

# -mfentry programs: a PIE, --gc-sections and C++ COMDAT, linked with a
# __fentry__ of their own; each site is a call to __fentry__ at the start of
# its function.
fentry_link() {
	local cc=$1 cxx=$2 dir=$T_TMP/fentry-$1 ld u fns n
	local fl=(-O2 -pg -mfentry -fcf-protection=none -fPIE)
	mkdir -p "$dir"
	compile_ok "$cc __fentry__" "$cc" -O2 -fPIE -c "$SRC/fentry_hook.c" -o "$dir/hook.o" || return
	compile_ok "$cc -mfentry" "$cc" "${fl[@]}" -c "$SRC/gc.c" -o "$dir/pie.o" || return
	compile_ok "$cc -mfentry gc" "$cc" "${fl[@]}" -ffunction-sections -c "$SRC/gc.c" -o "$dir/gc.o" || return
	for u in cxx_one cxx_two cxx_main; do
		compile_ok "$cxx -mfentry" "$cxx" "${fl[@]}" -c "$SRC/$u.cc" -o "$dir/$u.o" || return
	done
	run_ok "$cc -mfentry: user mode" "$RMC" --mode=user "$dir/pie.o" "$dir/gc.o" "$dir"/cxx_*.o || return
	n=$(code_groups "$dir"/cxx_*.o | grep -c .)
	ok "$([ "$n" -gt 0 ]; echo $?)" "$cxx -mfentry: the objects have COMDAT groups with code ($n)"
	is "$(code_groups "$dir"/cxx_*.o | grep -vx 'text __fentry_rel .rela__fentry_rel' | sort | uniq -c | tr '\n' ';')" "" \
		"$cxx -mfentry: each of them holds its __fentry_rel and relocations, no __mcount_rel"
	for ld in bfd lld; do
		run_ok "$cc -mfentry PIE, ld.$ld: links" "$cc" -pie -fuse-ld=$ld -o "$dir/pie-$ld" "$dir/pie.o" "$dir/hook.o" || continue
		is "$(is_pie "$dir/pie-$ld")" DYN+PIE "$cc -mfentry PIE, ld.$ld: is a PIE"
		run_in "$dir" "$cc -mfentry PIE, ld.$ld" "./pie-$ld"
		check_linked "$dir/pie-$ld" "$cc -mfentry PIE, ld.$ld" "$(object_functions "$dir/pie.o")" __fentry__ __fentry_rel
		is "$(at_function_starts "$dir/pie-$ld")" "" "$cc -mfentry PIE, ld.$ld: every entry is its function's start"
		is "$(section_count "" "$dir/pie-$ld" __mcount_rel)" 0 "$cc -mfentry PIE, ld.$ld: no __mcount_rel"

		run_ok "$cc -mfentry --gc-sections, ld.$ld: links" "$cc" -pie -fuse-ld=$ld -Wl,--gc-sections \
			-o "$dir/gc-$ld" "$dir/gc.o" "$dir/hook.o" || continue
		run_in "$dir" "$cc -mfentry --gc-sections, ld.$ld" "./gc-$ld"
		fns=$(linked_functions "$dir/gc-$ld")
		is "$(echo "$fns" | grep -cE '^unused_(one|two)$')" 0 "$cc -mfentry --gc-sections, ld.$ld: unused functions collected"
		check_linked "$dir/gc-$ld" "$cc -mfentry --gc-sections, ld.$ld" \
			"$(object_functions "$dir/gc.o" | comm -12 - <(echo "$fns" | sort -u))" __fentry__ __fentry_rel

		run_ok "$cxx -mfentry, ld.$ld: links" "$cxx" -pie -fuse-ld=$ld -o "$dir/cxx-$ld" "$dir"/cxx_*.o "$dir/hook.o" || continue
		run_in "$dir" "$cxx -mfentry, ld.$ld" "./cxx-$ld"
		check_linked "$dir/cxx-$ld" "$cxx -mfentry, ld.$ld" "$(object_functions "$dir"/cxx_*.o)" __fentry__ __fentry_rel
		is "$(at_function_starts "$dir/cxx-$ld")" "" "$cxx -mfentry, ld.$ld: every entry is its function's start"
	done
}

# Each machine whose gcc or clang takes -mfentry, with both.
fentry_targets() {
	local name=$1 prefix=$2 ctarget=$3 kflags=$4 cet=
	if ! command -v "${prefix}gcc" > /dev/null && { [ "$ctarget" = - ] || ! command -v clang > /dev/null; }; then
		skip "$name: neither ${prefix}gcc nor clang is installed to say whether it has -mfentry"
		return
	fi
	if ! cc_takes "-pg -mfentry $kflags" "${prefix}gcc" &&
	   { [ "$ctarget" = - ] || ! cc_takes "-pg -mfentry $kflags" clang --target="$ctarget"; }; then
		return
	fi
	# Where there is CET (x86: the compiler takes -fcf-protection=full), an
	# endbr before the -mfentry call would keep the site off its function's
	# start, which the checks expect: off.
	cc_takes "$kflags -fcf-protection=full" "${prefix}gcc" && cet=-fcf-protection=none
	if command -v "${prefix}gcc" > /dev/null; then
		# shellcheck disable=SC2086
		fentry_object "$name gcc" "$prefix" "${prefix}gcc" $kflags $cet
	else
		skip "$name: ${prefix}gcc not installed"
	fi
	if command -v clang > /dev/null; then
		# shellcheck disable=SC2086
		fentry_object "$name clang" "$prefix" clang --target="$ctarget" $kflags $cet
	else
		skip "$name: clang not installed"
	fi
}
for_each_arch fentry_targets
if command -v x86_64-linux-gnu-gcc > /dev/null; then fentry_mixed; else skip "x86_64-linux-gnu-gcc not installed"; fi

if [ "$(uname -m)" != x86_64 ]; then
	skip "native x86_64 only (this is $(uname -m))"
	done_testing
	exit
fi

for pair in gcc:g++ clang:clang++; do
	cc=${pair%%:*}
	cxx=${pair#*:}
	if ! command -v "$cxx" > /dev/null || ! command -v "$cc" > /dev/null; then
		skip "$pair not installed"
		continue
	fi
	cxx_case "$cxx" "" "$cxx"
	cxx_case "$cxx" "-ffunction-sections" "$cxx -ffunction-sections"
	gc_case "$cc"
	shlib_case "$cc"
	fentry_link "$cc" "$cxx"
done
gcc_record_mcount
done_testing
