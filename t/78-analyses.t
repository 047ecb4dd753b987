#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# objpatch report's analyses on a recording of testdata/analyses/prog.c
# (and objpatch run's, which records and then reports)
# (known call counts, recursion, two threads, one call of at least 20 ms):
#  - --summary's calls equal the calls the program counted itself, those
#    of the text trace, and uftrace's on the same binary; its JSON equals
#    what check.py computes from the unfiltered text trace (calls, total
#    with recursion counted once per outermost activation, self, avg,
#    min, max); self <= total; every --sort key orders the lines;
#  - --graph main: every path's calls and total time, merged;
#  - every filter (--tid, --filter/--exclude, --below, --callers,
#    --min-duration, --max-depth, and some together) shows exactly the
#    calls check.py keeps from the unfiltered trace, at the depths it
#    computes, with the same durations; filtered JSON nests per thread;
#  - the same with frames closed as unfinished (a thread inside hang() at
#    exit, 100 ms or more: a duration wider than 5 places), as lost
#    (exits taken out of the recording: lose.py) and as unwound
#    (longjmp, a C++ exception: testdata/runtime);
#  - each mistake is one line naming the option, and a non-zero exit.
# About 35 s of CPU time on a loaded machine (compiles, uftrace, python).
. "$(dirname "$0")/lib.sh"

OBJPATCH=$TOP/build/objpatch
CHECK=(python3 "$TOP/testdata/analyses/check.py")
D=$T_TMP
cd "$D" || exit 1

compile_ok "compile prog.c" gcc -std=gnu11 -Wall -Wextra -Werror -O1 -g -pg -fno-optimize-sibling-calls \
	-c "$TOP/testdata/analyses/prog.c" -o prog.o &&
	run_ok "recordmcount --mode=user prog.o" "$RMC" --mode=user prog.o &&
	compile_ok "link prog" gcc -o prog prog.o -pthread || { done_testing; exit 1; }

"$OBJPATCH" record --output rec.data -- ./prog > prog.out
ok $? "objpatch record: exit 0"
"$OBJPATCH" report rec.data > full.txt
ok $? "report (text): exit 0"

