#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The return-value formatter (trace/format.c) through its unit test,
# testdata/format/format_test.c: every type class, integer widths with
# trimming and sign extension, errno names (checked against <errno.h>),
# enums, pointers, strings through a fake read_mem, shortest round-trip
# floats, x87 and binary128 long doubles, structs in registers by ABI,
# unreliable and unknown signatures, --hex, buffer truncation, and no
# allocation while formatting.  The C program prints "ok - ..." /
# "not ok - ..." per check, with expectations written from the C meaning of
# the register bits.
#  1. native gcc with the project's warnings and -Werror: every check is a test;
#  2. native clang, and gcc with ASan/UBSan: one test per build plus one per failure;
#  3. other hosts, where the cross compiler and qemu-user are installed:
#     i386 (32-bit registers, 12-byte x87 long double), aarch64 (binary128
#     long double, unsigned char), s390x (big-endian, structs in memory),
#     armhf (long double = double).
# About 4 s on 2 cores.
. "$(dirname "$0")/lib.sh"

# format.c reads each machine's conventions from its descriptor (arch/).
SRC=("$TOP/testdata/format/format_test.c" "$TOP/trace/format.c" "$TOP/tables/sig.c" "$TOP/arch/arch.c" "$TOP/arch/abi_args.c")
for f in "$TOP"/arch/*/*.c; do
	case ${f##*/} in rt_*) ;; *) SRC+=("$f") ;; esac
done
WARN=(-std=gnu11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -D_GNU_SOURCE -I"$TOP")
# tables.h includes libelf's headers for its declarations; cross sysroots lack
# them, and the host's are the same for every target.
CROSS=(-idirafter /usr/include)

build() {	# build LABEL OUT CC FLAGS...: a test that the program compiles
	local label=$1 out=$2 cc=$3 log
	shift 3
	if log=$("$cc" "${WARN[@]}" "$@" -o "$out" "${SRC[@]}" -lelf 2>&1); then
		ok 0 "$label: compiles with -Wall -Wextra -Werror"
	else
		ok 1 "$label: compiles with -Wall -Wextra -Werror"
		diag "$log"
		return 1
	fi
}

# run_unit LABEL DETAIL RUNNER...: the program's checks as TAP tests (DETAIL=1:
# every check; 0: failures only), then one test for a clean exit after "done".
run_unit() {
	local label=$1 detail=$2 out rc line n=0 bad=0 finished=0
	shift 2
	out=$(timeout 60 "$@" 2>&1)	# a formatter stuck in a loop fails, not hangs
	rc=$?
	while IFS= read -r line; do
		case $line in
		"ok - "*)
			n=$((n + 1))
			[ "$detail" = 0 ] || ok 0 "$label: ${line#ok - }" ;;
		"not ok - "*)
			n=$((n + 1)) bad=$((bad + 1))
			ok 1 "$label: ${line#not ok - }" ;;
		"# "*) diag "$label: ${line#\# }" ;;
		done) finished=1 ;;
		*) diag "$label: $line" ;;	# sanitizer reports, crashes
		esac
	done <<< "$out"
	# Fewer checks than the program has would mean it stopped early.
	if [ "$rc" -eq 0 ] && [ "$finished" = 1 ] && [ "$n" -ge 200 ]; then
		ok 0 "$label: $n checks, $bad failed, clean exit"
	else
		ok 1 "$label: $n checks, $bad failed, clean exit"
		diag "$label: exit status $rc, done line seen: $finished"
	fi
}

B=$T_TMP
if build "gcc" "$B/native" gcc -O2; then
	run_unit "gcc" 1 "$B/native"
fi
if command -v clang >/dev/null; then
	build "clang" "$B/clang" clang -O2 && run_unit "clang" 0 "$B/clang"
else
	skip "clang is not installed"
fi
if build "gcc ASan/UBSan" "$B/asan" gcc -O1 -g -fsanitize=address,undefined \
	-fno-sanitize-recover=all -fno-omit-frame-pointer; then
	ASAN_OPTIONS=detect_leaks=1 run_unit "gcc ASan/UBSan" 0 "$B/asan"
fi

# cross NAME GCC-PREFIX QEMU [LDFLAGS...]: build dynamically (the test
# replaces malloc to count allocations, which a static libc forbids) and run.
cross() {
	local name=$1 cc=$2-gcc qemu=$3 sysroot=/usr/$2 bin=$B/$1
	shift 3
	if ! command -v "$cc" >/dev/null || [ ! -d "$sysroot/lib" ]; then
		skip "$name: $cc or its libc is not installed"
		return
	fi
	build "$name" "$bin" "$cc" -O2 "${CROSS[@]}" "$@" || return
	if [ "$qemu" = - ]; then	# i386 runs natively when the kernel has IA32 emulation
		"$bin" >/dev/null 2>&1
		case $? in
		126 | 127) qemu=qemu-i386 ;;
		*) run_unit "$name" 0 "$bin"; return ;;
		esac
	fi
	if command -v "$qemu" >/dev/null; then
		run_unit "$name" 0 "$qemu" -L "$sysroot" "$bin"
	else
		skip "$name: $qemu is not installed"
	fi
}
cross i386 i686-linux-gnu - -Wl,--dynamic-linker=/usr/i686-linux-gnu/lib/ld-linux.so.2 \
	-Wl,-rpath=/usr/i686-linux-gnu/lib
cross aarch64 aarch64-linux-gnu qemu-aarch64
cross s390x s390x-linux-gnu qemu-s390x
cross armhf arm-linux-gnueabihf qemu-arm

done_testing
