# SPDX-License-Identifier: GPL-2.0-only
#
# What the objpatch attach tests (t/97-attach.t, t/98-attach-*.t,
# t/99-attach-stress.t) share: a target started on pipes (traced.c built,
# started and ended for those with one target), and polling for the states
# of its threads, which nothing announces.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# started LABEL CMD...: runs CMD with its standard input and output on
# pipes (fds 3 and 4 here) and waits for its "ready"; sets $pid.
started() {
	local label=$1 line=
	shift
	rm -f "$D/in" "$D/out"
	mkfifo "$D/in" "$D/out"
	"$@" < "$D/in" > "$D/out" 2> "$D/$label.err" &
	pid=$!
	exec 3> "$D/in" 4< "$D/out"
	read -r -t 30 line <&4
	[ "$line" = ready ]
}

# The reader's thread once it is blocked in read (system call NR, or any
# of the numbers "NR1 NR2"): the first field of /proc/PID/task/TID/syscall.
# Polled: nothing else says when.
reader_thread() {
	local nrs=" $1 " f
	for _ in $(seq 1000); do
		for f in /proc/"$pid"/task/*/syscall; do
			if [[ $nrs == *" $(cut -d' ' -f1 "$f" 2>/dev/null) "* ]]; then
				basename "$(dirname "$f")"
				return 0
			fi
		done
		sleep 0.01
	done
	return 1
}

# until_true CMD...: polls CMD (a process's state, which nothing announces),
# TRIES times (default 1000) 10 ms apart.
until_true() {
	local k
	for ((k = 0; k < ${TRIES:-1000}; k++)); do
		"$@" && return 0
		sleep 0.01
	done
	return 1
}

# process_state PID: each thread's name, state, system call, wait channel
# and kernel stack, and (gdb there, nothing tracing it) every thread's
# backtrace: what a process that does not end was doing, for whoever
# debugs it.
process_state() {
	local p=$1 t
	for t in /proc/"$p"/task/*; do
		echo "thread ${t##*/} $(cat "$t/comm") $(cut -d' ' -f3 "$t/stat") syscall: $(cat "$t/syscall") wchan: $(cat "$t/wchan")"
		sed 's/^/    /' "$t/stack"
	done 2> /dev/null
	if command -v gdb > /dev/null && grep -q '^TracerPid:[[:space:]]*0$' /proc/"$p"/status 2> /dev/null; then
		timeout 60 gdb -nx -batch -p "$p" -ex 'thread apply all bt' 2>&1 | grep -E '^(Thread|#)'
	fi
}

# reaped: closes the target's input (fd 3), reads all its output (fd 4)
# into $out and waits for it: its status in $st.  A target that has not
# ended REAP_LIMIT seconds (120) after its input closed is shown
# (process_state, in $hung) and killed: its status is then 137.
reaped() {
	hung=
	exec 3>&-
	out=$(timeout "${REAP_LIMIT:-120}" cat <&4)
	if [ $? = 124 ] && kill -0 "$pid" 2> /dev/null; then
		hung=$(process_state "$pid")
		diag "the target $pid did not end ${REAP_LIMIT:-120} s after its input closed:" "$hung"
		kill -KILL "$pid" 2> /dev/null
	fi
	exec 4<&-
	wait "$pid"
	st=$?
}

# traced_target LABEL: testdata/attach/traced.c built with -pg -mfentry
# and recorded with --nop as $D/traced, then started (sets $pid, fds 3
# and 4); the test ends here when a step fails.
traced_target() {
	local label=$1
	compile_ok "[$label] compile" gcc -std=gnu11 -Wall -Wextra -Werror -O2 -g -pthread -pg -mfentry \
		-c "$TOP/testdata/attach/traced.c" -o "$D/traced.o" || { done_testing; exit; }
	run_ok "[$label] recordmcount --mode=user --nop" "$RMC" --mode=user --nop "$D/traced.o"
	compile_ok "[$label] link" gcc -pthread -o "$D/traced" "$D/traced.o" || { done_testing; exit; }
	if ! started "$label" "$D/traced"; then
		ok 1 "[$label] the target starts and says ready"
		done_testing
		exit
	fi
}

# traced_target_ends LABEL: "quit" to traced_target's program: it exits
# with its own status (7), its workers' results right, nothing on its
# standard error.
traced_target_ends() {
	local label=$1
	echo quit >&3
	reaped
	is "$st" 7 "[$label] the program exits with its own status"
	is "$(grep -c 'rounds, all right' <<< "$out")" 3 "[$label] every worker's results were right"
	grep '^wrong' <<< "$out" | head -3 | while read -r l; do diag "$l"; done
	is "$(cat "$D/$label.err")" "" "[$label] nothing on the program's standard error"
}

# attach_host_only: the whole test is skipped where attach is not
# implemented.
attach_host_only() {
	if [ "$(uname -m)" != x86_64 ] || [ "$(uname -s)" != Linux ]; then
		skip "attach is implemented for x86_64 Linux hosts (this is $(uname -sm))"
		done_testing
		exit
	fi
}

