#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Streaming traces:
#  - bounded memory: `objpatch run` of 100 M traced calls (bench/runtime/calls.c
#    built as bench/runtime.sh builds it) stays within 64 MiB plus a
#    thread's buffer, the program's RSS and objpatch's (/usr/bin/time %M is
#    the larger of the two); `objpatch report` of a recording of over 250 MB
#    within 64 MiB;
#  - signals: a SIGINT or SIGTERM sent to objpatch reaches the program,
#    whose trace is finished, and objpatch exits as the program did (its
#    status, 128+N when the signal killed it); the program is not left
#    running;
#  - crashes: a program recorded by `objpatch record` that dies by SIGSEGV,
#    abort(), _exit() or SIGKILL leaves a recording that `objpatch report`
#    reads whole: every call it made before dying is in the trace;
#  - a slow reader of the trace: policy wait loses nothing, policy drop
#    counts the events it lost and the trace stays well-formed.
. "$(dirname "$0")/lib.sh"

OBJPATCH=$TOP/build/objpatch
D=$T_TMP

if [ "$(uname -m)" != x86_64 ] || [ "$(uname -s)" != Linux ]; then
	skip "the runtime is implemented and tested on x86_64 Linux (this is $(uname -sm))"
	done_testing
	exit
fi
[ -x /usr/bin/time ] || { ok 1 "/usr/bin/time is missing: scripts/deps.sh installs it (Debian's time)"; done_testing; exit; }

# pg NAME SRC: a traced program, built the way users build one.
pg() {
	compile_ok "$1: -pg" gcc -O2 -g -pg -mfentry -c "$2" -o "$D/$1.o" &&
	compile_ok "$1: recordmcount --mode=user" "$RMC" --mode=user "$D/$1.o" &&
	compile_ok "$1: link" gcc -o "$D/$1" "$D/$1.o"
}

# ---- bounded memory ----

if pg calls "$TOP/bench/runtime/calls.c"; then
	# 20 M iterations of 5 calls; folded stacks to /dev/null: the least formatting.
	/usr/bin/time -o "$D/rss" -f %M "$OBJPATCH" run --format folded -o /dev/null -- "$D/calls" 20000000 \
		> "$D/calls.out" 2> "$D/calls.err"
	is "$?" 0 "100 M calls: objpatch run exits 0"
	calls=$(sed -n 's/.*traced_calls=\([0-9]*\).*/\1/p' "$D/calls.out")
	[ "${calls:-0}" -ge 100000000 ]
	ok $? "100 M calls: the program made at least 100 M traced calls (${calls:-none})"
	rss=$(tail -1 "$D/rss")
	limit=$(((64 + 3) * 1024))	# 64 MiB, and the thread's chunks: 2 MiB and the first, 64 KiB
	[ "${rss:-999999999}" -le "$limit" ]
	ok $? "100 M calls: max RSS ${rss:-?} KiB <= $limit KiB (64 MiB + a thread's buffer)"
	grep -q 'events lost' "$D/calls.err"
	ok $((!$?)) "100 M calls: policy wait lost no event"
	# A recording of 15 M calls (over 250 MB) formatted by objpatch report
	# (what objpatch attach runs once its session ends): the recording's
	# pages are given back as they are read, so its size is not objpatch's RSS.
	"$OBJPATCH" record -o "$D/calls.data" -- "$D/calls" 3000000 > /dev/null 2>&1
	bytes=$(stat -c %s "$D/calls.data" 2>/dev/null)
	/usr/bin/time -o "$D/rss" -f %M "$OBJPATCH" report --summary -o "$D/calls.summary" "$D/calls.data" 2> "$D/report.err"
	is "$?" 0 "a recording of 15 M calls: objpatch report exits 0"
	rss=$(tail -1 "$D/rss")
	[ "${bytes:-0}" -ge $((250 << 20)) ] && [ "${rss:-999999999}" -le $((64 * 1024)) ]
	ok $? "a recording of ${bytes:-?} bytes reported within 64 MiB of RSS (${rss:-?} KiB)"
	calls=$(awk '$1 ~ /^[0-9]+$/ { n += $1 } END { print n + 0 }' "$D/calls.summary")
	is "$calls" 15000001 "... and every call is in it (the summary's counts)"
	rm -f "$D/calls.data" "$D/calls.summary"
fi

# ---- signals ----

