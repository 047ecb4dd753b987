#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The recording format (man/objpatch-recording.5) and its reader's answer
# to damaged files, with testdata/recording/prog.c (one thread, the same
# calls on every machine) and testdata/recording/rawfmt.py, a second reader
# written from the man page, which lists the records and makes the altered
# copies:
#  - natively: the version 3 header (byte-order mark, word size, length,
#    minor 2) and the filter record ('*' without --filter);
#    `objpatch report` of the recording prints what `objpatch run` printed
#    live (durations and process IDs aside); the same recording as versions
#    1 and 2, with records of unknown types between the others, with a
#    longer header (a later minor version), and read from a pipe: the same
#    trace;
#  - damaged headers (magic, later version, byte-order mark, length, class
#    and word size, depth, machine), each one line naming the offset of the
#    field, status 1; the recording cut inside the header, inside every
#    record's type and size and inside every payload: one line naming that
#    record's offset, what it needs and what is left; cut between records:
#    read whole up to there; a record claiming 4 GiB refused at once under
#    a 256 MiB address-space limit, from a file and from a pipe;
#  - across machines: the same program recorded under qemu-user on aarch64
#    and s390x (big-endian) with build/MACHINE/libobjpatch.so, reported by
#    this machine's objpatch: the trace `objpatch run` printed live under
#    qemu, line for line; a truncated copy names the offset of the record
#    cut.
# About 20 s.
. "$(dirname "$0")/lib.sh"

OBJPATCH=$TOP/build/objpatch
SRC=$TOP/testdata/recording/prog.c
RAWFMT=(python3 "$TOP/testdata/recording/rawfmt.py")
D=$T_TMP
cd "$D" || exit 1

# norm TRACE: a text trace without what differs between two runs of a
# program: process and thread IDs, durations (the column between the ID and
# the "|"), long hex numbers (addresses).
norm() {
	sed -E 's/pid [0-9]+/pid N/; s/^ *[0-9]+\) [^|]*\|/TID) |/; s/0x[0-9a-f]{5,}/0x?/g' "$1"
}

# same_trace LABEL EXPECTED GOT: GOT (a report) is EXPECTED (a live run's trace), durations and IDs aside.
same_trace() {
	local label=$1 want=$2 got=$3
	if [ -s "$want" ] && [ "$(norm "$want")" = "$(norm "$got")" ]; then
		ok 0 "$label"
	else
		ok 1 "$label"
		diag "$(diff <(norm "$want") <(norm "$got") | head -20)"
	fi
}

# fails_at LABEL FILE PATTERN: objpatch report FILE exits 1 with one line
# `objpatch report: FILE: PATTERN` (an extended regex) and no trace.
fails_at() {
	local label=$1 file=$2 pattern=$3 err rc
	err=$(timeout 60 "$OBJPATCH" report --output "$D/fail.txt" "$file" 2>&1 >/dev/null)
	rc=$?
	if [ "$rc" = 1 ] && [ "$(wc -l <<< "$err")" = 1 ] && grep -qE "^objpatch report: $file: $pattern" <<< "$err"; then
		ok 0 "$label"
	else
		ok 1 "$label"
		diag "status $rc, expected 1; stderr:" "$err" "expected one line: objpatch report: $file: $pattern"
	fi
}

# build OUT CC [CFLAGS...]: prog.c compiled -pg -g, recorded, linked as a PIE.
build() {
	local out=$1 cc=$2
	shift 2
	compile_ok "$out: $cc" "$cc" -O2 -g -pg "$@" -c "$SRC" -o "$out.o" &&
	compile_ok "$out: recordmcount" "$RMC" --mode=user "$out.o" &&
	compile_ok "$out: link" "$cc" -pie "$out.o" -o "$out"
}

# ---- natively ----
build "$D/prog" gcc || { done_testing; exit 1; }
timeout 60 "$OBJPATCH" run --output run.txt -- ./prog 3 > out.run 2> err.run
ok $? "objpatch run: exit 0"
timeout 60 "$OBJPATCH" record --output rec.data -- ./prog 3 > out.rec 2> err.rec
ok $? "objpatch record: exit 0"
"$OBJPATCH" report rec.data > rep.txt 2> rep.err
ok $? "objpatch report: exit 0"
is "$(cat rep.err)" "" "objpatch report: nothing on standard error"
same_trace "report of the recording = run's live trace, durations and IDs aside" run.txt rep.txt

