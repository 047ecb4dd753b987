#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A user's mistakes that recordmcount used to take in silence,
# each now one line that names the cause and the fix:
#  1. --check on a program or object with functions and no table at all: a
#     no-table finding, exit 1 (text and JSON), saying -pg and --mode=user;
#     a file without functions, and a recorded one, stay clean.
#  2. --list on a program without a table: one line, exit 1; an object
#     without one lists nothing, exit 0 (Kbuild records objects whose calls
#     all lie in untraced sections, and they have none).
#  3. objects without -g: user mode warns once per object; kernel mode (also
#     with -w) and --no-protos stay silent; --check lists the functions
#     without a prototype as "untyped" notes (exactly the functions of the
#     objects built without -g), which never change the exit status.
#     gcc -g1 (DWARF without types, the last -g option counts): one warning
#     naming -g1, no wrong prototype (every function untyped), and the note's
#     advice names the cause, not -g.
#  4. -flto objects: gcc's slim ones and clang's bitcode (bare and wrapped)
#     fail to record and to check with one line, the file left as it was;
#     gcc's fat ones are recorded, with a warning to link with -fno-lto.
#  5. kernel mode on -fPIE/-fPIC code (the hook called through the GOT):
#     one warning naming --mode=user; never on kernel-style objects of any
#     target of scripts/machines.sh, nor in user mode.
# x86_64 natively (the other targets compile only); about 15 s of CPU.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../scripts/machines.sh"

D=$T_TMP
CHK=$TOP/testdata/check
command -v python3 > /dev/null || { echo "Bail out! python3 is needed"; exit 1; }

# rec OUT ARGS...: recordmcount's stderr in OUT, its exit status printed.
rec() {
	local out=$1
	shift
	"$RMC" "$@" > /dev/null 2> "$out"
	echo $?
}
# chk OUT ARGS...: --check's output (both streams) in OUT, its exit status printed.
chk() {
	local out=$1
	shift
	"$RMC" --check "$@" > "$out" 2>&1
	echo $?
}
nlines() { grep -c . "$1"; }
# funcs OBJ...: the functions the objects define, sorted, one line.
funcs() { readelf -sW "$@" | awk '$4 == "FUNC" && $7 != "UND" { print $8 }' | sort -u | tr '\n' ' '; }
# json EXPR FILE: a Python expression over the first file of a --json document (f).
json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[2])); f=d["files"][0]; print(eval(sys.argv[1]))' "$1" "$2" 2>&1; }

cat > "$D/m.c" << 'EOF'
extern int add(int, int);
int twice(int x) { return add(x, x); }
int main(void) { return twice(1) - 2; }
EOF
cat > "$D/u.c" << 'EOF'
int g = 3;
int add(int a, int b) { return a + b + g - 3; }
int sub(int a, int b) { return a - b; }
EOF
echo 'int data_only = 1;' > "$D/data.c"

no_table() {
	compile_ok "no-table" gcc -O1 -o "$D/plain" "$D/m.c" "$D/u.c" || return
	is "$(chk "$D/o" "$D/plain") $(grep -c '^[^ ]*: no-table: ' "$D/o")" "1 1" \
		"1: --check on a program built without -pg: exit 1, one no-table finding"
	grep '^[^ ]*: no-table: ' "$D/o" | grep -q 'none of its functions is traceable; compile its objects with -pg and run recordmcount --mode=user'
	ok $? "1: ... saying nothing is traceable, compile with -pg, record with --mode=user"
	grep -q '^[^ ]*plain: 1 finding (no-table 1); linked, 0 entries' "$D/o"
	ok $? "1: ... and the summary counts it (no more 'clean ... 0 entries')"
	"$RMC" --check --json "$D/plain" > "$D/j" 2> /dev/null
	is "$(json 'f["status"], f["counts"]["no-table"], [x["kind"] for x in f["findings"]]' "$D/j")" \
		"('findings', 1, ['no-table'])" "1: --json: status findings, one no-table finding"
	compile_ok "no-table" gcc -O1 -c -o "$D/plain.o" "$D/u.c" || return
	# Kbuild builds some objects and modules without -pg on purpose (lib/crc7.ko).
	is "$(chk "$D/o" "$D/plain.o") $(grep -c ': nothing traceable (a note, not an error): .*compile it with -pg' "$D/o")" "0 1" \
		"1: an object built without -pg: exit 0, a note says nothing is traceable"
	"$RMC" --check --json "$D/plain.o" > "$D/j" 2> /dev/null
	is "$(json 'f["status"], [x["kind"] for x in f["notes"]]' "$D/j")" "('clean', ['not-traceable'])" \
		"1: ... --json: clean, a not-traceable note"
	compile_ok "no-table" gcc -O1 -pg -c -o "$D/unrec.o" "$D/u.c" || return
	is "$(chk "$D/o" "$D/unrec.o") $(grep -c ': no-table: .*recordmcount never ran on it' "$D/o") $(grep -c ': missing: ' "$D/o")" \
		"1 1 2" "1: an object built with -pg, never recorded: no-table says so, its 2 calls missing"
	compile_ok "no-table" gcc -O1 -c -o "$D/data.o" "$D/data.c" || return
	is "$(chk "$D/o" "$D/data.o") $(grep -c 'no-table' "$D/o")" "0 0" "1: an object without functions stays clean"
	compile_ok "no-table" gcc -O1 -g -pg -c -o "$D/m1.o" "$D/m.c" || return
	compile_ok "no-table" gcc -O1 -g -pg -c -o "$D/u1.o" "$D/u.c" || return
	run_ok "1: record" "$RMC" --mode=user "$D/m1.o" "$D/u1.o"
	compile_ok "no-table" gcc -o "$D/traced" "$D/m1.o" "$D/u1.o" || return
	is "$(chk "$D/o" "$D/traced" "$D/m1.o") $(grep -c 'no-table\|without a prototype' "$D/o")" "0 0" \
		"1: a recorded -g program and object: clean, no no-table, no untyped note"
}

