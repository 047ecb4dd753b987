#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# objpatch attach, 100 times in a row, into one running service.
# testdata/attach/service.c runs 8 workers that check
# every result they compute (five families of small functions: hash_*,
# sort_*, parse_*, matrix_*, list_*, half of the workers churning the
# allocator), counts SIGUSR1 in a handler, forks a child now and then
# (which checks its own work and exits with a status the parent expects,
# or execs /bin/true) and has a reader blocked in read() on its standard
# input.  Each attach has other filters (families, negations, several
# patterns), a duration of 0.05 to 0.15 s, JSON or text, --args on every
# fifth; SIGUSR1 comes during every third and those that trace everything
# (the handler too), either while ptrace holds the process or while its
# runtime traces (testdata/attach/signal_during.py).  After each:
#  - objpatch exited 0 and its trace is well formed, holds only functions
#    the filters select, and each thread's entries and exits pair up
#    (testdata/attach/check_attach.py);
#  - objpatch said nothing but its own lines about the process (and, when
#    a signal came, how many calls its handler made inside the tracer);
#  - /proc/PID/maps holds exactly one libobjpatch.so (also while the
#    attach runs), and every worker goes on.
# Every tenth session ends by SIGINT instead, once worker_round is patched
# (its first bytes read otherwise) and every worker did two more rounds:
# each of the 8 has a whole call of it in the trace.  After the attaches,
# the service has its own threads and descriptors, no more.
# At the end, "quit": the service's summary has no mismatch, every signal
# sent was handled, every child exited as expected, nothing was written
# on its standard error nor in its working directory, its exit status is
# 0.  Built the ways the issue names for x86_64: -pg -mfentry objects with
# recordmcount --nop (the 100 attaches), -fpatchable-function-entry=5, -pg
# (calls of glibc's mcount) and gcc's -mrecord-mcount -mnop-mcount (fewer
# attaches each); the pads once more with OBJPATCH_ATTACH_ALONE_MS=0.
#
# INJECT_ONLY=1: each attach is a load (--inject-only) instead, with the
# same checks but the trace's.  ATTACHES=N: N attaches into the --nop
# build (100), fewer into the others; BUILDS="nop pg": only those (busy:
# the --nop build again, its workers never pausing; it needs nop).
. "$(dirname "$0")/attach-lib.sh"

OBJPATCH=$TOP/build/objpatch
SRC=$TOP/testdata/attach
CHECK=(python3 "$SRC/check_attach.py")
SIGNAL=(python3 "$SRC/signal_during.py")
SITE=(python3 "$SRC/site_bytes.py")
D=$T_TMP
CFLAGS=(-std=gnu11 -Wall -Wextra -Werror -O2 -g -pthread)
ATTACHES=${ATTACHES:-100}

# A service gone (the failure this test is for) must not take the test with it.
trap '' PIPE

attach_host_only

# build LABEL RMC-FLAGS LDFLAGS CFLAGS...: compile, record, link (without
# -pg): $D/LABEL/service.
build() {
	local label=$1 rmc=$2 ldflags=$3 dir=$D/$1 out
	shift 3
	mkdir -p "$dir"
	compile_ok "[$label] service" gcc "${CFLAGS[@]}" "$@" -c "$SRC/service.c" -o "$dir/service.o" || return 1
	# shellcheck disable=SC2086
	if ! out=$("$RMC" --mode=user $rmc "$dir/service.o" 2>&1); then
		ok 1 "[$label] recordmcount --mode=user $rmc"
		diag "$out"
		return 1
	fi
	# shellcheck disable=SC2086
	compile_ok "[$label] link" gcc -pthread $ldflags -o "$dir/service" "$dir/service.o"
}

# started_in_cwd LABEL CMD...: runs CMD in the empty directory $D/LABEL/cwd, its
# standard input and output on pipes (fds 3 and 4 here), and waits for
# its "ready"; sets $pid.
started_in_cwd() {
	local label=$1 line=
	shift
	rm -rf "$D/in" "$D/out" "$D/$label/cwd"
	mkdir -p "$D/$label/cwd"
	mkfifo "$D/in" "$D/out"
	(cd "$D/$label/cwd" && exec "$@") < "$D/in" > "$D/out" 2> "$D/$label/err" &
	pid=$!
	exec 3> "$D/in" 4< "$D/out"
	read -r -t 30 line <&4
	[ "$line" = ready ]
}

