#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The runtime never fails in silence: each mistake a user can
# make with it gets one line on stderr, and the trace says what it holds.
#  - filters: a pattern that matches nothing is named on stderr and the
#    trace says nothing was traced; "!fib" alone is everything but fib;
#    "fib, area" traces both; objpatch_enable() refuses a pattern that
#    matches nothing or is malformed (-1, objpatch_error() says why);
#    objpatch run -F that selects nothing exits 1 with one line naming
#    --filter and the patterns typed, one that selects some exits 0;
#  - an object left unrecorded: OBJPATCH_STATS=1 names how many functions
#    call the hook without a table entry, where, and one of them;
#  - every OBJPATCH_* value is checked: a bad one stops the program
#    before main (status 2) with one line naming the variable, the value
#    and the valid ones; an unknown OBJPATCH_ variable is named;
#  - every process gets its own trace, the format's extension last:
#    programs a shell starts, and forked children (t.PID.json);
#  - with full buffers, frames whose exit was lost are "lost" and frames
#    still running at exit are "unfinished".
# Programs are built at test time: -pg objects, recordmcount --mode=user.
. "$(dirname "$0")/rt-lib.sh"

if [ "$(uname -m)" != x86_64 ] || [ "$(uname -s)" != Linux ]; then
	skip "the runtime is tested on x86_64 Linux (this is $(uname -sm))"
	done_testing
	exit
fi
LIB=$TOP/build/libobjpatch.so
D=$T_TMP
unset OBJPATCH_FIRST_PID	# the naming starts from the first traced process here

# ---- the programs ----

cat > "$D/main.c" <<'EOF'
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
__attribute__((noinline)) int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
__attribute__((noinline)) int area(int a, int b) { return a * b; }
int helper(int x);
int helper2(int x);
int main(int argc, char **argv)
{
	printf("%d %d %d\n", fib(5), area(2, 3), helper(1) + helper2(2));
	if (argc > 1) {		/* a forked child traces into a file of its own */
		if (fork() == 0)
			return fib(3) == 2 ? 0 : 1;
		wait(NULL);
	}
	(void)argv;
	return 0;
}
EOF
cat > "$D/other.c" <<'EOF'
__attribute__((noinline)) int helper(int x) { return x * 3; }
__attribute__((noinline)) int helper2(int x) { return x + 3; }
EOF
cat > "$D/api.c" <<'EOF'
#include <stdio.h>
#include <string.h>
#include "objpatch.h"
__attribute__((noinline)) int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
static int bad(const char *what, int rc, const char *want)
{
	printf("%s = %d: %s\n", what, rc, objpatch_error());
	return rc == -1 && strstr(objpatch_error(), want) ? 0 : 1;
}
int main(void)
{
	int fails = 0, rc;

	fails += bad("enable(\"no_such_fn\")", objpatch_enable("no_such_fn"), "no function with a call site matches");
	fails += bad("enable(\"[\")", objpatch_enable("["), "'[' without its ']'");
	fails += bad("disable(\"fi\\\\\")", objpatch_disable("fi\\"), "quotes nothing");
	rc = objpatch_enable("fib");
	printf("enable(\"fib\") = %d\n", rc);
	fails += rc != 1;
	rc = objpatch_enable("f[i]b");
	printf("enable(\"f[i]b\") again = %d\n", rc);	/* matches, nothing left to change */
	fails += rc != 0;
	printf("fib(4) = %d\n", fib(4));
	return fails;
}
EOF
cat > "$D/full.c" <<'EOF'
/* Fills the buffers (OBJPATCH_BUFFER_MB=1) while work() waits in a thread
 * and stuck() blocks in another: work()'s and main()'s exits are lost,
 * stuck() still runs at exit. */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <unistd.h>
static sem_t in_work, in_stuck, filled;
__attribute__((noinline)) int leaf(int i) { return i + 1; }
/* Calls after the buffers filled: its own buffer fills too, and its exit finds no room. */
__attribute__((noinline)) void *work(void *p)
{
	long sum = 0;

	sem_post(&in_work);
	sem_wait(&filled);
	for (int i = 0; i < 100000; i++)
		sum += leaf(i);
	return sum ? p : NULL;
}
__attribute__((noinline)) void *stuck(void *p) { sem_post(&in_stuck); pause(); return p; }
int main(void)
{
	pthread_t a, b;
	long sum = 0;

	sem_init(&in_work, 0, 0);
	sem_init(&in_stuck, 0, 0);
	sem_init(&filled, 0, 0);
	pthread_create(&a, NULL, work, NULL);
	pthread_create(&b, NULL, stuck, NULL);
	sem_wait(&in_work);
	sem_wait(&in_stuck);
	for (int i = 0; i < 400000; i++)
		sum += leaf(i);
	sem_post(&filled);
	pthread_join(a, NULL);
	printf("%ld\n", sum);
	return 0;
}
EOF

