#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Fault injection on the in-place rewrite: after every fault the object is
# byte-identical to what it was or to the complete result, never half-written,
# and the status and the one-line message say what happened.
#  * Failing calls (testdata/faults/failwrite.c, LD_PRELOAD into a dynamically
#    linked build): every call of the writer (the input copied by
#    copy_file_range, or by pwrite where the kernel cannot, then what changed
#    appended by pwrite), on objects of few and of 2200 sections, of the
#    reading where the input cannot be mapped, and of -o's copy, failing with
#    ENOSPC and with EIO, first, midway (short writes) and last.
#  * A real full file system: a small tmpfs with less free space than the
#    result at ten levels, so the write stops at ten different places.
#  * SIGKILL before each system call of a run, on an object of few sections
#    and on one of 2200 (testdata/faults/race.pl).
#  * Read-only: a read-only mount, an immutable file, unwritable and sticky
#    directories and unreadable files as an unprivileged user.
#  * The file replaced or rewritten while being processed, stopped before
#    each step, and replaced before each system call on each write path;
#    two processes on the same file at once, 100 times.
# Takes about 60 s.
. "$(dirname "$0")/lib.sh"

SRC=$TOP/testdata/safety
FAULTS=$TOP/testdata/faults
CC=gcc	# LD_PRELOAD needs the tool to run natively: host objects
MOUNTED=()
IMMUTABLE=()
cleanup() {
	local m
	for m in "${IMMUTABLE[@]}"; do chattr -i "$m" 2>/dev/null; done
	for ((m = ${#MOUNTED[@]} - 1; m >= 0; m--)); do umount "${MOUNTED[m]}" 2>/dev/null; done
	[ "${KEEP:-0}" = 1 ] || rm -rf "$T_TMP"
}
trap cleanup EXIT

# A private copy: another build of build/recordmcount must not change it mid-test.
TOOL=$T_TMP/recordmcount
cp "$RMC" "$TOOL" || { echo "Bail out! no $RMC"; exit 1; }
# The shim needs a dynamically linked tool (the default build is static).
DYN=$T_TMP/dyn/recordmcount
if ! make -s -C "$TOP" BUILD="$T_TMP/dyn" STATIC=0 SANITIZE=0 "$DYN" >"$T_TMP/dyn.log" 2>&1; then
	echo "Bail out! cannot build a dynamically linked recordmcount: $(tail -3 "$T_TMP/dyn.log")"
	exit 1
fi
SHIM=$T_TMP/failwrite.so
gcc -std=gnu11 -Wall -Wextra -Werror -O2 -shared -fPIC -o "$SHIM" "$FAULTS/failwrite.c" -ldl ||
	{ echo "Bail out! cannot build the fault injector"; exit 1; }

# ---- the objects ----
O=$T_TMP/obj
mkdir -p "$O"
$CC -O2 -pg -fno-pic -c "$SRC/calls.c" -o "$O/small.o" || { echo "Bail out! cannot compile"; exit 1; }
$CC -O0 -pg -fno-pic -c "$SRC/calls.c" -o "$O/repl.o"	# a different object, to replace it with
# 3000 functions in one .text, and 1100 in sections of their own (2200
# sections, with a section header table of more than a page).
perl -e 'print "int f$_(int x) { return x * $_ + 1; }\n" for 0 .. 2999' > "$O/mid.c"
perl -e 'print "int f$_(int x) { return x * $_ + 1; }\n" for 0 .. 1099' > "$O/many.c"
$CC -O1 -pg -fno-pic -c "$O/mid.c" -o "$O/mid.o" &&
	$CC -O1 -pg -fno-pic -ffunction-sections -c "$O/many.c" -o "$O/many.o" ||
	{ echo "Bail out! cannot compile the generated sources"; exit 1; }
for f in small repl mid many; do
	cp "$O/$f.o" "$O/$f.done"
	"$TOOL" "$O/$f.done" || { echo "Bail out! recordmcount fails on $f.o"; exit 1; }
	cmp -s "$O/$f.o" "$O/$f.done" && { echo "Bail out! recordmcount does not change $f.o"; exit 1; }
done
# The number of calls to the hook, counted by binutils, not by the tool.
hook_calls() { readelf -rW "$1" | grep -cE ' (_?mcount|__fentry__|__gnu_mcount_nc)([+-]|$| )'; }
is "$("$TOOL" --list "$O/mid.done" | wc -l)" "$(hook_calls "$O/mid.o")" "mid.o: the result lists every call (3000)"
n=$(readelf -hW "$O/many.o" | awk '/Number of section headers/ {print $NF}')
[ "$n" -gt 1000 ]
ok $? "many.o has more than 1000 sections ($n)"

# The injector itself changes nothing when no fault is asked for.
mkdir -p "$T_TMP/plain"
for f in small many; do
	cp "$O/$f.o" "$T_TMP/plain/x.o"
	LD_PRELOAD=$SHIM "$DYN" "$T_TMP/plain/x.o" && cmp -s "$O/$f.done" "$T_TMP/plain/x.o"
	ok $? "$f.o under the injector, no fault: the same result as the static build"
done

W=$T_TMP/w
FAULT_LOG=$T_TMP/fault.log
INJECTED=0
text_of() { case $1 in ENOSPC) echo "No space left on device" ;; EIO) echo "Input/output error" ;; esac; }
snapshot() { (cd "$W" && find . -type f -printf '%p %s %m\n' | sort && cat ./* | md5sum); }

# inject LABEL ERRNO VAR=VALUE... -- ARG...: the dynamic build with the fault
# injector, the variables set, on ARG... in $W: it must fail cleanly (status
# 1, one line `recordmcount: $W/x.o: ... <the errno's text>`), every file in
# $W as before (the input and an existing -o output untouched, no temporary
# file), and the fault must really have been injected.
inject() {
	local label=$1 errno=$2 vars=() rc err before why=
	shift 2
	while [ "$1" != -- ]; do vars+=("$1"); shift; done
	shift
	before=$(snapshot)
	: > "$FAULT_LOG"
	err=$(env LD_PRELOAD="$SHIM" FAULT_LOG="$FAULT_LOG" FAULT_ERRNO="$errno" "${vars[@]}" \
		"$DYN" "$@" 2>&1 >/dev/null)
	rc=$?
	if [ ! -s "$FAULT_LOG" ]; then
		why="no fault was injected"
	elif [ "$rc" != 1 ]; then
		why="status $rc"
	elif [[ $err == *$'\n'* || $err != "recordmcount: $W/x.o: "*"$(text_of "$errno")" ]]; then
		why="message: $err"
	elif [ "$(snapshot)" != "$before" ]; then
		why="files changed: $(cd "$W" && ls)"
	fi
	INJECTED=$((INJECTED + $(wc -l < "$FAULT_LOG")))
	cat "$FAULT_LOG" >> "$T_TMP/all-faults.log"
	ok "${#why}" "$label, $errno: clean failure, nothing changed${why:+ ($why)}"
	[ -z "$why" ] || diag "stderr: $err"
	[ "${VERBOSE:-0}" = 0 ] || diag "$label $errno: $err"
}

fresh() {	# fresh OBJECT [OUT-CONTENTS]: $W holds a copy as x.o (and out.o)
	rm -rf "$W"
	mkdir -p "$W"
	cp "$1" "$W/x.o"
	[ $# -lt 2 ] || cp "$2" "$W/out.o"
}

# The writer's calls on the temporary file, counted by strace on a clean run:
# the last pwrite is the ELF header's, which makes the result an object.
pwrites() {	# pwrites OBJECT [VAR=VALUE...]: "COUNT BYTES" of the pwrites of a run
	local obj=$1
	shift
	rm -rf "$W" && mkdir -p "$W" && cp "$obj" "$W/x.o"
	env "$@" strace -f -qq -e trace=pwrite64 -e signal=none -o "$T_TMP/pw.trace" "$DYN" "$W/x.o" 2>/dev/null
	awk '/^[0-9]+ +pwrite64\(/ { n++; b += $NF } END { print n + 0, b + 0 }' "$T_TMP/pw.trace"
}
small_out=$(stat -c %s "$O/small.done")
read -r small_pw small_pw_bytes < <(pwrites "$O/small.o")
read -r many_pw _ < <(pwrites "$O/many.o")
read -r nocopy_pw nocopy_pw_bytes < <(pwrites "$O/small.o" LD_PRELOAD="$SHIM" FAULT_NO_COPY=1)
small_in=$(stat -c %s "$O/small.o")
[ "$small_pw" -ge 3 ] && [ "$many_pw" -ge 3 ] && [ "$nocopy_pw" = $((small_pw + 1)) ] &&
	[ "$nocopy_pw_bytes" = $((small_pw_bytes + small_in)) ]
ok $? "the writer's pwrites counted: $small_pw on small.o ($small_pw_bytes bytes), $many_pw on many.o; one more, of the whole input, without copy_file_range"

for errno in ENOSPC EIO; do
	for spec in mkstemp copy_file_range pwrite:0 pwrite:$((small_pw - 1)) fchmod close rename; do
		call=${spec%%:*}
		skip=0
		[ "$call" = "$spec" ] || skip=${spec#*:}
		fresh "$O/small.o"
		inject "$call (after $skip)" "$errno" FAULT_CALL="$call" FAULT_SKIP="$skip" -- "$W/x.o"
	done
	for bytes in 1 $((small_in / 2)) $((small_in - 1)); do
		fresh "$O/small.o"
		inject "copy_file_range: short copy after $bytes of $small_in bytes" "$errno" \
			FAULT_CALL=copy_file_range FAULT_BYTES="$bytes" -- "$W/x.o"
	done
	for bytes in 1 $((small_pw_bytes / 2)) $((small_pw_bytes - 1)); do
		fresh "$O/small.o"
		inject "pwrite: short write after $bytes of $small_pw_bytes bytes" "$errno" \
			FAULT_CALL=pwrite FAULT_BYTES="$bytes" -- "$W/x.o"
	done
	# A file system that cannot map: the input is read.
	fresh "$O/small.o"
	inject "no mmap: pread" "$errno" FAULT_NO_MMAP=1 FAULT_CALL=pread -- "$W/x.o"
	# Without copy_file_range the input is written from memory.
	for bytes in 1 $((small_in / 2)) $((nocopy_pw_bytes - 1)); do
		fresh "$O/small.o"
		inject "no copy_file_range: short pwrite after $bytes of $nocopy_pw_bytes bytes" "$errno" \
			FAULT_NO_COPY=1 FAULT_CALL=pwrite FAULT_BYTES="$bytes" -- "$W/x.o"
	done
	# 2200 sections
	for spec in copy_file_range pwrite:0 pwrite:$((many_pw - 1)) rename; do
		call=${spec%%:*}
		skip=0
		[ "$call" = "$spec" ] || skip=${spec#*:}
		fresh "$O/many.o"
		inject "2200 sections: $call (after $skip)" "$errno" FAULT_CALL="$call" FAULT_SKIP="$skip" -- "$W/x.o"
	done
	# -o OUT over an existing file, from an unprocessed input and from a
	# processed one (then the input is copied by write())
	fresh "$O/small.o" "$O/repl.o"
	inject "-o: pwrite" "$errno" FAULT_CALL=pwrite -- -o "$W/out.o" "$W/x.o"
	for spec in write:0 write:1 write:$((small_out / 2)) mkstemp fchmod close rename; do
		call=${spec%%:*}
		vars=(FAULT_CALL="$call")
		[ "$call" = "$spec" ] || vars+=(FAULT_BYTES="${spec#*:}")
		fresh "$O/small.done" "$O/repl.o"
		inject "-o copy: $call${vars[1]:+ after ${spec#*:} bytes}" "$errno" "${vars[@]}" -- -o "$W/out.o" "$W/x.o"
	done
done
# Where the kernel cannot copy or map, the result is the same.
for f in small many; do
	for no in COPY MMAP; do
		fresh "$O/$f.o"
		env LD_PRELOAD="$SHIM" FAULT_NO_$no=1 "$DYN" "$W/x.o" && cmp -s "$O/$f.done" "$W/x.o" &&
			[ "$(ls -A "$W")" = x.o ]
		ok $? "$f.o without $(tr A-Z a-z <<< "$no"): the same result"
	done
done

# Several files, the second one failing: the others are processed.
rm -rf "$W" && mkdir -p "$W"
for f in a x c; do cp "$O/small.o" "$W/$f.o"; done
: > "$FAULT_LOG"
err=$(LD_PRELOAD=$SHIM FAULT_CALL=mkstemp FAULT_SKIP=1 FAULT_TIMES=1 FAULT_ERRNO=ENOSPC FAULT_LOG=$FAULT_LOG \
	"$DYN" "$W/a.o" "$W/x.o" "$W/c.o" 2>&1)
rc=$?
INJECTED=$((INJECTED + $(wc -l < "$FAULT_LOG")))
cat "$FAULT_LOG" >> "$T_TMP/all-faults.log"
[ "$rc" = 1 ] && [ "$err" = "recordmcount: $W/x.o: cannot create temporary file in its directory: No space left on device" ] &&
	cmp -s "$O/small.o" "$W/x.o" && cmp -s "$O/small.done" "$W/a.o" && cmp -s "$O/small.done" "$W/c.o" &&
	[ "$(ls -A "$W" | wc -l)" = 3 ]
ok $? "three files, the second failing: status 1, its message, it intact, the others processed"

diag "faults injected through LD_PRELOAD: $INJECTED ($(awk '{print $1}' "$T_TMP/all-faults.log" | sort | uniq -c | awk '{printf "%s %s, ", $2, $1}'))"

# ---- a real full file system ----
# A tmpfs with less free space than the result needs, in ten steps: the
# write stops at a different place each time.
rm -rf "$W" && mkdir -p "$W"
mid_out=$(stat -c %s "$O/mid.done")
if mount -t tmpfs -o size=$((3 * mid_out / 1024 + 64))k rmc-faults "$W" 2>/dev/null; then
	MOUNTED+=("$W")
	nfail=0 nok=0 bad=0
	for k in 0 1 2 3 4 5 6 7 8 9 10 11; do
		rm -f "$W"/*
		cp "$O/mid.o" "$W/x.o"
		free=$((k * mid_out / 10))
		avail=$(($(stat -f -c '%a * %S' "$W")))
		[ "$avail" -le "$free" ] || fallocate -l $((avail - free)) "$W/filler" || { bad=$((bad + 1)); continue; }
		err=$("$TOOL" "$W/x.o" 2>&1)
		rc=$?
		if [ "$rc" = 1 ] && [ "$err" = "recordmcount: $W/x.o: cannot write: No space left on device" ] &&
		   cmp -s "$O/mid.o" "$W/x.o"; then
			nfail=$((nfail + 1))
		elif [ "$rc" = 0 ] && cmp -s "$O/mid.done" "$W/x.o"; then
			nok=$((nok + 1))
		else
			bad=$((bad + 1))
			diag "free $free bytes: status $rc: $err"
		fi
		[ -z "$(find "$W" -name '.*.rmc-*.tmp')" ] || { bad=$((bad + 1)); diag "free $free bytes: temporary file left"; }
	done
	ok "$bad" "full tmpfs, 12 levels of free space: $nfail clean ENOSPC failures, $nok complete results"
	[ "$nfail" -ge 8 ] && [ "$nok" -ge 1 ]
	ok $? "full tmpfs: the write failed midway at 8 or more levels and succeeded with room ($nfail, $nok)"
	umount "$W" && unset 'MOUNTED[-1]'
else
	skip "cannot mount a tmpfs"
fi

# ---- SIGKILL before each system call ----
K=$T_TMP/kill
mkdir -p "$K"
for f in mid many; do
	start=$SECONDS
	perl "$FAULTS/race.pl" kill "$TOOL" "$O/$f.o" "$O/$f.done" "$K" > "$T_TMP/kill-$f" 2>&1
	rc=$?
	secs=$((SECONDS - start))
	get() { awk -v k="$1" '$1 == k {print $2}' "$T_TMP/kill-$f"; }
	points=$(get points)
	[ "$rc" = 0 ] && [ "$(get bad)" = 0 ] && [ "${points:-0}" -ge 10 ] &&
		[ "$(($(get intact) + $(get processed)))" = "$points" ]
	ok $? "$f.o: killed at each of its ${points:-?} points (before each system call on files): always the original or the complete result"
	# Every point but the last (after the run) is reached; both outcomes
	# come: the rename is one of the last calls.
	[ "$(get killed)" -ge $((points - 1)) ] && [ "$(get intact)" -ge 1 ] && [ "$(get processed)" -ge 1 ]
	ok $? "$f.o: the kills spread over the run ($(get killed) killed, $(get intact) left intact, $(get processed) complete)"
	[ "$(get rerun_ok)" = "$(get leftover)" ] && [ "$(get leftover)" -ge 1 ] && [ "$(get leftover_kept)" = 0 ]
	ok $? "$f.o: a temporary file left by a kill does not disturb the next run, which removes it ($(get leftover) left, $(get leftover_kept) kept)"
	grep '^bad run' "$T_TMP/kill-$f" | head -5 | while read -r l; do diag "$l"; done
	[ "$rc" = 0 ] || diag "$(tail -3 "$T_TMP/kill-$f")"
	diag "$f.o kills: $(tr '\n' ' ' < "$T_TMP/kill-$f") (${secs} s)"
done

# ---- read-only ----
rm -rf "$W" && mkdir -p "$W"
# expect_fail DESC TEXT ORIGINAL CMD...: status 1, one line naming $W/x.o and
# ending in TEXT, $W/x.o still ORIGINAL, no temporary file.
expect_fail() {
	local desc=$1 text=$2 orig=$3 err rc
	shift 3
	err=$("$@" 2>&1 >/dev/null)
	rc=$?
	[ "$rc" = 1 ] && [[ $err != *$'\n'* && $err == "recordmcount: $W/x.o: "*"$text" ]] &&
		cmp -s "$orig" "$W/x.o" && [ -z "$(find "$W" -name '.*.rmc-*.tmp')" ]
	ok $? "$desc: status 1, '$text', the file intact, no temporary file"
	[ "$rc" = 1 ] || diag "status $rc: $err"
	[[ $err == *"$text" ]] || diag "stderr: $err"
}
mkdir -p "$W/ro"
cp "$O/small.o" "$W/x.o"
if mount --bind "$W" "$W/ro" 2>/dev/null && MOUNTED+=("$W/ro") &&
   mount -o remount,bind,ro "$W/ro" 2>/dev/null; then
	err=$("$TOOL" "$W/ro/x.o" 2>&1)
	rc=$?
	[ "$rc" = 1 ] && [ "$err" = "recordmcount: $W/ro/x.o: cannot create temporary file in its directory: Read-only file system" ] &&
		cmp -s "$O/small.o" "$W/x.o" && [ "$(ls -A "$W")" = "$(printf 'ro\nx.o')" ]
	ok $? "read-only mount: status 1, 'Read-only file system', the file intact"
	[ "$rc" = 1 ] || diag "status $rc: $err"
	umount "$W/ro" && unset 'MOUNTED[-1]'
else
	skip "cannot make a read-only bind mount"
fi
rmdir "$W/ro" 2>/dev/null
if chattr +i "$W/x.o" 2>/dev/null; then
	IMMUTABLE+=("$W/x.o")
	expect_fail "immutable file (chattr +i)" "cannot replace the file: Operation not permitted" "$O/small.o" "$TOOL" "$W/x.o"
	chattr -i "$W/x.o"
else
	skip "chattr +i not supported here"
fi
# As an unprivileged user (root ignores permission bits).
AS=()
if [ "$(id -u)" = 0 ] && setpriv --reuid=nobody --regid=nogroup --clear-groups true 2>/dev/null; then
	AS=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
	chmod 0755 "$T_TMP" "$O"
	chmod 0755 "$TOOL"
elif [ "$(id -u)" != 0 ]; then
	AS=(env)
fi
if [ ${#AS[@]} -gt 0 ]; then
	[ "${AS[0]}" = env ] || chown nobody "$W"
	cp "$O/small.o" "$W/x.o" && chmod 0444 "$W/x.o"
	[ "${AS[0]}" = env ] || chown nobody "$W/x.o"
	"${AS[@]}" "$TOOL" "$W/x.o" && cmp -s "$O/small.done" "$W/x.o" && [ "$(stat -c %a "$W/x.o")" = 444 ]
	ok $? "read-only file (0444) in a writable directory: processed, still 0444 (as the kernel's tool)"
	cp "$O/small.o" "$W/x.o" && chmod 0 "$W/x.o"
	expect_fail "unreadable file" "Permission denied" "$O/small.o" "${AS[@]}" "$TOOL" "$W/x.o"
	cp "$O/small.o" "$W/x.o" && chmod 0666 "$W/x.o" && chmod 0555 "$W"
	expect_fail "read-only directory (0555)" \
		"cannot create temporary file in its directory: Permission denied" "$O/small.o" "${AS[@]}" "$TOOL" "$W/x.o"
	if [ "${AS[0]}" != env ]; then
		# A sticky directory (/tmp) and someone else's file, writable by all.
		chown root "$W" "$W/x.o" && chmod 1777 "$W"
		expect_fail "someone else's file in a sticky directory" \
			"cannot replace the file: Operation not permitted" "$O/small.o" "${AS[@]}" "$TOOL" "$W/x.o"
	fi
	chmod 0755 "$W"
else
	skip "cannot drop privileges (setpriv) for the permission cases"
fi

# ---- the file replaced while being processed ----
# Stopped before a step (FAULT_STALL), the file is replaced by rename or
# rewritten in place.  Up to the last check, just before the rename, the tool
# notices, keeps the new file and says so; between that check and the rename
# (a few microseconds) our result replaces it.  Either way the file is whole.
replace_at() {	# replace_at CALL HOW EXPECT: HOW = mv or cat; EXPECT = theirs or ours
	local call=$1 how=$2 expect=$3 rc err pid why=
	rm -rf "$W" && mkdir -p "$W"
	cp "$O/small.o" "$W/x.o"
	cp "$O/repl.o" "$T_TMP/repl.o"
	rm -f "$T_TMP/stall".*
	LD_PRELOAD=$SHIM FAULT_CALL=$call FAULT_STALL=$T_TMP/stall "$DYN" "$W/x.o" 2>"$T_TMP/err" &
	pid=$!
	for _ in $(seq 2000); do [ -e "$T_TMP/stall.ready" ] && break; sleep 0.01; done
	if [ "$how" = mv ]; then mv "$T_TMP/repl.o" "$W/x.o"; else cat "$T_TMP/repl.o" > "$W/x.o"; fi
	touch "$T_TMP/stall.go"
	wait "$pid"
	rc=$?
	err=$(cat "$T_TMP/err")
	if [ ! -e "$T_TMP/stall.ready" ]; then
		why="the tool never reached $call"
	elif [ "$expect" = theirs ]; then
		[ "$rc" = 1 ] && [[ $err == "recordmcount: $W/x.o: changed by another process while being read" ||
			$err == "recordmcount: $W/x.o: changed by another process while being processed: left as it is now" ]] ||
			why="status $rc: $err"
		cmp -s "$O/repl.o" "$W/x.o" || why+=" the replacement is not intact"
	else
		[ "$rc" = 0 ] && cmp -s "$O/small.done" "$W/x.o" || why="status $rc, not our complete result: $err"
	fi
	[ "$(ls -A "$W")" = x.o ] || why+=" files left: $(ls -A "$W")"
	ok "${#why}" "replaced ($how) before $call: $( [ "$expect" = theirs ] && echo 'noticed, the new file kept' || echo 'our complete result')${why:+ ($why)}"
}
for how in mv cat; do
	for call in mmap copy_file_range pwrite fchmod close; do
		replace_at "$call" "$how" theirs
	done
	replace_at rename "$how" ours
done

# Truncated under the tool's mapping of it (the injector maps what a
# truncation to 4 KiB would leave): SIGBUS on the first page past it, which
# the tool turns into one line and status 1, the file kept, the run going on
# with the next file; --check counts it as a file it could not check.
fresh "$O/mid.o"
cp "$O/mid.o" "$W/y.o"
err=$(LD_PRELOAD=$SHIM FAULT_SHRUNK_NAME=/x.o FAULT_SHRUNK_MAP=4096 "$DYN" "$W/x.o" "$W/y.o" 2>&1)
rc=$?
[ "$rc" = 1 ] && [ "$err" = "recordmcount: $W/x.o: changed by another process while being read" ] &&
	cmp -s "$O/mid.o" "$W/x.o" && cmp -s "$O/mid.done" "$W/y.o" && [ "$(ls -A "$W" | tr '\n' ' ')" = "x.o y.o " ]
ok $? "truncated while mapped (SIGBUS): status 1, one line, the file kept, the next file processed"
[ "$rc" = 1 ] || diag "status $rc: $err"
err=$(LD_PRELOAD=$SHIM FAULT_SHRUNK_NAME=/x.o FAULT_SHRUNK_MAP=4096 "$DYN" --check "$W/x.o" 2>&1 >/dev/null)
rc=$?
[ "$rc" = 2 ] && [ "$err" = "recordmcount: $W/x.o: changed by another process while being read" ]
ok $? "--check of a file truncated while mapped: a file that could not be checked (status $rc)"

# Before each system call, by rename, on both objects: the file ends
# whole, as one of three files (the replacement, our result, or our result
# of the replacement when it came before we read), and a status 1 comes with
# the replacement kept and the message (testdata/faults/race.pl).
for f in mid many; do
	perl "$FAULTS/race.pl" replace "$TOOL" "$O/$f.o" "$O/$f.done" "$K" \
		"$O/repl.o" "$O/repl.done" > "$T_TMP/replace-$f" 2>&1
	rc=$?
	get() { awk -v k="$1" '$1 == k {print $2}' "$T_TMP/replace-$f"; }
	[ "$rc" = 0 ] && [ "$(get bad)" = 0 ] && [ "$(get points)" -ge 10 ]
	ok $? "$f.o: replaced at each of its $(get points) points (before each system call on files): always a whole file, the status matching"
	[ "$(get status1_theirs)" -ge 1 ] && [ "$(get status0_theirs)" -ge 1 ] && [ "$(get status0_theirs_processed)" -ge 1 ]
	ok $? "$f.o: the replacements spread over the run (noticed $(get status1_theirs), after us $(get status0_theirs), before we read $(get status0_theirs_processed), lost in the last instants $(get status0_ours))"
	grep '^bad run' "$T_TMP/replace-$f" | head -5 | while read -r l; do diag "$l"; done
	[ "$rc" = 0 ] || diag "$(tail -3 "$T_TMP/replace-$f")"
done

# ---- two processes on the same file at once ----
rm -rf "$W" && mkdir -p "$W"
bad=0 both=0 one=0
calls=$(hook_calls "$O/mid.o")
for i in $(seq 100); do
	cp "$O/mid.o" "$W/x.o"
	"$TOOL" "$W/x.o" 2>"$T_TMP/err1" &
	p1=$!
	"$TOOL" "$W/x.o" 2>"$T_TMP/err2" &
	p2=$!
	wait "$p1"; r1=$?
	wait "$p2"; r2=$?
	case $r1$r2 in
	00) both=$((both + 1)) ;;
	01 | 10) one=$((one + 1))
		grep -q "^recordmcount: $W/x.o: changed by another process while being processed" "$T_TMP/err1" "$T_TMP/err2" ||
			{ bad=$((bad + 1)); diag "round $i: $(cat "$T_TMP/err1" "$T_TMP/err2")"; } ;;
	*) bad=$((bad + 1)); diag "round $i: status $r1 and $r2: $(cat "$T_TMP/err1" "$T_TMP/err2")" ;;
	esac
	cmp -s "$O/mid.done" "$W/x.o" || { bad=$((bad + 1)); diag "round $i: not the result of one run"; }
	[ "$(ls -A "$W")" = x.o ] || { bad=$((bad + 1)); diag "round $i: files left: $(ls -A "$W")"; }
done
ok "$bad" "two processes at once, 100 rounds: the file is the result of one run ($both both succeeded, $one one noticed the other)"
is "$("$TOOL" --list "$W/x.o" | wc -l)" "$calls" "after the races: --list reads every call ($calls, counted by readelf)"

done_testing
