#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Prototype tables (__mcount_proto, __mcount_str) from DWARF, read back by
# `objpatch list --json` and compared with what the sources in
# testdata/protos declare (testdata/protos/check.py holds the expectations,
# written from the sources):
#  1. every type class on every arch of scripts/machines.sh, gcc and clang, -O1 and -O2
#  2. DWARF 4 and 5, -gz, -gsplit-dwarf;
#  3. gcc clones (unreliable), hot/cold split, out-of-line inline copies,
#     C++ members defined outside their class, functions without DWARF;
#  4./5. linked files: local functions of one name keyed by address, ld -r,
#     PIE, strip, C++ COMDAT, --gc-sections, static big-endian kernel links;
#  6. --no-protos and objects without DWARF add no prototype sections;
#  7. malformed DWARF and malformed tables: clean success or clean failure,
#     with the normal build and an ASan/UBSan one.
# About 70 s on 2 cores (RANDOM_MUTATIONS=N changes the random inputs per base).
. "$(dirname "$0")/lib.sh"
. "$TOP/scripts/machines.sh"

SRC=$TOP/testdata/protos
CHECK=$SRC/check.py
MUTATE=$SRC/mutate.py
OBJPATCH=$TOP/build/objpatch
RANDOM_MUTATIONS=${RANDOM_MUTATIONS:-25}
command -v python3 >/dev/null || { echo "Bail out! python3 is needed"; exit 1; }
[ -x "$OBJPATCH" ] || { echo "Bail out! build/objpatch is missing (make)"; exit 1; }

# Sizes of void *, long and long double per arch, from the ABIs (types.c
# asserts them to each compiler, so a wrong line here fails to compile).
# i386's long double is the 12-byte x87 format: man/mcount-tables.5 has
# class float for 4, 8 and 16 bytes only, so check.py expects "unknown".
SIZES='
x86_64 8 8 16
i386 4 4 12
arm 4 4 8
arm-arm 4 4 8
aarch64 8 8 16
mips 4 4 8
mipsel 4 4 8
mips64 8 8 16
mips64el 8 8 16
ppc 4 4 16
ppc64 8 8 16
ppc64le 8 8 16
s390x 8 8 16
sh4 4 4 8
sparc64 8 8 16
riscv64 8 8 16
'
sizes_of() { awk -v a="$1" '$1 == a { print "--ptr", $2, "--long", $3, "--ldbl", $4 }' <<< "$SIZES"; }
defines_of() { awk -v a="$1" '$1 == a { print "-DPTR=" $2, "-DLONG=" $3, "-DLDBL=" $4 }' <<< "$SIZES"; }

todo() {	# todo STATUS DESCRIPTION REASON: a TAP TODO test
	T_N=$((T_N + 1))
	if [ "$1" -eq 0 ]; then echo "ok $T_N - $2 # TODO $3"; else echo "not ok $T_N - $2 # TODO $3"; fi
}


compile_in() {	# compile_in DIR LABEL CMD...: compile in DIR (relative names in the DWARF)
	local dir=$1 label=$2 out
	shift 2
	if out=$(cd "$dir" && "$@" 2>&1); then return 0; fi
	ok 1 "$label: compile"
	diag "$out"
	return 1
}

# list FILE LABEL: objpatch list --json FILE > FILE.json; fails the test if it fails
list() {
	local out
	if out=$("$OBJPATCH" list --json "$1" 2>&1 >"$1.json"); then return 0; fi
	ok 1 "$2: objpatch list"
	diag "$out"
	return 1
}

# expect LABEL SET FILE CHECK-ARGS...: lists FILE and checks it against SET
expect() {
	local label=$1 set=$2 file=$3 out
	shift 3
	list "$file" "$label" || return 1
	if out=$(python3 "$CHECK" "$set" "$file.json" "$@" 2>&1); then
		ok 0 "$label"
	else
		ok 1 "$label"
		diag "$out"
	fi
}

has_section() { readelf -SW "$1" | grep -q " $2 "; }
dwarf_version() { readelf --debug-dump=info "$1" 2>/dev/null | awk '/Version:/ { print $2; exit }'; }

# has_concrete_copy FILE: some DW_TAG_subprogram has code (DW_AT_low_pc)
# and takes its name and types from DW_AT_abstract_origin.
has_concrete_copy() {
	readelf -wi "$1" | awk '
		/^ *<[0-9]+><[0-9a-f]+>:/ { if (sub_ && ao && pc) found = 1; sub_ = /DW_TAG_subprogram/; ao = pc = 0; next }
		/DW_AT_abstract_origin/ { ao = 1 }
		/DW_AT_low_pc/ { pc = 1 }
		END { if (sub_ && ao && pc) found = 1; exit !found }'
}

