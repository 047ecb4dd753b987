#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The runtime on ppc64le (ELFv2) under qemu-user (t/rt-lib.sh): rt_test +
# rt_cxx built with gcc -pg (linked against libc's _mcount: the linker
# sends each site through a PLT stub and turns the nop after it into the
# TOC restore `ld r2,24(r1)`), with gcc and --nop (the nop stays), and with
# clang -pg, traced in all three formats; rt_toggle's 10,000 live toggles
# with 8 threads, with --nop sites and with sites followed by the TOC
# restore (`b .+8` <-> `bl stub`); and ppc64le's own cases:
# rt_ppc64le.c (the TOC restore after disabled and enabled sites, with
# junk in the TOC save words; IBM double-double long double returns) and
# rt_ppc64le_catch.cc (a catch drops the frame whose slot lies in the
# catcher's own frame).  About 60 s.
. "$(dirname "$0")/ppc64-lib.sh"
# A struct over 16 bytes comes back through an address the callee need not keep ('?'),
# and the runtime does not place this ABI's struct floats (raw, '?').
rt_expect_with 'ret_big ?' 'ret_fpair ~^0x[0-9a-f]+\?$'

P=powerpc64le-linux-gnu
Q=ppc64le
TOC_SAVE=24

cross_variant $Q $P $P-gcc $P-g++ pg ""
cross_variant $Q $P $P-gcc $P-g++ nop --nop
# clang compiles the C part; the cross g++ (which also links) the C++ part.
cross_variant $Q $P clang $P-g++ pg ""
toggle_cross $Q $P
TOGGLE_RMC="" toggle_cross $Q $P
# Tail calls: the function jumped to finds the hooked LR in its caller's frame.
tail_check ppc64le-gcc $P-gcc "qemu-$Q -L /usr/$P" -pg
tail_check ppc64le-clang "clang --target=$P" "qemu-$Q -L /usr/$P" -pg

ppc64_own

done_testing
