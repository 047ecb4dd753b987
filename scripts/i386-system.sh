#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The i386 runtime on a real i386 system: Debian's 686 kernel booted under
# qemu-system-i386 with an initramfs that holds busybox, the cross libc,
# libelf and zlib, an i386 build of objpatch with build/i386/libobjpatch.so
# beside it, and the test programs built here (as t/95-rt-i386.t,
# t/96-args.t and t/97-attach.t build them; recordmcount runs on this
# machine).  The guest's /init runs each case, sends its results back over
# the second serial port (a tar, gzip'd and base64'd) and powers off.
#
#   scripts/i386-system.sh OUTDIR [686|amd64]
#
# amd64 boots Debian's 64-bit kernel instead, which runs i386 programs
# too, and puts this machine's own x86_64 objpatch in the guest, with
# build/i386/libobjpatch.so as its i386 runtime: the attach cases then
# are t/97-attach.t's i386 case (a 64-bit objpatch into an i386 process),
# which the machines here cannot run.  Only they are run.
#
# leaves OUTDIR/results/CASE/ with each case's standard output and error,
# exit status ("status") and traces, and OUTDIR/console.log (the guest's
# console).  Checking them is t/95-rt-i386-system.t's work (make
# check-i386-system).  The kernel and busybox packages are downloaded once
# into build/i386-system/debs (apt-get download: nothing is installed).
# Exit status: 0 when the guest ran and its results came back whole, 1 when
# not, 2 when a piece is missing (the message names it).
#
# KVM is not used: on the machines this was written on /dev/kvm exists but
# the nested KVM fails the kernel's decompressor (rdrand "emulation
# failure") or hangs; qemu's TCG boots the kernel in about 20 s.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:?usage: scripts/i386-system.sh OUTDIR [686|amd64]}
FLAVOUR=${2:-686}
CACHE=$TOP/build/i386-system
RMC=$TOP/build/recordmcount
LIB32=$TOP/build/i386/libobjpatch.so
SYSROOT=/usr/i686-linux-gnu
RT=$TOP/testdata/runtime
# The guest's whole run, boot included (TCG: no KVM).
GUEST_TIMEOUT=${I386_SYSTEM_TIMEOUT:-900}

die() { echo "i386-system: $*" >&2; exit "${2:-1}"; }
missing() { die "$*" 2; }

case $FLAVOUR in
686) QEMU=qemu-system-i386 KARCH=i386 ;;
amd64) QEMU=qemu-system-x86_64 KARCH=amd64 ;;
*) echo "i386-system: the kernel is 686 or amd64, not $FLAVOUR" >&2; exit 2 ;;
esac
for tool in $QEMU i686-linux-gnu-gcc i686-linux-gnu-g++ i686-linux-gnu-strip i686-linux-gnu-readelf \
	cpio gzip base64 apt-get dpkg-deb; do
	command -v "$tool" > /dev/null || missing "$tool is not installed (scripts/deps.sh)"
done
[ -x "$RMC" ] || missing "build/recordmcount is not built (make)"
[ -e "$LIB32" ] || missing "build/i386/libobjpatch.so is not built (make runtime-i386)"
[ -e "$SYSROOT/lib/libelf.so.1" ] || missing "$SYSROOT/lib has no libelf.so.1 (scripts/deps.sh unpacks it)"

