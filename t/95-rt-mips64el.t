#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The runtime on MIPS n64 (mips64el) under qemu-user (t/rt-lib.sh): rt_test
# + rt_cxx (v0/v1, $f0/$f2, binary128 long double in $f0:$f2, small structs
# in registers, a C++ exception and a longjmp through traced frames, leaf
# functions that keep their return address in ra) built
#  - with gcc -pg as Debian builds (PIE: the hook is called through the GOT,
#    `ld t9; jalr t9`, whose jalr becomes `jal stub` or a NOP);
#  - with clang (its sequence has `move at,ra` between the load and the
#    jalr, and the function's own work in the delay slot);
#  - non-PIC (-fno-pic -mno-abicalls, linked -no-pie below 4 GiB, where
#    such code must lie): `jal _mcount; nop`, as is and after
#    recordmcount --nop;
#  - PIE as Debian builds, after recordmcount --nop, which leaves each PIC
#    sequence in the runtime's disabled state (the load and the jalr NOPs),
#    so no hook is linked;
#  - PIE with -mlong-calls, after recordmcount --nop (built as is, such a
#    program dies in glibc's _mcount, which finds its GOT through t9): the
#    hook's address from its GOT entry into v1
#    (`ld v1,%got_disp(_mcount)(gp); move at,ra; jalr v1`), whose load
#    and jalr become NOPs;
# each traced in all three formats.  Then rt_toggle's 10,000 live toggles
# with 8 threads (PIE, sites as recordmcount --nop leaves them); tail calls
# (rt_tail.c).  About 50 s (17 s on an idle 2-core machine).
. "$(dirname "$0")/rt-lib.sh"
# A struct over 16 bytes comes back through an address the callee need not keep ('?'),
# and the runtime does not place this ABI's struct floats (raw, '?').
rt_expect_with 'ret_big ?' 'ret_fpair ~^0x[0-9a-f]+\?$'

mips_suite mips64el mips64el-linux-gnuabi64 "-no-pie -Wl,-Ttext-segment=0x10000000"

done_testing
