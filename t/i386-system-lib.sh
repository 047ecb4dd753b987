# SPDX-License-Identifier: GPL-2.0-only
#
# The i386 guests of scripts/i386-system.sh, booted and checked: by
# t/95-rt-i386-system.t (Debian's 686 kernel, every case) and by
# t/97-attach.t's i386 case where this kernel runs no i386 program
# (Debian's amd64 kernel, this machine's objpatch attaching to i386
# processes).
. "$(dirname "${BASH_SOURCE[0]}")/rt-lib.sh"

# i386_system EARLIER DIR FLAVOUR: boots the guest (scripts/i386-system.sh
# DIR FLAVOUR), or takes EARLIER's results when EARLIER is not empty; sets
# R to the results.  Returns 0 when they are there; otherwise it has said
# why (a skip when a piece is missing, a failure when not).
i386_system() {
	local earlier=$1 dir=$2 flavour=$3 start status
	start=$(date +%s)
	if [ -n "$earlier" ]; then
		dir=$earlier
		[ -s "$dir/results/uname" ] > "$T_TMP/script-$flavour.err" 2>&1
		status=$?
	else
		"$TOP/scripts/i386-system.sh" "$dir" "$flavour" > "$T_TMP/script-$flavour.out" 2> "$T_TMP/script-$flavour.err"
		status=$?
	fi
	if [ "$status" = 2 ]; then
		skip "scripts/i386-system.sh $flavour: $(tail -1 "$T_TMP/script-$flavour.err")"
		return 1
	fi
	ok "$status" "scripts/i386-system.sh built, booted the $flavour guest and got its results back ($(($(date +%s) - start)) s)"
	if [ "$status" != 0 ]; then
		diag "$(cat "$T_TMP/script-$flavour.err")" "console:" "$(tail -30 "$dir/console.log" 2> /dev/null)"
		return 1
	fi
	R=$dir/results
}

# attach_loads_ok DIR LABEL: what case_attach left in DIR: 20 loads of the
# runtime into target.c running, one more by the thread blocked in read(),
# and the target going on as before (t/97-attach.t's scenario).
attach_loads_ok() {
	local d=$1 label=$2 tid
	is "$(grep -c . "$d/load.status")" 20 "[$label] 20 loads were tried"
	is "$(sort -u "$d/load.status")" 0 "[$label] ... every one status 0"
	is "$(grep -cE '^objpatch attach: [0-9]+: /opt/objpatch/(i386/)?libobjpatch\.so loaded, dormant \(handle 0x[0-9a-f]+, by thread [0-9]+\)$' "$d/loads")" 20 \
		"[$label] ... one line each: loaded, dormant"
	tid=$(cat "$d/reader")
	is "$(cat "$d/reader.status")" 0 "[$label] a load by the thread blocked in read(): status 0"
	grep -qE "^objpatch attach: [0-9]+: /opt/objpatch/(i386/)?libobjpatch\.so loaded, dormant \(handle 0x[0-9a-f]+, by thread $tid\)\$" "$d/reader.load"
	ok $? "[$label] ... one line, which says that thread ($tid) did it"
	is "$(cat "$d/loads" "$d/reader.load" | grep -o 'handle 0x[0-9a-f]*' | sort -u | wc -l)" 1 "[$label] every load gave the one handle"
	[ -s "$d/maps" ]
	ok $? "[$label] /proc/PID/maps holds libobjpatch.so"
	is "$(cat "$d/threads.after")" "$(cat "$d/threads.before")" "[$label] dormant: the runtime started no thread"
	is "$(cat "$d/reader.syscall")" 3 "[$label] the reader is back in read() (i386's system call 3)"
	is "$(cat "$d/status")" 7 "[$label] the program exits with its own status"
	is "$(grep -c 'ran, all right' "$d/target.out")" 4 "[$label] every worker's results were right"
	grep -q '^wrong' "$d/target.out"
	ok $((! $?)) "[$label] every sleep was whole and without error"
	is "$(grep '^read:' "$d/target.out")" "read: line after the loads" "[$label] the interrupted read() returned the line written after"
	is "$(cat "$d/target.err")" "" "[$label] dormant: nothing on the program's standard error"
}

# attach_session_ok DIR LABEL: what case_attach_trace left in DIR: a
# session of objpatch attach (two filters, 0.5 s, JSON) into traced.c.
attach_session_ok() {
	local d=$1 label=$2 names
	is "$(cat "$d/attach.status")" 0 "[$label] attach --filter add_pair --filter 'par*' --duration 0.5: status 0"
	[ "$(cat "$d/attach.status")" = 0 ] || diag "[$label] objpatch said:" "$(head -5 "$d/attach.err")"
	names=$(python3 -c 'import json, sys
print(" ".join(sorted({e["name"] for e in json.load(open(sys.argv[1]))["traceEvents"] if e.get("ph") in ("B", "E", "X")})))' \
		"$d/trace.json" 2>&1)
	is "$names" "add_pair parity" "[$label] the trace holds the filtered functions, only"
	# The workers' arguments vary: values by their form (the program checks the rest).
	printf '%s\n' 'add_pair ~^[0-9]+$' 'parity ~^"(odd|even)"$' > "$T_TMP/attach-trace.expect"
	check_trace "$label" json "$T_TMP/attach-trace.expect" "$d/trace.json"
	is "$(cat "$d/threads.after")" "$(cat "$d/threads.before")" "[$label] detached: the runtime's session thread is gone"
	is "$(cat "$d/status")" 7 "[$label] the program exits with its own status"
	is "$(grep -c 'rounds, all right' "$d/target.out")" 3 "[$label] every worker's results were right"
	grep '^wrong' "$d/target.out" | head -3 | while read -r l; do diag "$l"; done
	is "$(cat "$d/target.err")" "" "[$label] nothing on the program's standard error"
}
