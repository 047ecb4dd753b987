#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The runtime on 32-bit PowerPC (SysV ABI, big-endian) under qemu-user
# (t/rt-lib.sh): rt_test + rt_cxx (a C++ exception and a longjmp through
# traced frames, long long in r3:r4, structs returned in memory through a
# hidden pointer in r3, which the runtime keeps from the entry) built
#  - with gcc -pg as Debian builds (PIE): `mflr r0; stw r0,4(r1);
#    bl _mcount` before the prologue, the call through a PLT stub to libc's
#    _mcount; also recorded under qemu (a big-endian 32-bit recording) and
#    reported by this machine's objpatch;
#  - with gcc -pg at -O0 (a frame pointer, no leaf functions);
#  - with gcc -pg and recordmcount --nop;
#  - with gcc -pg, non-PIC and linked -no-pie;
#  - with clang -pg: its `bl _mcount` comes after the prologue, as an
#    ordinary call; the trampoline tells it from gcc's by the word before
#    the site (`stw r0,4(r1)` is gcc's);
# each traced in every format and checked against rt_expect_ppc.txt (ILP32,
# structs by member from the memory the caller passed).  Then rt_toggle's
# 10,000 live toggles with 8 threads, with --nop sites and with the calls
# (`nop` <-> `bl stub`, one aligned word); tail calls (rt_tail.c), with
# gcc and clang; rt_ppc.c's own cases (variadic doubles, which need CR1
# kept by the hook; IBM long double; structs of 24 and 1 bytes through the
# hidden pointer; long long in aligned register pairs, with --args).
. "$(dirname "$0")/rt-lib.sh"

P=powerpc-linux-gnu
Q=ppc
RT_EXPECT=$RT/rt_expect_ppc.txt

REPORT=1 cross_variant $Q $P $P-gcc $P-g++ pg ""
cross_variant $Q $P $P-gcc $P-g++ O0 "" -O0
cross_variant $Q $P $P-gcc $P-g++ nop --nop
RT_LDFLAGS=-no-pie
cross_variant $Q $P $P-gcc $P-g++ nopic "" -fno-pic
RT_LDFLAGS=
# clang compiles the C part; the cross g++ (which also links) the C++ part.
cross_variant $Q $P clang $P-g++ clang ""
toggle_cross $Q $P
TOGGLE_RMC="" toggle_cross $Q $P
# Tail calls: the function jumped to stores the hooked LR in the same slot.
tail_check ppc-gcc $P-gcc "qemu-$Q -L /usr/$P" -pg
tail_check ppc-clang "clang --target=$P" "qemu-$Q -L /usr/$P" -pg

# ppc_own LABEL CC: rt_ppc.c (variadic doubles and CR1, IBM long double,
# structs through the hidden pointer, long long pairs) with CC -pg: its
# checks pass untraced and traced, the trace's values are rt_ppc.c's, and
# --args places the arguments after the hidden pointer and in an aligned
# register pair.
ppc_own() {
	local label="ppc own $1" cc=$2 dir=$T_TMP/ppc-own-$1 status line
	mkdir -p "$dir"
	# shellcheck disable=SC2086
	compile_ok "[$label] rt_ppc.c" $cc -std=gnu11 "${WARN[@]}" "${CFLAGS[@]}" -I"$RT" -c "$RT/rt_ppc.c" \
		-o "$dir/rt_ppc.o" &&
	compile_ok "[$label] recordmcount --mode=user" "$RMC" --mode=user "$dir/rt_ppc.o" &&
	compile_ok "[$label] link" $P-gcc -pie -o "$dir/prog" "$dir/rt_ppc.o" || return
	untraced "$label" qemu-$Q -L /usr/$P "$dir/prog"
	timeout 60 "$OBJPATCH" run --output "$dir/trace.text" -- "$dir/prog" > "$dir/out" 2> "$dir/err"
	status=$?
	program_ok "[$label] traced: exit 0, the program's checks pass" "$status" "$dir/out"
	[ -s "$dir/err" ] && diag "[$label] stderr:" "$(head -5 "$dir/err")"
	check_trace "$label" text "$RT/rt_ppc_expect.txt" "$dir/trace.text"
	[ "$1" = gcc ] || return 0
	# gcc's hook runs before the prologue: every argument as the call left it.
	timeout 60 "$OBJPATCH" run --args --output "$dir/args.text" -- "$dir/prog" > "$dir/out" 2> "$dir/err"
	program_ok "[$label] traced with --args: exit 0, the program's checks pass" $? "$dir/out"
	for line in 'ppc_sum_doubles(n=3, ...)' 'ppc_ret_big(base=10)' 'ppc_ret_byte(v=200)' \
		'ppc_llong_pair(x=3, y=5000000000)'; do
		grep -qF -- "|    $line" "$dir/args.text"
		ok $? "[$label] --args shows $line"
	done
}
ppc_own gcc $P-gcc
ppc_own clang "clang --target=$P"

done_testing
