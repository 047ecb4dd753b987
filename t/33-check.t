#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# recordmcount --check [--json] [--fix], on every target of scripts/machines.sh with
# gcc and clang (testdata/check: a static function, a weak function that
# another unit overrides, calls between units):
#  - objects: processed ones pass; an unprocessed one, and copies whose table
#    lost an entry, had one moved 4 bytes or duplicated (mutate.py), fail
#    with the finding at the place the damage was done;
#  - static links with the kernel's way of gathering tables (kernel.lds:
#    __start_mcount_loc..__stop_mcount_loc inside .init.data): a clean link
#    passes; with the weak function overridden, its entry is reported stale
#    at the address the link map and the object's own table give, and --fix
#    zeroes it and keeps every other entry, sorted, in place (mode kept);
#    a link of an unprocessed object reports each of its calls missing; a
#    duplicated and reordered table is reported, sorted and zeroed by --fix;
#  - --json parses and counts what the text reports;
#  - exit 2 for files that cannot be checked, --fix on objects and on tables
#    with dynamic relocations;
#  - x86_64 user mode: PIEs and shared libraries calling mcount or
#    __fentry__ directly, through the PLT or the GOT, pass.
# CHECK_RMC=path runs it with another build (make BUILD=... SANITIZE=1).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../scripts/machines.sh"

RMC=${CHECK_RMC:-$RMC}
SRC=$TOP/testdata/check
MUTATE=$SRC/mutate.py
HOOK_NAMES='mcount|_mcount|__gnu_mcount_nc|__fentry__'
command -v python3 > /dev/null || { echo "Bail out! python3 is needed"; exit 1; }

. "$(dirname "$0")/check-lib.sh"
# place OUT KIND: the "(...)" of each finding of KIND.
place() { lines "$2" "$1" | sed 's/^.*(\([^)]*\)): .*/\1/'; }

# nth_entry OBJ N: "SECTION+0xOFF" of the object's Nth entry (from 0), as --list reads it.
nth_entry() { "$RMC" --list "$1" | sed -n "$(($2 + 1))p"; }

