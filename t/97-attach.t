#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# objpatch attach --inject-only: the runtime is
# loaded into a running process and the process goes on exactly as before.
# testdata/attach/target.c runs four workers that check their own results
# (doubles kept in vector registers, hashes through memmove, malloc and
# free all the time) and a reader blocked in read() on a pipe.  Into it,
# the runtime is loaded 20 times, by whichever thread objpatch picks, then
# once more by the blocked reader itself; after that:
#  - /proc/PID/maps holds libobjpatch.so, and every load gave one handle;
#  - the runtime stayed dormant: no thread of its own, nothing written;
#  - the read() that a remote call interrupted still returns the line
#    written afterwards (the system call restarted);
#  - every result the workers computed was right, and the program exits
#    with its own status (7).
# Then the refusals, each one line and status 2 with the target untouched:
# no such process, a process already traced (under strace), a stopped
# one, one that ptrace is not permitted to touch (another user's), and a
# process of another machine (a qemu-user guest).  x86_64 first, then the
# same for i386: here where this kernel runs i386 programs, otherwise in
# Debian's amd64 kernel under qemu-system-x86_64 (scripts/i386-system.sh
# amd64: the loads, and attach sessions with -pg sites and with pads).
. "$(dirname "$0")/attach-lib.sh"
. "$(dirname "$0")/i386-system-lib.sh"

OBJPATCH=$TOP/build/objpatch
SRC=$TOP/testdata/attach/target.c
D=$T_TMP
CFLAGS=(-std=gnu11 -Wall -Wextra -Werror -O2 -pthread)

attach_host_only

