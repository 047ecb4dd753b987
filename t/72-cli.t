#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# objpatch's command line as a user meets it:
#  - every subcommand takes --opt=value and --opt value alike, the short
#    options (-F, -o, -D, -j, -i), and -h/--help (its usage on standard
#    output, exit 0); `objpatch --version` and `recordmcount --version`
#    print the Makefile's version; a usage error is one line and exit 2;
#  - nothing traceable is said, never an empty trace with status 0:
#    `objpatch list` of a file without recorded sites, `objpatch run` of a
#    program without any (its libraries' count: a program whose sites are
#    all in a library is traced quietly), a static program;
#  - the output is opened before the program starts, and a trace that
#    cannot be written (/dev/full) is a non-zero exit, for run, record and
#    report;
#  - every option's value is checked where the user gave it (--depth,
#    --format, --filter), naming the option, before the program runs.
# Programs are built here: with and without -pg, static, and one whose
# only recorded sites are in a shared library.
. "$(dirname "$0")/lib.sh"

OBJPATCH=$TOP/build/objpatch
D=$T_TMP
VERSION=$(sed -n 's/^VERSION := //p' "$TOP/Makefile")

if [ "$(uname -m)" != x86_64 ] || [ "$(uname -s)" != Linux ]; then
	skip "the runtime is implemented and tested on x86_64 Linux (this is $(uname -sm))"
	done_testing
	exit
fi

# ---- the programs ----
cat > "$D/p.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
int __attribute__((noinline)) add(int a, int b) { return a + b; }
int main(int argc, char **argv)
{
	printf("%d\n", add(1, 2));
	return argc > 1 ? atoi(argv[1]) : 0;
}
EOF
cat > "$D/lib.c" <<'EOF'
int __attribute__((noinline)) lib_twice(int x) { return 2 * x; }
EOF
cat > "$D/uselib.c" <<'EOF'
#include <stdio.h>
int lib_twice(int x);
int main(void) { printf("%d\n", lib_twice(21)); return 0; }
EOF
built=0
compile_ok "plain (no -pg)" gcc -O2 -g -o "$D/plain" "$D/p.c" &&
compile_ok "prog (-pg)" gcc -O2 -g -pg -c "$D/p.c" -o "$D/p.o" &&
compile_ok "prog: recordmcount --mode=user" "$RMC" --mode=user "$D/p.o" &&
compile_ok "prog: link" gcc -o "$D/prog" "$D/p.o" &&
compile_ok "libsites.so (-pg)" gcc -O2 -g -pg -fPIC -c "$D/lib.c" -o "$D/lib.o" &&
compile_ok "libsites.so: recordmcount" "$RMC" --mode=user "$D/lib.o" &&
compile_ok "libsites.so: link" gcc -shared -o "$D/libsites.so" "$D/lib.o" &&
compile_ok "uselib (no -pg, links libsites.so)" gcc -O2 -o "$D/uselib" "$D/uselib.c" -L"$D" -lsites \
	-Wl,-rpath,"$D" && built=1
static=0
gcc -static -O2 -o "$D/static" "$D/p.c" 2>/dev/null && static=1

# ---- helpers ----

# outcome CMD...: runs it; $rc, $out (standard output), $err (standard error).
outcome() {
	out=$("$@" 2> "$D/err" < /dev/null)
	rc=$?
	err=$(cat "$D/err")
}

# fails LABEL STATUS REGEX CMD...: exit STATUS, and exactly one line on
# standard error, matching the extended REGEX.
fails() {
	local label=$1 want=$2 re=$3
	shift 3
	outcome "$@"
	if [ "$rc" = "$want" ] && [ -n "$err" ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] &&
	   grep -qE -- "$re" <<< "$err"; then
		ok 0 "$label: exit $want, one line"
	else
		ok 1 "$label: exit $want, one line matching /$re/"
		diag "status $rc" "stderr: $err"
	fi
}

# ---- conventions ----