# ---- the kernel and busybox, from Debian's i386 packages ----
fetch() {	# fetch PACKAGE: its .deb in $CACHE/debs, downloaded once
	local pkg=$1 debs
	mkdir -p "$CACHE/debs"
	debs=("$CACHE/debs/${pkg%%:*}"_*.deb)
	if [ ! -e "${debs[0]}" ]; then
		dpkg --print-foreign-architectures | grep -qx i386 || dpkg --add-architecture i386
		apt-cache show "$pkg" > /dev/null 2>&1 || apt-get update -qq ||
			echo "i386-system: apt-get update reported errors; trying with the indexes it got" >&2
		(cd "$CACHE/debs" && apt-get download -qq -o APT::Sandbox::User=root "$pkg") ||
			missing "apt-get download $pkg failed"
		debs=("$CACHE/debs/${pkg%%:*}"_*.deb)
	fi
	echo "${debs[0]}"
}
# The newest 686 (non-PAE) kernel Debian has: the 32-bit x86 flavour that
# boots on any i686, and runs i386 programs only; or the amd64 one.
kdebs=("$CACHE"/debs/linux-image-*-"$FLAVOUR"-unsigned_*.deb)
if [ ! -e "${kdebs[0]}" ]; then
	dpkg --print-foreign-architectures | grep -qx i386 || dpkg --add-architecture i386
	apt-cache show "linux-image-$FLAVOUR:$KARCH" > /dev/null 2>&1 || apt-get update -qq || true
	kpkg=$(apt-cache search --names-only "^linux-image-[0-9.]+-[0-9]+-$FLAVOUR-unsigned\$" | cut -d' ' -f1 | sort -V | tail -1)
	[ -n "$kpkg" ] || missing "no linux-image-*-$FLAVOUR-unsigned package in apt's lists"
	fetch "$kpkg:$KARCH" > /dev/null
fi
kdeb=$(printf '%s\n' "$CACHE"/debs/linux-image-*-"$FLAVOUR"-unsigned_*.deb | sort -V | tail -1)
VMLINUZ=$CACHE/vmlinuz-$FLAVOUR
bdeb=$(fetch busybox-static:i386) || exit
if [ ! -e "$VMLINUZ" ] || [ "$kdeb" -nt "$VMLINUZ" ]; then
	rm -rf "$CACHE/kernel"
	if ! dpkg-deb -x "$kdeb" "$CACHE/kernel" || ! cp "$CACHE"/kernel/boot/vmlinuz-* "$VMLINUZ"; then
		die "no vmlinuz in $kdeb"
	fi
	rm -rf "$CACHE/kernel"
fi
if [ ! -e "$CACHE/busybox" ] || [ "$bdeb" -nt "$CACHE/busybox" ]; then
	rm -rf "$CACHE/bb"
	if ! dpkg-deb -x "$bdeb" "$CACHE/bb" || ! cp "$CACHE/bb/bin/busybox" "$CACHE/busybox"; then
		die "no busybox in $bdeb"
	fi
	rm -rf "$CACHE/bb"
fi

# ---- objpatch for i386 (the tools' own build with the cross compiler;
# dynamic: Debian has no i386 libelf.a in the cross sysroot; a 64-bit
# off_t: attach reads /proc/PID/mem at addresses past 2 GiB) ----
if [ "$FLAVOUR" = 686 ]; then
mkdir -p "$CACHE/tools/inc"
cp /usr/include/libelf.h /usr/include/gelf.h "$CACHE/tools/inc/" 2> /dev/null ||
	missing "no /usr/include/libelf.h (libelf-dev)"
make -s -C "$TOP" -j2 STATIC=0 BUILD="$CACHE/tools" CC=i686-linux-gnu-gcc AR=i686-linux-gnu-ar \
	CFLAGS="-O2 -g -D_FILE_OFFSET_BITS=64 -idirafter $CACHE/tools/inc" "$CACHE/tools/objpatch" > "$CACHE/tools.log" 2>&1 ||
	die "the i386 objpatch did not build: $CACHE/tools.log"
fi

# ---- the programs ----
ROOT=$OUT/root
rm -rf "$OUT" && mkdir -p "$ROOT"/{bin,lib,proc,sys,dev,tmp,out,opt/objpatch,t} || exit 1
P=$ROOT/t
WARN=(-Wall -Wextra -Werror)
CFLAGS=(-O2 -g -pg -fno-omit-frame-pointer)
CASES=()	# lines of the guest's case list: NAME KIND

step() {	# step WHAT CMD...: CMD, or the build's failure said and the script ended
	local what=$1 log
	shift
	log=$("$@" 2>&1) || die "$what: $* failed: $log"
}

