#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A signal at every instruction of a traced call.  sigstep
# (testdata/runtime/sigstep.c) runs rt_sigstep under ptrace and delivers
# SIGUSR1 at each instruction it executes between its two SIGSTOPs: the
# traced functions, the site stubs, the entry and return trampolines, the
# recorder, the libc and vDSO code it calls.  The handler calls a traced
# function, so its frames are pushed and popped at every point of every
# entry and return of the interrupted calls.
#
# Why: t/91's stress crashed about one 60-second run in ten.  The cause was
# a window of a few instructions in rt_exit, after the frame was given up
# and before its return address was read: a signal there made the handler's
# call overwrite it, and the thread returned into __restore_rt with the
# wrong stack.  Here that window, and every other, is hit every time: the
# runtime before the fix dies at the 489th signalled instruction.
#
# Where debug-register breakpoints never trap (some hypervisors), sigstep
# uses int3 breakpoints; calls into the vDSO run through unsignalled
# (testdata/runtime/sigstep.c says why).
#
# Each site kind (fentry, mcount) with the static library, and fentry with
# the shared one (built with LTO, so its code is laid out differently).
. "$(dirname "$0")/lib.sh"

RT=$TOP/testdata/runtime

if [ "$(uname -m)" != x86_64 ] || [ "$(uname -s)" != Linux ]; then
	skip "sigstep drives x86_64 Linux with ptrace (this is $(uname -sm))"
	done_testing
	exit
fi

dir=$T_TMP/sigstep
mkdir -p "$dir"
if ! compile_ok "sigstep" gcc -std=gnu11 -Wall -Wextra -Werror -O2 -o "$dir/sigstep" "$RT/sigstep.c"; then
	done_testing
	exit
fi

# variant LABEL CFLAGS LIBRARY
variant() {
	local label=$1 cflags=$2 lib=$3 d=$dir/$1 status out signalled handled
	mkdir -p "$d"
	# shellcheck disable=SC2086
	compile_ok "[$label] rt_sigstep" gcc -std=gnu11 -Wall -Wextra -Werror -O1 -g $cflags -I"$TOP/objpatch/lib" -I"$TOP" \
		-c "$RT/rt_sigstep.c" -o "$d/rt_sigstep.o" || return
	compile_ok "[$label] recordmcount" "$RMC" --mode=user --nop "$d/rt_sigstep.o" || return
	compile_ok "[$label] link" gcc -pie -o "$d/rt_sigstep" "$d/rt_sigstep.o" "$lib" -Wl,-rpath,"$TOP/build" -pthread -lelf -ldl || return
	# No writer thread (OBJPATCH_FLUSH_MS=0): sigstep follows one thread,
	# and an int3 it writes over code the writer also runs (libc's, the
	# runtime's) would kill the process with SIGTRAP when the writer got
	# there first (exit status 133 in a clean-clone CI run).  The trace
	# is then written at exit, as before streaming.
	OBJPATCH_FLUSH_MS=0 OBJPATCH_OUTPUT=$d/trace.text timeout 600 "$dir/sigstep" "$d/rt_sigstep" > "$d/out" 2> "$d/err"
	status=$?
	if [ "$status" -eq 125 ] && grep -q 'PTRACE_TRACEME\|POKEUSER' "$d/err"; then
		skip "[$label] this machine refuses ptrace or its debug registers: $(head -1 "$d/err")"
		return
	fi
	ok "$status" "[$label] a signal at every instruction of step_round(5): exit 0"
	[ "$status" -eq 0 ] || diag "exit status $status" "$(head -5 "$d/err")"
	signalled=$(sed -n 's/^# \([0-9]*\) instructions signalled$/\1/p' "$d/out")
	handled=$(sed -n 's/.* \([0-9]*\) signals handled$/\1/p' "$d/out")
	# Thousands: the traced calls' own code and the runtime's, with its libc calls.
	[ "${signalled:-0}" -gt 2000 ] && [ "$signalled" = "$handled" ]
	ok $? "[$label] every instruction got its signal, each handled once ($signalled signalled, ${handled:-?} handled)"
	grep -q '^# 0 wrong results, 0 wrong in the handler,' "$d/out"
	ok $? "[$label] every result right, in the handler and out of it"
	if out=$(python3 "$RT/check_trace.py" --format text --expect "$RT/rt_sigstep_expect.txt" "$d/trace.text" 2>&1); then
		ok 0 "[$label] check_trace.py: the trace is well-formed, every value right ($(grep -c '^ok' <<< "$out") checks)"
	else
		ok 1 "[$label] check_trace.py"
		diag "$(grep -v '^ok' <<< "$out" | head -20)"
	fi
}

variant fentry "-pg -mfentry" "$TOP/build/libobjpatch.a"
variant mcount "-pg" "$TOP/build/libobjpatch.a"
variant fentry-shared "-pg -mfentry" "$TOP/build/libobjpatch.so"
done_testing