outcome "$OBJPATCH" --version
is "$rc $out" "0 objpatch $VERSION" "objpatch --version: its name and the Makefile's version, exit 0"
outcome "$RMC" --version
is "$rc $out" "0 recordmcount $VERSION" "recordmcount --version: its name and the Makefile's version, exit 0"
outcome "$OBJPATCH" --help
is "$rc|$(head -1 <<< "$out" | cut -d' ' -f1-2)|$err" "0|usage: objpatch|" "objpatch --help: usage on standard output, exit 0"

for sub in run record report list annotate; do
	for h in --help -h; do
		outcome "$OBJPATCH" "$sub" "$h"
		if [ "$rc" = 0 ] && [ -z "$err" ] && grep -q "^usage: objpatch $sub " <<< "$out" &&
		   grep -q -- '-h, --help' <<< "$out"; then
			ok 0 "objpatch $sub $h: its usage on standard output, exit 0"
		else
			ok 1 "objpatch $sub $h: its usage on standard output, exit 0"
			diag "status $rc" "stdout: $out" "stderr: $err"
		fi
	done
done

fails "objpatch alone" 2 '^objpatch: no command: ' "$OBJPATCH"
fails "an unknown command" 2 '^objpatch: unknown command frob: ' "$OBJPATCH" frob
# Every command is in the usage and in the line that names the commands.
help=$("$OBJPATCH" --help 2>&1)
unknown=$("$OBJPATCH" frob 2>&1)
for sub in list run record report annotate attach; do
	grep -qE "^( *|usage: )objpatch $sub " <<< "$help" && grep -qE "[ ,]$sub[ ,]" <<< "${unknown%%(*}"
	ok $? "objpatch --help and the unknown-command line name '$sub'"
done
fails "run: an unknown option" 2 '^objpatch run: unknown option --bogus: objpatch run --help' \
	"$OBJPATCH" run --bogus -- "$D/prog"
fails "run: an option without its value" 2 '^objpatch run: --output needs a value' "$OBJPATCH" run --output
fails "run: a flag given a value" 2 '^objpatch run: --hex takes no value' "$OBJPATCH" run --hex=1 -- "$D/prog"
fails "run: no program" 2 '^objpatch run: no program to run' "$OBJPATCH" run --hex
fails "record: --format is run's" 2 '^objpatch record: unknown option --format' \
	"$OBJPATCH" record --format json -- "$D/prog"
fails "report: two recordings" 2 '^objpatch report: b: one recording at a time' "$OBJPATCH" report a b
fails "report: --format=xml" 2 '^objpatch report: --format xml: .*text, json, folded, svg or perfetto' \
	"$OBJPATCH" report --format=xml
fails "list: no file" 2 '^objpatch list: no file' "$OBJPATCH" list --json
fails "annotate: no --image" 2 '^objpatch annotate: no --image' "$OBJPATCH" annotate
fails "annotate: an unknown option" 2 '^objpatch annotate: unknown option --frobnicate' \
	"$OBJPATCH" annotate --image=x --frobnicate
fails "run: a program that is not there" 127 '^objpatch run: /nonexistent/prog: No such file or directory: give the path' \
	"$OBJPATCH" run -- /nonexistent/prog
fails "run: a program not on PATH" 127 '^objpatch run: no-such-prog-here: No such file or directory: not on PATH: give its path \(\./PROGRAM' \
	"$OBJPATCH" run -- no-such-prog-here
fails "run: a file that is not executable" 127 '^objpatch run: .*/p\.c: Permission denied: not an executable file' \
	"$OBJPATCH" run -- "$D/p.c"
fails "recordmcount: an unknown option" 2 '^recordmcount: unknown option --bogus: recordmcount --help' \
	"$RMC" --bogus x.o
fails "recordmcount: an option without its value" 2 '^recordmcount: -o needs a value' "$RMC" -o
fails "recordmcount: no file" 2 '^recordmcount: no input file: ' "$RMC" --mode=user