plus4() { local sec=${1%+*} off=${1#*+}; printf '%s+0x%x\n' "$sec" $((off + 4)); }

# mutated_object LABEL DIR: copies of a.o with a damaged table.
mutated_object() {
	local label=$1 d=$2 e0 e1
	e0=$(nth_entry "$d/a.o" 0)
	e1=$(nth_entry "$d/a.o" 1)
	cp "$d/a.o" "$d/drop.o" && python3 "$MUTATE" drop "$d/drop.o" 1
	is "$(check "$d/out" "$d/drop.o") $(count missing "$d/out") $(place "$d/out" missing)" "1 1 $e1" \
		"$label: an entry removed: exit 1, missing at $e1"
	cp "$d/a.o" "$d/shift.o" && python3 "$MUTATE" shift "$d/shift.o" 1 4
	is "$(check "$d/out" "$d/shift.o") $(place "$d/out" missing) $(place "$d/out" not-call)" "1 $e1 $(plus4 "$e1")" \
		"$label: an entry moved 4 bytes: exit 1, missing at $e1, not-call 4 bytes on"
	cp "$d/a.o" "$d/dup.o" && python3 "$MUTATE" dup "$d/dup.o" 1 0
	is "$(check "$d/out" "$d/dup.o") $(place "$d/out" duplicate) $(place "$d/out" missing)" "1 $e0 $e1" \
		"$label: an entry duplicated: exit 1, duplicate at $e0, missing at $e1"
}

# hex N: 0x form without leading zeros, as --check prints addresses.
hex() { printf '0x%x\n' "$1"; }

# weak_entry PREFIX DIR: a.o's entry inside chk_weak, "0xOFF" in .text, from
# the object's function labels (objdump; ppc64 ELFv1's are dotted) and its table.
weak_entry() {
	local prefix=$1 d=$2 funcs start= end= a n e
	funcs=" $("${prefix}readelf" -sW "$d/a.o" | awk '$4 == "FUNC" && $(NF - 1) != "UND" { print $NF }' | tr '\n' ' ') "
	while read -r a n; do
		n=${n#.}
		[[ $funcs == *" $n "* ]] || continue
		if [ "$n" = chk_weak ]; then start=$((0x$a)); elif [ -n "$start" ] && [ -z "$end" ] && ((0x$a > start)); then end=$((0x$a)); fi
	done < <("${prefix}objdump" -d "$d/a.o" | sed -n 's/^\([0-9a-f]*\) <\(.*\)>:$/\1 \2/p' | sort)
	[ -n "$start" ] || return
	"$RMC" --list "$d/a.o" | while IFS=+ read -r sec e; do
		[ "$sec" = .text ] && ((e >= start)) && { [ -z "$end" ] || ((e < end)); } && hex "$e"
	done
}

# text_base DIR MAP: where a.o's .text landed, from the link map.
text_base() { awk '$1 == ".text" && $NF == "a.o" { print $2; exit }' "$1/$2"; }

link() {	# link PREFIX FLAGS DIR OUT OBJS...: a static libc-less link with kernel.lds
	local prefix=$1 flags=$2 d=$3 out=$4 msg
	shift 4
	# shellcheck disable=SC2086
	msg=$(cd "$d" && "${prefix}gcc" $flags -static -nostdlib -no-pie -Wl,-e,_start -Wl,-T,"$SRC/kernel.lds" \
		-Wl,-Map,"$out.map" -o "$out" "$@" 2>&1) && return
	diag "$msg"
	return 1
}

# json_counts JSON: "status stale missing duplicate not-call" of the first file.
json_counts() {
	python3 -c 'import json,sys; f=json.load(open(sys.argv[1]))["files"][0]; c=f["counts"]
print(f["status"], c["stale"], c["missing"], c["duplicate"], c["not-call"], len(f["findings"]))' "$1" 2>&1
}

# entries_sorted FILE: the linked table's non-zero entries, ascending?
entries_sorted() {
	"$RMC" --list "$1" | awk '$1 != "0x0" { print $1 }' > "$1.nz"
	sort -c <(while read -r a; do printf '%020d\n' "$a"; done < "$1.nz") 2> /dev/null
}

linked_cases() {	# linked_cases LABEL PREFIX FLAGS DIR HOOK FULL
	local label=$1 prefix=$2 flags=$3 d=$4 hook=$5 full=$6 relax= base weak nsites
	[ "${prefix%%-*}" = riscv64 ] && relax=-Wl,--no-relax	# the map's a.o base stays the object's offsets
	nsites=$("$RMC" --list "$d/a.o" | grep -c .)
	if ! link "$prefix" "$flags" "$d" clean start.o a.o b.o; then
		ok 1 "$label: link"
		return
	fi
	is "$(check "$d/out" "$d/clean")" 0 "$label: a clean static link passes"
	is "$(grep -c '; sorted$' "$d/out")" 1 "$label: its table is sorted"

	link "$prefix" "$flags $relax" "$d" over start.o a.o bs.o || { ok 1 "$label: link with the override"; return; }
	base=$(text_base "$d" over.map)
	weak=$(weak_entry "$prefix" "$d")
	if [ -z "$base" ] || [ -z "$weak" ]; then
		ok 1 "$label: the weak function's entry in a.o and a.o's place in the link (map: '$base', entry: '$weak')"
		return
	fi
	is "$(check "$d/out" "$d/over") $(count stale "$d/out") $(grep -c ': [a-z-]*: ' "$d/out")" "1 1 1" \
		"$label: the overridden weak function's entry: exit 1, one finding, stale"
	is "$(place "$d/out" stale)" "$(hex $((base + weak)))" "$label: stale at a.o's .text + chk_weak's entry"
	"$RMC" --check --json "$d/over" > "$d/over.json" 2> /dev/null
	is "$(json_counts "$d/over.json")" "findings 1 0 0 0 1" "$label: --json parses and says the same"

	cp "$d/over" "$d/fixed" && chmod 640 "$d/fixed"
	"$RMC" --list "$d/over" | awk '{ print $1 }' | sort > "$d/over.entries"
	is "$(check "$d/out" --fix "$d/fixed") $(grep -c -- '--fix: table rewritten, 1 entry zeroed; 0 findings remain' "$d/out")" \
		"0 1" "$label: --fix zeroes one entry, exit 0"
	is "$(check "$d/out" "$d/fixed") $(stat -c %a "$d/fixed")" "0 640" "$label: then --check passes; mode kept"
	"$RMC" --list "$d/fixed" | awk '{ print $1 }' | sort > "$d/fixed.entries"
	is "$(comm -3 "$d/over.entries" "$d/fixed.entries" | tr -d '\t' | tr '\n' ' ')" \
		"0x0 $(hex $((base + weak))) " "$label: only the stale entry became 0"
	entries_sorted "$d/fixed"
	ok $? "$label: the fixed table is sorted"
	[ "$full" = full ] || return

	link "$prefix" "$flags" "$d" unl start.o un.o b.o || { ok 1 "$label: link unprocessed"; return; }
	is "$(check "$d/out" "$d/unl") $(count missing "$d/out")" "1 $nsites" \
		"$label: an unprocessed object linked in: its $nsites calls missing"

	cp "$d/clean" "$d/mixed"
	python3 "$MUTATE" dup "$d/mixed" 2 0 && python3 "$MUTATE" swap "$d/mixed" 0 3
	is "$(check "$d/out" "$d/mixed") $(count duplicate "$d/out") $(count missing "$d/out") $(grep -c '; not sorted$' "$d/out")" \
		"1 1 1 1" "$label: a duplicated, reordered table: duplicate, missing, not sorted"
	is "$(check "$d/out" --fix "$d/mixed") $(grep -c -- '--fix: table rewritten, 1 entry zeroed; 1 finding remain' "$d/out")" "1 1" \
		"$label: --fix zeroes the duplicate, the missing entry remains (exit 1)"
	is "$(check "$d/out" "$d/mixed") $(grep -c ': [a-z-]*: ' "$d/out") $(count missing "$d/out") $(grep -c '1 zeroed.*; sorted$' "$d/out")" \
		"1 1 1 1" "$label: after --fix: sorted, one zeroed entry, only the missing call left"
}

# one_compiler LABEL PREFIX FLAGS FULL CC...: objects and links of one
# compiler for one target; the cases that exercise no more of the target's
# code forms than the other compiler's only when FULL is "full".
one_compiler() {
	local label=$1 prefix=$2 flags=$3 full=$4 d hook n
	shift 4
	d=$T_TMP/${label// /-}
	mkdir -p "$d"
	# shellcheck disable=SC2086
	compile_ok "$label" "$@" -O2 -pg $flags -c "$SRC/a.c" -o "$d/a.o" || return
	# shellcheck disable=SC2086
	compile_ok "$label" "$@" -O2 -pg $flags -c "$SRC/b.c" -o "$d/b.o" || return
	# shellcheck disable=SC2086
	compile_ok "$label" "$@" -O2 -pg $flags -DSTRONG -c "$SRC/b.c" -o "$d/bs.o" || return
	cp "$d/a.o" "$d/un.o"
	hook=$("${prefix}nm" -u "$d/a.o" | awk '{ print $2 }' | grep -xE "$HOOK_NAMES" | sort -u)
	is "$(echo "$hook" | grep -c .)" 1 "$label: the objects call one hook ($hook)"
	run_ok "$label: recordmcount" "$RMC" "$d/a.o" "$d/b.o" "$d/bs.o"
	is "$(check "$d/out" "$d/a.o" "$d/b.o" "$d/bs.o") $(grep -c ': clean; object, ' "$d/out")" "0 3" \
		"$label: processed objects pass"
	n=$("$RMC" --list "$d/a.o" | grep -c .)
	is "$(check "$d/out" "$d/un.o") $(count missing "$d/out")" "1 $n" "$label: unprocessed object: exit 1, $n calls missing"
	is "$(lines missing "$d/out" | sed 's/^[^:]*: missing: \([^+]*\)+.*/\1/' | sort | tr '\n' ' ')" \
		"$("${prefix}readelf" -sW "$d/a.o" | awk '$4 == "FUNC" && $(NF - 1) != "UND" { print $NF }' | sort | tr '\n' ' ')" \
		"$label: unprocessed object: each function named"
	[ "$full" = full ] && mutated_object "$label" "$d"
	# One start.o per hook: gcc and clang call different ones on ARM.
	if [ ! -f "$d/../start-$prefix$hook.o" ]; then
		# shellcheck disable=SC2086
		compile_ok "$label: start" "${prefix}gcc" -O2 $flags -DHOOK="$hook" -c "$SRC/start.c" \
			-o "$d/../start-$prefix$hook.o" || return
	fi
	cp "$d/../start-$prefix$hook.o" "$d/start.o"
	linked_cases "$label" "$prefix" "$flags" "$d" "$hook" "$full"
}

one_arch() {
	local name=$1 prefix=$2 ctarget=$3 kflags=$4
	if ! command -v "${prefix}gcc" > /dev/null; then
		skip "$name: ${prefix}gcc not installed"
		return
	fi
	one_compiler "$name gcc" "$prefix" "$kflags" full "${prefix}gcc"
	[ "$ctarget" = - ] && return
	if command -v clang > /dev/null; then
		one_compiler "$name clang" "$prefix" "$kflags" part clang --target="$ctarget"
	else
		skip "$name clang: clang not installed"
	fi
}

# With DWARF the prototype table still names the overridden function.
named_by_protos() {
	local d=$T_TMP/protos p=x86_64-linux-gnu-
	mkdir -p "$d"
	for f in a b; do compile_ok "-g" "${p}gcc" -g -O2 -pg -fno-pic -c "$SRC/$f.c" -o "$d/$f.o" || return; done
	compile_ok "-g" "${p}gcc" -g -O2 -pg -fno-pic -DSTRONG -c "$SRC/b.c" -o "$d/bs.o" || return
	compile_ok "-g" "${p}gcc" -O2 -fno-pic -DHOOK=mcount -c "$SRC/start.c" -o "$d/start.o" || return
	run_ok "-g: recordmcount" "$RMC" "$d/a.o" "$d/b.o" "$d/bs.o"
	is "$(check "$d/out" "$d/a.o" "$d/b.o") $(count no-proto "$d/out")" "0 0" "-g: every function with an entry has a prototype record"
	link "$p" -fno-pic "$d" over start.o a.o bs.o || { ok 1 "-g: link"; return; }
	is "$(check "$d/out" "$d/over") $(lines stale "$d/out" | sed 's/^[^:]*: stale: \([^ ]*\) .*/\1/')" "1 chk_weak+0x4" \
		"-g: the stale entry is named chk_weak, from __mcount_proto"
	grep -q 'the symbol chk_weak is at .*an overridden weak function' "$d/out"
	ok $? "-g: and said to be an overridden weak function"
}

exit_codes() {
	local d=$T_TMP/exit exe=$T_TMP/x86_64-gcc/clean
	mkdir -p "$d"
	echo 'not ELF' > "$d/text"
	head -c 300 "$exe" > "$d/truncated"
	is "$(check "$d/out" "$d/text")" 2 "a file that is not ELF: exit 2"
	is "$(grep -c "^recordmcount: $d/text: not an ELF file" "$d/out")" 1 "... with one line saying why"
	is "$(check "$d/out" "$d/truncated") $(grep -c "^recordmcount: $d/truncated: " "$d/out")" "2 1" "a truncated file: exit 2, one line"
	is "$(check "$d/out" "$d/missing")" 2 "a file that does not exist: exit 2"
	is "$(check "$d/out" "$exe" "$d/text") $(grep -c ': clean;' "$d/out")" "2 1" "a clean file and a bad one: exit 2, the clean one still checked"
	is "$(check "$d/out" --fix "$T_TMP/x86_64-gcc/a.o") $(grep -c 'fix is for linked files' "$d/out")" "2 1" \
		"--fix on an object: exit 2, said why"
	cp "$T_TMP/x86_64-gcc/over" "$d/over" && ln -s over "$d/link"
	is "$(check "$d/out" --fix "$d/link") $(check "$d/out" "$d/over")" "0 0" "--fix through a symbolic link fixes its target"
	[ -L "$d/link" ]
	ok $? "... and the link stays a link"
	"$RMC" --check --json "$exe" "$d/text" > "$d/both.json" 2> /dev/null
	is "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print([f["status"] for f in d["files"]], d["summary"]["failed"])' \
		"$d/both.json" 2>&1)" "['clean', 'error'] 1" "--json with a bad file: parses, status error"
	is "$("$RMC" --json "$exe" > /dev/null 2>&1; echo $?)" 2 "--json without --check: usage error"
}

# x86_64 user mode: PIE and shared library, mcount (glibc's, through the
# GOT or the PLT) and __fentry__ (the program's own, or undefined in a library).
user_mode() {
	local cc=$1 d=$T_TMP/user-$1 L=$TOP/testdata/link f
	mkdir -p "$d"
	compile_ok "$cc PIE" "$cc" -O2 -pg -fPIE -c "$L/gc.c" -o "$d/pie.o" || return
	compile_ok "$cc shlib" "$cc" -O2 -pg -fPIC -c "$L/shlib.c" -o "$d/lib.o" || return
	compile_ok "$cc -mfentry" "$cc" -O2 -pg -mfentry -fPIE -c "$L/gc.c" -o "$d/fe.o" || return
	compile_ok "$cc -mfentry shlib" "$cc" -O2 -pg -mfentry -fPIC -c "$L/shlib.c" -o "$d/felib.o" || return
	compile_ok "$cc hook" "$cc" -O2 -fPIE -c "$L/fentry_hook.c" -o "$d/hook.o" || return
	compile_ok "$cc kernel-mode PIE" "$cc" -O2 -pg -fPIE -c "$SRC/a.c" -o "$d/ka.o" || return
	compile_ok "$cc kernel-mode PIE" "$cc" -O2 -pg -fPIE -c "$SRC/b.c" -o "$d/kb.o" || return
	run_ok "$cc: user mode" "$RMC" --mode=user "$d/pie.o" "$d/lib.o" "$d/fe.o" "$d/felib.o"
	run_ok "$cc: kernel mode" "$RMC" "$d/ka.o" "$d/kb.o"
	run_ok "$cc: links" sh -c "cd '$d' && $cc -pg -pie -o pie pie.o && $cc -shared -o lib.so lib.o &&
		$cc -pie -o fe fe.o hook.o && $cc -shared -o felib.so felib.o &&
		$cc -pie -nostartfiles -Wl,-e,a_two -o kpie ka.o kb.o 2> /dev/null" || return
	for f in pie lib.so fe felib.so kpie; do
		is "$(check "$d/out" "$d/$f") $(sed -n 's/.*; linked, \([0-9]*\) entries: \([0-9]*\) calls.*/\1 \2/p' "$d/out")" \
			"0 $("$RMC" --list "$d/$f" | grep -c .) $("$RMC" --list "$d/$f" | grep -c .)" \
			"$cc user mode $f: passes, every entry a call to the hook"
	done
	cp "$d/pie" "$d/pie2"
	is "$(check "$d/out" --fix "$d/pie2") $(grep -c 'nothing to change' "$d/out")" "0 1" "$cc PIE: --fix on a clean table changes nothing"
	cmp -s "$d/pie" "$d/pie2"
	ok $? "$cc PIE: ... byte for byte"
	# __fentry__ calls in a table meant for mcount's: the runtime would look
	# for the return address in the wrong place.
	cp "$d/fe.o" "$d/wrong.o"
	objcopy --rename-section __fentry_rel=__mcount_rel --rename-section .rela__fentry_rel=.rela__mcount_rel \
		"$d/wrong.o"
	is "$(check "$d/out" "$d/fe.o" "$d/wrong.o") $(count wrong-table "$d/out")" "1 $("$RMC" --list "$d/fe.o" | grep -c .)" \
		"$cc: __fentry__ calls recorded in __mcount_rel: each one wrong-table"
	cp "$d/kpie" "$d/kpie2"
	is "$(check "$d/out" --fix "$d/kpie2") $(grep -c 'dynamic relocations' "$d/out")" "2 1" \
		"$cc kernel-mode table in a PIE: --fix refused (R_X86_64_RELATIVE on its entries)"
	cmp -s "$d/kpie" "$d/kpie2"
	ok $? "$cc kernel-mode table in a PIE: left as it was"
}

for_each_arch one_arch
if command -v x86_64-linux-gnu-gcc > /dev/null; then
	named_by_protos
	exit_codes
else
	skip "x86_64-linux-gnu-gcc not installed"
fi
if [ "$(uname -m)" = x86_64 ]; then
	for cc in gcc clang; do
		if command -v $cc > /dev/null; then user_mode $cc; else skip "$cc not installed"; fi
	done
else
	skip "user mode: native x86_64 only"
fi
done_testing
