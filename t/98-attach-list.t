#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# objpatch attach --list PID: the functions a running process could have
# traced, with their prototypes, read from the files it has mapped and
# nothing done to the process.  testdata/attach/list_target.c, a PIE built
# with -pg -mfentry and recordmcount --nop, linked with one recorded
# library (testdata/attach/list_lib.c), loads two more with dlopen (copies
# of it) and waits on its standard input.  Then:
#  - per module a heading (path, the address /proc/PID/maps gives its
#    offset 0, the number of functions) and exactly the lines
#    `objpatch list FILE` prints, for the program and the three libraries;
#    the modules without tables (libc, the loader) counted in one line;
#  - --json parses, and holds per module the very objects
#    `objpatch list --json FILE` gives, and the same count;
#  - no ptrace, no signal (strace of objpatch shows none), so the listing
#    works while another tracer holds the process;
#  - a library deleted since it was loaded is named in one line, the
#    program deleted is still listed, through /proc/PID/exe;
#  - the process was untouched: TracerPid 0 after each listing, and its
#    output and exit status are those of a run nobody listed.
# Then the refusals, one line and status 2 each: a program and library
# with no recorded call sites (the words objpatch list uses), another
# user's process, no such process, not a number.
. "$(dirname "$0")/attach-lib.sh"

OBJPATCH=$TOP/build/objpatch
SRC=$TOP/testdata/attach
D=$T_TMP
CFLAGS=(-std=gnu11 -Wall -Wextra -Werror -O0 -g)

attach_host_only

# running LABEL CMD...: runs CMD, its standard input a pipe on fd 3 here and
# its output in $D/LABEL.out (a file: all of it is compared at the end),
# and waits for its "ready"; sets $pid.
running() {
	local label=$1
	shift
	rm -f "$D/in"
	mkfifo "$D/in"
	"$@" < "$D/in" > "$D/$label.out" 2> "$D/$label.err" &
	pid=$!
	exec 3> "$D/in"
	until_true grep -qx ready "$D/$label.out"
}

# finished LABEL: ends the target's input, waits for it; its status in $st.
finished() {
	printf 'one\nLOUD two\n' >&3
	exec 3>&-
	wait "$pid"
	st=$?
}

# untraced LABEL: TracerPid 0 and not stopped: nothing holds the process.
untraced() {
	is "$(awk '/^TracerPid:/ { print $2 }' /proc/"$pid"/status)" 0 "[$1] the process is not traced (TracerPid 0)"
	grep -q '^State:[[:space:]]*[SR]' /proc/"$pid"/status
	ok $? "[$1] ... nor stopped ($(grep '^State:' /proc/"$pid"/status))"
}

# block FILE LISTING: the lines under FILE's heading in a listing (to the next heading).
block() {
	awk -v h="$1" 'index($0, h ": ") == 1 { on = 1; next } /^[^0]/ { on = 0 } on' "$2"
}

# heading FILE LISTING: FILE's heading line.
heading() {
	awk -v h="$1" 'index($0, h ": ") == 1' "$2"
}

# base PID PATH: where the process maps PATH's offset 0, as the heading prints it.
base() {
	awk -v p="$2" '{ f = $0; sub(/^[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +/, "", f) }
		f == p && $3 == "00000000" { split($1, a, "-"); sub(/^0+/, "", a[1]); print "0x" a[1]; exit }' /proc/"$1"/maps
}

# ---- build: recorded (-pg -mfentry + --nop) and unrecorded ----
if ! compile_ok "target" gcc "${CFLAGS[@]}" -pg -mfentry -fPIE -c "$SRC/list_target.c" -o "$D/target.o" ||
   ! compile_ok "library" gcc "${CFLAGS[@]}" -pg -mfentry -fPIC -c "$SRC/list_lib.c" -o "$D/lib.o" ||
   ! compile_ok "recordmcount --nop" "$RMC" --mode=user --nop "$D/target.o" "$D/lib.o" ||
   ! compile_ok "link" gcc -shared -o "$D/liblist.so" "$D/lib.o" ||
   ! compile_ok "link" gcc -shared -o "$D/libdirect.so" "$D/lib.o" ||
   ! compile_ok "link" gcc -pie -o "$D/prog" "$D/target.o" -ldl -Wl,--no-as-needed -L"$D" -ldirect -Wl,-rpath,"$D" ||
   ! compile_ok "unrecorded" gcc "${CFLAGS[@]}" -o "$D/plain" "$SRC/list_target.c" -ldl ||
   ! compile_ok "unrecorded" gcc "${CFLAGS[@]}" -fPIC -shared -o "$D/libplain.so" "$SRC/list_lib.c"; then
	done_testing
	exit
fi
cp "$D/liblist.so" "$D/libgone.so"
cp "$D/prog" "$D/prog.kept"
for f in prog libdirect.so liblist.so libgone.so; do
	"$OBJPATCH" list "$D/$f" > "$D/$f.list" 2> "$D/$f.list.err"
	"$OBJPATCH" list --json "$D/$f" > "$D/$f.json" 2> /dev/null
