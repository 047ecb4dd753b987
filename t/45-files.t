#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The outside reproducers this file turns into tests: shared/repro/F-fifo-hang.sh,
# F-output-replaces-device.sh and N-sigkill-litter.sh.
# The user's files as cp and install treat them:
#  * -o names a device: written through, never replaced by a file (a
#    private device node, root only); a FIFO with a reader: written
#    through; a FIFO without one, a socket, a directory: one line, no hang;
#    a symlink (to a file, to a device, dangling): followed, the link
#    stays a link.  The same for the in-place rewrite and objpatch's -o.
#  * A FIFO or a device as an input: one line, "not a regular file", never
#    a wait in open(2): recordmcount (record, --list, --check, --fix),
#    objpatch list, annotate --image.  Stream inputs (objpatch report's
#    recording, annotate's trace) read a FIFO as it comes, as cat does.
#  * Temporary files are `.BASE.rmc-PID.tmp` (Kbuild's make clean removes
#    `.*.tmp`), and a run removes those of its object whose process is gone,
#    never a live one's nor another object's.
# Each command that could hang runs under `timeout 20`: status 124 is a hang.
. "$(dirname "$0")/lib.sh"

OBJPATCH=$TOP/build/objpatch
D=$T_TMP
T="timeout 20"
ROOT=0
[ "$(id -u)" = 0 ] && ROOT=1

cat > "$D/p.c" <<'EOF'
#include <stdio.h>
int __attribute__((noinline)) add(int a, int b) { return a + b; }
int main(void) { printf("%d\n", add(1, 2)); return 0; }
EOF
compile_ok "p.o (-pg)" gcc -O2 -g -pg -c "$D/p.c" -o "$D/p.o" || { done_testing; exit; }
cp "$D/p.o" "$D/ref.o"
"$RMC" --mode=user "$D/ref.o" || { echo "Bail out! recordmcount fails on p.o"; exit 1; }

# one_line_fails DESC STATUS TEXT CMD...: exit STATUS, one line on stderr containing TEXT
one_line_fails() {
	local desc=$1 status=$2 text=$3 err rc
	shift 3
	err=$("$@" 2>&1 >/dev/null </dev/null)
	rc=$?
	[ "$rc" = "$status" ] && [[ $err != *$'\n'* && $err == *"$text"* ]]
	ok $? "$desc: status $status, one line '$text'"
	[ "$rc" = "$status" ] && [[ $err != *$'\n'* && $err == *"$text"* ]] || diag "status $rc: $err"
}
is_link_to() { [ -L "$1" ] && [ "$(readlink "$1")" = "$2" ]; }

# ---- recordmcount -o ----
W=$D/out
mkdir -p "$W"
cd "$W" || exit 1

echo old > file
ln -s file link
$T "$RMC" --mode=user -o link "$D/p.o"
[ $? = 0 ] && is_link_to link file && cmp -s file "$D/ref.o"
ok $? "-o symlink: the file it names is replaced by the result, the link stays a link"

ln -s sub/new dangling
mkdir sub
$T "$RMC" --mode=user -o dangling "$D/p.o"
[ $? = 0 ] && is_link_to dangling sub/new && cmp -s sub/new "$D/ref.o"
ok $? "-o dangling symlink: its target is created (as cp does), the link stays a link"

if [ $ROOT = 1 ]; then
	mknod -m 666 null c 1 3		# the device of /dev/null, private to this test
	ln -s null devlink
	$T "$RMC" --mode=user -o null "$D/p.o"
	rc=$?
	[ $rc = 0 ] && [ -c null ] && [ "$(stat -c %t:%T null)" = 1:3 ]
	ok $? "-o character device node: written through, still the device (status $rc)"
	$T "$RMC" --mode=user -o devlink "$D/p.o"
	[ $? = 0 ] && is_link_to devlink null && [ -c null ]
	ok $? "-o symlink to a device: written through, the link and the device stay"
	cp "$D/ref.o" rec.o
	$T "$RMC" --mode=user -o null rec.o
	[ $? = 0 ] && [ -c null ]
	ok $? "-o device with nothing to record (the input copied): still the device"
else
	skip "-o onto a device node: mknod needs root"
	skip "-o onto a symlink to a device node: mknod needs root"
	skip "-o onto a device with nothing to record: mknod needs root"
fi

mkfifo fifo
one_line_fails "-o FIFO nobody reads" 1 "fifo: a FIFO that no process reads" $T "$RMC" --mode=user -o fifo "$D/p.o"
[ -p fifo ]
ok $? "-o FIFO nobody reads: still the FIFO"
# A reader that holds the FIFO open before the writer comes: no timing.
python3 - "$RMC" "$D/p.o" fifo "$D/ref.o" <<'EOF'
import os, subprocess, sys
rmc, obj, fifo, ref = sys.argv[1:]
r = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
rc = subprocess.call(['timeout', '20', rmc, '--mode=user', '-o', fifo, obj])
data = b''
os.set_blocking(r, True)
while True:
    b = os.read(r, 65536)
    if not b:
        break
    data += b
