#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The runtime on AArch64 under qemu-user (t/rt-lib.sh): rt_test + rt_cxx
# built with gcc -pg, with clang + --nop and with gcc's
# -fpatchable-function-entry=2 pads, traced in all three formats (gcc -pg
# and the pads also recorded under qemu and reported by this machine's
# objpatch), and rt_toggle's 10,000 live toggles with 8 threads.  About 40 s.
. "$(dirname "$0")/rt-lib.sh"
# A struct over 16 bytes comes back through x8, which the callee need not keep: '?'.
rt_expect_with 'ret_big ?'

REPORT=1 cross_variant aarch64 aarch64-linux-gnu aarch64-linux-gnu-gcc aarch64-linux-gnu-g++ pg ""
# clang compiles the C part; the cross g++ (which also links) the C++ part.
cross_variant aarch64 aarch64-linux-gnu clang aarch64-linux-gnu-g++ nop --nop
# -fpatchable-function-entry=2 pads, as the kernel's ftrace uses them
# (`mov x9, x30; bl`): a C++ exception unwinds through pad frames, whose
# return address the runtime finds through the frame-record chain.
CFLAGS=(-O2 -g -fpatchable-function-entry=2 -fno-omit-frame-pointer)
KEEP_SYMBOLS=1 REPORT=1 cross_variant aarch64 aarch64-linux-gnu aarch64-linux-gnu-gcc aarch64-linux-gnu-g++ pfe2 ""
CFLAGS=(-O2 -g -pg -fno-omit-frame-pointer)
toggle_cross aarch64 aarch64-linux-gnu
# Tail calls: gcc's frames keep their record at the bottom, so a function
# and the one it jumps to have different slots; pads too.
tail_check aarch64-gcc aarch64-linux-gnu-gcc "qemu-aarch64 -L /usr/aarch64-linux-gnu" -pg
tail_check aarch64-clang "clang --target=aarch64-linux-gnu" "qemu-aarch64 -L /usr/aarch64-linux-gnu" -pg

done_testing