# rec_list OUT FILE: --list's stderr in OUT; its exit status and stdout's lines printed.
rec_list() {
	local rc
	"$RMC" --list "$2" > "$1.out" 2> "$1"
	rc=$?
	echo "$rc $(grep -c . "$1.out")"
}

list_no_table() {
	[ -f "$D/plain" ] && [ -f "$D/unrec.o" ] && [ -f "$D/plain.o" ] && [ -f "$D/traced" ] || return
	is "$(rec_list "$D/o" "$D/plain") $(nlines "$D/o")" "1 0 1" "2: --list on a program without a table: exit 1, one line"
	grep -q "^recordmcount: $D/plain: no call-site table: run recordmcount (--mode=user for programs) on its objects" "$D/o"
	ok $? "2: ... naming the file, the cause and the fix"
	is "$(rec_list "$D/o" "$D/unrec.o") $(nlines "$D/o")" "0 0 0" \
		"2: --list on an object without a table: nothing, exit 0 (Kbuild's objects whose calls are all untraced have none)"
	is "$(rec_list "$D/o" "$D/plain.o") $(nlines "$D/o")" "0 0 0" "2: --list on an object that never calls the hook: nothing, exit 0"
	is "$(rec_list "$D/o" "$D/traced") $(nlines "$D/o")" "0 4 0" "2: --list on a recorded program: its 4 sites, exit 0"
}