walk=$("${RAWFMT[@]}" walk rec.data)
head=${walk%%$'\n'*}
host_order=$(python3 -c 'import sys; print(sys.byteorder)')
want="byte_order=$((0x01020304)) header_bytes=40 minor=2 machine=62 elfclass=2 word_bytes=8"
[[ $head == "$want "* && $head == *" order=$host_order" ]]
ok $? "version 3 header: the mark 0x01020304 in this machine's order, 40 bytes, minor 2, x86_64, 8-byte words"
[[ $head == "$want "* && $head == *" order=$host_order" ]] || diag "header: $head" "expected: $want ... order=$host_order"
is "$("${RAWFMT[@]}" filter rec.data)" '*' "the filter record (type 10): '*', recorded without --filter"
mapfile -t recs < <(tail -n +2 <<< "$walk")
size=$(stat -c %s rec.data)
last=${recs[-1]}
read -r lo lt lb <<< "$last"
is "$((lo + 8 + lb))" "$size" "the records ($((${#recs[@]})) of them) end where the file ends (rawfmt.py reads it as the man page says)"

# The same events under other headers, and records a later version may add.
for alt in to-v2 to-v1 unknown extend; do
	"${RAWFMT[@]}" "$alt" rec.data "$alt.data"
	"$OBJPATCH" report "$alt.data" > "$alt.txt" 2> "$alt.err"
	rc=$?
	case $alt in
	to-v2) what="as version 2" ;;
	to-v1) what="as version 1 (no functions: read from the file)" ;;
	unknown) what="with a record of an unknown type after every record (skipped)" ;;
	extend) what="with a 56-byte header, minor 3 (the fields after byte 40 skipped)" ;;
	esac
	if [ "$rc" = 0 ] && [ ! -s "$alt.err" ] && cmp -s rep.txt "$alt.txt"; then
		ok 0 "$what: the same trace"
	else
		ok 1 "$what: the same trace"
		diag "status $rc" "$(head -3 "$alt.err")" "$(diff rep.txt "$alt.txt" | head -10)"
	fi
done
cat rec.data | "$OBJPATCH" report /dev/stdin > pipe.txt 2> pipe.err
[ $? = 0 ] && [ ! -s pipe.err ] && cmp -s rep.txt pipe.txt
ok $? "read from a pipe (size unknown): the same trace"

# ---- damaged headers: one line naming the field's offset ----
# field value pattern
while read -r field value pattern; do
	if [ "$field" = magic ]; then off=0; else off=$("${RAWFMT[@]}" offset "$field"); fi
	"${RAWFMT[@]}" header rec.data bad.data "$field" "$value"
	fails_at "header: $field = $value: offset $off" "$D/bad.data" "offset $off: ${pattern//_/ }"
done <<'EOF'
magic OBJPATCH-RAW-5\n a_recording_of_format_version_5,_this_objpatch_reads_1_to_4:_use_a_newer_objpatch
magic OBJPATCH-RAW-x\n not_an_objpatch_recording
magic ELF\x7f not_an_objpatch_recording
byte_order 0x05060708 corrupt_header:_byte-order_mark_0x05060708
header_bytes 36 corrupt_header:_its_length_36
header_bytes 44 corrupt_header:_its_length_44
elfclass 3 corrupt_header:_ELF_class_3,_not_1_or_2
word_bytes 4 corrupt_header:_4-byte_words_with_ELF_class_2
depth 0 corrupt_header:_depth_0
depth 40000 corrupt_header:_depth_40000
machine 3 recorded_on_machine_3_.*which_has_no_runtime
EOF
"${RAWFMT[@]}" header rec.data bad.data header_bytes 4096
fails_at "header: header_bytes = 4096, past the end of the file" "$D/bad.data" \
	"offset 0: truncated header \(needs 4096 bytes, $size left\)"