# The copies of libobjpatch.so mapped in $pid (distinct device:inode).
runtimes() {
	awk '$6 ~ /\/libobjpatch\.so/ && !seen[$4 " " $5]++ { n++ } END { print n + 0 }' /proc/"$pid"/maps 2> /dev/null
}

# Whether a SIGUSR1 waits for $pid (process-wide or in one thread): one
# sent now would merge with it, so the test waits until none does.
usr1_pending() {
	local mask
	for mask in $(sed -n 's/^\(ShdPnd\|SigPnd\):\s*//p' /proc/"$pid"/status /proc/"$pid"/task/*/status 2> /dev/null); do
		(( 0x$mask & 0x200 )) && return 0
	done
	return 1
}

no_usr1_pending() { ! usr1_pending; }

# stats: the service's counters: signals children rounds0 ... rounds7.
# Its other lines (a mismatch, a child gone wrong) go to $said.
stats() {
	local line
	echo stats >&3
	while read -r -t 30 line <&4; do
		case $line in
		stats\ *) echo "${line#stats }"; return 0 ;;
		*) echo "$line" >> "$said" ;;
		esac
	done
	return 1
}

# progressed BEFORE: every worker has done more rounds than in BEFORE (a stats line).
progressed() {
	local now b i
	read -ra now <<< "$(stats)"
	read -ra b <<< "$1"
	for ((i = 2; i <= 9; i++)); do
		[ "${now[$i]:-0}" -gt "${b[$i]:-0}" ] || return 1
	done
	return 0
}

# Every thread of the service: TID NAME STATE /proc/.../syscall.
threads_state() {
	local t
	for t in /proc/"$pid"/task/*; do
		echo "${t##*/} $(cat "$t/comm") $(cut -d' ' -f3 "$t/stat") $(cat "$t/syscall")"
	done 2> /dev/null
}

# The service's own threads and descriptors: as many as before the first attach.
own_threads() { [ "$(ls /proc/"$pid"/task | wc -l)" = "$threads" ]; }
own_fds() { [ "$(find /proc/"$pid"/fd -mindepth 1 -printf '%f -> %l\n' | sort -n | tr '\n' ' ')" = "$fds" ]; }

# FILTERS[i]: the filters of attach i, cycled: families, negations, several.
FILTERS=(
	'hash_*'
	'sort_*'
	'parse_*'
	'matrix_*'
	'list_*'
	'hash_* sort_*'
	'* !sort_*'
	'parse_* matrix_det matrix_mul'
	'*_round'
	'* !hash_* !parse_* !matrix_*'
	'sort_* !sort_merge_run !sort_sift_down'
	'list_* proc_* hash_fnv1a'
	'matrix_* !matrix_[mt]*'
	'hash_crc32_* hash_mix64 hash_unmix64'
	'*'
	'parse_dec parse_hex parse_format_*'
	'* !*_round !list_* !sort_* !parse_*'
	'worker_round hash_round'
)

# FEW[i]: the busy services' filters, functions called a few times a round
# (busy workers make a trace of every function hundreds of MB).
FEW=(
	'hash_fnv1a'
	'proc_*'
	'sort_quick list_sum'
	'matrix_det'
	'* !sort_* !hash_* !parse_* !matrix_* !list_* !*_round'
)