# relocs FILE: each relocation as "section offset type symbol+addend",
# without the symbol index, which the recorder renumbers when it adds symbols.
relocs() {
	readelf -rW "$1" | awk '/^Relocation section/ { sec = $3; next }
		sec != "" && $1 ~ /^[0-9a-f]+$/ && NF >= 3 { $2 = ""; print sec, $0 }' | LC_ALL=C sort
}

# relocs_kept LABEL ORIG RECORDED: every relocation of ORIG is in RECORDED,
# type word and addends whole (SPARC64's R_SPARC_OLO10 keeps one above the type).
relocs_kept() {
	local lost
	lost=$(LC_ALL=C comm -23 <(relocs "$2") <(relocs "$3"))
	if [ -z "$lost" ] && [ -n "$(relocs "$2")" ]; then
		ok 0 "$1: every relocation the compiler wrote is kept whole"
	else
		ok 1 "$1: every relocation the compiler wrote is kept whole"
		diag "$(head -5 <<< "$lost")"
	fi
}

# ---- 1. every class, every arch ----
# name prefix ctarget kflags; compiles types.c, records, checks.
O2_GCC=" x86_64 aarch64 ppc s390x riscv64 sparc64 "
O2_CLANG=" x86_64 arm "
USER_GCC=" x86_64 arm i386 s390x "	# also processed with --mode=user
types_for() {
	local name=$1 prefix=$2 ctarget=$3 kflags=$4 cc opt variant mode label f elf
	local sizes defines
	sizes=$(sizes_of "$name")
	defines=$(defines_of "$name")
	for cc in gcc clang; do
		[ "$cc" = clang ] && [ "$ctarget" = - ] && continue
		for variant in -O1 -O2 -O1-user; do
			case $cc$variant in
			gcc-O2) [[ $O2_GCC == *" $name "* ]] || continue ;;
			clang-O2) [[ $O2_CLANG == *" $name "* ]] || continue ;;
			gcc-O1-user) [[ $USER_GCC == *" $name "* ]] || continue ;;
			*-user) continue ;;
			esac
			opt=${variant%-user} mode=kernel
			[ "$opt" = "$variant" ] || mode=user
			label="types: $name $cc $opt"
			[ "$mode" = kernel ] || label="$label, user mode"
			f=$T_TMP/types/$name-$cc$variant.o
			mkdir -p "$T_TMP/types"
			# shellcheck disable=SC2086
			if [ "$cc" = gcc ]; then
				compile_ok "$label" "${prefix}gcc" $opt -g -pg $kflags $defines -c "$SRC/types.c" -o "$f" || continue
			else
				compile_ok "$label" clang --target="$ctarget" $opt -g -pg $kflags $defines -c "$SRC/types.c" -o "$f" || continue
			fi
			cp "$f" "$f.orig"
			run_ok "$label: recordmcount" "$RMC" --mode=$mode "$f" || continue
			relocs_kept "$label" "$f.orig" "$f"
			# ppc64 ELFv1 function symbols name .opd descriptors, not code
			elf=(--elf "$f")
			[ "$name" = ppc64 ] && elf=()
			# shellcheck disable=SC2086
			expect "$label" types "$f" $sizes "${elf[@]}"
			[ "$mode" = kernel ] && compact_same "$label" "$f" "$prefix"
		done
	done
}