done
ok $(($(wc -l < "$D/prog.list") < 5 || $(wc -l < "$D/liblist.so.list") < 4)) \
	"objpatch list finds the program's functions ($(wc -l < "$D/prog.list")) and the library's ($(wc -l < "$D/liblist.so.list"))"

# What the target prints when nobody lists it.
printf 'one\nLOUD two\n' | "$D/prog" "$D/liblist.so" "$D/libgone.so" > "$D/expected.out" 2>&1
is "$?" 5 "the target, alone: exit status 5"
printf 'one\nLOUD two\n' | "$D/plain" "$D/libplain.so" > "$D/expected-plain.out" 2>&1

# ---- listing a running process ----
if ! running recorded "$D/prog" "$D/liblist.so" "$D/libgone.so"; then
	ok 1 "[recorded] the target starts and says ready"
	kill "$pid"
	done_testing
	exit
fi
"$OBJPATCH" attach --list "$pid" > "$D/list1" 2> "$D/list1.err"
is "$?" 0 "attach --list: status 0"
is "$(cat "$D/list1.err")" "" "attach --list: nothing on standard error"
untraced "attach --list"
for f in prog libdirect.so liblist.so libgone.so; do
	n=$(wc -l < "$D/$f.list")
	is "$(heading "$D/$f" "$D/list1")" "$D/$f: $n function$([ "$n" = 1 ] || echo s), loaded at $(base "$pid" "$D/$f")" \
		"$f: the heading names it, its load address (from maps) and its $n functions"
	is "$(block "$D/$f" "$D/list1")" "$(cat "$D/$f.list")" "$f: its functions and prototypes, as objpatch list prints them"
done
grep -qE '^0x[0-9a-f]+ enum colour lib_colour\(unsigned int i\)$' "$D/list1"
ok $? "the dlopen'ed library's prototypes are there (enum colour lib_colour(unsigned int i))"
# Every other file mapped executable (libc, the loader) holds no table.
others=$(awk '$2 ~ /x/ && $6 ~ /^\// { print $6 }' /proc/"$pid"/maps | sort -u | grep -vcE '/(prog|libdirect\.so|liblist\.so|libgone\.so)$')
is "$(tail -1 "$D/list1")" "and $others more modules with no recorded call sites: nothing in them can be traced" \
	"the $others modules with no tables are counted in one closing line"
is "$(grep -cv '^0x' "$D/list1")" 5 "four headings and the closing line, nothing else"

# --json: valid, and per module what objpatch list --json says of its file.
"$OBJPATCH" attach --list --json "$pid" > "$D/list1.json" 2> "$D/list1.json.err"
is "$?" 0 "attach --list --json: status 0"
python3 -m json.tool "$D/list1.json" > /dev/null
ok $? "attach --list --json parses (python3 -m json.tool)"
# check_json JSON DELETED...: each module as objpatch list --json says of its file.
check_json() {
	python3 - "$D" "$pid" "$others" "$@" <<-'EOF'
	import json, sys
	d, pid, others, doc, deleted = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5:]
	j = json.load(open(doc))
	assert j['pid'] == pid, (j['pid'], pid)
	assert j['modules_without_sites'] == others, (j['modules_without_sites'], others)
	paths = [m['path'] for m in j['modules']]
	want = [d + '/' + f for f in ('prog', 'libdirect.so', 'liblist.so', 'libgone.so')]
	assert sorted(paths) == sorted(want), (paths, want)
	for m in j['modules']:
	    f = m['path'].rsplit('/', 1)[1]
	    assert m['deleted'] == (f in deleted), m
	    if f == 'libgone.so' and f in deleted:
	        assert m['functions'] is None, m
	        continue
	    listed = json.load(open('%s/%s.json' % (d, f)))
	    assert m['functions'] == listed, (f, m['functions'], listed)
	    assert m['sites'] == sum(len(x['sites']) for x in listed), m['sites']
	    assert m['bias'] == m['load_address'], m	# first segment at address 0 (PIE, shared library)
	print('ok')
	EOF
}
is "$(check_json "$D/list1.json" 2>&1)" ok "--json: per module the objects objpatch list --json gives its file, and the count"

# Nothing asked of the process: no ptrace call, no signal sent.
if command -v strace > /dev/null; then
	strace -f -qq -o "$D/strace" -e trace=ptrace,kill,tkill,tgkill,rt_sigqueueinfo,rt_tgsigqueueinfo,pidfd_send_signal,process_vm_writev \
		"$OBJPATCH" attach --list "$pid" > "$D/list2" 2>&1
	is "$?" 0 "attach --list under strace: status 0"
	is "$(grep -v '^[0-9]* *+++' "$D/strace")" "" "attach --list makes no ptrace call and sends no signal"
	# A process another tracer holds (one at a time) can be listed.
	strace -o /dev/null -p "$pid" 2> /dev/null &
	tracer=$!
	until_true eval '[ "$(awk "/^TracerPid:/ { print \$2 }" /proc/$pid/status)" != 0 ]'
	"$OBJPATCH" attach --list "$pid" > "$D/list3" 2>&1
	is "$?" 0 "attach --list of a process strace holds: status 0"
	is "$(cat "$D/list3")" "$(cat "$D/list1")" "... the same listing"
	kill "$tracer"
	wait "$tracer" 2> /dev/null
	until_true eval '[ "$(awk "/^TracerPid:/ { print \$2 }" /proc/$pid/status)" = 0 ]'