# attach_once LABEL I: one attach, its checks; one ok.
attach_once() {
	local label=$1 i=$2 filters fargs=() f dur fmt trace out st bad=0 attacher why=() signal=0 verdict before what cmd when n interrupt=0 require=() site args ours stuck= limit
	if [[ $label == busy* ]]; then
		read -ra filters <<< "${FEW[$((i % ${#FEW[@]}))]}"
	else
		read -ra filters <<< "${FILTERS[$((i % ${#FILTERS[@]}))]}"
	fi
	dur=$(printf '0.%02d' $((5 + i % 3 * 5)))
	[[ $label == busy* ]] && dur=0.05	# workers that never pause fill a trace fast
	fmt=json
	[ $((i % 4)) -eq 3 ] && fmt=text
	trace=$D/$label/trace.$i.$fmt
	# Every third, and each that traces every function (the handler too).
	{ [ $((i % 3)) -eq 0 ] || [ "${filters[0]}" = '*' ]; } && signal=1
	if [ $((i % 10)) -eq 5 ]; then
		# Ended by SIGINT once every worker did two rounds with
		# worker_round patched: each has a whole call of it in the trace.
		interrupt=1
		filters+=(worker_round)
		require=(--require worker_round=8)
		dur=
		[ "$TRACING" = 0 ] || site=$("${SITE[@]}" "$pid" "$exe" worker_round)
	fi
	for f in "${filters[@]}"; do fargs+=(--filter "$f"); done
	asked+=" ${filters[*]}"
	args=()
	[ $((i % 5)) -eq 1 ] && args=(--args)
	cmd=("$OBJPATCH" attach --inject-only "$pid")
	[ "$TRACING" = 0 ] ||
		cmd=("$OBJPATCH" attach "${fargs[@]}" "${args[@]}" ${dur:+--duration "$dur"} --format "$fmt" --output "$trace" "$pid")
	if [ "$signal" = 1 ]; then
		# One signal pending at a time, none merged with another.
		until_true no_usr1_pending || { bad=1; why+=("a SIGUSR1 stays pending"); }
		when=held
		[ $((i % 2)) = 1 ] && [ "$TRACING" = 1 ] && when=released
		rm -f "$D/$label/when"
		cmd=("${SIGNAL[@]}" --when "$when" --report "$D/$label/when" "$pid" -- "${cmd[@]}")
		sent=$((sent + 1))
	fi
	"${cmd[@]}" > "$D/$label/attach.out" 2>&1 &
	attacher=$!
	if [ "$interrupt" = 1 ] && [ "$TRACING" = 1 ]; then
		"${SITE[@]}" "$pid" "$exe" worker_round --until-not "$site" --while-alive "$attacher" > /dev/null ||
			{ bad=1; why+=("worker_round stays $site"); }
		for _ in 1 2; do
			before=$(stats) && until_true progressed "$before" || { bad=1; why+=("a worker stopped: $(stats) after $before"); }
		done
		kill -INT "$attacher"
	fi
	# Meanwhile, one runtime at most (none only before the first load).
	# A call that waits for a lock: each thread's state, for whoever
	# debugs it (objpatch says so after 2 s).
	limit=$((SECONDS + ${ATTACH_LIMIT:-180}))
	while kill -0 "$attacher" 2> /dev/null; do
		if [ "$SECONDS" -gt "$limit" ]; then
			# A session is a fraction of a second: show the hang, then end it.
			why+=("objpatch attach still running after ${ATTACH_LIMIT:-180} s; it said: $(cat "$D/$label/attach.out")"
			      "$(for p in "$attacher" $(pgrep -P "$attacher"); do
				echo "process $p: $(tr '\0' ' ' < /proc/"$p"/cmdline)"
				process_state "$p"
			      done 2> /dev/null)" "the service:" "$(process_state "$pid")")
			bad=1
			kill -INT "$attacher"
			sleep 10
			pkill -KILL -P "$attacher"
			kill -KILL "$attacher" 2> /dev/null
			break
		fi
		n=$(runtimes)
		if [ "$n" -gt 1 ] || { [ "$n" = 0 ] && [ "$i" -gt 0 ]; }; then
			bad=1
			why+=("$n libobjpatch.so mapped while attached")
			break
		fi
		if [ -z "$stuck" ] && grep -q "has not returned" "$D/$label/attach.out"; then
			stuck=$(threads_state)
			why+=("threads while the call waited (name state syscall args sp pc):" "$stuck"
			      "$(grep -E 'libc\.so|libobjpatch' /proc/"$pid"/maps | awk '$3 == "00000000"')")
		fi
		sleep 0.02
	done
	wait "$attacher"
	st=$?
	out=$(cat "$D/$label/attach.out")
	cat "$D/$label/attach.out" >> "$D/$label/attach.all"
	[ "$st" = 0 ] || { bad=1; why+=("objpatch exited $st: $out"); }
	# objpatch's own lines about the process, nothing else (a warning of the report: the trace is cut).
	# A signal during the session may come while its thread is inside the
	# tracer: the handler's calls are not traced, and the report says so.
	ours="^objpatch attach: $pid: "
	# A filter's function that did not run during the session (an init function) is named.
	ours+="|^objpatch attach: [0-9]+ functions? matched by the filter (was|were) never called while attached: "
	[ "$signal" = 1 ] && ours+="|^objpatch: [0-9]+ calls not traced \(signal handler inside the tracer\)$"
	if [ "$TRACING" = 1 ] && grep -Eqv "$ours" <<< "$out"; then
		bad=1
		why+=("objpatch said: $out")
	fi
	if [ "$TRACING" = 1 ]; then
		if ! verdict=$("${CHECK[@]}" --format "$fmt" --pid "$pid" "${fargs[@]}" "${require[@]}" "$trace" 2>&1); then
			bad=1
			why+=("the trace $trace: $verdict")
		elif [[ $verdict =~ ^ok:\ 0\ events ]]; then
			empty=$((empty + 1))
		else
			traced_names+=" ${verdict#*threads: }"
		fi
	elif ! [[ "$out" == *"libobjpatch.so loaded, dormant"* ]]; then
		bad=1
		why+=("objpatch said: $out")
	fi
	[ "$(runtimes)" = 1 ] || { bad=1; why+=("$(runtimes) libobjpatch.so mapped after the attach"); }
	kill -0 "$pid" 2> /dev/null || { bad=1; why+=("the service is gone"); }
	before=$(stats) && until_true progressed "$before" || { bad=1; why+=("a worker stopped: $(stats) after $before"); }
	what="${filters[*]}${args:+ --args}, ${dur:-until SIGINT,} ${dur:+s, }$fmt"
	[ "$TRACING" = 1 ] || what="a load (--inject-only)"
	[ "$signal" = 0 ] || what+=", SIGUSR1 during it"
	if [ "$signal" = 1 ]; then
		when=$(cat "$D/$label/when" 2> /dev/null)
		what+=" (${when:-not sent?})"
		[ "$when" = held ] && sent_held=$((sent_held + 1))
		[ "$when" = released ] && sent_released=$((sent_released + 1))
	fi
	ok "$bad" "[$label] attach $i: $what"
	[ "$bad" = 0 ] || diag "${why[@]}"
	[ "$bad" = 0 ]
}