# ---- --summary ----
"$OBJPATCH" report --summary --format json rec.data > summary.json
ok $? "report --summary --format json: exit 0"
summary_calls=$(python3 -c 'import json, sys
for f in sorted(json.load(open(sys.argv[1]))["functions"], key=lambda f: f["function"]):
    print(f["function"], f["calls"])' summary.json)
program_calls=$(sed -n 's/^calls //p' prog.out | sort)
is "$summary_calls" "$program_calls" "--summary's calls equal the program's own counts"
is "$("${CHECK[@]}" counts full.txt)" "$program_calls" "the text trace's calls equal the program's own counts"
why=$("${CHECK[@]}" summary full.txt summary.json)
ok $? "--summary (JSON): calls, total, self, avg, min, max as computed from the text trace"
[ -z "$why" ] || diag "$why"
bad=$(python3 -c 'import json, sys
print(" ".join(f["function"] for f in json.load(open(sys.argv[1]))["functions"] if f["self"] > f["total"]))' summary.json)
is "$bad" "" "self <= total for every function (fib's too: its self time lies in its outermost activations)"
fib=$(python3 -c 'import json, sys
f = [f for f in json.load(open(sys.argv[1]))["functions"] if f["function"] == "fib"][0]
print(f["total"] == f["max"], f["calls"])' summary.json)
is "$fib" "True 67" "recursion: fib's total is its outermost activation's (its maximum), its calls all 67"

"$OBJPATCH" report --summary rec.data > summary.txt
head -1 summary.txt | grep -q '^# *CALLS *TOTAL TIME (us) *SELF TIME (us) *AVERAGE (us) *MINIMUM (us) *MAXIMUM (us) *FUNCTION$'
ok $? "--summary: a header line naming the columns"
for key in total self calls avg min max name; do
	"$OBJPATCH" report --summary --sort "$key" rec.data > "sort-$key.txt"
	why=$("${CHECK[@]}" sorted "sort-$key.txt" "$key")
	ok $? "--summary --sort $key: lines in that order (biggest first; name: alphabetical)"
	[ -z "$why" ] || diag "$why"
done
cmp -s summary.txt sort-total.txt
ok $? "--summary's default order is --sort total"

# ---- uftrace on the same binary ----
if command -v uftrace > /dev/null; then
	if uftrace record -d uftrace.data ./prog > /dev/null 2> uftrace.err; then
		uftrace_calls=$(uftrace report -d uftrace.data -f call 2> /dev/null |
			awk 'NF == 2 && $1 ~ /^[0-9]+$/ { print $2, $1 }' |
			grep -E '^(leaf|mid|fib|slow|worker|main) ' | sort)
		is "$summary_calls" "$uftrace_calls" "--summary's calls equal uftrace report's on the same binary"
	else
		ok 1 "uftrace record ./prog"
		diag "$(cat uftrace.err)"
	fi
else
	ok 1 "uftrace is installed (scripts/deps.sh installs it)"
fi

# ---- --graph ----
"$OBJPATCH" report --graph main rec.data > graph.txt
ok $? "report --graph main: exit 0"
why=$("${CHECK[@]}" graph full.txt main graph.txt)
ok $? "--graph main: every path's calls and total time, all activations merged"
[ -z "$why" ] || diag "$why"
"$OBJPATCH" report --graph fib rec.data > graph-fib.txt
why=$("${CHECK[@]}" graph full.txt fib graph-fib.txt)
ok $? "--graph fib (recursive): merged from the outermost activations"
[ -z "$why" ] || diag "$why"

# ---- filters ----
worker_tid=$(awk '/ worker\(\) \{/ { print $1 + 0; exit }' full.txt)
# filtered LABEL CHECK-OPTIONS -- REPORT-OPTIONS: the text trace equals check.py's
filtered() {
	local label=$1 copts=() why
	shift
	while [ "$1" != -- ]; do copts+=("$1"); shift; done
	shift
	if ! "$OBJPATCH" report "$@" rec.data > filtered.txt 2> filtered.err; then
		ok 1 "$label: report exits 0"
		diag "$(cat filtered.err)"
		return
	fi
	why=$("${CHECK[@]}" filter full.txt filtered.txt "${copts[@]}")
	ok $? "$label: the calls, depths and durations check.py keeps ($why)"
}
filtered "--tid (a worker)" tid="$worker_tid" -- --tid "$worker_tid"
filtered "--filter 'mi*' --filter leaf" match=+mi* match=+leaf -- --filter 'mi*' --filter leaf
filtered "--exclude mid" match=-mid -- --exclude mid
filtered "--filter '*' --exclude 'f?b' (in order)" match=+* match=-f?b -- --filter '*' --exclude 'f?b'
filtered "--filter '!leaf' (run's syntax)" match=-leaf -- --filter '!leaf'
filtered "--below fib" below=fib -- --below fib
filtered "--below slow" below=slow -- --below slow
filtered "--callers leaf" callers=leaf -- --callers leaf
filtered "--callers fib (recursive)" callers=fib -- --callers fib
filtered "--min-duration 10ms" min=10000000 -- --min-duration 10ms
filtered "--min-duration 300ns" min=300 -- --min-duration 300ns
filtered "--max-depth 2" depth=2 -- --max-depth 2
filtered "-D 1" depth=1 -- -D 1
filtered "--below main --exclude mid --max-depth 2" below=main match=-mid depth=2 -- --below main --exclude mid --max-depth 2
filtered "--callers leaf --tid (a worker) --min-duration 100ns" callers=leaf tid="$worker_tid" min=100 -- \
	--callers leaf --tid "$worker_tid" --min-duration 100ns
n=$(grep -c '^ ' filtered.txt)
[ "$n" -gt 0 ]
ok $? "the last filter left calls to compare ($n lines)"

# slow (at least 20 ms) and its caller main; another call only where the
# machine's load stretched it that far, which check.py's filter then sees too.
filtered "--min-duration 15ms" min=15000000 -- --min-duration 15ms
is "$(sed 's/.*|  //' filtered.txt | grep -cxE 'main\(\) \{|  slow\(\); /\* ret=8 \*/')" 2 \
	"--min-duration 15ms: slow and its caller main"

"$OBJPATCH" report --format json --callers leaf --max-depth 3 rec.data > filtered.json
why=$(python3 - filtered.json <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
stacks, n = {}, 0
for e in ev:
    if e["ph"] == "B":
        stacks.setdefault(e["tid"], []).append(e["name"]); n += 1
    elif e["ph"] == "E":
        s = stacks.get(e["tid"], [])
        if not s or s.pop() != e["name"]:
            print("an E event of %s closes nothing open" % e["name"]); sys.exit(1)
if any(stacks.values()) or n == 0:
    print("left open: %s, %d slices" % (stacks, n)); sys.exit(1)
PY
)
ok $? "--format json with filters: every B has its E on its thread"
[ -z "$why" ] || diag "$why"
"$OBJPATCH" report --summary --below worker rec.data > below-summary.txt
awk '!/^#/ { print $7, $1 }' below-summary.txt | sort | tr '\n' ' ' > below-calls.txt
is "$(cat below-calls.txt)" "leaf 30 mid 10 worker 2 " "--summary --below worker: the threads' calls only"

# ---- frames the trace closes as unfinished or unwound ----
# A thread is inside hanger() and hang() at exit: the filters that wait
# (--min-duration) decide them at the trace's end, as the writer closes them.
"$OBJPATCH" record --output hang.data -- ./prog 10 hang > hang.out
"$OBJPATCH" report hang.data > full.txt
grep -q '} /\* hang unfinished \*/' full.txt
ok $? "prog 10 hang: hang() is open at exit (unfinished)"
# main waits 120 ms with hang() open: durations of 6 places, which check.py
# must read every run, not only when the machine's load makes them.
grep -Eq '^ *[0-9]+\) .[0-9]{6}\.[0-9]{3} us  \|  +\} /\* hang unfinished \*/' full.txt
ok $? "prog 10 hang: hang() lasts 100 ms or more (6 places before the point)"
mv rec.data rec-normal.data && cp hang.data rec.data
filtered "unfinished: --min-duration 1ns" min=1 -- --min-duration 1ns
grep -q '} /\* hang unfinished \*/' filtered.txt
ok $? "unfinished: --min-duration 1ns keeps hang() open at the end, closed as unfinished"
filtered "unfinished: --callers hang" callers=hang -- --callers hang
filtered "unfinished: --below hanger --max-depth 1" below=hanger depth=1 -- --below hanger --max-depth 1
"$OBJPATCH" report --summary --format json rec.data > summary.json
why=$("${CHECK[@]}" summary full.txt summary.json)
ok $? "unfinished: --summary counts the unfinished frames to the trace's end"
[ -z "$why" ] || diag "$why"

# Exits lost (as with full buffers): every 3rd exit at depth 1 taken out of
# the recording (lose.py), so the writer closes those frames as "lost" at
# the next event; the filters close them at the same time (EV_LOST) even
# when that event is not shown.
cp rec-normal.data rec.data
removed=$(python3 "$TOP/testdata/analyses/lose.py" rec-normal.data rec.data 1 3)
"$OBJPATCH" report rec.data > full.txt
n=$(grep -c ' lost \*/' full.txt)
[ "$removed" -gt 2 ] && [ "$n" = "$removed" ]
ok $? "lose.py: $removed exits taken out, $n frames closed as lost"
filtered "lost: --filter mid" match=+mid -- --filter mid
is "$(grep -c 'mid lost \*/' filtered.txt)" "$(grep -c 'mid lost \*/' full.txt)" "lost: --filter mid shows every lost mid as lost"
filtered "lost: --min-duration 300ns" min=300 -- --min-duration 300ns
filtered "lost: --callers fib" callers=fib -- --callers fib
filtered "lost: -F main -F slow" match=+main match=+slow -- -F main -F slow
filtered "lost: --below main -D 2" below=main depth=2 -- --below main -D 2
"$OBJPATCH" report --summary --format json rec.data > summary.json
why=$("${CHECK[@]}" summary full.txt summary.json)
ok $? "lost: --summary counts lost frames with the duration the trace shows"
[ -z "$why" ] || diag "$why"

# longjmp and a C++ exception (testdata/runtime/rt_test.c, rt_cxx.cc): frames closed as unwound.
RTD=$TOP/testdata/runtime
if compile_ok "compile rt_test" gcc -std=gnu11 -O2 -g -pg -fno-omit-frame-pointer -c "$RTD/rt_test.c" -o rt_test.o &&
	compile_ok "compile rt_cxx" g++ -O2 -g -pg -fno-omit-frame-pointer -c "$RTD/rt_cxx.cc" -o rt_cxx.o &&
	compile_ok "recordmcount rt_test" "$RMC" --mode=user rt_test.o rt_cxx.o &&
	compile_ok "link rt_test" g++ -pie -o rt_test rt_test.o rt_cxx.o -pthread; then
	"$OBJPATCH" record --output rec.data -- ./rt_test > rt_test.out 2>&1
	"$OBJPATCH" report rec.data > full.txt
	n=$(grep -c 'unwound \*/' full.txt)
	[ "$n" -ge 4 ]
	ok $? "rt_test: frames closed as unwound ($n)"
	filtered "unwound: --callers cx_throw" callers=cx_throw -- --callers cx_throw
	filtered "unwound: --callers lj_inner" callers=lj_inner -- --callers lj_inner
	filtered "unwound: --below cx_run" below=cx_run -- --below cx_run
	filtered "unwound: --min-duration 1us" min=1000 -- --min-duration 1us
	filtered "unwound: --exclude 'lj_mid' --exclude 'cx_pass'" match=-lj_mid match=-cx_pass -- \
		--exclude lj_mid --exclude cx_pass
	"$OBJPATCH" report --summary --format json rec.data > summary.json
	why=$("${CHECK[@]}" summary full.txt summary.json)
	ok $? "unwound: --summary as computed from the text trace"
	[ -z "$why" ] || diag "$why"
fi
cp rec-normal.data rec.data

# ---- the same on a live run: objpatch run records, then reports ----
calls_of() { awk 'NR > 1 { print $NF, $1 }' "$1" | sort; }
mkdir -p live-tmp
TMPDIR=$PWD/live-tmp "$OBJPATCH" run --summary -- ./prog > live.out 2> live-summary.txt
ok $? "run --summary: exit 0"
is "$(calls_of live-summary.txt)" "$(calls_of summary.txt)" "run --summary: the calls report --summary shows of a recording"
is "$(sed -n 's/^calls //p' live.out | sort)" "$program_calls" "run --summary: the program's output is its own"
TMPDIR=$PWD/live-tmp "$OBJPATCH" run --summary --format json --output live.json -- ./prog > /dev/null
ok $? "run --summary --format json --output FILE: exit 0"
is "$(python3 -c 'import json, sys
for f in sorted(json.load(open(sys.argv[1]))["functions"], key=lambda f: f["function"]):
    print(f["function"], f["calls"])' live.json)" "$program_calls" "run --summary (JSON): the program's own counts"
TMPDIR=$PWD/live-tmp "$OBJPATCH" run --min-duration 15ms -- ./prog > /dev/null 2> live-slow.txt
short=$(sed -n 's/^ *[0-9]*) .\( *[0-9]*\.[0-9]*\) us  |.*/\1/p' live-slow.txt | awk '$1 < 15000' | wc -l)
is "$(grep -oE '(main|slow)\(\)' live-slow.txt | sort -u | tr '\n' ' ')$short" "main() slow() 0" \
	"run --min-duration 15ms: main and slow, as report's, and no call shorter"
TMPDIR=$PWD/live-tmp "$OBJPATCH" run --graph fib --output live-graph.txt -- ./prog > /dev/null
is "$(sed 's/^ *[0-9.]* us : //' live-graph.txt)" "$(sed 's/^ *[0-9.]* us : //' graph-fib.txt)" \
	"run --graph fib: the paths and calls report --graph fib gives of a recording"
is "$(ls live-tmp)" "" "run's recordings for its analyses are removed"
err=$("$OBJPATCH" run --min-duration 10 -- ./prog 2>&1 > live-bad.out)
status=$?
[ "$status" = 2 ] && [ "$(wc -l <<< "$err")" = 1 ] && grep -q -- --min-duration <<< "$err" && [ ! -s live-bad.out ]
ok $? "run --min-duration 10: exit 2 and one line before the program starts: $err"
err=$("$OBJPATCH" run --summary --format folded -- ./prog 2>&1 > live-bad.out)
status=$?
[ "$status" = 2 ] && [ "$(wc -l <<< "$err")" = 1 ] && [ ! -s live-bad.out ]
ok $? "run --summary --format folded: exit 2 and one line before the program starts: $err"

# ---- mistakes: one line each, naming the option ----
# mistake STATUS LABEL OPTION... : exit STATUS, one line on standard error naming the first option
mistake() {
	local want=$1 label=$2 err status
	shift 2
	err=$("$OBJPATCH" report "$@" rec.data 2>&1 > /dev/null)
	status=$?
	if [ "$status" = "$want" ] && [ "$(wc -l <<< "$err")" = 1 ] && grep -q -- "$1" <<< "$err"; then
		ok 0 "$label: exit $want, one line: $err"
	else
		ok 1 "$label: exit $want, one line naming $1"
		diag "exit $status: $err"
	fi
}
mistake 2 "--min-duration without a unit" --min-duration 10
mistake 2 "--min-duration abc" --min-duration abc
mistake 2 "--min-duration 0ns" --min-duration 0ns
mistake 2 "--max-depth 0" --max-depth 0
mistake 2 "--max-depth x" --max-depth x
mistake 2 "--tid -3" --tid -3
mistake 2 "--sort size" --sort size --summary
mistake 2 "--sort without --summary" --sort calls
mistake 2 "--summary with --graph" --summary --graph main
mistake 2 "--graph --format json" --graph main --format json
mistake 2 "--summary --format folded" --summary --format folded
mistake 2 "--filter with an unclosed [" --filter 'mid['
mistake 2 "--below ''" --below ''
mistake 1 "--tid of no thread" --tid 1
mistake 1 "--below a function never called" --below nosuch
mistake 1 "--callers a function never called" --callers 'nosuch*'
mistake 1 "--filter matching nothing" --filter nosuch
mistake 1 "--graph of a function never called" --graph nosuch

done_testing