else
	skip "strace is not installed: no check of the system calls, nor of a process held by a tracer"
fi

# Files deleted since they were mapped: the library is named, unread;
# the program is read through /proc/PID/exe.
rm "$D/libgone.so" "$D/prog"
"$OBJPATCH" attach --list "$pid" > "$D/list4" 2> "$D/list4.err"
is "$?" 0 "attach --list with two of its files deleted: status 0"
is "$(grep -F "$D/libgone.so" "$D/list4")" \
	"$D/libgone.so (deleted): deleted or replaced since the process mapped it at $(base "$pid" "$D/libgone.so (deleted)"): not read, its functions are not listed" \
	"the deleted library: one line that says so"
n=$(wc -l < "$D/prog.list")
is "$(heading "$D/prog (deleted)" "$D/list4")" \
	"$D/prog (deleted): $n functions, loaded at $(base "$pid" "$D/prog (deleted)") (read through /proc/$pid/exe)" \
	"the deleted program: listed, read through /proc/PID/exe"
is "$(block "$D/prog (deleted)" "$D/list4")" "$(cat "$D/prog.list")" "... its functions as before"
is "$(block "$D/liblist.so" "$D/list4")" "$(cat "$D/liblist.so.list")" "... and the other libraries' (dlopen'ed)"
is "$(block "$D/libdirect.so" "$D/list4")" "$(cat "$D/libdirect.so.list")" "... and the other libraries' (linked)"
"$OBJPATCH" attach --list --json "$pid" > "$D/list4.json" 2>&1
is "$(check_json "$D/list4.json" prog libgone.so 2>&1)" ok "--json with deleted files: marked, the library's functions null"
untraced "after the listings"
is "$(sed -n '/^ready$/,$p' "$D/recorded.out")" ready "the target printed nothing while it was listed"
finished recorded
is "$st" 5 "the target exits with its own status (5)"
is "$(cat "$D/recorded.out")" "$(cat "$D/expected.out")" "its output is that of a run nobody listed"
is "$(cat "$D/recorded.err")" "" "nothing on its standard error"

# ---- the refusals ----
# refused LABEL PATTERN ARGS...: status 2, one line matching PATTERN.
refused() {
	local label=$1 pattern=$2 out st
	shift 2
	out=$("$OBJPATCH" attach "$@" 2>&1)
	st=$?
	is "$st" 2 "refused, $label: status 2"
	if [ "$(wc -l <<< "$out")" -eq 1 ] && grep -q -- "$pattern" <<< "$out"; then
		ok 0 "refused, $label: one line naming the cause ($pattern)"
	else
		ok 1 "refused, $label: one line naming the cause ($pattern)"
		diag "$out"
	fi
}

if running plain "$D/plain" "$D/libplain.so"; then
	refused "no recorded sites" "^objpatch attach: $pid: no recorded call sites in its program or libraries: compile them with -pg (or -fpatchable-function-entry) and run recordmcount --mode=user on their objects" --list "$pid"
	"$OBJPATCH" list "$D/plain" 2>&1 | grep -q 'no recorded call sites: compile with -pg and run recordmcount --mode=user'
	ok $? "refused, no recorded sites: the words objpatch list uses for such a file"
	untraced "unrecorded"
	finished plain
	is "$st" 5 "[unrecorded] the target exits with its own status (5)"
	is "$(cat "$D/plain.out")" "$(cat "$D/expected-plain.out")" "[unrecorded] its output is that of a run nobody listed"
else
	ok 1 "[unrecorded] the target starts and says ready"
fi
refused "no such process" "no such process" --list $(($(cat /proc/sys/kernel/pid_max) + 1))
refused "not a number" "not a process id" --list 12x
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null; then
	sleep 600 &
	sleeper=$!
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$OBJPATCH" attach --list "$sleeper" 2>&1)
	is "$?" 2 "refused, another user's process: status 2"
	grep -q "its memory map cannot be read (Permission denied): run objpatch as the process's user or as root" <<< "$out"
	ok $? "refused, another user's process: one line saying its maps cannot be read ($out)"
	kill "$sleeper"
	wait "$sleeper" 2> /dev/null
else
	skip "not root, or no setpriv: no other user to try as"
fi
refused "--json without --list" "goes with --list" --json 1
refused "--list without a process" "no process" --list

done_testing
