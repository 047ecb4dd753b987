#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A program one of whose objects was compiled with -pg but never recorded:
# its functions call the hook with no table entry, and `objpatch list`
# says how many and names one (tables/calls.c decodes each function's
# first bytes, as recordmcount --check does).  Once every object is
# recorded, or when no function calls the hook, it says nothing; stripped,
# it cannot tell functions apart and stays silent rather than guess.
# gcc and clang, -pg and -pg -mfentry.  A few seconds.
. "$(dirname "$0")/lib.sh"
OBJPATCH=$TOP/build/objpatch

cat > "$T_TMP/a.c" <<'C'
int helper(int), helper2(int);
int main(int argc, char **argv) { (void)argv; return helper(argc) + helper2(argc) - 6; }
C
cat > "$T_TMP/b.c" <<'C'
int helper(int x) { return x + 1; }
int helper2(int x) { return x * 3; }
C

variant() {	# variant CC FLAGS...
	local cc=$1 label="$*" d
	shift
	d=$T_TMP/${label// /_}
	mkdir -p "$d"
	command -v "$cc" >/dev/null || { skip "$cc is not installed"; return; }
	compile_ok "$label" "$cc" -O2 -g "$@" -c "$T_TMP/a.c" -o "$d/a.o" &&
		compile_ok "$label" "$cc" -O2 -g "$@" -c "$T_TMP/b.c" -o "$d/b.o" || return
	cp "$d/b.o" "$d/b-plain.o"
	"$RMC" --mode=user "$d/a.o" && "$cc" "$d/a.o" "$d/b.o" -o "$d/half" || { ok 1 "$label: link"; return; }
	"$OBJPATCH" list "$d/half" >"$d/out" 2>"$d/err"
	is "$?" 0 "$label: list lists what is recorded (status 0)"
	grep -q '^0x[0-9a-f]* int main(' "$d/out"
	ok $? "$label: main is listed"
	is "$(grep -c 'warning: 2 functions call the hook with no table entry' "$d/err")" 1 \
		"$label: one warning, counting the 2 unrecorded functions"
	grep -q 'first: helper).*recordmcount --mode=user.*recordmcount --check' "$d/err"
	ok $? "$label: it names one and says what to do"
	strip "$d/half" -o "$d/half-stripped"
	"$OBJPATCH" list "$d/half-stripped" >/dev/null 2>"$d/err-stripped"
	is "$(grep -c warning "$d/err-stripped")" 0 "$label: stripped, no guess"
	"$RMC" --mode=user "$d/b.o" && "$cc" "$d/a.o" "$d/b.o" -o "$d/whole" || { ok 1 "$label: link"; return; }
	"$OBJPATCH" list "$d/whole" >/dev/null 2>"$d/err-whole"
	is "$(cat "$d/err-whole")" "" "$label: every object recorded: no warning"
}

variant gcc -pg
variant gcc -pg -mfentry
variant clang -pg
variant clang -pg -mfentry
done_testing
