#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The runtime on big-endian MIPS n64 (mips64) under qemu-user (t/rt-lib.sh):
# the port of t/95-rt-mips64el.t (arch/mips/, one for both byte orders)
# with what big-endian changes: instruction words read and written in the
# code's byte order; a float in $f0's low half, the last 4 bytes of the
# register the trampoline saves (arch_values.float_low_half); small
# structs in v0:v1 left-justified (memory order); binary128 long double in
# $f0:$f2, most significant half first.  rt_test + rt_cxx (v0/v1, $f0/$f2,
# a C++ exception and a longjmp through traced frames, leaf functions that
# keep their return address in ra) built
#  - with gcc -pg as Debian builds (PIE: `ld t9; jalr t9`, whose jalr
#    becomes `jal stub` or a NOP), also recorded under qemu (a big-endian
#    recording) and reported by this machine's objpatch;
#  - with clang (`move at,ra` between the load and the jalr, the
#    function's own work in the delay slot);
#  - non-PIC (-fno-pic -mno-abicalls, linked -no-pie below 4 GiB, where
#    such code must lie): `jal _mcount; nop`, as is and after
#    recordmcount --nop;
#  - PIE as Debian builds, after recordmcount --nop;
#  - PIE with -mlong-calls, after recordmcount --nop (`ld
#    v1,%got_disp(_mcount)(gp); move at,ra; jalr v1`);
# each traced in every format.  Then rt_toggle's 10,000 live toggles with 8
# threads (PIE, sites as recordmcount --nop leaves them); tail calls
# (rt_tail.c).
. "$(dirname "$0")/rt-lib.sh"
# As on mips64el: a struct over 16 bytes comes back through an address the
# callee need not keep ('?'), and the runtime does not place this ABI's
# struct floats (raw, '?').
rt_expect_with 'ret_big ?' 'ret_fpair ~^0x[0-9a-f]+\?$'

mips_suite mips64 mips64-linux-gnuabi64 "-no-pie -Wl,-Ttext-segment=0x10000000" 1

done_testing