# scenario LABEL PROGRAM READ_NR SLEEP_NRS
scenario() {
	local label=$1 prog=$2 nr=$3 snr=$4 tid stid wtid threads out st handles=() bad=0 i
	if ! started "$label" "$prog"; then
		ok 1 "[$label] the target starts and says ready"
		kill "$pid" 2> /dev/null
		return
	fi
	tid=$(reader_thread "$nr")
	ok $? "[$label] the reader blocks in read() (thread $tid)"
	threads=$(ls /proc/"$pid"/task | wc -l)
	for i in $(seq 20); do
		out=$("$OBJPATCH" attach --inject-only "$pid" 2>&1)
		st=$?
		if [ "$st" -ne 0 ] || ! [[ "$out" =~ "libobjpatch.so loaded, dormant (handle "(0x[0-9a-f]+) ]]; then
			bad=1
			diag "load $i: status $st: $out"
			break
		fi
		handles+=("${BASH_REMATCH[1]}")
	done
	ok $bad "[$label] 20 loads by the threads objpatch picks: status 0, one line each"
	out=$("$OBJPATCH" attach --inject-only --thread="$tid" "$pid" 2>&1)
	ok $? "[$label] a load by the thread blocked in read()"
	[[ "$out" =~ "by thread $tid)" ]]
	ok $? "[$label] ... says that thread did it"
	[[ "$out" =~ \(handle\ (0x[0-9a-f]+) ]] && handles+=("${BASH_REMATCH[1]}")
	# A worker in the middle of its sums, doubles in vector registers:
	# they and the flags come back whole.
	wtid=$(grep -l '^worker0$' /proc/"$pid"/task/*/comm | cut -d/ -f5)
	bad=0
	for i in $(seq 10); do
		out=$("$OBJPATCH" attach --inject-only --thread="$wtid" "$pid" 2>&1) || { bad=1; diag "$out"; break; }
	done
	ok $bad "[$label] 10 loads by a worker thread in the middle of its computation"
	stid=$(reader_thread "$snr")
	out=$("$OBJPATCH" attach --inject-only --thread="$stid" "$pid" 2>&1)
	ok $? "[$label] a load by the thread inside clock_nanosleep() ($out)"
	[[ "$out" =~ \(handle\ (0x[0-9a-f]+) ]] && handles+=("${BASH_REMATCH[1]}")
	is "$(printf '%s\n' "${handles[@]}" | sort -u | wc -l)" 1 "[$label] every load gave the one handle"
	printf 'not a library\n' > "$D/not-a-library"
	out=$("$OBJPATCH" attach --inject-only --lib="$D/not-a-library" "$pid" 2>&1)
	is "$?" 1 "[$label] a library dlopen refuses: status 1"
	[[ "$out" =~ "$pid: loading $D/not-a-library: "(.*)$ ]]
	ok $? "[$label] ... and one line with dlerror()'s words: ${BASH_REMATCH[1]:-$out}"
	grep -q '/libobjpatch\.so' /proc/"$pid"/maps
	ok $? "[$label] /proc/PID/maps holds libobjpatch.so"
	is "$(ls /proc/"$pid"/task | wc -l)" "$threads" "[$label] dormant: the runtime started no thread"
	is "$(cut -d' ' -f1 /proc/"$pid"/task/"$tid"/syscall)" "$nr" "[$label] the reader is back in read()"
	echo "line after the loads" >&3
	reaped
	is "$st" 7 "[$label] the program exits with its own status"
	is "$(grep -c 'ran, all right' <<< "$out")" 4 "[$label] every worker's results were right"
	grep -q '^wrong' <<< "$out"
	ok $((! $?)) "[$label] every sleep was whole and without error"
	grep -q '^wrong' <<< "$out" && diag "$out"
	is "$(grep '^read:' <<< "$out")" "read: line after the loads" "[$label] the interrupted read() returned the line written after"
	is "$(cat "$D/$label.err")" "" "[$label] dormant: nothing on the program's standard error"
}

# ---- x86_64 ----
compile_ok "[x86_64] target" gcc "${CFLAGS[@]}" -o "$D/target" "$SRC" && scenario x86_64 "$D/target" 0 230

# A process whose main thread has exited (pthread_exit) runs on with it
# a zombie, whose /proc entry has no memory left: the rest is held, and
# read through a live thread's entry.
if started main-exits "$D/target" main-exits; then
	until_true grep -q '^State:.*Z' /proc/"$pid"/status
	out=$("$OBJPATCH" attach --inject-only "$pid" 2>&1)
	ok $? "[main-exits] a load into a process whose main thread exited ($out)"
	echo "line" >&3
	reaped
	is "$st" 7 "[main-exits] the program exits with its own status"
	is "$(grep -c 'ran, all right' <<< "$out")" 4 "[main-exits] every worker's results were right"
else
	ok 1 "[main-exits] the target starts and says ready"
fi

# A thread holds the loader's lock (blocked inside dl_iterate_phdr's
# callback): dlopen in the thread objpatch picks waits for it.  objpatch
# says so in one line after 2 s and lets the other threads run; once the
# holder lets go (a byte on its pipe), the load ends as any other.
rm -f "$D/hold" "$D/attach.err"
mkfifo "$D/hold" "$D/attach.err"
if started hold "$D/target" hold-loader 5<> "$D/hold"; then
	reader_thread 0 > /dev/null
	"$OBJPATCH" attach --inject-only "$pid" > "$D/attach.out" 2> "$D/attach.err" &
	attacher=$!
	exec 6< "$D/attach.err"
	read -r -t 60 line <&6
	[[ "$line" =~ "dlopen has not returned in thread "[0-9]+" after 2 s: another thread holds a lock" ]]
	ok $? "[hold] one line says dlopen waits for a lock another thread holds ($line)"
	echo x > "$D/hold"
	wait "$attacher"
	is "$?" 0 "[hold] the load ends once the holder lets go: status 0"
	grep -q "loaded, dormant" "$D/attach.out"
	ok $? "[hold] ... and says loaded"
	exec 6<&-
	echo "line" >&3
	reaped
	is "$st" 7 "[hold] the program exits with its own status"
	is "$(grep -c 'ran, all right' <<< "$out")" 4 "[hold] every worker's results were right"
else
	ok 1 "[hold] the target starts and says ready"
fi

# The same, but the holder lets go only once a signal's handler runs in
# it: the signal comes while the other threads run for the call, and must
# reach the holder then (a thread in fork() holds malloc's locks until its
# child's SIGCHLD is handled the same way).  Held back, the load would
# never end.
rm -f "$D/attach.err"
mkfifo "$D/attach.err"
if started hold-signal "$D/target" hold-loader-signal; then
	"$OBJPATCH" attach --inject-only "$pid" > "$D/attach.out" 2> "$D/attach.err" &
	attacher=$!
	exec 6< "$D/attach.err"
	read -r -t 60 line <&6
	[[ "$line" =~ "dlopen has not returned in thread "[0-9]+" after 2 s: another thread holds a lock" ]]
	ok $? "[hold-signal] one line says dlopen waits for a lock another thread holds ($line)"
	kill -USR2 "$pid"
	wait "$attacher"
	is "$?" 0 "[hold-signal] the signal reaches the holder, which lets go: the load ends, status 0"
	grep -q "loaded, dormant" "$D/attach.out"
	ok $? "[hold-signal] ... and says loaded"
	exec 6<&-
	echo "line" >&3
	reaped
	is "$st" 7 "[hold-signal] the program exits with its own status"
	is "$(grep -c 'ran, all right' <<< "$out")" 4 "[hold-signal] every worker's results were right"
else
	ok 1 "[hold-signal] the target starts and says ready"
fi

# bash has a getenv() of its own, which reads its variable table, not
# environ, and a copy of environ in the executable: the runtime still
# sees objpatch's variable and stays dormant.  Its only thread is
# blocked in read(), which the call interrupts and which restarts.
if started bash bash -c 'echo ready; read -r line; echo "read: $line"; exit 5'; then
	reader_thread 0 > /dev/null
	out=$("$OBJPATCH" attach --inject-only "$pid" 2>&1)
	ok $? "[bash] a load into bash blocked in read() ($out)"
	echo "a line" >&3
	reaped
	is "$st" 5 "[bash] bash exits with its own status"
	is "$out" "read: a line" "[bash] its read returned the line written after"
	is "$(cat "$D/bash.err")" "" "[bash] dormant: nothing on its standard error"
else
	ok 1 "[bash] bash starts and says ready"
fi

# ---- the refusals ----
# refused LABEL PATTERN ARGS...: status 2, one line matching PATTERN.
refused() {
	local label=$1 pattern=$2 out st
	shift 2
	out=$("$OBJPATCH" attach --inject-only "$@" 2>&1)
	st=$?
	is "$st" 2 "refused, $label: status 2"
	if [ "$(wc -l <<< "$out")" -eq 1 ] && grep -q -- "$pattern" <<< "$out"; then
		ok 0 "refused, $label: one line naming the cause ($pattern)"
	else
		ok 1 "refused, $label: one line naming the cause ($pattern)"
		diag "$out"
	fi
}

untouched() {	# untouched LABEL PID
	! grep -q libobjpatch /proc/"$2"/maps
	ok $? "refused, $1: the target untouched (no runtime in its maps)"
}

refused "no such process" "no such process" $(($(cat /proc/sys/kernel/pid_max) + 1))
refused "not a number" "not a process id" 12x

sleep 600 &
sleeper=$!
# Before its exec, the sleeper is a copy of this shell.
until_true eval '[[ "$(readlink /proc/$sleeper/exe)" == */sleep ]]'
kill -STOP "$sleeper"
until_true grep -q '^State:.*T' /proc/"$sleeper"/status
refused "a stopped process" "stopped (state T" "$sleeper"
kill -CONT "$sleeper"

if command -v strace > /dev/null; then
	strace -o /dev/null -p "$sleeper" 2> /dev/null &
	tracer=$!
	until_true eval '[ "$(awk "/^TracerPid:/ { print \$2 }" /proc/$sleeper/status)" != 0 ]'
	refused "already traced" "already traced by process $tracer" "$sleeper"
	untouched "already traced" "$sleeper"
	kill "$tracer"
	wait "$tracer" 2> /dev/null
else
	skip "strace is not installed: no second tracer to refuse"
fi

if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null; then
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$OBJPATCH" attach --inject-only "$sleeper" 2>&1)
	is "$?" 2 "refused, another user's process: status 2"
	grep -q "ptrace not permitted" <<< "$out"
	ok $? "refused, another user's process: one line naming ptrace ($out)"
	untouched "another user's process" "$sleeper"
else
	skip "not root, or no setpriv: no other user to try as"
fi
kill "$sleeper"
wait "$sleeper" 2> /dev/null

# A guest of qemu-user: /proc/PID/exe is qemu, an x86_64 program, but
# what runs is the guest's code, which ptrace cannot reach.
if command -v qemu-aarch64 > /dev/null && command -v aarch64-linux-gnu-gcc > /dev/null; then
	if compile_ok "[aarch64] target" aarch64-linux-gnu-gcc "${CFLAGS[@]}" -static -o "$D/target-aarch64" "$SRC"; then
		rm -f "$D/in" "$D/out"
		mkfifo "$D/in" "$D/out"
		qemu-aarch64 "$D/target-aarch64" < "$D/in" > "$D/out" &
		pid=$!
		exec 3> "$D/in" 4< "$D/out"
		read -r -t 60 line <&4
		refused "another machine (a qemu-user guest)" "qemu-user" "$pid"
		untouched "another machine" "$pid"
		echo bye >&3
		exec 3>&- 4<&-
		wait "$pid"
	fi
else
	skip "no qemu-aarch64 or aarch64-linux-gnu-gcc: no process of another machine to refuse"
fi

# A static program has no libc.so, so no dlopen to load the runtime with.
if compile_ok "[static] target" gcc "${CFLAGS[@]}" -static -o "$D/target-static" "$SRC" &&
   started static "$D/target-static"; then
	refused "a static program" "no libc in the process (statically linked?)" "$pid"
	untouched "a static program" "$pid"
	echo "line" >&3
	reaped
	is "$st" 7 "refused, a static program: it exits with its own status"
fi

out=$("$OBJPATCH" attach --inject-only --duration 1 1 2>&1)
is "$?" 2 "usage: --inject-only with a tracing option is refused (status 2: $out)"

# ---- i386, natively, with the cross libc ----
LIB32=$TOP/build/i386/libobjpatch.so
if ! command -v i686-linux-gnu-gcc > /dev/null; then
	skip "[i386] i686-linux-gnu-gcc is not installed"
elif [ ! -e "$LIB32" ]; then
	skip "[i386] no i386 runtime: make runtime-i386"
elif compile_ok "[i386] target" i686-linux-gnu-gcc "${CFLAGS[@]}" -o "$D/target32" "$SRC" \
	-Wl,--dynamic-linker=/usr/i686-linux-gnu/lib/ld-linux.so.2 -Wl,-rpath,/usr/i686-linux-gnu/lib \
	-Wl,--disable-new-dtags; then
	if ! why=$("$D/target32" < /dev/null 2>&1 > /dev/null) && [[ "$why" =~ "Exec format error" ]]; then
		# This kernel runs no i386 program: Debian's amd64 kernel does, booted
		# under qemu-system-x86_64 with this objpatch (about 50 s).
		if i386_system "" "$D/amd64-system" amd64; then
			is "$(cat "$R/uname")" x86_64 "[i386] the guest's kernel is a 64-bit one (uname -m)"
			attach_loads_ok "$R/attach" "i386 on amd64 kernel"
			attach_session_ok "$R/attach-trace" "i386 on amd64 kernel, a session"
			attach_session_ok "$R/attach-trace-pads" "i386 on amd64 kernel, a session with pads"
		fi
	else
		# clock_nanosleep_time64, or clock_nanosleep where glibc found no time64 call
		scenario i386 "$D/target32" 3 "407 267"
	fi
fi

done_testing