# rt NAME CC RMC-FLAGS [CFLAGS...]: rt_test + rt_cxx (t/rt-lib.sh's
# build: -pg objects, recorded, PIE linked without -pg, stripped).
rt() {
	local name=$1 cc=$2 rmc=$3 d=$P/rt-$1 target=()
	shift 3
	[ "$cc" = clang ] && target=(--target=i686-linux-gnu)
	command -v "$cc" > /dev/null || missing "$cc is not installed"
	mkdir -p "$d"
	step "rt-$name" "$cc" "${target[@]}" -std=gnu11 "${WARN[@]}" "${CFLAGS[@]}" "$@" -c "$RT/rt_test.c" -o "$d/rt_test.o"
	step "rt-$name" i686-linux-gnu-g++ "${WARN[@]}" "${CFLAGS[@]}" "$@" -c "$RT/rt_cxx.cc" -o "$d/rt_cxx.o"
	# shellcheck disable=SC2086
	step "rt-$name" "$RMC" --mode=user $rmc "$d/rt_test.o" "$d/rt_cxx.o"
	step "rt-$name" i686-linux-gnu-g++ -pie -o "$d/prog" "$d/rt_test.o" "$d/rt_cxx.o" -pthread
	step "rt-$name" i686-linux-gnu-strip "$d/prog"
	rm -f "$d"/*.o
	CASES+=("rt-$name rt")
}
rt pg i686-linux-gnu-gcc ""
rt fentry i686-linux-gnu-gcc "" -mfentry -fno-pie
rt nop i686-linux-gnu-gcc --nop
rt clang clang --nop

# own NAME CC RMC-FLAGS [CFLAGS...]: rt_i386.c (x87, regparm/fastcall, realigned frames).
own() {
	local name=$1 cc=$2 rmc=$3 d=$P/i386-$1 target=()
	shift 3
	[ "$cc" = clang ] && target=(--target=i686-linux-gnu)
	mkdir -p "$d"
	step "i386-$name" "$cc" "${target[@]}" -std=gnu11 "${WARN[@]}" "${CFLAGS[@]}" "$@" -I"$RT" -c "$RT/rt_i386.c" -o "$d/rt_i386.o"
	# shellcheck disable=SC2086
	step "i386-$name" "$RMC" --mode=user $rmc "$d/rt_i386.o"
	step "i386-$name" i686-linux-gnu-gcc -pie -o "$d/prog" "$d/rt_i386.o" -lm
	rm -f "$d"/*.o
	CASES+=("i386-$name own")
}
own pg i686-linux-gnu-gcc ""
own fentry i686-linux-gnu-gcc "" -mfentry -fno-pie
own nop i686-linux-gnu-gcc --nop
own clang clang --nop

# -fpatchable-function-entry=5 pads instead of -pg: gcc's five 0x90 and
# clang's `66 90 66 90 90`, which the runtime joins into one NOP when it
# starts alone, here (qemu-user reports no thread count: t/95-rt-i386.t).
PG_CFLAGS=("${CFLAGS[@]}")
CFLAGS=(-O2 -g -fpatchable-function-entry=5 -fno-omit-frame-pointer)
rt pads-gcc i686-linux-gnu-gcc ""
rt pads-clang clang ""
own pads i686-linux-gnu-gcc ""
CFLAGS=("${PG_CFLAGS[@]}")

# tail NAME CC RMC-FLAGS [CFLAGS...]: rt_tail.c, tail calls between traced functions.
tail_prog() {
	local name=$1 rmc=$3 d=$P/tail-$1
	local -a cc
	read -r -a cc <<< "$2"
	shift 3
	mkdir -p "$d"
	step "tail-$name" "${cc[@]}" -std=gnu11 "${WARN[@]}" -O2 -g -fno-omit-frame-pointer "$@" -I"$RT" -c "$RT/rt_tail.c" -o "$d/rt_tail.o"
	# shellcheck disable=SC2086
	step "tail-$name" "$RMC" --mode=user $rmc "$d/rt_tail.o"
	step "tail-$name" "${cc[@]}" -pie -o "$d/prog" "$d/rt_tail.o"
	rm -f "$d"/*.o
	CASES+=("tail-$name tail")
}
tail_prog gcc i686-linux-gnu-gcc "" -pg
tail_prog fentry i686-linux-gnu-gcc "" -pg -mfentry -fno-pie
tail_prog clang "clang --target=i686-linux-gnu" --nop -pg

# args NAME [CFLAGS...]: testdata/args/args.c (t/96-args.t's i386 forms), and stripped.
args() {
	local name=$1 d=$P/args-$1
	shift
	mkdir -p "$d"
	step "args-$name" i686-linux-gnu-gcc -O2 -g "$@" -c "$TOP/testdata/args/args.c" -o "$d/args.o"
	step "args-$name" "$RMC" --mode=user "$d/args.o"
	# shellcheck disable=SC2086	# ARGS_LDFLAGS: words
	step "args-$name" i686-linux-gnu-gcc ${ARGS_LDFLAGS:-} -o "$d/prog" "$d/args.o"
	step "args-$name" i686-linux-gnu-strip -o "$d/prog.stripped" "$d/prog"
	rm -f "$d"/*.o
	CASES+=("args-$name args")
}
args pg -pg
ARGS_LDFLAGS="-no-pie" args fentry -pg -mfentry -fno-pic

# rt_toggle.c linked with build/i386/libobjpatch.a: 10,000 enable/disable("*")
# while 8 threads call, here through the int3 protocol on a real kernel;
# with -pg sites (--nop) and with pads.
toggle() {	# toggle NAME RMC-FLAGS CFLAGS...
	local d=$P/$1 rmc=$2
	shift 2
	mkdir -p "$d"
	step "$(basename "$d")" i686-linux-gnu-gcc -std=gnu11 "${WARN[@]}" "$@" -pthread -I"$TOP/objpatch/lib" -I"$TOP" \
		-c "$RT/rt_toggle.c" -o "$d/rt_toggle.o"
	# shellcheck disable=SC2086
	step "$(basename "$d")" "$RMC" --mode=user $rmc "$d/rt_toggle.o"
	step "$(basename "$d")" i686-linux-gnu-gcc -pie -o "$d/prog" "$d/rt_toggle.o" "$TOP/build/i386/libobjpatch.a" \
		-pthread -lelf -ldl
	rm -f "$d"/*.o
	CASES+=("$(basename "$d") toggle")
}
toggle toggle --nop "${CFLAGS[@]}"
toggle toggle-pads "" -O2 -g -fpatchable-function-entry=5 -fno-omit-frame-pointer

# testdata/attach/target.c: objpatch attach --inject-only into it, running.
d=$P/attach
mkdir -p "$d"
step attach i686-linux-gnu-gcc -std=gnu11 -Wall -Wextra -Werror -O2 -pthread -o "$d/prog" "$TOP/testdata/attach/target.c"
CASES+=("attach attach")

# testdata/attach/traced.c (-pg, recordmcount --nop): objpatch attach PID
# traces two of its functions for 0.5 s, then leaves the runtime dormant.
d=$P/attach-trace
mkdir -p "$d"
step attach-trace i686-linux-gnu-gcc -std=gnu11 -Wall -Wextra -Werror -O2 -g -pthread -pg \
	-c "$TOP/testdata/attach/traced.c" -o "$d/traced.o"
step attach-trace "$RMC" --mode=user --nop "$d/traced.o"
step attach-trace i686-linux-gnu-gcc -pthread -o "$d/prog" "$d/traced.o"
rm -f "$d"/*.o
CASES+=("attach-trace attach_trace")
# The same with pads: attach joins each pad's NOPs while it holds every
# thread (OBJPATCH_ATTACH_HELD), then enables.
d=$P/attach-trace-pads
mkdir -p "$d"
step attach-trace-pads i686-linux-gnu-gcc -std=gnu11 -Wall -Wextra -Werror -O2 -g -pthread -fpatchable-function-entry=5 \
	-c "$TOP/testdata/attach/traced.c" -o "$d/traced.o"
step attach-trace-pads "$RMC" --mode=user "$d/traced.o"
step attach-trace-pads i686-linux-gnu-gcc -pthread -o "$d/prog" "$d/traced.o"
rm -f "$d"/*.o
CASES+=("attach-trace-pads attach_trace")

# ---- the root: busybox, the libraries every program needs, objpatch ----
cp "$CACHE/busybox" "$ROOT/bin/busybox"
if [ "$FLAVOUR" = 686 ]; then
	cp "$CACHE/tools/objpatch" "$LIB32" "$ROOT/opt/objpatch/" || exit 1
else
	# This machine's objpatch (static), which finds i386/libobjpatch.so beside it.
	readelf -lW "$TOP/build/objpatch" | grep -q 'program interpreter' && missing "build/objpatch is not static (STATIC=0?)"
	mkdir -p "$ROOT/opt/objpatch/i386"
	cp "$TOP/build/objpatch" "$ROOT/opt/objpatch/" && cp "$LIB32" "$ROOT/opt/objpatch/i386/" || exit 1
fi
# needed FILE...: the DT_NEEDED closure of FILEs in the cross sysroot's lib/.
declare -A have=()
needed() {
	local f n
	for f in "$@"; do
		for n in $(i686-linux-gnu-readelf -dW "$f" 2> /dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
			[ -n "${have[$n]:-}" ] && continue
			[ -e "$SYSROOT/lib/$n" ] || die "$n (needed by $f) is not in $SYSROOT/lib"
			have[$n]=1
			cp -L "$SYSROOT/lib/$n" "$ROOT/lib/$n"
			needed "$SYSROOT/lib/$n"
		done
	done
}
needed "$ROOT"/opt/objpatch/*objpatch* "$ROOT"/opt/objpatch/*/libobjpatch.so "$P"/*/prog
cp -L "$SYSROOT/lib/ld-linux.so.2" "$ROOT/lib/"

# I386_SYSTEM_ONLY=REGEX: only the cases whose names match (all are built).
# The amd64 kernel's cases: a 64-bit objpatch attaching to i386 processes.
only=${I386_SYSTEM_ONLY:-.*}
[ "$FLAVOUR" = amd64 ] && only=${I386_SYSTEM_ONLY:-attach.*}
printf '%s\n' "${CASES[@]}" | grep -E "^($only) " > "$ROOT/cases" ||
	die "no case matches I386_SYSTEM_ONLY=$I386_SYSTEM_ONLY"
cat > "$ROOT/init" <<'EOF'
#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-only
# The guest's first process (scripts/i386-system.sh wrote it): runs each
# case of /cases, then sends /out over ttyS1 and powers off.
/bin/busybox --install -s /bin
export PATH=/opt/objpatch:/bin TMPDIR=/tmp
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
echo "i386-system: $(uname -m) $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPU(s)"
uname -m > /out/uname

# rt: rt_test + rt_cxx traced by objpatch run in each format.
case_rt() {
	for fmt in text json folded perfetto; do
		timeout 300 objpatch run --output "$2/trace.$fmt" --format $fmt -- ./prog > "$2/out.$fmt" 2> "$2/err.$fmt"
		echo $? > "$2/status.$fmt"
	done
	timeout 120 ./prog > "$2/out.untraced" 2> "$2/err.untraced"
	echo $? > "$2/status.untraced"
}
case_own() {
	timeout 120 ./prog > "$2/out.untraced" 2> "$2/err.untraced"
	echo $? > "$2/status.untraced"
	timeout 300 objpatch run --output "$2/trace.text" -- ./prog > "$2/out.text" 2> "$2/err.text"
	echo $? > "$2/status.text"
}
case_tail() { case_own "$@"; }
case_args() {
	for fmt in text json; do
		timeout 300 objpatch run --args --format $fmt -o "$2/t.$fmt" -- ./prog > /dev/null 2> "$2/err.$fmt"
		echo $? > "$2/status.$fmt"
	done
	timeout 300 objpatch run --args -o "$2/s.text" -- ./prog.stripped > /dev/null 2> "$2/err.stripped"
	echo $? > "$2/status.stripped"
}
case_toggle() {
	OBJPATCH_OUTPUT=$2/trace.text timeout 600 ./prog > "$2/out.text" 2> "$2/err.text"
	echo $? > "$2/status.text"
}
# attach: the target says "ready" once its threads run; 20 loads, then one
# by the thread blocked in read(); the target must go on as before.
case_attach() {
	mkfifo /tmp/in
	./prog < /tmp/in > "$2/target.out" 2> "$2/target.err" &
	pid=$!
	exec 3> /tmp/in
	for _ in $(seq 3000); do grep -q ready "$2/target.out" && break; sleep 0.01; done
	ls /proc/$pid/task | wc -l > "$2/threads.before"
	for i in $(seq 20); do
		timeout 60 objpatch attach --inject-only $pid >> "$2/loads" 2>&1
		echo $? >> "$2/load.status"
	done
	# The reader: the thread in read() (i386 system call 3).
	tid=
	for _ in $(seq 1000); do
		for f in /proc/$pid/task/*/syscall; do
			[ "$(cut -d' ' -f1 "$f")" = 3 ] && tid=$(basename "$(dirname "$f")") && break 2
		done
		sleep 0.01
	done
	echo "$tid" > "$2/reader"
	timeout 60 objpatch attach --inject-only --thread="$tid" $pid > "$2/reader.load" 2>&1
	echo $? > "$2/reader.status"
	grep '/libobjpatch\.so' /proc/$pid/maps > "$2/maps"
	ls /proc/$pid/task | wc -l > "$2/threads.after"
	cut -d' ' -f1 /proc/$pid/task/$tid/syscall > "$2/reader.syscall"
	echo "line after the loads" >&3
	exec 3>&-
	wait $pid
	echo $? > "$2/status"
}