sys.exit(0 if rc == 0 and data == open(ref, 'rb').read() else 1)
EOF
ok $? "-o FIFO with a reader: the reader gets the result"
$T "$RMC" --mode=user -o /dev/stdout "$D/p.o" | cat > piped
cmp -s piped "$D/ref.o"
ok $? "-o /dev/stdout into a pipe: written through"
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' sock
one_line_fails "-o socket" 1 "sock: a socket" $T "$RMC" --mode=user -o sock "$D/p.o"
one_line_fails "-o directory" 1 "sub: a directory" $T "$RMC" --mode=user -o sub "$D/p.o"

# in place, through a symlink
cp "$D/p.o" target.o
ln -s target.o inplace.o
$T "$RMC" --mode=user inplace.o
[ $? = 0 ] && is_link_to inplace.o target.o && cmp -s target.o "$D/ref.o"
ok $? "in place through a symlink: the file is recorded, the link stays a link"
is "$(find "$W" -name '.*.tmp' | wc -l)" 0 "no temporary file left by the runs above"

# ---- FIFOs and devices as inputs: one line, no wait in open(2) ----
cd "$D" || exit 1
mkfifo in.fifo
one_line_fails "recordmcount FIFO" 1 "in.fifo: not a regular file" $T "$RMC" in.fifo
one_line_fails "recordmcount --list FIFO" 1 "in.fifo: not a regular file" $T "$RMC" --list in.fifo
one_line_fails "recordmcount --check FIFO" 2 "in.fifo: not a regular file" $T "$RMC" --check in.fifo
one_line_fails "recordmcount --check --fix FIFO" 2 "in.fifo: not a regular file" $T "$RMC" --check --fix in.fifo
one_line_fails "recordmcount -o out.o FIFO" 1 "in.fifo: not a regular file" $T "$RMC" -o "$D/never.o" in.fifo
[ ! -e "$D/never.o" ]
ok $? "recordmcount -o of a FIFO input: no output made"
one_line_fails "recordmcount /dev/zero" 1 "/dev/zero: not a regular file" $T "$RMC" /dev/zero
one_line_fails "objpatch list FIFO" 1 "in.fifo: not a regular file" $T "$OBJPATCH" list in.fifo
one_line_fails "objpatch annotate --image FIFO" 2 "in.fifo: not a regular file" \
	$T "$OBJPATCH" annotate --image in.fifo /dev/null
one_line_fails "objpatch annotate: a device as the trace" 2 "/dev/zero: not a regular file or FIFO" \
	$T "$OBJPATCH" annotate --image "$D/ref.o" /dev/zero
one_line_fails "objpatch report /dev/zero" 1 "/dev/zero: not a regular file or FIFO" $T "$OBJPATCH" report /dev/zero
# The writer blocks in open until annotate opens the FIFO: no timing.
printf 'a line annotate does not know\n' > in.fifo &
out=$($T "$OBJPATCH" annotate --image "$D/ref.o" in.fifo 2>/dev/null)
wait
is "$out" "a line annotate does not know" "objpatch annotate: a FIFO as the trace is read as it comes"

# ---- objpatch's -o: the file opened for writing (through a device, a symlink's file) ----
if [ "$(uname -m)" = x86_64 ] && compile_ok "prog: link" gcc -o "$D/prog" "$D/ref.o"; then
	cd "$W" || exit 1
	echo old > trace
	ln -s trace trace.link
	$T "$OBJPATCH" run -o trace.link -- "$D/prog" >/dev/null 2>&1
	[ $? = 0 ] && is_link_to trace.link trace && grep -q 'add' trace
	ok $? "objpatch run -o symlink: the trace in the file it names, the link stays a link"
	ln -s traces/run.txt trace.dangling
	mkdir traces
	$T "$OBJPATCH" run -o trace.dangling -- "$D/prog" >/dev/null 2>&1
	[ $? = 0 ] && is_link_to trace.dangling traces/run.txt && grep -q 'add' traces/run.txt
	ok $? "objpatch run -o dangling symlink: its target is created"
	# no trace (a program without sites): the file objpatch created goes, the user's link stays
	gcc -O2 -o "$D/plain" "$D/p.c"
	ln -s notrace.txt notrace.link
	$T "$OBJPATCH" run -o notrace.link -- "$D/plain" >/dev/null 2>&1
	[ $? = 1 ] && is_link_to notrace.link notrace.txt && [ ! -e notrace.txt ]
	ok $? "objpatch run -o dangling symlink, no trace: the empty file it created is removed, the link stays"
	$T "$OBJPATCH" record -o rec.data -- "$D/prog" >/dev/null 2>&1
	ok $? "objpatch record"
	ln -s report.txt report.link
	$T "$OBJPATCH" report -o report.link rec.data
	[ $? = 0 ] && is_link_to report.link report.txt && grep -q 'add' report.txt
	ok $? "objpatch report -o dangling symlink: its target is created, the link stays"
	if [ $ROOT = 1 ]; then
		for c in "run -o null -- $D/prog" "record -o null -- $D/prog" "report -o null rec.data"; do
			# shellcheck disable=SC2086
			$T "$OBJPATCH" $c >/dev/null 2>&1
			rc=$?
			[ $rc != 124 ] && [ -c null ] && [ "$(stat -c %t:%T null)" = 1:3 ]
			ok $? "objpatch ${c%% *} -o device node: written through, still the device (status $rc)"
		done
	else
		for c in run record report; do skip "objpatch $c -o device node: mknod needs root"; done
	fi
	# objpatch record -o FIFO, objpatch report reading it: the reader blocks in open until the writer comes
	mkfifo rec.fifo
	$T "$OBJPATCH" report rec.fifo > fifo-report.txt 2>/dev/null &
	reader=$!
	$T "$OBJPATCH" record -o rec.fifo -- "$D/prog" >/dev/null 2>&1
	rc=$?
	wait $reader
	[ $? = 0 ] && [ $rc = 0 ] && grep -q 'add' fifo-report.txt
	ok $? "objpatch record -o FIFO with objpatch report reading it: the trace goes through (record status $rc)"
