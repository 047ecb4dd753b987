#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The runtime on MIPS o32 (mipsel) under qemu-user (t/rt-lib.sh): rt_test +
# rt_cxx (long long in v0:v1, float/double in $f0, structs through a hidden
# pointer, a C++ exception and a longjmp through traced frames, leaf
# functions that keep their return address in ra) built
#  - with gcc -pg as Debian builds (PIE: the hook is called through the GOT,
#    `addiu sp,sp,-8; lw t9; jalr t9`, whose jalr becomes `jal stub` or
#    `addiu sp,sp,8`);
#  - with clang (its sequence has the push in the jalr's delay slot);
#  - non-PIC (-fno-pic -mno-abicalls, linked -no-pie): `jal _mcount; addiu
#    sp,sp,-8`, as is and after recordmcount --nop, which turns both words
#    into NOPs and the runtime puts the push back at start-up;
# each traced in all three formats and checked against rt_expect_o32.txt
# (ILP32, structs in memory; t/95-rt-mips.t's too);
#  - PIE as Debian builds, after recordmcount --nop, which leaves each PIC
#    sequence in the runtime's disabled state (the load of the hook's
#    address a NOP, the jalr `addiu sp,sp,8`), so no hook is linked;
#  - PIE with -mlong-calls, after recordmcount --nop (built as is, such a
#    program dies in glibc's _mcount, which finds its GOT through t9): the
#    hook's address from its GOT entry into v1
#    (`lw v1,%got(_mcount)(gp); move at,ra; jalr v1; addiu sp,sp,-8`),
#    whose load becomes a NOP and its jalr the disabled word.
# Then rt_toggle's 10,000 live toggles with 8 threads (PIE, sites as
# recordmcount --nop leaves them); tail calls (rt_tail.c).  About 50 s
# (17 s on an idle 2-core machine).
. "$(dirname "$0")/rt-lib.sh"

RT_EXPECT=$RT/rt_expect_o32.txt
mips_suite mipsel mipsel-linux-gnu -no-pie

done_testing