: > empty.data
fails_at "an empty file" "$D/empty.data" "offset 0: an empty file, not a recording"
for n in 10 39; do
	head -c "$n" rec.data > cut.data
	fails_at "cut inside the header ($n bytes)" "$D/cut.data" "offset 0: truncated header \(needs 40 bytes, $n left\)"
done

# ---- cut short: inside each record's type and size, inside its payload, between records ----
bad_cut=0 bad_whole=0 cuts=0
for r in "${recs[@]}"; do
	read -r off type bytes <<< "$r"
	for at in $((off + 5)) $((off + 8 + bytes / 2)); do
		[ "$at" -lt $((off + 8 + bytes)) ] || continue
		cuts=$((cuts + 1))
		head -c "$at" rec.data > cut.data
		if [ "$at" -lt $((off + 8)) ]; then need=8; else need=$((8 + bytes)); fi
		err=$("$OBJPATCH" report cut.data 2>&1 >/dev/null)
		rc=$?
		want="objpatch report: cut.data: offset $off: truncated record (needs $need bytes, $((at - off)) left): the recording was cut short"
		if [ "$rc" != 1 ] || [ "$err" != "$want" ]; then
			bad_cut=$((bad_cut + 1))
			diag "cut at $at (record of type $type at $off): status $rc" "got:      $err" "expected: $want"
		fi
	done
	# Cut right before this record: whole up to there, and said to be
	# unfinished (no exit record), or refused when nothing follows the header.
	head -c "$off" rec.data > cut.data
	"$OBJPATCH" report cut.data > /dev/null 2> cut.err
	rc=$?
	if [ "$off" = 40 ]; then
		want="objpatch report: cut.data: offset 40: nothing after the header: the process died (or was killed) before its first flush, so no trace was written"
		wrc=1
	else
		want="objpatch report: cut.data: offset $off: no exit record: the process died before its final flush, or is still running; the trace ends at its last event"
		wrc=0
	fi
	if [ "$rc" != "$wrc" ] || [ "$(cat cut.err)" != "$want" ]; then
		bad_whole=$((bad_whole + 1))
		diag "cut before the record at $off: status $rc" "got:      $(cat cut.err)" "expected: $want"
	fi
done
ok $((bad_cut > 0 || cuts == 0)) "cut at $cuts places inside the ${#recs[@]} records: each one line naming the record's offset, what it needs and what is left"
ok $((bad_whole)) "cut before each of the ${#recs[@]} records: read whole up to there with one line saying it has no exit record (status 0), or refused with one line when nothing follows the header (status 1)"

# A corrupt size: refused before any memory is taken for it (a 4 GiB
# buffer would fail under the limit with "out of memory" instead).
for i in "${!recs[@]}"; do
	read -r off type bytes <<< "${recs[$i]}"
	[ "$type" = 3 ] && break
done
"${RAWFMT[@]}" size rec.data huge.data "$i" 0xfffffff8
pattern="offset $off: truncated record \(needs 4294967296 bytes, $((size - off)) left\)"
# under_limit CMD...: CMD with 256 MiB of address space; not in the sanitized
# pass, whose ASan reserves terabytes of shadow memory at start-up (the
# message is checked there all the same)
under_limit() {
	if sanitized_pass; then
		"$@"
	else
		(ulimit -v 262144; "$@")
	fi
}
err=$(under_limit "$OBJPATCH" report huge.data 2>&1 >/dev/null)
rc=$?
[ "$rc" = 1 ] && grep -qE "^objpatch report: huge.data: $pattern" <<< "$err"
ok $? "a record claiming 4 GiB, from a file: refused at once under a 256 MiB limit"
[ "$rc" = 1 ] || diag "status $rc: $err"
err=$(cat huge.data | under_limit "$OBJPATCH" report /dev/stdin 2>&1 >/dev/null)
rc=$?
[ "$rc" = 1 ] && grep -qE "^objpatch report: /dev/stdin: $pattern" <<< "$err"
ok $? "a record claiming 4 GiB, from a pipe: the buffer grows with what arrives, the same line"
[ "$rc" = 1 ] || diag "status $rc: $err"
"${RAWFMT[@]}" size rec.data odd.data "$i" 12
fails_at "a record size not a multiple of 8" "$D/odd.data" "offset $off: corrupt record of type 3: its size 12 is not a multiple of 8"

