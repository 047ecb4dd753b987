#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The runtime on AArch64 under qemu-user (t/rt-lib.sh): rt_test + rt_cxx
# built with gcc -pg and with clang + --nop, traced in all three formats,
# and rt_toggle's 10,000 live toggles with 8 threads.  About 60 s.
. "$(dirname "$0")/rt-lib.sh"

cross_variant aarch64 aarch64-linux-gnu aarch64-linux-gnu-gcc aarch64-linux-gnu-g++ pg ""
# clang compiles the C part; the cross g++ (which also links) the C++ part.
cross_variant aarch64 aarch64-linux-gnu clang aarch64-linux-gnu-g++ nop --nop
toggle_cross aarch64 aarch64-linux-gnu

done_testing