# attach_trace: a session of objpatch attach (two filters, 0.5 s, JSON),
# then "quit": the target exits 7 with its workers' results right.
case_attach_trace() {
	mkfifo /tmp/in-$1
	./prog < /tmp/in-$1 > "$2/target.out" 2> "$2/target.err" &
	pid=$!
	exec 3> /tmp/in-$1
	for _ in $(seq 3000); do grep -q ready "$2/target.out" && break; sleep 0.01; done
	before=$(ls /proc/$pid/task | wc -l)
	echo $before > "$2/threads.before"
	timeout 120 objpatch attach --filter add_pair --filter 'par*' --duration 0.5 --format json $pid \
		> "$2/trace.json" 2> "$2/attach.err"
	echo $? > "$2/attach.status"
	# The session's thread leaves after the detach: polled, nothing says when.
	for _ in $(seq 1000); do [ "$(ls /proc/$pid/task | wc -l)" = "$before" ] && break; sleep 0.01; done
	ls /proc/$pid/task | wc -l > "$2/threads.after"
	echo quit >&3
	exec 3>&-
	wait $pid
	echo $? > "$2/status"
}

while read -r name kind; do
	mkdir -p /out/$name
	echo "i386-system: $name"
	start=$(cut -d' ' -f1 /proc/uptime)
	(cd /t/$name && case_$kind $name /out/$name)
	echo "$start $(cut -d' ' -f1 /proc/uptime)" > /out/$name/uptime
