#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The runtime on sparc64 (SPARC V9, 64-bit ABI, big-endian) under
# qemu-user (t/rt-lib.sh).  Sites are `call _mcount` (gcc) or `call
# mcount` (clang) after the function's `save`, the delay slot the
# compiler's; the return address is the function's %i7, which the
# trampoline spills with flushw and hooks in the window save area
# (arch/sparc/rt_sparc64.S).  rt_test + rt_cxx (a C++ exception and a
# longjmp through traced frames, whose windows the unwinder restores)
# built
#  - with gcc -pg as Debian builds (PIE), also recorded under qemu (a
#    big-endian recording) and reported by this machine's objpatch;
#  - with gcc -pg at -O0;
#  - with gcc -pg and recordmcount --nop;
#  - with gcc -pg, non-PIC and linked -no-pie;
#  - with clang -pg (its `call mcount` after PIC set-up that may reuse
#    the argument registers);
# each traced in every format.  Then rt_toggle's 10,000 live toggles with 8
# threads, with --nop sites and with the calls (`nop` <-> `call stub`,
# one aligned word, then `flush`), libobjpatch.a linked in: the patcher's
# handler gets its GOT pointer from the port's own PIC thunk, never from
# the program's copy on a page being written; tail calls (rt_tail.c) with
# gcc and clang;
# rt_sparc64.c's own cases (long double in %q0, a float in %f0, a struct
# over 32 bytes through the hidden pointer, a one-byte struct, stack and
# FP arguments with --args, variadic doubles, a nested function's static
# chain, 40 frames of spilled windows) with gcc and clang.
. "$(dirname "$0")/rt-lib.sh"

P=sparc64-linux-gnu
Q=sparc64
# V9 returns structs of up to 32 bytes in registers, but struct ret_regs
# keeps two integer ones: ret_big (24 bytes, %o0-%o2) prints '?'; struct
# floats come back in %d0/%d2, which the runtime does not place (raw, '?').
rt_expect_with 'ret_big ?' 'ret_fpair ~^0x[0-9a-f]+\?$'

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
# Tail calls: `call f; restore` leaves the hooked %i7 for the callee.
tail_check sparc64-gcc $P-gcc "qemu-$Q -L /usr/$P" -pg
tail_check sparc64-clang "clang --target=$P" "qemu-$Q -L /usr/$P" -pg

own_values $Q $P $P-gcc rt_sparc64.c "$RT/rt_sparc64_expect.txt"
own_values $Q $P clang rt_sparc64.c "$RT/rt_sparc64_expect.txt"

# --args on rt_sparc64.c (own_values built it): gcc's hook follows the
# `save`, so the arguments are where the call put them, stack and FP slots
# included, unless the code before the hook wrote an argument register.
sparc_args() {
	local dir=$T_TMP/$Q-own-$P-gcc line
	[ -x "$dir/own" ] || { ok 1 "[sparc64 args] $dir/own was not built"; return; }
	timeout 60 "$OBJPATCH" run --args --output "$dir/args.text" -- "$dir/own" > "$dir/out.args" 2> "$dir/err.args"
	program_ok "[sparc64 args] traced with --args: exit 0, the program's checks pass" $? "$dir/out.args"
	# sp_nest_outer: gcc computes its static chain's address into %i5 in
	# the hook's delay slot, so the runtime cannot trust %i0-%i5 there.
	for line in 'sp_many(a=1, b=2, c=3, d=4, e=5, f=6, g=7, h=8, x=9.5, y=10.25)' 'sp_ret_big(base=10)' \
		'sp_ret_byte(v=200)' 'sp_sum_doubles(n=3, ...)' 'sp_nest_outer(a=?)' 'sp_nest_leaf(x=4)'; do
		grep -qF -- " $line" "$dir/args.text"
		ok $? "[sparc64 args] --args shows $line"
	done
}
sparc_args

done_testing
