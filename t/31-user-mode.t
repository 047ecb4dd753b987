#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# User mode on native x86_64 programs, with gcc and clang, GNU ld and lld:
# C++ COMDAT functions (where kernel-mode tables cannot even link), PIE,
# --gc-sections and a shared library.  Each linked file's table must be exactly
# the calls to mcount found by disassembling it, one per function, and must
# need no text relocation and no dynamic relocation.  The programs are run.
. "$(dirname "$0")/lib.sh"

SRC=$TOP/testdata/link

if [ "$(uname -m)" != x86_64 ]; then
	skip "native x86_64 only (this is $(uname -m))"
	done_testing
	exit
fi

# sites FILE: "ADDR FUNC" of each call to mcount (direct, PLT or GOT) in FILE.
sites() {
	objdump -d --no-show-raw-insn "$1" | awk -F'\t' '
		/^[0-9a-f]+ <.*>:$/ { f = $0; sub(/^[0-9a-f]+ </, "", f); sub(/>:$/, "", f); next }
		/^ *[0-9a-f]+:\t/ && $2 ~ /^call/ && $2 ~ /<mcount(@[^>]*)?>/ && f !~ /^mcount/ {
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

# Dynamic relocations (all a linked file has) that land in its __mcount_rel.
table_dynrelocs() {
	local f=$1 addr size n=0 off
	read -r addr size < <(readelf -SW "$f" | sed 's/^ *\[ *[0-9]*\] //' |
		awk '$1 == "__mcount_rel" { print $3, $5 }')
	[ -n "$addr" ] || { echo "no __mcount_rel"; return; }
	for off in $(readelf -rW "$f" | awk '/^[0-9a-f]+ / { print $1 }'); do
		((0x$off >= 0x$addr && 0x$off < 0x$addr + 0x$size)) && n=$((n + 1))
	done
	echo "$n"
}

# check_linked FILE LABEL EXPECTED: the table of a linked file against its
# code; EXPECTED lists the functions that must have an entry (sorted).
check_linked() {
	local f=$1 label=$2 expected=$3 entries
	sites "$f" > "$f.sites"
	if ! entries=$("$RMC" --list "$f" 2>&1); then
		ok 1 "$label: --list"
		diag "$entries"
		return
	fi
	echo "$entries" | awk 'NF { a = $1; sub(/^0x0*/, "", a); print a }' | sort > "$f.entries"
	is "$(grep -c . "$f.entries")" "$(grep -c . "$f.sites")" "$label: as many entries as calls to mcount ($(grep -c . "$f.sites"))"
	is "$(uniq -d "$f.entries" | tr '\n' ' ')" "" "$label: no entry twice"
	is "$(cut -d' ' -f1 "$f.sites" | comm -13 - "$f.entries" | tr '\n' ' ')" "" "$label: every entry is a call to mcount"
	is "$(cut -d' ' -f1 "$f.sites" | comm -23 - "$f.entries" | tr '\n' ' ')" "" "$label: every call to mcount has an entry"
	is "$(cut -d' ' -f2 "$f.sites" | sort | tr '\n' ' ')" "$(echo "$expected" | tr '\n' ' ')" \
		"$label: one entry per traced function"
	is "$(linked_functions "$f" | uniq -d | comm -12 - <(cut -d' ' -f2 "$f.sites" | sort) | tr '\n' ' ')" "" \
		"$label: one copy of each traced function"
	is "$(readelf -d "$f" | grep -c TEXTREL)" 0 "$label: no TEXTREL"
	is "$(table_dynrelocs "$f")" 0 "$label: no dynamic relocation in the table"
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
done
gcc_record_mcount
done_testing
