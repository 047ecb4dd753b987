#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The runtime on big-endian MIPS o32 (mips) under qemu-user (t/rt-lib.sh):
# the port of t/95-rt-mipsel.t (arch/mips/, one for both byte orders) with
# what big-endian changes: instruction words read and written in the
# code's byte order; long long in v0:v1 with its high word in v0; a
# float in $f0, the low word of the $f1:$f0 pair the trampoline saves
# (arch_values.float_low_half), which is its second word here; the return
# trampoline's words zero-extended high word first.  rt_test + rt_cxx (a
# C++ exception and a longjmp through traced frames, leaf functions that
# keep their return address in ra) built
#  - with gcc -pg as Debian builds (PIE: `addiu sp,sp,-8; lw t9; jalr t9`,
#    whose jalr becomes `jal stub` or `addiu sp,sp,8`), also recorded under
#    qemu (a big-endian 32-bit recording) and reported by this machine's
#    objpatch;
#  - with clang (its sequence has the push in the jalr's delay slot);
#  - non-PIC (-fno-pic -mno-abicalls, linked -no-pie): `jal _mcount; addiu
#    sp,sp,-8`, as is and after recordmcount --nop (the runtime puts the
#    push back at start-up);
#  - PIE as Debian builds, after recordmcount --nop;
#  - PIE with -mlong-calls, after recordmcount --nop (`lw v1,%got(_mcount)(gp);
#    move at,ra; jalr v1; addiu sp,sp,-8`);
# each traced in every format and checked against rt_expect_o32.txt (ILP32,
# structs in memory: the values of mipsel, byte order changes none).  Then
# rt_toggle's 10,000 live toggles with 8 threads (PIE, sites as
# recordmcount --nop leaves them); tail calls (rt_tail.c).
. "$(dirname "$0")/rt-lib.sh"

RT_EXPECT=$RT/rt_expect_o32.txt
mips_suite mips mips-linux-gnu -no-pie 1

done_testing