# stress LABEL N [BUILD [SERVICE-ARGS...]]: N attaches into a new service
# (the program built as BUILD, default LABEL), then its own verdict.
stress() {
	local label=$1 n=$2 i summary out st f
	exe=$D/${3:-$1}/service
	mkdir -p "$D/$label"
	sent=0 sent_held=0 sent_released=0 empty=0 traced_names='' asked='' said=$D/$1/said
	: > "$said"
	if ! started_in_cwd "$label" "$exe" "${@:4}"; then
		ok 1 "[$label] the service starts and says ready"
		kill "$pid" 2> /dev/null
		return
	fi
	threads=$(ls /proc/"$pid"/task | wc -l)
	fds=$(find /proc/"$pid"/fd -mindepth 1 -printf '%f -> %l\n' | sort -n | tr '\n' ' ')
	is "$(runtimes)" 0 "[$label] no runtime in the service before the first attach"
	for i in $(seq 0 $((n - 1))); do
		attach_once "$label" "$i"
		kill -0 "$pid" 2> /dev/null || break	# the rest would say nothing new
	done
	if ! kill -0 "$pid" 2> /dev/null; then
		reaped
		ok 1 "[$label] the service lives through the attaches (it ended after attach $i, status $st$( ((st > 128)) && echo ": $(kill -l $((st - 128)))"))"
		[ -n "$out" ] && diag "[$label] it said:" "$out"
		return
	fi
	# Threads and descriptors as before: the runtime, dormant, has none of its own.
	until_true own_threads
	is "$(ls /proc/"$pid"/task | wc -l)" "$threads" "[$label] after the attaches, the service has its own threads, no more"
	# The runtime closes its socket before objpatch sees the stream end: a short poll.
	TRIES=100 until_true own_fds
	is "$(find /proc/"$pid"/fd -mindepth 1 -printf '%f -> %l\n' | sort -n | tr '\n' ' ')" "$fds" \
		"[$label] after the attaches, the service has its own descriptors, no more"
	if [ "$TRACING" = 1 ]; then
		diag "[$label] $empty of $n traces had no event"
		# Each family some session asked for by its pattern alone.
		for f in hash_ sort_ parse_ matrix_ list_; do
			[[ " $asked " == *" $f* "* ]] || continue
			[[ " $traced_names" == *" $f"* ]]
			ok $? "[$label] some trace holds the ${f}* functions"
		done
	fi
	# A child forked and checked: they come every 64 rounds of worker 7.
	until_true eval '[ "$(stats | cut -d" " -f2)" -gt 0 ]'
	ok $? "[$label] the service forked children meanwhile"
	echo quit >&3
	reaped
	summary=$(grep '^summary:' <<< "$out")
	is "$st" 0 "[$label] the service exits 0: every check passed"
	[[ $summary =~ mismatches=0\  ]]
	ok $? "[$label] no result was wrong ($summary)"
	[[ $summary =~ signals=$sent\  ]]
	ok $? "[$label] each of the $sent SIGUSR1 was handled once ($sent_held while ptrace held the service, $sent_released while its runtime traced)"
	[[ $summary =~ bad-children=0$ ]]
	ok $? "[$label] every child exited with the status expected"
	grep -v '^summary:' <<< "$out" >> "$said"
	[ -s "$said" ] && diag "[$label] the service said:" "$(head -40 "$said")"
	is "$(cat "$D/$label/err")" "" "[$label] nothing on the service's standard error"
	is "$(ls -A "$D/$label/cwd")" "" "[$label] nothing written in its working directory"
}