# A corrupt event (a header word of type 7) in the middle of the largest
# events record.  In a file, events are checked as the writer reads them:
# the trace up to where it found it is written, then the same line and
# status 1; from a pipe the reader checks each record as it copies it,
# before anything is written.
last_ev=0 last_off=0 largest=0
for i in "${!recs[@]}"; do
	read -r off type bytes <<< "${recs[$i]}"
	[ "$type" = 3 ] && [ "$bytes" -gt "$largest" ] && { last_ev=$i; last_off=$off; largest=$bytes; }
done
"${RAWFMT[@]}" event rec.data badev.data "$last_ev" 7
want="objpatch report: badev.data: offset $last_off: corrupt record of type 3: an event's header word is not one the runtime writes"
err=$("$OBJPATCH" report badev.data 2>&1 > badev.txt)
rc=$?
[ "$rc" = 1 ] && [ "$err" = "$want" ] && [ "$(head -3 badev.txt)" = "$(head -3 rep.txt)" ] &&
	[ "$(wc -l < badev.txt)" -gt 3 ]
ok $? "a corrupt event in a file: the trace before it, then one line naming its record, status 1"
[ "$rc" = 1 ] || diag "status $rc: $err" "$(head -5 badev.txt)"
err=$(cat badev.data | "$OBJPATCH" report /dev/stdin 2>&1 > badev-pipe.txt)
rc=$?
[ "$rc" = 1 ] && [ "$err" = "${want/badev.data//dev/stdin}" ] && [ ! -s badev-pipe.txt ]
ok $? "a corrupt event from a pipe: nothing written, the same line, status 1"
[ "$rc" = 1 ] || diag "status $rc: $err"

# ---- across machines: recorded under qemu-user, reported here ----
# cross QEMU TRIPLE MACHINE ORDER: ORDER is the recording's byte order (rawfmt.py).
cross() {
	local q=$1 p=$2 em=$3 order=$4 dir=$D/$1 tool off type bytes at walk
	for tool in "$p-gcc" "qemu-$q"; do
		command -v "$tool" > /dev/null || { skip "[$q] $tool is not installed (scripts/deps.sh)"; return; }
	done
	[ -e "$TOP/build/$q/libobjpatch.so" ] || { ok 1 "[$q] build/$q/libobjpatch.so was not built (make)"; return; }
	mkdir -p "$dir"
	build "$dir/prog" "$p-gcc" || return
	(cd "$dir" && timeout 120 "$OBJPATCH" run --output run.txt -- ./prog 3 > out.run 2> err.run)
	ok $? "[$q] objpatch run under qemu-$q: exit 0"
	(cd "$dir" && timeout 120 "$OBJPATCH" record --output rec.data -- ./prog 3 > out.rec 2> err.rec)
	ok $? "[$q] objpatch record under qemu-$q: exit 0"
	walk=$("${RAWFMT[@]}" walk "$dir/rec.data")
	[[ ${walk%%$'\n'*} == *" machine=$em elfclass=2 word_bytes=8 "*" order=$order" ]]
	ok $? "[$q] the header says machine $em, 8-byte words, $order-endian"
	"$OBJPATCH" report "$dir/rec.data" > "$dir/rep.txt" 2> "$dir/rep.err"
	ok $? "[$q] reported on this machine: exit 0"
	is "$(cat "$dir/rep.err")" "" "[$q] reported: nothing on standard error"
	same_trace "[$q] the report is the trace objpatch run printed live under qemu, durations and IDs aside" \
		"$dir/run.txt" "$dir/rep.txt"
	# Cut in the middle of its first events record.
	while read -r off type bytes; do [ "$type" = 3 ] && break; done < <(tail -n +2 <<< "$walk")
	at=$((off + 8 + bytes / 2))
	head -c "$at" "$dir/rec.data" > "$dir/cut.data"
	fails_at "[$q] cut at $at, inside the events record at $off" "$dir/cut.data" \
		"offset $off: truncated record \(needs $((8 + bytes)) bytes, $((at - off)) left\)"
}
cross aarch64 aarch64-linux-gnu 183 little
cross s390x s390x-linux-gnu 22 big

done_testing