no_dwarf() {
	local o f n
	compile_ok "no -g" gcc -O1 -pg -c -o "$D/m2.o" "$D/m.c" || return
	compile_ok "no -g" gcc -O1 -pg -c -o "$D/u2.o" "$D/u.c" || return
	cp "$D/u2.o" "$D/un.o"
	is "$(rec "$D/e" --mode=user "$D/m2.o" "$D/u2.o") $(nlines "$D/e")" "0 2" \
		"3: user mode, two objects without -g: exit 0, two lines"
	for o in m2.o u2.o; do
		is "$(grep -c "^recordmcount: $D/$o: warning: no DWARF (compile with -g): its functions' return values will print untyped$" "$D/e")" 1 \
			"3: ... one warning for $o, naming -g"
	done
	is "$(rec "$D/e" --mode=user --no-protos "$D/un.o") $(nlines "$D/e")" "0 0" \
		"3: --no-protos (values untyped by choice): no warning"
	# Kernel-style (-fno-pic: finding 5 would warn about a PIE object).
	compile_ok "no -g" gcc -O1 -pg -fno-pic -c -o "$D/k.o" "$D/u.c" || return
	cp "$D/k.o" "$D/kw.o"
	is "$(rec "$D/e" "$D/k.o") $(nlines "$D/e")" "0 0" "3: kernel mode: silent"
	is "$(rec "$D/e" -w "$D/kw.o") $(nlines "$D/e")" "0 0" "3: kernel mode with -w (Kbuild's RECORDMCOUNT_WARN): silent"
	f=$(funcs "$D/u2.o")
	n=$(echo "$f" | wc -w)
	is "$(chk "$D/o" "$D/u2.o") $(grep -c ': clean; object' "$D/o")" "0 1" "3: --check on an object without -g: exit 0, clean"
	is "$(grep -c "u2.o: $n functions without a prototype, their values print untyped (a note, not an error; compile with -g" "$D/o")" 1 \
		"3: ... one note line: $n functions without a prototype, compile with -g"
	is "$(sed -n 's/^[^ ]*u2.o: [0-9]* functions without a prototype, .*): \(.*\)$/\1/p' "$D/o" | tr -d ',' | tr ' ' '\n' | grep . | sort | tr '\n' ' ')" \
		"$f" "3: ... naming each of its functions ($f)"
	"$RMC" --check --json "$D/u2.o" > "$D/j" 2> /dev/null
	is "$(json 'f["status"], f["untyped"], len(f["findings"]), " ".join(sorted(x["function"] for x in f["notes"] if x["kind"] == "untyped"))' "$D/j")" \
		"('clean', $n, 0, '${f% }')" "3: --json: clean, untyped counted, each one in notes, no finding"
	# A program of a -g object and one without: exactly the latter's functions.
	compile_ok "no -g" gcc -o "$D/mixed" "$D/m1.o" "$D/u2.o" || return
	"$RMC" --check --json "$D/mixed" > "$D/j" 2> /dev/null
	is "$(json '" ".join(sorted(x["function"] for x in f["notes"]))' "$D/j") $(chk "$D/o" "$D/mixed")" "${f% } 0" \
		"3: a program linking a -g object and one without: the notes name the latter's functions only; exit 0"
	local g
	for g in "-g1" "-g -g1" "-ggdb1"; do
		# shellcheck disable=SC2086
		compile_ok "$g" gcc -O1 $g -pg -c -o "$D/g1.o" "$D/u.c" || return
		is "$(rec "$D/e" --mode=user "$D/g1.o") $(nlines "$D/e")" "0 1" "3: user mode, an object built with $g: exit 0, one line"
		grep -q "^recordmcount: $D/g1.o: warning: DWARF built at -g1 (no types): its functions get no prototype .*: compile with -g$" "$D/e"
		ok $? "3: ... a warning naming -g1 and the fix"
		"$RMC" --check --json "$D/g1.o" > "$D/j" 2> /dev/null
		is "$(json 'f["status"], f["untyped"]' "$D/j")" "('clean', $n)" "3: ... --check: clean, all $n functions untyped (no void f(void))"
		chk "$D/o" "$D/g1.o" > /dev/null
		grep -q "g1.o: $n functions without a prototype, .*the DWARF has no concrete entry for them: .*code built at -g1)" "$D/o"
		ok $? "3: ... the note's advice names the cause, not -g"
	done
	compile_ok "-g1 -g" gcc -O1 -g1 -g -pg -c -o "$D/g2.o" "$D/u.c" || return
	is "$(rec "$D/e" --mode=user "$D/g2.o") $(nlines "$D/e") $(chk "$D/o" "$D/g2.o") $(grep -c 'without a prototype' "$D/o")" "0 0 0 0" \
		"3: -g1 -g (the last counts): no warning, every function typed"
}

lto() {
	local d=$D/lto n
	mkdir -p "$d"
	compile_ok "gcc -flto" gcc -O2 -g -pg -flto -c -o "$d/slim.o" "$D/u.c" || return
	cp "$d/slim.o" "$d/slim.orig"
	is "$(rec "$d/e" --mode=user "$d/slim.o") $(nlines "$d/e")" "1 1" "4: gcc -flto object: exit 1, one line"
	grep -q "^recordmcount: $d/slim.o: GCC LTO object (-flto): its code is not compiled yet.*compile without -flto, or add -ffat-lto-objects and link with -fno-lto$" "$d/e"
	ok $? "4: ... saying why and what to do"
	cmp -s "$d/slim.o" "$d/slim.orig"
	ok $? "4: ... the object left as it was"
	is "$(rec "$d/e" "$d/slim.o") $(chk "$d/o" "$d/slim.o") $(grep -c 'GCC LTO object (-flto)' "$d/o")" "1 2 1" \
		"4: kernel mode too (exit 1); --check: exit 2, the same line"
	compile_ok "gcc -ffat-lto-objects" gcc -O2 -g -pg -flto -ffat-lto-objects -c -o "$d/fat.o" "$D/u.c" || return
	n=$(readelf -rW "$d/fat.o" | grep -cw mcount)
	is "$(rec "$d/e" --mode=user "$d/fat.o") $(nlines "$d/e") $(grep -c 'warning: GCC LTO object with fat code (-ffat-lto-objects): recorded, but an LTO link drops the table: link with -fno-lto$' "$d/e")" \
		"0 1 1" "4: gcc -flto -ffat-lto-objects: recorded (exit 0), one warning: link with -fno-lto"
	is "$("$RMC" --list "$d/fat.o" | grep -c .)" "$n" "4: ... its $n calls to mcount are in the table"
	compile_ok "fat link" gcc -O2 -g -pg -c -o "$d/m.o" "$D/m.c" && "$RMC" --mode=user "$d/m.o" &&
		compile_ok "fat link" gcc -fno-lto -o "$d/fatprog" "$d/m.o" "$d/fat.o" || return
	is "$(chk "$d/o" "$d/fatprog") $("$RMC" --list "$d/fatprog" | grep -c .)" "0 $((n + $("$RMC" --list "$d/m.o" | grep -c .)))" \
		"4: ... linked with -fno-lto, the program keeps every entry and passes --check"
	if ! command -v clang > /dev/null; then
		skip "clang not installed"
		return
	fi
	compile_ok "clang -flto" clang -O2 -pg -flto -c -o "$d/bc.o" "$D/u.c" || return
	cp "$d/bc.o" "$d/bc.orig"
	is "$(rec "$d/e" --mode=user "$d/bc.o") $(nlines "$d/e") $(grep -c "^recordmcount: $d/bc.o: LLVM bitcode (clang -flto), not ELF: .*compile without -flto$" "$d/e")" \
		"1 1 1" "4: clang -flto (bitcode): exit 1, one line saying what it is and what to do"
	cmp -s "$d/bc.o" "$d/bc.orig"
	ok $? "4: ... the file left as it was"
	is "$(chk "$d/o" "$d/bc.o") $(grep -c 'LLVM bitcode' "$d/o")" "2 1" "4: clang -flto: --check exit 2, the same line"
	compile_ok "clang -flto=thin" clang -O2 -pg -flto=thin -c -o "$d/thin.o" "$D/u.c" || return
	is "$(rec "$d/e" --mode=user "$d/thin.o") $(grep -c 'LLVM bitcode (clang -flto)' "$d/e")" "1 1" "4: clang -flto=thin: the same"
	# The bitcode wrapper: magic 0x0B17C0DE, little-endian, then the bitcode.
	{ printf '\336\300\027\013'; head -c 60 /dev/zero; cat "$d/bc.o"; } > "$d/wrapped.o"
	is "$(rec "$d/e" --mode=user "$d/wrapped.o") $(grep -c 'LLVM bitcode (clang -flto)' "$d/e")" "1 1" \
		"4: bitcode in its wrapper: recognised too"
}

# The warning of finding 5, counted in a stderr file.
pic_lines() { grep -c "^recordmcount: .*: warning: position-independent code (-fPIE or -fPIC: .*) recorded in kernel mode: .*--mode=user$" "$1"; }

pic() {
	local d=$D/pic v
	mkdir -p "$d"
	for v in -fPIE -fPIC '-fPIE -mfentry'; do
		# shellcheck disable=SC2086
		compile_ok "gcc $v" gcc -O2 -pg $v -c -o "$d/k.o" "$CHK/a.c" || return
		cp "$d/k.o" "$d/u.o"
		is "$(rec "$d/e" "$d/k.o") $(nlines "$d/e") $(pic_lines "$d/e")" "0 1 1" \
			"5: gcc $v -pg in kernel mode: exit 0, one warning naming --mode=user"
		is "$(rec "$d/e" --mode=user "$d/u.o") $(pic_lines "$d/e")" "0 0" "5: gcc $v in user mode: no warning"
	done
	if command -v i686-linux-gnu-gcc > /dev/null; then
		compile_ok "i686 -fPIE" i686-linux-gnu-gcc -O2 -pg -fPIE -c -o "$d/k32.o" "$CHK/a.c" || return
		is "$(rec "$d/e" "$d/k32.o") $(pic_lines "$d/e")" "0 1" "5: i386 gcc -fPIE in kernel mode: the warning"
	else
		skip "i686-linux-gnu-gcc not installed"
	fi
}

# Kernel-style objects (each target's kernel flags, gcc and clang): no
# warning of any kind, with or without -w.
kernel_silent() {
	local name=$1 prefix=$2 ctarget=$3 kflags=$4 d=$D/k-$1 cc
	mkdir -p "$d"
	for cc in gcc clang; do
		if [ $cc = gcc ]; then
			command -v "${prefix}gcc" > /dev/null || { skip "$name: ${prefix}gcc not installed"; continue; }
			set -- "${prefix}gcc"
		else
			{ [ "$ctarget" != - ] && command -v clang > /dev/null; } || continue
			set -- clang --target="$ctarget"
		fi
		# shellcheck disable=SC2086
		compile_ok "$name $cc" "$@" -O2 -pg $kflags -c -o "$d/$cc.o" "$CHK/a.c" || continue
		cp "$d/$cc.o" "$d/$cc-w.o"
		is "$(rec "$d/e" "$d/$cc.o") $(rec "$d/ew" -w "$d/$cc-w.o") $(cat "$d/e" "$d/ew" | grep -c .)" "0 0 0" \
			"5: $name $cc kernel-style object (-pg $kflags), kernel mode, with and without -w: no warning"
	done
}

if [ "$(uname -m)" != x86_64 ] || ! command -v gcc > /dev/null; then
	skip "native x86_64 gcc needed"
	done_testing
	exit
fi
no_table
list_no_table
no_dwarf
lto
pic
for_each_arch kernel_silent
done_testing