TRACING=1
[ "${INJECT_ONLY:-0}" = 1 ] && TRACING=0
BUILDS=" ${BUILDS:-nop busy pads pg mnop} "

# The issue's 100 into the --nop build, fewer into each other form.
[[ $BUILDS == *" nop "* ]] && build nop --nop "" -pg -mfentry && stress nop "$ATTACHES"
# Busy: workers that never pause (traced calls all the time, the allocator
# always busy) and worker 7 forking every 4th round: a thread is often
# inside fork(), whose handlers hold every malloc lock, when objpatch stops
# the process.  Two services: the first attach, which loads the runtime
# (dlopen: malloc all the time), is each one's.  t/97 holds the
# deterministic form of what a thread inside fork() does to the call.
if [[ $BUILDS == *" busy "* ]] && [ -x "$D/nop/service" ]; then
	for b in 1 2; do stress busy$b "$((ATTACHES / 30))" nop 0 4; done
fi
[[ $BUILDS == *" pads "* ]] && build pads "" "" -fpatchable-function-entry=5 && stress pads "$((ATTACHES / 10))"
# Pads again, every call that may share the process sharing it at once (as
# a start call waiting for a lock a held thread has does after 2 s): the
# start call shares it, the call that joins the pads never does, and the
# service lives.  Before the pads had a call of their own, a start call
# slowed down by a loaded machine let the workers run into half-joined
# pads (SIGTRAP).
if [[ $BUILDS == *" pads "* ]] && [ -x "$D/pads/service" ]; then
	OBJPATCH_ATTACH_ALONE_MS=0 stress pads-shared "$((ATTACHES / 10))" pads
	said=$(cat "$D/pads-shared/attach.all" 2> /dev/null)
	grep -q 'objpatch_attach_start has not returned .* the other threads run until it returns' <<< "$said"
	ok $? "[pads-shared] start calls shared the process ($(grep -c 'objpatch_attach_start has not returned' <<< "$said") of them)"
	! grep -q 'objpatch_attach_enable_held has not returned .* the other threads run' <<< "$said"
	ok $? "[pads-shared] the call that joins the pads never let the other threads run"
	grep -q 'objpatch_attach_enable_held has not returned .* objpatch waits for it' <<< "$said"
	ok $? "[pads-shared] it waited alone instead ($(grep -c 'objpatch_attach_enable_held has not returned' <<< "$said") times)"
fi
# -pg calls glibc's mcount (which does nothing when the program is not
# linked with -pg: no gmon.out); gcc's own NOPs and table, not a PIE.
[[ $BUILDS == *" pg "* ]] && build pg "" "" -pg && stress pg "$((ATTACHES / 10))"
[[ $BUILDS == *" mnop "* ]] && build mnop "" -no-pie -pg -mfentry -mrecord-mcount -mnop-mcount -fno-pie &&
	stress mnop "$((ATTACHES / 10))"

done_testing
