#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Which DWARF describes a function, and by which name (man/mcount-tables.5):
#  1. functions whose DWARF has no code range of their own (gcc -O2
#     -fipa-icf): a DIE without DW_AT_low_pc (testdata/protos/nocode.c's
#     free_b), an abstract instance without a concrete DIE (enter_b); both
#     take the prototype of the DIE that names them;
#  2. two such DIEs that disagree: one warning line, the first kept as
#     unreliable;
#  3. C++ names: a function in an anonymous namespace reads
#     "(anonymous namespace)::real_main", not its mangled symbol, and a
#     template's .isra clone keeps its suffix, in `objpatch list` and in
#     the trace of `objpatch run`.
. "$(dirname "$0")/lib.sh"

SRC=$TOP/testdata/protos
OBJPATCH=$TOP/build/objpatch
command -v python3 >/dev/null || { echo "Bail out! python3 is needed"; exit 1; }
[ -x "$OBJPATCH" ] || { echo "Bail out! build/objpatch is missing (make)"; exit 1; }
T=$T_TMP

# line_of FILE NAME: the `objpatch list` line whose function is NAME
line_of() { "$OBJPATCH" list "$1" | awk -v n="$2" '{ l = $0; sub(/\(.*/, "", l); k = split(l, w, / /); if (w[k] == n || w[k] == "*" n) print }'; }

# ---- 1. DIEs without code ----
if compile_ok "nocode.c" gcc -O2 -g -pg -c "$SRC/nocode.c" -o "$T/nocode.o"; then
	nocode=$(readelf --debug-dump=info "$T/nocode.o" | python3 "$SRC/nocode.py" | tr '\n' ' ')
	is "$nocode" "enter_b free_b " "nocode.c: gcc describes enter_b and free_b by DIEs without code (the case under test)"
	err=$("$RMC" --mode=user "$T/nocode.o" 2>&1)
	ok $? "nocode.c: recordmcount --mode=user"
	is "$err" "" "nocode.c: DIEs that agree: no warning"
	is "$(line_of "$T/nocode.o" free_b | cut -d' ' -f2-)" "void free_b(struct ctx *c)" \
		"a function folded by -fipa-icf (DIE without low_pc) has its prototype"
	is "$(line_of "$T/nocode.o" enter_b | cut -d' ' -f2-)" "void enter_b(void)" \
		"a function with an abstract instance only (DW_AT_inline, no concrete DIE) has its prototype"
	is "$(line_of "$T/nocode.o" free_a | cut -d' ' -f2-)" "void free_a(struct ctx *c)" \
		"nocode.c: the function with code keeps its own"
fi

# ---- 2. two DIEs without code that disagree ----
# The unit's string "enter_b" renamed "free_b": two DIEs without code name
# free_b, one void (struct ctx *), one void (void).
if compile_ok "nocode.c -S" gcc -O2 -g -pg -S "$SRC/nocode.c" -o "$T/twice.s"; then
	sed -i 's/^\(\s*\.string\s*\)"enter_b"$/\1"free_b"/' "$T/twice.s"
	is "$(grep -c '\.string.*"free_b"$' "$T/twice.s")" 2 "twice.s: two strings free_b in the unit (the case under test)"
	if compile_ok "twice.s" gcc -c "$T/twice.s" -o "$T/twice.o"; then
		err=$("$RMC" --mode=user "$T/twice.o" 2>&1)
		ok $? "two descriptions that disagree: a warning keeps status 0"
		if [[ $err == "recordmcount: $T/twice.o: warning: free_b: two DWARF descriptions without code disagree (DIEs 0x"*" and 0x"*"): the first is kept as unreliable, its values print raw; build with -fno-ipa-icf for one description per function" ]]; then
			ok 0 "two descriptions that disagree: one warning line naming the function"
		else
			ok 1 "two descriptions that disagree: one warning line naming the function"
			diag "got: $err"
		fi
		line=$(line_of "$T/twice.o" free_b | cut -d' ' -f2-)
		is "${line##* }" "[unreliable]" "two descriptions that disagree: the prototype is unreliable"
	fi
fi

# ---- 3. C++ names ----
if compile_ok "names.cc" g++ -O2 -g -pg -c "$SRC/names.cc" -o "$T/names.o"; then
	syms=$(nm "$T/names.o")
	anon=$(awk '$3 ~ /^_ZN12_GLOBAL__N_1.*real_main/ { print $3 }' <<< "$syms")
	isra=$(awk '$3 ~ /sra.*\.isra\.[0-9]+$/ { print $3 }' <<< "$syms")
	ok $([ -n "$anon" ] && [ -n "$isra" ]; echo $?) "names.cc: g++ made a mangled anonymous-namespace symbol ($anon) and an .isra clone ($isra)"
	run_ok "names.cc: recordmcount --mode=user" "$RMC" --mode=user "$T/names.o"
	suffix=${isra##*.isra}
	listed=$("$OBJPATCH" list --json "$T/names.o" | python3 -c '
import json, sys
print(" ".join(sorted(f["function"] for f in json.load(sys.stdin))))')
	is "$listed" "(anonymous namespace)::real_main main ns::call ns::sra<char const*>.isra$suffix" \
		"names.cc: list names every function as DWARF reads, qualified, the clone with its suffix"
	if compile_ok "names link" g++ -o "$T/names" "$T/names.o"; then
		"$OBJPATCH" run --output "$T/names.txt" -- "$T/names" >/dev/null
		ok $? "names.cc: objpatch run"
		traced=$(python3 -c '
import re, sys
print(" ".join(sorted({m.group(1) for m in re.finditer(r"\| +([^ |}].*?)\(\)[ ;]", open(sys.argv[1]).read())})))' "$T/names.txt")
		is "$traced" "(anonymous namespace)::real_main main ns::sra<char const*>.isra$suffix" \
			"names.cc: the trace uses the same names"
	fi
fi

done_testing
