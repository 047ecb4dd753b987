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
# gcc and clang.
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

done_testing