# compact_same LABEL OBJ PREFIX: OBJ.orig recorded with --protos=compact has
# the full table's return types, function by function, in the object and
# once linked (its addresses are self-relative), and no parameters.
compact_same() {
	local label="$1, --protos=compact" f=$2 c=$2.compact out
	cp "$f.orig" "$c"
	run_ok "$label: recordmcount" "$RMC" --protos=compact "$c" || return
	relocs_kept "$label" "$f.orig" "$c"
	if has_section "$c" __mcount_ret && ! has_section "$c" __mcount_proto; then
		ok 0 "$label: __mcount_ret instead of __mcount_proto"
	else
		ok 1 "$label: __mcount_ret instead of __mcount_proto"
	fi
	list "$c" "$label" || return
	if out=$(python3 - "$f.json" "$c.json" <<-'PY' 2>&1
		import json, sys
		key = lambda e: (e["function"], e["section"], e["offset"])
		full = {key(e): e for e in json.load(open(sys.argv[1]))}
		comp = {key(e): e for e in json.load(open(sys.argv[2]))}
		assert full and full.keys() == comp.keys(), ("functions differ", sorted(full.keys() ^ comp.keys())[:4])
		for k, e in comp.items():
		    assert e["return"] == full[k]["return"], (k, e["return"], full[k]["return"])
		    assert e["reliable"] == full[k]["reliable"], k
		    assert e["params"] == [] and e["prototype"].endswith("(?)"), (k, e["prototype"])
		PY
	); then ok 0 "$label: the full table's return types, no parameters"; else ok 1 "$label: the full table's return types, no parameters"; diag "$out"; fi
	# linked, the self-relative addresses resolved: the same functions at the
	# same places (the code's own relocations against the unresolved hook may
	# not fit: --noinhibit-exec writes the file anyway).  The table is not
	# allocated here, at address 0, so the code must be within 2 GB of it:
	# 64-bit MIPS links programs at 0x120000000 (a kernel's linker script
	# places the records beside its code).
	local low=()
	[[ $name == mips64* ]] && low=(-Ttext=0x100000)
	run_ok "$label: links" "${prefix}ld" --noinhibit-exec --unresolved-symbols=ignore-all -e 0 "${low[@]}" \
		-o "$c.x" "$c" &&
		run_ok "$label: links (full table)" "${prefix}ld" --noinhibit-exec --unresolved-symbols=ignore-all -e 0 \
			"${low[@]}" -o "$f.x" "$f" || return
	if "$OBJPATCH" list "$f.x" | sed 's/(.*//' > "$f.x.names" && "$OBJPATCH" list "$c.x" | sed 's/(.*//' > "$c.x.names" &&
		[ -s "$c.x.names" ] && cmp -s "$f.x.names" "$c.x.names"; then
		ok 0 "$label: linked, each function at its address with its return type"
	else
		ok 1 "$label: linked, each function at its address with its return type"
		diag "$(diff "$f.x.names" "$c.x.names" | head -5)"
	fi
}
for_each_arch types_for