build_prog() {	# build_prog NAME RECORDED.c... -- UNRECORDED.c...
	local name=$1 objs=() rec=() f
	shift
	for f in "$@"; do
		[ "$f" = -- ] && { rec=("${objs[@]}"); continue; }
		compile_ok "[$name] $f" gcc -std=gnu11 "${WARN[@]}" -O1 -g -pg -pthread -I"$TOP/objpatch/lib" \
			-c "$D/$f" -o "$D/${f%.c}.o" || return 1
		objs+=("$D/${f%.c}.o")
	done
	[ ${#rec[@]} -gt 0 ] || rec=("${objs[@]}")
	compile_ok "[$name] recordmcount --mode=user" "$RMC" --mode=user "${rec[@]}" &&
	compile_ok "[$name] link" gcc -pie -pthread -o "$D/$name" "${objs[@]}"
}

build_prog prog main.c other.c || { done_testing; exit 1; }
build_prog partial main.c -- other.c || { done_testing; exit 1; }
compile_ok "[api] build" gcc -std=gnu11 "${WARN[@]}" -O1 -g -pg -I"$TOP/objpatch/lib" -c "$D/api.c" -o "$D/api.o" &&
	compile_ok "[api] recordmcount" "$RMC" --mode=user "$D/api.o" &&
	compile_ok "[api] link with libobjpatch.a" gcc -pie -o "$D/api" "$D/api.o" "$TOP/build/libobjpatch.a" -lelf -ldl -pthread
build_prog full full.c || { done_testing; exit 1; }

# with_rt OUT ERR VAR=VALUE... -- PROG ARGS: runs PROG with the runtime preloaded; $? is its status.
with_rt() {
	local out=$1 err=$2 env=()
	shift 2
	while [ "$1" != -- ]; do env+=("$1"); shift; done
	shift
	# Preloaded into PROG only: a wrapper loading the runtime first would be the first process.
	timeout 60 env LD_PRELOAD="$LIB" "${env[@]}" "$@" > "$out" 2> "$err"
}

lines() { grep -c . "$1"; }

# ---- filters ----

with_rt "$D/out" "$D/err" OBJPATCH_FILTER=nothing OBJPATCH_OUTPUT="$D/nothing.txt" -- "$D/prog"
is "$?" 0 "filter 'nothing': the program runs (status 0)"
is "$(lines "$D/err")" 1 "filter 'nothing': one line on stderr"
grep -q '^objpatch: OBJPATCH_FILTER: "nothing" matches none of the [0-9]* functions with a call site: see their names with `objpatch list PROGRAM`$' "$D/err"
ok $? "filter 'nothing': the line names the pattern and how to see the names"
diag "$(cat "$D/err")"
grep -q '^# objpatch function graph' "$D/nothing.txt" &&
	grep -q '^# objpatch: no function traced: OBJPATCH_FILTER=nothing selects none of the [0-9]* functions with a call site$' "$D/nothing.txt"
ok $? "filter 'nothing': the trace has its header and says no function was traced"
with_rt "$D/out" "$D/err" OBJPATCH_FILTER=nothing OBJPATCH_FORMAT=json OBJPATCH_OUTPUT="$D/nothing.json" -- "$D/prog"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(0 if "no function traced" in d["otherData"]["note"] and not [e for e in d["traceEvents"] if e["ph"] != "M"] else 1)' "$D/nothing.json"
ok $? "filter 'nothing', JSON: no events but the names (M), otherData.note says no function was traced"

# Through objpatch run: its own option, and a filter that selects nothing is a failure.
timeout 60 "$TOP/build/objpatch" run -F 'nomatch_*' -o "$D/run-nothing.txt" -- "$D/prog" > /dev/null 2> "$D/err"
is "$? $(lines "$D/err")" "1 1" "run -F 'nomatch_*': exit 1, one line"
grep -q "^objpatch run: --filter 'nomatch_\*' selects none of the [0-9]* functions with a call site: see their names with \`objpatch list $D/prog\`$" "$D/err"
ok $? "run -F 'nomatch_*': the line names --filter, the pattern typed and how to see the names"
timeout 60 "$TOP/build/objpatch" run -F 'nomatch_*' -F area -o "$D/run-some.txt" -- "$D/prog" > /dev/null 2> "$D/err"
is "$? $(lines "$D/err")" "0 1" "run -F 'nomatch_*' -F area: exit 0, one line"
grep -q '^objpatch: --filter "nomatch_\*" matches none of the [0-9]* functions with a call site' "$D/err" &&
	grep -q 'area(); /\* ret=6 \*/' "$D/run-some.txt"
ok $? "run -F 'nomatch_*' -F area: the pattern that matched nothing is named as --filter, area traced"

with_rt "$D/out" "$D/err" 'OBJPATCH_FILTER=!fib' OBJPATCH_OUTPUT="$D/notfib.txt" -- "$D/prog"
! grep -q 'fib' "$D/notfib.txt" && grep -q 'area(); /\* ret=6 \*/' "$D/notfib.txt" && grep -q 'main() {' "$D/notfib.txt"
ok $? "filter '!fib' alone: everything but fib (main, area traced; fib not)"
[ -s "$D/err" ] && diag "$(cat "$D/err")"

with_rt "$D/out" "$D/err" 'OBJPATCH_FILTER=fib, area' OBJPATCH_OUTPUT="$D/trim.txt" -- "$D/prog"
grep -q 'area(); /\* ret=6 \*/' "$D/trim.txt" && grep -q 'fib() {' "$D/trim.txt" && ! grep -q 'main()' "$D/trim.txt"
ok $? "filter 'fib, area': the space is trimmed, both are traced (and only they)"
[ ! -s "$D/err" ]
ok $? "filter 'fib, area': nothing on stderr"

with_rt "$D/out" "$D/err" 'OBJPATCH_FILTER=fib,[ab' -- "$D/prog"
is "$?" 2 "filter 'fib,[ab': refused before main, status 2"
is "$(lines "$D/err")" 1 "filter 'fib,[ab': one line on stderr"
grep -qF 'objpatch: OBJPATCH_FILTER=fib,[ab: pattern "[ab": a '"'"'['"'"' without its '"'"']'"'"': fix it, or unset it' "$D/err"
ok $? "filter 'fib,[ab': the line names the variable, the pattern and the cause"
diag "$(cat "$D/err")"
[ ! -s "$D/out" ]
ok $? "filter 'fib,[ab': the program did not run"

OBJPATCH_FILTER=nothing OBJPATCH_OUTPUT="$D/api.txt" "$D/api" > "$D/api.out" 2> "$D/api.err"
is "$?" 0 "objpatch_enable/disable: no match and malformed patterns are -1 with a reason; a match is the sites changed"
diag "$(cat "$D/api.out")"
grep -q 'fib() {' "$D/api.txt" && ! grep -q 'no function traced' "$D/api.txt"
ok $? "OBJPATCH_FILTER=nothing, then objpatch_enable(\"fib\"): fib traced, no 'no function traced' line"

# ---- an object left unrecorded ----

with_rt "$D/out" "$D/err" OBJPATCH_STATS=1 OBJPATCH_FILTER='*' OBJPATCH_OUTPUT="$D/partial.txt" -- "$D/partial"
grep -q "^objpatch: $D/partial: 2 functions call the profiling hook without a table entry (first: helper), not traced: run recordmcount --mode=user on their objects before the link; recordmcount --check $D/partial lists them\$" "$D/err"
ok $? "OBJPATCH_STATS=1: the unrecorded object's 2 functions are counted, the module and one named"
diag "$(cat "$D/err")"
with_rt "$D/out" "$D/err" OBJPATCH_STATS=1 OBJPATCH_FILTER='*' OBJPATCH_OUTPUT="$D/all.txt" -- "$D/prog"
! grep -q 'without a table entry' "$D/err" && grep -q 'sites in' "$D/err"
ok $? "OBJPATCH_STATS=1: every object recorded, no such line"

# ---- every variable checked ----

bad_value() {	# bad_value VAR=VALUE EXPECTED-LINE
	local assign=$1 want=$2
	with_rt "$D/out" "$D/err" "$assign" -- "$D/prog"
	is "$?" 2 "$assign: refused before main, status 2"
	is "$(cat "$D/err")" "$want" "$assign: one line naming the variable, the value and the valid ones"
	[ ! -s "$D/out" ]
	ok $? "$assign: the program did not run"
}
bad_value OBJPATCH_FORMAT=xml "objpatch: OBJPATCH_FORMAT=xml: not a trace format: set text, json, folded, svg, perfetto or raw, or unset it"
bad_value OBJPATCH_DEPTH=abc "objpatch: OBJPATCH_DEPTH=abc: not a number in 1..32767: set one (default 256), or unset it"
bad_value OBJPATCH_BUFFER_MB=0 "objpatch: OBJPATCH_BUFFER_MB=0: not a number in 1..1048576: set one (default 32), or unset it"
bad_value OBJPATCH_STRLEN=-1 "objpatch: OBJPATCH_STRLEN=-1: not a number in 1..126: set one (default 64), or unset it"
bad_value OBJPATCH_HEX=yes "objpatch: OBJPATCH_HEX=yes: not 0 or 1: set 0 (off) or 1 (on), or unset it"
bad_value OBJPATCH_STATS=on "objpatch: OBJPATCH_STATS=on: not 0 or 1: set 0 (off) or 1 (on), or unset it"
with_rt "$D/out" "$D/err" OBJPATCH_FILTERS=fib -- "$D/prog"
is "$?" 0 "OBJPATCH_FILTERS (a typo): the program runs"
grep -q '^objpatch: OBJPATCH_FILTERS: not a variable objpatch reads (ignored): use OBJPATCH_FILTER, ' "$D/err"
ok $? "OBJPATCH_FILTERS (a typo): one line names it and the variables there are"

# ---- one file per process ----

rm -f "$D"/w*.txt
(cd "$D" && timeout 60 "$OBJPATCH" run --output "$D/w.txt" -- sh -c './prog; ./prog' > "$D/out" 2> "$D/err")
is "$?" 0 "objpatch run -- sh -c './prog; ./prog': status 0"
mapfile -t files < <(cd "$D" && ls w*.txt 2>/dev/null)
is "${#files[@]}" 2 "sh -c './prog; ./prog': two traces, one per program (${files[*]})"
n=0
for f in "${files[@]}"; do
	[[ $f =~ ^w\.[0-9]+\.txt$ ]] && grep -q '^# objpatch function graph, pid' "$D/$f" && grep -q 'main() {' "$D/$f" && n=$((n + 1))
done
is "$n" 2 "sh -c: each is w.PID.txt and holds its program's main()"

rm -f "$D"/e*.json
with_rt "$D/out" "$D/err" OBJPATCH_FILTER=fib OBJPATCH_FORMAT=json OBJPATCH_OUTPUT="$D/e.json" -- "$D/prog" fork
mapfile -t files < <(cd "$D" && ls e*.json 2>/dev/null)
[ "${#files[@]}" = 2 ] && [ -s "$D/e.json" ] && [[ ${files[0]} =~ ^e\.[0-9]+\.json$ ]] &&
	python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$D/${files[0]}"
ok $? "a forked child's JSON trace is e.PID.json, well-formed, beside e.json (${files[*]})"

# ---- full buffers: lost and unfinished ----

# No writer thread (OBJPATCH_FLUSH_MS=0): nothing frees the buffers before exit.
with_rt "$D/out" "$D/err" OBJPATCH_FLUSH_MS=0 OBJPATCH_BUFFER_MB=1 'OBJPATCH_FILTER=main,work,stuck,leaf' OBJPATCH_OUTPUT="$D/full.txt" -- "$D/full"
is "$?" 0 "full buffers: the program runs"
grep -q 'events lost' "$D/err"
ok $? "full buffers: events were lost (the test's premise)"
grep -q '} /\* main lost \*/' "$D/full.txt"
ok $? "full buffers: main, which returned, is lost"
grep -qE '(} /\* work lost \*/|work\(\); /\* lost \*/)' "$D/full.txt"
ok $? "full buffers: work, whose thread was joined, is lost"
grep -qE '(} /\* stuck unfinished \*/|stuck\(\); /\* unfinished \*/)' "$D/full.txt"
ok $? "full buffers: stuck, still running at exit, is unfinished"
grep -E 'lost|unfinished' "$D/full.txt" | grep -v leaf | head -5 | while read -r l; do diag "$l"; done

done_testing