else
	for c in "run -o symlink" "run -o dangling" "run -o dangling, no trace" record "report -o symlink" "run -o device" "record -o device" \
		"report -o device" "record -o FIFO"; do
		skip "objpatch $c: the runtime is tested on x86_64 only"
	done
fi

# ---- temporary files: named for make clean, a dead run's removed by the next ----
S=$D/stale
mkdir -p "$S"
cd "$S" || exit 1
sleep 1000 &
live=$!
dead=$(sh -c 'echo $$')	# started and reaped: no process has that pid now
stale_setup() {
	: > ".x.o.rmc-$dead.tmp"
	: > ".x.o.rmc-$live.tmp"
	: > ".y.o.rmc-$dead.tmp"		# another object's: a parallel make may be writing it
	: > ".x.o.rmc-${dead}x.tmp"	# not the name recordmcount gives
	: > "x.o.rmc-$dead.tmp"
}
stale_left() { find . -name '*.tmp' | sort | tr '\n' ' '; }
expect=$(printf '%s\n' "./.x.o.rmc-$live.tmp" "./.x.o.rmc-${dead}x.tmp" "./.y.o.rmc-$dead.tmp" \
	"./x.o.rmc-$dead.tmp" | sort | tr '\n' ' ')
cp "$D/p.o" x.o
stale_setup
"$RMC" --mode=user x.o
rc=$?
[ $rc = 0 ] && cmp -s x.o "$D/ref.o"
ok $? "x.o recorded beside the temporary files of other runs"
is "$(stale_left)" "$expect" "a dead run's .x.o.rmc-PID.tmp is removed; a live one's, another object's and other names stay"
stale_setup
"$RMC" --mode=user x.o
is "$?:$(stale_left)" "0:$expect" "the same when nothing is written (x.o already recorded)"
stale_setup
"$RMC" --mode=user -o x.o "$D/p.o"
is "$?:$(stale_left)" "0:$expect" "the same for the -o output's directory"
# A killed run stays a zombie until its parent (or init, once strace or a
# shell died first) reaps it: it writes nothing any more.
perl -e '$| = 1; my $p = fork() // die; exit 0 unless $p; print "$p\n"; sleep 60' > zombie.pid &
parent=$!
until [ -s zombie.pid ]; do sleep 0.05; done
zombie=$(cat zombie.pid)
until [ "$(awk '{ print $3 }' "/proc/$zombie/stat" 2>/dev/null)" = Z ]; do sleep 0.05; done
: > ".x.o.rmc-$zombie.tmp"
cp "$D/p.o" x.o
"$RMC" --mode=user x.o
is "$?:$(find . -name ".x.o.rmc-$zombie.tmp")" "0:" "a zombie's .x.o.rmc-PID.tmp is removed: the run was killed, its parent has not reaped it yet"
kill $parent $live
wait $parent $live 2>/dev/null
# An object of many sections: only what changed is written, the rest copied
# by the kernel.
perl -e 'print "int f$_(int x) { return x * $_ + 1; }\n" for 0 .. 1099' > many.c
if ! command -v strace >/dev/null; then
	skip "the write of an object of many sections: no strace"
elif compile_ok "many.o" gcc -O1 -pg -fno-pic -ffunction-sections -c many.c -o many.o; then
	strace -f -e trace=pwrite64,copy_file_range -o many.strace "$RMC" many.o
	n=$(grep -c pwrite64 many.strace)
	[ "$n" -lt 10 ] && grep -q '^[0-9]* *copy_file_range(' many.strace
	ok $? "an object of 2200 sections: copied by copy_file_range, only what changed written ($n pwrite64 calls)"
fi
# Kbuild's make clean: find ... -name '.*.tmp' (Linux's top Makefile)
: > ".x.o.rmc-$dead.tmp"
is "$(find . -name '.*.tmp' | grep -c '\.x\.o\.rmc-')" 3 "the temporary files' names match Kbuild's make clean pattern .*.tmp"

done_testing