done < /cases

stty -F /dev/ttyS1 raw -echo
{
	echo "==BEGIN=="
	(cd /out && tar cf - .) | gzip -1 | base64
	echo "==END=="
} > /dev/ttyS1
sync
poweroff -f
EOF
chmod +x "$ROOT/init"
(cd "$ROOT" && find . | cpio -o -H newc --quiet | gzip -1) > "$OUT/initramfs.cpio.gz" || die "cpio failed"

# ---- the boot ----
echo "i386-system: booting $(basename "$kdeb" .deb) (initramfs $(du -k "$OUT/initramfs.cpio.gz" | cut -f1) KiB)"
start=$(date +%s)
# ia32_emulation=1: kernels from 6.7 on may leave running i386 programs off.
timeout "$GUEST_TIMEOUT" $QEMU -cpu max -smp 2 -m 768 -nographic -no-reboot \
	-kernel "$VMLINUZ" -initrd "$OUT/initramfs.cpio.gz" \
	-serial "file:$OUT/console.log" -serial "file:$OUT/ttyS1" -monitor none \
	-append "console=ttyS0 quiet panic=-1 nokaslr ia32_emulation=1" < /dev/null > "$OUT/qemu.log" 2>&1
status=$?
echo "i386-system: the guest ran $(($(date +%s) - start)) s (qemu's status $status)"
[ "$status" = 124 ] && die "the guest did not power off within $GUEST_TIMEOUT s: $OUT/console.log"
grep -q '^==END==' "$OUT/ttyS1" || die "the guest's results did not come back whole: $OUT/console.log"
mkdir -p "$OUT/results"
sed -n '/^==BEGIN==$/,/^==END==$/p' "$OUT/ttyS1" | sed '1d;$d' | base64 -d | gzip -dc | tar xf - -C "$OUT/results" ||
	die "the guest's results do not unpack"
echo "i386-system: results in $OUT/results"