if [ "$built" = 1 ]; then
	# The same trace from --opt=value, --opt value and the short options.
	"$OBJPATCH" run --output="$D/eq.json" --format=json --filter=add --depth=8 -- "$D/prog" > /dev/null
	r1=$?
	"$OBJPATCH" run --output "$D/sp.json" --format json --filter add --depth 8 -- "$D/prog" > /dev/null
	r2=$?
	"$OBJPATCH" run -o"$D/sh.json" --format json -F add -D 8 "$D/prog" > /dev/null
	r3=$?
	n=0
	for f in eq sp sh; do
		grep -q '"name":"add"' "$D/$f.json" && ! grep -q '"name":"main"' "$D/$f.json" && n=$((n + 1))
	done
	is "$r1 $r2 $r3 $n" "0 0 0 3" \
		"run: --opt=value, --opt value and -F/-o/-D give a JSON trace of add alone, all three"
	"$OBJPATCH" record --output="$D/r.data" --filter=add -- "$D/prog" > /dev/null &&
	"$OBJPATCH" report --format=json --output="$D/r1.json" "$D/r.data" &&
	"$OBJPATCH" report -o "$D/r2.json" --format json "$D/r.data"
	rc=$?
	cmp -s "$D/r1.json" "$D/r2.json" && grep -q '"name":"add"' "$D/r1.json"
	is "$rc $?" "0 0" "record and report: --opt=value and the short -o write the same trace"
	"$OBJPATCH" list --json "$D/prog" > "$D/l1" && "$OBJPATCH" list -j "$D/prog" > "$D/l2"
	rc=$?
	cmp -s "$D/l1" "$D/l2" && grep -q '"function": "add"' "$D/l1"
	is "$rc $?" "0 0" "list: -j is --json"

	# ---- finding 1: nothing traceable ----
	fails "list of a program built without -pg" 1 \
		"^objpatch: $D/plain: no recorded call sites: compile with -pg and run recordmcount --mode=user on its objects\$" \
		"$OBJPATCH" list "$D/plain"
	is "$out" "" "list of a program without sites: nothing on standard output"
	if [ -e /bin/ls ]; then
		fails "list /bin/ls" 1 '^objpatch: /bin/ls: no recorded call sites: ' "$OBJPATCH" list /bin/ls
	fi
	outcome "$OBJPATCH" list --json "$D/plain"
	is "$rc $out" "1 []" "list --json of a program without sites: an empty array, exit 1"
	outcome "$OBJPATCH" list "$D/prog" "$D/plain"
	grep -q ' int add(int a, int b)$' <<< "$out"
	is "$rc $? $(wc -l <<< "$err")" "1 0 1" "list of one good file and one without sites: the good one listed, exit 1"

	fails "run of a program built without -pg" 1 \
		"^objpatch run: $D/plain: no recorded call sites in the program or its libraries: compile with -pg and run recordmcount --mode=user on its objects\$" \
		"$OBJPATCH" run -- "$D/plain"
	is "$out" 3 "run of a program without sites: the program still ran"
	fails "record of a program built without -pg" 1 'no recorded call sites in the program or its libraries' \
		"$OBJPATCH" record --output "$D/plain.data" -- "$D/plain"
	outcome "$OBJPATCH" run --output "$D/prog.txt" -- "$D/prog"
	is "$rc $err" "0 " "run of a recorded program: exit 0, nothing on standard error"
	outcome "$OBJPATCH" run --output "$D/uselib.txt" -- "$D/uselib"
	grep -q 'lib_twice(); /\* ret=42 \*/' "$D/uselib.txt"
	is "$rc $? $err" "0 0 " "run of a program whose sites are all in its library: traced, no complaint"
	outcome "$OBJPATCH" run --output "$D/sh.txt" -- sh -c "$D/plain; $D/prog"
	is "$rc $err" "0 " "run of a shell starting a program with sites: the shell's lack of sites is no error"
	outcome "$OBJPATCH" run --output "$D/st.txt" -- "$D/prog" 5
	is "$rc $err" "5 " "the program's own status is run's"
	outcome "$OBJPATCH" run -- "$D/plain" 5
	grep -q 'no recorded call sites' <<< "$err"
	is "$rc $?" "5 0" "a program without sites exiting 5: said, and its status kept"
	if [ "$static" = 1 ]; then
		fails "run of a static program (the runtime cannot load)" 1 \
			"^objpatch run: $D/static: no trace: the runtime was not loaded" "$OBJPATCH" run -- "$D/static"
	else
		skip "gcc -static does not link here (no libc.a)"
	fi

	# ---- finding 8: the output ----
	fails "run --output in a directory that does not exist" 2 \
		"^objpatch run: --output $D/none/x: No such file or directory: " \
		"$OBJPATCH" run --output "$D/none/x" -- "$D/prog"
	is "$out" "" "run --output that cannot be opened: the program did not run"
	fails "record --output in a directory that does not exist" 2 "^objpatch record: --output $D/none/x: " \
		"$OBJPATCH" record --output "$D/none/x" -- "$D/prog"
	fails "report --output in a directory that does not exist" 2 \
		"^objpatch report: --output $D/none/x: No such file or directory: give a file in a directory you can write" \
		"$OBJPATCH" report --output "$D/none/x" "$D/r.data"
	printf 'not a recording\n' > "$D/not.data"
	"$OBJPATCH" report --output "$D/from-bad.txt" "$D/not.data" 2> /dev/null
	is "$? $([ -e "$D/from-bad.txt" ] && echo left || echo none)" "1 none" \
		"report of a file that is not a recording: exit 1, no empty output left"
	if [ -w /dev/full ]; then
		fails "run --output /dev/full (every write fails)" 1 \
			'^objpatch run: /dev/full: the trace of 1 of 1 processes could not be written: ' \
			"$OBJPATCH" run --output /dev/full -- "$D/prog"
		outcome "$OBJPATCH" record --output /dev/full -- "$D/prog"
		is "$rc $(grep -c '^objpatch record: /dev/full: the trace of 1 of 1 processes could not be written' <<< "$err")" \
			"1 1" "record --output /dev/full: exit 1, said"
		fails "report --output /dev/full" 1 '^objpatch report: /dev/full: the trace could not be written whole' \
			"$OBJPATCH" report --output /dev/full "$D/r.data"
	else
		skip "no writable /dev/full"
	fi