cat > "$D/sig.c" <<'EOF2'
/* Counts its calls; after argv[1] of them sends argv[2] to its parent (objpatch). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static volatile long calls;
__attribute__((noinline)) long work(long x) { calls++; __asm__ volatile("" ::: "memory"); return x + 1; }
static void on_signal(int s) { printf("calls %ld signal %d\n", calls, s); fflush(stdout); exit(3); }
int main(int argc, char **argv)
{
	long n = atol(argv[1]);
	int sig = atoi(argv[2]);

	if (argc > 3)
		signal(sig, on_signal);
	for (long i = 0; i < n; i++)
		work(i);
	kill(getppid(), sig);
	for (;;)
		work(0);
}
EOF2
if pg sig "$D/sig.c"; then
	"$OBJPATCH" run --format json -o "$D/int.json" -- "$D/sig" 1000 2 handle > "$D/int.out" 2> "$D/int.err"
	is "$?" 3 "SIGINT to objpatch run: forwarded, the program's handler exits 3, objpatch exits 3"
	grep -q 'signal 2' "$D/int.out"
	ok $? "SIGINT to objpatch run: the program's handler ran ($(cat "$D/int.out"))"
	python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$D/int.json"
	ok $? "SIGINT to objpatch run: the JSON trace is finished and well-formed"
	# The signal may land in a call of work that its entry hook has recorded
	# but whose body has not yet counted: that call ends "unfinished" at the
	# exit, one more than the handler printed.  One that had counted may end
	# unfinished too.  So the calls that returned are the handler's count or
	# one fewer, and at most one call is unfinished.
	fin=$(grep '"name":"work","ph":"E"' "$D/int.json" | grep -vc '"unfinished":true')
	unf=$(grep '"name":"work","ph":"E"' "$D/int.json" | grep -c '"unfinished":true')
	want=$(sed -n 's/calls \([0-9]*\).*/\1/p' "$D/int.out")
	[ -n "$want" ] && [ "$unf" -le 1 ] && [ "$fin" -le "$want" ] && [ "$want" -le $((fin + unf)) ]
	ok $? "SIGINT to objpatch run: every call to work before the exit is in the trace ($fin returned, $unf unfinished, the handler counted ${want:-none})"
	"$OBJPATCH" run -o "$D/term.txt" -- "$D/sig" 1000 15 > "$D/term.out" 2> "$D/term.err"
	is "$?" 143 "SIGTERM to objpatch run, not handled: objpatch exits 128+15"
	grep -q 'killed by signal 15' "$D/term.err"
	ok $? "SIGTERM: objpatch says the program was killed by signal 15"
	"$OBJPATCH" record -o "$D/hup.data" -- "$D/sig" 1000 1 handle > "$D/hup.out" 2> "$D/hup.err"
	is "$?" 3 "SIGHUP to objpatch record: forwarded, objpatch exits as the program did"
fi

# ---- crashes: the recording ends at the death, nothing before it lost ----

cat > "$D/crash.c" <<'EOF2'
/* Makes argv[1] calls to work(), says so (and creates argv[3]), and dies as argv[2] says. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static volatile long sink;
__attribute__((noinline)) long work(long x) { sink += x; __asm__ volatile("" ::: "memory"); return x + 1; }
int main(int argc, char **argv)
{
	long n = atol(argv[1]);

	for (long i = 0; i < n; i++)
		work(i);
	printf("calls %ld\n", n);
	fflush(stdout);
	if (argc > 3)
		fclose(fopen(argv[3], "w"));
	if (!strcmp(argv[2], "return"))
		return 0;
	if (!strcmp(argv[2], "segv"))
		*(volatile int *)0 = 1;
	if (!strcmp(argv[2], "abort"))
		abort();
	if (!strcmp(argv[2], "kill"))
		kill(getpid(), SIGKILL);
	_exit(0);
}
EOF2
if pg crash "$D/crash.c"; then
	for how in segv abort _exit kill; do
		"$OBJPATCH" record -o "$D/$how.data" -- "$D/crash" 100003 "$how" > "$D/$how.out" 2> "$D/$how.err"
		status=$?
		[ "$how" = _exit ] && want=0 || want=$((128 + $(kill -l "$(case $how in segv) echo SEGV;; abort) echo ABRT;; kill) echo KILL;; esac)")))
		is "$status" "$want" "$how: objpatch record exits as the program did"
		"$OBJPATCH" report "$D/$how.data" > "$D/$how.txt" 2> "$D/$how.rerr"
		is "$?" 0 "$how: objpatch report reads the recording ($(head -1 "$D/$how.rerr"))"
		[ "$(wc -l < "$D/$how.rerr")" = 1 ] &&
			[[ $(cat "$D/$how.rerr") == "objpatch report: $D/$how.data: offset "*": no exit record: the process died before its final flush"* ]]
		ok $? "$how: report says in one line that the recording has no exit record"
		n=$(grep -c 'work();' "$D/$how.txt")
		is "$n" 100003 "$how: every call made before the death is in the trace"
	done
fi

# ---- a slow reader ----

if [ -x "$D/crash" ]; then
	mkfifo "$D/fifo"
	# wait: the reader takes a page a millisecond; nothing is lost.
	python3 -c '
import sys, time
with open(sys.argv[1], "rb") as f, open(sys.argv[2], "wb") as o:
    while True:
        b = f.read(4096)
        if not b: break
        o.write(b); time.sleep(0.001)' "$D/fifo" "$D/slow.txt" &
	reader=$!
	OBJPATCH_BUFFER_MB=1 "$OBJPATCH" run -o "$D/fifo" -- "$D/crash" 100003 return > "$D/slow.out" 2> "$D/slow.err"
	is "$?" 0 "slow reader, policy wait: objpatch run exits 0"
	wait "$reader"
	is "$(grep -c 'work();' "$D/slow.txt")" 100003 "slow reader, policy wait: every call is in the trace"
	grep -q 'events lost' "$D/slow.err"
	ok $((!$?)) "slow reader, policy wait: no event lost"
	# drop: the reader reads nothing until the program has made its calls.
	rm -f "$D/made"
	sh -c 'while [ ! -e "$1" ]; do sleep 0.05; done; cat "$2" > "$3"' sh "$D/made" "$D/fifo" "$D/drop.json" &
	reader=$!
	OBJPATCH_BUFFER_MB=1 "$OBJPATCH" run --policy drop --format json -o "$D/fifo" -- \
		"$D/crash" 100003 return "$D/made" > "$D/drop.out" 2> "$D/drop.err"
	is "$?" 0 "slow reader, policy drop: objpatch run exits 0"
	wait "$reader"
	grep -q 'events lost' "$D/drop.err"
	ok $? "slow reader, policy drop: the lost events are reported ($(grep 'events lost' "$D/drop.err"))"
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(d["otherData"]["lost"] == 0)' "$D/drop.json"
	ok $? "slow reader, policy drop: the JSON trace is well-formed and counts them"
fi

done_testing