# The text form of the list, on a few lines: where, then the prototype.
sym_hex() { "${3:-nm}" "$1" | awk -v n="$2" '$3 == n { print $1 }' | { read -r v && printf '%x' $((16#$v)); }; }
text_line() { "$OBJPATCH" list "$1" | grep -F "$2(" | head -1; }
f=$T_TMP/types/x86_64-gcc-O1.o
if [ -f "$f" ]; then
	is "$(text_line "$f" f_s32)" ".text+0x$(sym_hex "$f" f_s32) int f_s32(int a, unsigned int b)" \
		"text list: an object's function as SECTION+0xOFF and its prototype"
	is "$(text_line "$f" f_str)" ".text+0x$(sym_hex "$f" f_str) const char *f_str(char *s, const char *cs)" \
		"text list: a function returning a pointer"
fi

# ---- 2. DWARF versions, compressed, split ----
N=$T_TMP/native
mkdir -p "$N"
for cc in gcc clang; do
	plain=$N/$cc-plain.o
	compile_ok "$cc -g" $cc -O1 -g -pg -fno-pic -c "$SRC/types.c" -o "$plain" || continue
	"$RMC" "$plain" && list "$plain" "$cc -g" || continue
	for v in "-gdwarf-4" "-gdwarf-5" "-g -gz" "-gdwarf-4 -gz" "-g -gsplit-dwarf" \
		 "-gdwarf-4 -gsplit-dwarf" "-gdwarf-5 -gsplit-dwarf -gz"; do
		tag=$(tr -c 'a-z0-9' _ <<< "$v")
		dir=$N/$cc$tag
		mkdir -p "$dir"
		# Relative names, compiled in the directory: the skeleton names
		# the .dwo relative to that directory, as a build system does.
		# shellcheck disable=SC2086
		compile_in "$dir" "$cc $v" $cc -O1 $v -pg -fno-pic -c "$SRC/types.c" -o t.o || continue
		armed=0
		want=5
		[[ $v == *dwarf-4* ]] && want=4
		[ "$(dwarf_version "$dir/t.o")" = "$want" ] || armed=1
		desc="DWARF $want"
		[[ $v != *-gz* ]] || desc="$desc, compressed"
		[[ $v != *split* ]] || desc="$desc, with a .dwo"
		case $v in
		*-gz*) { readelf -SW "$dir/t.o"; [ ! -f "$dir/t.dwo" ] || readelf -SW "$dir/t.dwo"; } |
			grep -E ' \.debug_info(\.dwo)? ' | grep -q ' [A-Z]*C[A-Z]* ' || armed=1 ;;
		esac
		case $v in
		*split*) [ -f "$dir/t.dwo" ] || armed=1 ;;
		esac
		ok "$armed" "$cc $v: the object is what the flags say ($desc)"
		run_ok "$cc $v: recordmcount" "$RMC" "$dir/t.o" || continue
		expect "$cc $v: types" types "$dir/t.o" --elf "$dir/t.o"
		is "$(cmp -s "$plain.json" "$dir/t.o.json" && echo same)" same "$cc $v: same list as plain -g"
	done
done

# Split DWARF whose .dwo is not where the skeleton says: every function unknown.
dir=$N/split-moved
mkdir -p "$dir/a" "$dir/b"
if compile_in "$dir/a" "gcc -gsplit-dwarf" gcc -O1 -g -gsplit-dwarf -pg -fno-pic -c "$SRC/types.c" -o t.o; then
	cp "$dir/a/t.o" "$dir/lost.o"
	mv "$dir/a/t.dwo" "$dir/a/t.dwo.away"
	run_ok "split DWARF without its .dwo: recordmcount" "$RMC" "$dir/lost.o"
	expect "split DWARF without its .dwo: every function unknown, none guessed" types "$dir/lost.o" --all-unknown
	# The .dwo next to a moved object: libdwfl is given the image, not its
	# path, so it only looks where the skeleton's DW_AT_comp_dir says.
	mv "$dir/a/t.dwo.away" "$dir/b/t.dwo"
	cp "$dir/a/t.o" "$dir/b/t.o"
	rm -rf "$dir/a"
	if "$RMC" "$dir/b/t.o" && list "$dir/b/t.o" "split moved"; then
		python3 "$CHECK" types "$dir/b/t.o.json" >/dev/null 2>&1
		todo $? "split DWARF moved with its .dwo: found next to the object" \
			"recordmcount only finds a .dwo through DW_AT_comp_dir"
	fi
fi

# ---- 3. traps ----
T3=$T_TMP/traps
mkdir -p "$T3"
# gcc's clones, hot/cold split, out-of-line inline copy; x86 splits by
# default, the others are asked to by clones.c.
clones_for() {	# name prefix
	local name=$1 prefix=$2 f=$T3/clones-$1.o syms miss=
	compile_ok "clones $name" "${prefix}gcc" -O2 -g -pg -fno-pic -c "$SRC/clones.c" -o "$f" || return
	syms=$("${prefix}nm" "$f")
	for pat in ' t isra_me\.isra\.[0-9]+$' ' t constprop_me\.constprop\.[0-9]+$' \
		   ' t part_me\.part\.[0-9]+$' ' t split_sum\.cold$' ' t squash$'; do
		grep -Eq "$pat" <<< "$syms" || miss="$miss $pat"
	done
	[ "$("${prefix}objdump" -t "$f" | awk '$NF == "split_sum.cold" { print $(NF - 2) }')" = .text.unlikely ] ||
		miss="$miss (split_sum.cold not in .text.unlikely)"
	readelf -wi "$f" | grep -q DW_TAG_inlined_subroutine || miss="$miss (nothing inlined)"
	has_concrete_copy "$f" || miss="$miss (no out-of-line copy through DW_AT_abstract_origin)"
	is "$miss" "" "clones $name: gcc made the clones, the .cold part and an inlined+out-of-line squash"
	run_ok "clones $name: recordmcount" "$RMC" "$f" || return
	# shellcheck disable=SC2046
	expect "clones $name: clones unreliable, split and inline copies right" clones "$f" \
		$(sizes_of "$name") --elf "$f"
	[ "$name" = x86_64 ] || return
	local isra line
	isra=$(nm "$f" | awk '$3 ~ /^isra_me\.isra\./ { print $3 }')
	# its parameters are not the source's: only where, name and mark
	line=$(text_line "$f" "$isra")
	local rc=0
	[[ $line == ".text+0x$(sym_hex "$f" "$isra") long int $isra("*") [unreliable]" ]] || rc=1
	ok $rc "text list: a clone is marked [unreliable]"
	[ $rc = 0 ] || diag "got: $line"
}
clones_for x86_64 x86_64-linux-gnu-
clones_for aarch64 aarch64-linux-gnu-
clones_for s390x s390x-linux-gnu-

# C++ members defined outside their class (DW_AT_specification).
for cxx in g++ clang++; do
	f=$T3/member-$cxx.o
	compile_ok "$cxx member.cc" $cxx -O1 -g -pg -fno-pic -c "$SRC/member.cc" -o "$f" || continue
	is "$(readelf -wi "$f" | grep -c DW_AT_specification | awk '{ print ($1 >= 3) }')" 1 \
		"$cxx member.cc: the definitions refer to in-class declarations"
	run_ok "$cxx member.cc: recordmcount" "$RMC" "$f" || continue
	expect "$cxx member.cc: qualified names and the declared types" member "$f" --elf "$f"
done

# A function without DWARF next to functions with it (ld -r of -g and no -g).
nodw_for() {	# name prefix
	local name=$1 prefix=$2 dir=$T3/nodw-$1
	mkdir -p "$dir"
	# shellcheck disable=SC2046
	compile_ok "nodw $name" "${prefix}gcc" -O1 -g -pg -fno-pic $(defines_of "$name") -c "$SRC/types.c" -o "$dir/with.o" &&
		compile_ok "nodw $name" "${prefix}gcc" -O1 -pg -fno-pic -c "$SRC/nodw.c" -o "$dir/without.o" || return
	run_ok "nodw $name: ld -r" "${prefix}ld" -r -o "$dir/mixed.o" "$dir/with.o" "$dir/without.o" || return
	run_ok "nodw $name: recordmcount" "$RMC" "$dir/mixed.o" || return
	# shellcheck disable=SC2046
	expect "nodw $name: functions without DWARF are unknown, the others right" nodw "$dir/mixed.o" \
		$(sizes_of "$name") --elf "$dir/mixed.o"
	is "$(text_line "$dir/mixed.o" nodw_add)" ".text+0x$(sym_hex "$dir/mixed.o" nodw_add "${prefix}nm") ? nodw_add(?)" \
		"nodw $name: text list says '? name(?)'"
}
nodw_for x86_64 x86_64-linux-gnu-
nodw_for ppc powerpc-linux-gnu-

# ---- 4. and 5. linked files ----
L=$T_TMP/linked
C_UNITS="types init_a init_b init_c prog"

# Native, user mode: ld -r, PIE, strip, --gc-sections.
native_link() {	# cc
	local cc=$1 dir=$L/$1 u objs=()
	mkdir -p "$dir"
	for u in $C_UNITS; do
		compile_ok "$cc link" "$cc" -O1 -g -pg -fPIE -ffunction-sections -c "$SRC/$u.c" -o "$dir/$u.o" || return
		objs+=("$dir/$u.o")
	done
	run_ok "$cc link: recordmcount --mode=user" "$RMC" --mode=user "${objs[@]}" || return
	run_ok "$cc ld -r" ld -r -o "$dir/all.o" "${objs[@]}" &&
		expect "$cc ld -r: one record per function, each right, init keyed by place" prog "$dir/all.o" --elf "$dir/all.o"
	if run_ok "$cc PIE: links" "$cc" -pg -pie -o "$dir/pie" "${objs[@]}"; then
		run_ok "$cc PIE: runs" "$dir/pie"
		expect "$cc PIE: prototypes at link-time addresses, three init apart" prog "$dir/pie" --elf "$dir/pie"
		is "$(text_line "$dir/pie" init_c | sed 's/long int/long/')" "0x$(sym_hex "$dir/pie" init_c) long init_c(void)" \
			"$cc PIE: text list gives the address"
		cp "$dir/pie" "$dir/pie.stripped"
		run_ok "$cc PIE: strip" strip "$dir/pie.stripped"
		is "$(readelf -SW "$dir/pie.stripped" | grep -c -E ' \.symtab | \.debug_info ')" 0 "$cc PIE stripped: no symbols, no DWARF"
		expect "$cc PIE stripped: the same prototypes" prog "$dir/pie.stripped" --elf "$dir/pie"
	fi
	if run_ok "$cc --gc-sections: links" "$cc" -pg -pie -Wl,--gc-sections -o "$dir/gc" "${objs[@]}"; then
		run_ok "$cc --gc-sections: runs" "$dir/gc"
		expect "$cc --gc-sections: collected functions have no record" prog "$dir/gc" --gc --elf "$dir/gc"
	fi
}
native_link gcc
native_link clang

# C++ COMDAT: each unit has a record for Acc::add, the program one.
for cxx in g++ clang++; do
	dir=$L/comdat-$cxx
	mkdir -p "$dir"
	compile_ok "$cxx COMDAT" $cxx -O1 -g -pg -fPIE -c "$SRC/comdat_one.cc" -o "$dir/one.o" &&
		compile_ok "$cxx COMDAT" $cxx -O1 -g -pg -fPIE -c "$SRC/comdat_two.cc" -o "$dir/two.o" || continue
	run_ok "$cxx COMDAT: recordmcount --mode=user" "$RMC" --mode=user "$dir/one.o" "$dir/two.o" || continue
	n=0
	for u in one two; do
		list "$dir/$u.o" "$cxx COMDAT $u.o" &&
			grep -q '"function": "Acc::add"' "$dir/$u.o.json" && n=$((n + 1))
	done
	is "$n" 2 "$cxx COMDAT: both units have a record for Acc::add"
	run_ok "$cxx COMDAT: links" $cxx -pg -pie -o "$dir/prog" "$dir/one.o" "$dir/two.o" || continue
	run_ok "$cxx COMDAT: runs" "$dir/prog"
	expect "$cxx COMDAT: exactly one Acc::add, right" comdat "$dir/prog" --elf "$dir/prog"
done

# Kernel mode, cross-compiled, linked statically: 32- and 64-bit big-endian.
cross_link() {	# name prefix ctarget kflags
	local name=$1 prefix=$2 kflags=$4 dir=$L/cross-$1 u objs=() elf
	[[ " ppc s390x ppc64 " == *" $name "* ]] || return
	mkdir -p "$dir"
	for u in $C_UNITS; do
		# shellcheck disable=SC2086,SC2046
		compile_ok "$name static" "${prefix}gcc" -O1 -g -pg $kflags $(defines_of "$name") -c "$SRC/$u.c" -o "$dir/$u.o" || return
		objs+=("$dir/$u.o")
	done
	run_ok "$name static: recordmcount (kernel mode)" "$RMC" "${objs[@]}" || return
	run_ok "$name static: links" "${prefix}gcc" -static -pg -o "$dir/prog" "${objs[@]}" || return
	is "$(readelf -hW "$dir/prog" | awk '/Type:/ { print $2 } /Data:/ { print $(NF - 1) }' | tr '\n' ' ')" \
		"big EXEC " "$name static: a big-endian static executable"
	# ppc64 ELFv1 function symbols name descriptors: no address check there
	elf=(--elf "$dir/prog")
	[ "$name" = ppc64 ] && elf=()
	# shellcheck disable=SC2046
	expect "$name static: prototypes of every function, three init apart" prog "$dir/prog" \
		$(sizes_of "$name") "${elf[@]}"
}
for_each_arch cross_link

# ---- 6. no prototype sections ----
S6=$T_TMP/none
mkdir -p "$S6"
if compile_ok "--no-protos" gcc -O1 -g -pg -fno-pic -c "$SRC/types.c" -o "$S6/off.o"; then
	run_ok "--no-protos: recordmcount" "$RMC" --no-protos "$S6/off.o"
	has_section "$S6/off.o" __mcount_loc; ok $? "--no-protos: __mcount_loc written"
	! has_section "$S6/off.o" __mcount_proto && ! has_section "$S6/off.o" __mcount_str
	ok $? "--no-protos: no __mcount_proto, no __mcount_str"
	expect "--no-protos: objpatch lists every function as unknown" types "$S6/off.o" --all-unknown
fi
if compile_ok "no DWARF" gcc -O1 -pg -fno-pic -c "$SRC/types.c" -o "$S6/nodw.o"; then
	run_ok "no DWARF: recordmcount" "$RMC" "$S6/nodw.o"
	! has_section "$S6/nodw.o" __mcount_proto && ! has_section "$S6/nodw.o" __mcount_str
	ok $? "no DWARF: no __mcount_proto, no __mcount_str"
	expect "no DWARF: every function unknown" types "$S6/nodw.o" --all-unknown
	gcc -O1 -pg -fno-pic -c "$SRC/types.c" -o "$S6/nodw-user.o" && "$RMC" --mode=user "$S6/nodw-user.o" &&
		has_section "$S6/nodw-user.o" __mcount_rel && ! has_section "$S6/nodw-user.o" __mcount_proto &&
		! has_section "$S6/nodw-user.o" __mcount_str
	ok $? "no DWARF, user mode: __mcount_rel, no prototype sections"
fi

# ---- 7. malformed input ----
M=$T_TMP/mut
W=$T_TMP/w
mkdir -p "$M" "$W"
export ASAN_OPTIONS=exitcode=99:detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:exitcode=99:print_stacktrace=1
# Each input costs a few processes, and under ASan most of a second: the
# sanitized runs take the bases of ASAN_BASES (one per DWARF producer and
# layout: gcc, split, big-endian 64-bit; tables little- and big-endian, a PIE),
# the fuzzers (make fuzz) the rest.  In make check's sanitized pass build/ is
# the sanitized one, so it alone runs, on those bases.
ASAN_BASES=" x86_64-gcc split-dwo ppc64 protos-x86_64-gcc protos-s390x protos-pie "
ASAN_RMC='' ASAN_OBJPATCH=''
if sanitized_pass; then
	:
elif asan_tools "$T_TMP/asan" recordmcount objpatch; then
	ASAN_RMC=$T_TMP/asan/recordmcount ASAN_OBJPATCH=$T_TMP/asan/objpatch
else
	diag "$(tail -5 "$T_TMP/asan.log")"
	skip "cannot build an ASan copy: malformed inputs run without it"
fi

# lists_cleanly FILE BIN: sets WHY unless `objpatch list` (text and JSON)
# succeeds or fails with one line; the JSON goes to $JSON_OUT for a check
# of all at once (a python per input would be most of the test's time).
lists_cleanly() {
	local j out rc err
	WHY=
	for j in "" --json; do
		timeout 10 "$2" list $j "$1" >"$JSON_OUT" 2>"$W/err"
		rc=$?
		err=$(<"$W/err")
		if [ "$rc" = 0 ]; then
			[ -z "$err" ] || { WHY="objpatch list $j: success with stderr: $err"; return; }
		elif [ "$rc" = 1 ]; then
			rm -f "$JSON_OUT"
			[[ $err != *$'\n'* && $err == "objpatch: $1: "?* ]] ||
				{ WHY="objpatch list $j: stderr is not 'objpatch: FILE: reason': $err"; return; }
		else
			WHY="objpatch list $j: status $rc (crash or timeout): ${err:0:500}"
			return
		fi
	done
}

# processes_cleanly ORIG BIN OBJPATCH: runs BIN on a copy at $W/x.o; sets
# WHY unless it is a clean success (then listed cleanly) or a clean failure
# (status 1, one line, file byte-identical).
processes_cleanly() {
	local orig=$1 err rc
	WHY=
	rm -f "$JSON_OUT"
	cp "$orig" "$W/x.o"
	err=$(timeout 20 "$2" "$W/x.o" 2>&1 >/dev/null)
	rc=$?
	if [ "$rc" = 0 ]; then
		if [ -n "$err" ] && [ -n "$(grep -v "^recordmcount: $W/x.o: warning: " <<< "$err")" ]; then
			WHY="success with stderr: $err"
			return
		fi
		lists_cleanly "$W/x.o" "$3"
	elif [ "$rc" = 1 ]; then
		if [[ $err == *$'\n'* || $err != "recordmcount: $W/x.o: "?* ]]; then
			WHY="stderr is not one line 'recordmcount: FILE: reason': $err"
		elif ! cmp -s "$orig" "$W/x.o"; then
			WHY="failed but changed the file"
		fi
	else
		WHY="status $rc (crash or timeout): ${err:0:500}"
	fi
}

# json_bad DIR: how many of the JSON lists in DIR are not valid UTF-8 JSON.
json_bad() {
	local out
	[ -n "$(ls "$1")" ] || { echo 0; return; }
	out=$(python3 "$CHECK" valid "$1"/*) && { echo 0; return; }
	diag "$out"
	grep -c . <<< "$out"
}

# each_input LABEL LIST FN BIN...: FN FILE BIN... for every mutated file in
# LIST; one test line for all of them.
each_input() {
	local label=$1 list=$2 fn=$3 f bad=0 n=0 jdir
	shift 3
	jdir=$(mktemp -d "$W/json.XXXXXX")
	while read -r f; do
		n=$((n + 1))
		JSON_OUT=$jdir/$n.json
		"$fn" "$f" "$@"
		if [ -n "$WHY" ]; then
			bad=$((bad + 1))
			diag "$label/${f##*/}: ${WHY:0:2000}"
		fi
	done < "$list"
	bad=$((bad + $(json_bad "$jdir")))
	rm -rf "$jdir"
	[ "$n" -gt 20 ] || { bad=$((bad + 1)); diag "$label: only $n inputs"; }
	ok "$bad" "$label: $n inputs, each a clean success or a clean failure"
}

# The .dwo of a split object is mutated in place, next to a pristine copy.
dwo_case() {	# MUTATED-DWO OBJ DWO-DIR BIN OBJPATCH
	cp "$1" "$3/t.dwo"
	processes_cleanly "$2" "$4" "$5"
	cmp -s "$1" "$3/t.dwo" || WHY="${WHY:-changed the .dwo}"
}

BUILDS=("$RMC $OBJPATCH")
[ -z "$ASAN_RMC" ] || BUILDS+=("$ASAN_RMC $ASAN_OBJPATCH")
build_name() { [ "$1" = "$RMC" ] && ! sanitized_pass && echo build || echo "ASan build"; }
# runs_on BIN BASE: whether the build of BIN takes the mutations of BASE.
runs_on() { [ "$(build_name "$1")" = build ] || [[ $ASAN_BASES == *" $2 "* ]]; }

# mutate_dwarf LABEL OBJ [DWO-DIR]: DWARF mutations of OBJ (or of the .dwo
# that the skeleton OBJ names, in DWO-DIR), through both builds.
mutate_dwarf() {
	local label=$1 obj=$2 dwodir=${3:-} src=$2 out=$M/dwarf-$1 b
	[ -n "$dwodir" ] && src=$dwodir/t.dwo.orig && cp "$dwodir/t.dwo" "$src"
	python3 "$MUTATE" dwarf "$src" "$out" 1 "$RANDOM_MUTATIONS" > "$out.list" ||
		{ ok 1 "malformed DWARF $label: mutate.py"; return; }
	for b in "${BUILDS[@]}"; do
		# shellcheck disable=SC2086
		set -- $b
		runs_on "$1" "$label" || continue
		if [ -n "$dwodir" ]; then
			each_input "malformed DWARF $label, $(build_name "$1")" "$out.list" dwo_case "$obj" "$dwodir" "$1" "$2"
			cp "$src" "$dwodir/t.dwo"
		else
			each_input "malformed DWARF $label, $(build_name "$1")" "$out.list" processes_cleanly "$1" "$2"
		fi
	done
}

# mutate_protos LABEL FILE: table mutations of a processed FILE.
mutate_protos() {
	local label=$1 out=$M/protos-$1 b
	python3 "$MUTATE" protos "$2" "$out" 2 "$RANDOM_MUTATIONS" > "$out.list" ||
		{ ok 1 "malformed tables $label: mutate.py"; return; }
	for b in "${BUILDS[@]}"; do
		# shellcheck disable=SC2086
		set -- $b
		runs_on "$1" "protos-$label" || continue
		each_input "malformed tables $label, $(build_name "$1")" "$out.list" lists_cleanly "$2"
	done
}

B=$T_TMP/bases
mkdir -p "$B"
dwarf_base() {	# label compiler-and-flags...
	local label=$1
	shift
	compile_ok "malformed base $label" "$@" -O1 -pg -fno-pic -c "$SRC/types.c" -o "$B/$label.o" &&
		mutate_dwarf "$label" "$B/$label.o"
}
dwarf_base x86_64-gcc gcc -g
dwarf_base x86_64-clang clang -g
dwarf_base x86_64-gz gcc -g -gz
dwarf_base i386-dwarf4 i686-linux-gnu-gcc -gdwarf-4
dwarf_base s390x s390x-linux-gnu-gcc -g
dwarf_base sh4 sh4-linux-gnu-gcc -g
dwarf_base ppc64 powerpc64-linux-gnu-gcc -g
mkdir -p "$B/split"
if compile_in "$B/split" "malformed base split" gcc -O1 -g -gsplit-dwarf -pg -fno-pic -c "$SRC/types.c" -o t.o; then
	mutate_dwarf split-dwo "$B/split/t.o" "$B/split"
fi

for base in x86_64-gcc i386-dwarf4 s390x sh4; do
	[ -f "$B/$base.o" ] || continue
	cp "$B/$base.o" "$B/$base-done.o"
	run_ok "malformed tables $base: recordmcount on the base" "$RMC" "$B/$base-done.o" &&
		mutate_protos "$base" "$B/$base-done.o"
done
[ -f "$L/gcc/pie" ] && mutate_protos pie "$L/gcc/pie"

# An object that brings a prototype table of its own but no site table (found
# by the dwarf_table fuzzer): the sites are recorded, no second table is added.
if [ -f "$B/x86_64-gcc.o" ]; then
	printf 'junk' > "$B/own-proto.bin"
	objcopy --add-section __mcount_proto="$B/own-proto.bin" "$B/x86_64-gcc.o" "$B/own-proto.o" &&
		run_ok "own prototype table: recordmcount" "$RMC" "$B/own-proto.o" &&
		is "$(readelf -SW "$B/own-proto.o" | grep -c ' __mcount_proto ')" 1 \
			"own prototype table: still one __mcount_proto, none added beside it" &&
		is "$(readelf -SW "$B/own-proto.o" | grep -c ' __mcount_loc ')" 1 "own prototype table: the sites recorded"
fi

done_testing