else
	diag "the test programs did not build: the run, list and output checks are left out"
fi

# ---- finding 9: every value checked where the user gave it ----
max=$(($(sed -n 's/^#define EV_DEPTH_MAX[[:space:]]*\([0-9a-fx]*\).*/\1/p' "$TOP/trace/event.h")))
for bad in abc 0 -1 "$((max + 1))" 8x ""; do
	fails "run --depth '$bad'" 2 "^objpatch run: --depth $bad: not a whole number from 1 to $max" \
		"$OBJPATCH" run --depth="$bad" -- "$D/prog"
	[ -z "$out" ] && ! grep -q OBJPATCH_DEPTH <<< "$err"
	ok $? "run --depth '$bad': the program did not run, no word of OBJPATCH_DEPTH"
done
fails "record -D abc" 2 '^objpatch record: --depth abc: ' "$OBJPATCH" record -D abc -- "$D/prog"
fails "run --format xml" 2 '^objpatch run: --format xml: not a format: give text, json, folded, svg or perfetto' \
	"$OBJPATCH" run --format xml -- "$D/prog"
fails "run --filter 'a,b'" 2 "^objpatch run: --filter a,b: a pattern cannot hold ','" \
	"$OBJPATCH" run --filter a,b -- "$D/prog"
fails "run --filter ''" 2 '^objpatch run: --filter : an empty pattern' "$OBJPATCH" run --filter '' -- "$D/prog"
fails "run --filter '!'" 2 '^objpatch run: --filter !: an empty pattern' "$OBJPATCH" run --filter '!' -- "$D/prog"
fails "run --filter 'ad['" 2 "^objpatch run: --filter ad\\[: an unclosed '\\['" \
	"$OBJPATCH" run --filter 'ad[' -- "$D/prog"
if [ "$built" = 1 ]; then
	outcome "$OBJPATCH" run --depth "$max" --filter '[a]d[]d]' --output "$D/ok.txt" -- "$D/prog"
	grep -q 'add(); /\* ret=3 \*/' "$D/ok.txt"
	is "$rc $? $err" "0 0 " "run --depth $max --filter '[a]d[]d]': accepted, add traced"
fi

done_testing
