#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The runtime on sh4 (SH-4, little-endian, ILP32) under qemu-user
# (t/rt-lib.sh), built with Debian 13's gcc 14 and glibc 2.41 from
# scripts/toolchain-sh4.sh's root (Debian 12's sh4 gcc miscompiles at -O1
# and above): its bin/ first in PATH, its sysroot qemu's root through
# OBJPATCH_ROOT_sh4, as a user with a root of their own would run it.  A
# site is the literal word of gcc -pg's `mov.l 1f,r1; ...; jmp @r1`
# sequence (arch/sh/rt_sh4.c), one aligned data word toggled between a
# stub's address and rt_sh4_off's.  rt_test + rt_cxx (a C++ exception and
# a longjmp through traced frames, whose pr copies the runtime restores
# for the unwinder) built non-PIC as gcc's default on sh4 is (a PIC site
# loads mcount through the GOT slot all sites share, which is not
# recorded), linked -no-pie:
#  - with gcc -pg -O2, also recorded under qemu (a 32-bit little-endian
#    recording) and reported by this machine's objpatch;
#  - with gcc -pg -O0;
# each traced in every format; then rt_toggle's 10,000 live toggles with 8
# threads (the calls: --nop has no form on sh4), libobjpatch.a linked in;
# tail calls (rt_tail.c); rt_sh4.c's own cases (long long in r0:r1, a
# float in fr0 and a double in dr0, {int, int} in r0:r1, {short, short}
# and a 3-byte struct through r2, stack arguments past r7, a long long in
# r5:r6, floats and doubles in fr4-fr11) with and without --args.
# rt_test raises its signal with kill(): qemu-sh4 7.2 delivers raise()'s
# only after raise() returned (glibc 2.41 blocks, sends, unblocks).
# Without the toolchain (no archive to fetch it from) everything skips.
. "$(dirname "$0")/rt-lib.sh"
# shellcheck source=scripts/machines.sh
. "$TOP/scripts/machines.sh"

P=sh4-linux-gnu
Q=sh4
if ! tc=$(machine_toolchain $Q) || [ -z "$tc" ]; then
	echo "1..0 # SKIP sh4 needs Debian 13's toolchain: ${tc:-scripts/toolchain-sh4.sh knows no directory}"
	exit 0
fi
PATH=$tc/bin:$PATH
export OBJPATCH_ROOT_sh4=$tc/root/usr/$P
CFLAGS+=(-DRT_RAISE_BY_KILL)
RT_LDFLAGS=-no-pie
export RT_EXPECT=$RT/rt_expect_sh4.txt

REPORT=1 cross_variant $Q $P $P-gcc $P-g++ pg ""
cross_variant $Q $P $P-gcc $P-g++ O0 "" -O0
TOGGLE_RMC="" toggle_cross $Q $P
tail_check sh4-gcc $P-gcc "qemu-$Q -L $OBJPATCH_ROOT_sh4" -pg
own_values $Q $P $P-gcc rt_sh4.c "$RT/rt_sh4_expect.txt"

# --nop: sh4's sites are a data word, with no instruction to replace.
nop_refused() {
	local dir=$T_TMP/nop out
	mkdir -p "$dir"
	compile_ok "[sh4 --nop]" $P-gcc -O2 -pg -c "$RT/rt_tail.c" -I"$RT" -o "$dir/t.o" || return
	if out=$("$RMC" --mode=user --nop "$dir/t.o" 2>&1); then
		ok 1 "[sh4 --nop] recordmcount --nop fails: sh4 has no NOP form"
	else
		grep -q 'cannot be replaced by NOPs on sh' <<< "$out"
		ok $? "[sh4 --nop] recordmcount --nop fails, saying: $out"
	fi
}
nop_refused

# --args on rt_sh4.c (own_values built it): the hook runs before the
# function's own code, so r4-r7, fr4-fr11 and the stack from the entry sp
# are the arguments as the call left them.
sh4_args() {
	local dir=$T_TMP/$Q-own-$P-gcc line
	[ -x "$dir/own" ] || { ok 1 "[sh4 args] $dir/own was not built"; return; }
	timeout 60 "$OBJPATCH" run --args --output "$dir/args.text" -- "$dir/own" > "$dir/out.args" 2> "$dir/err.args"
	program_ok "[sh4 args] traced with --args: exit 0, the program's checks pass" $? "$dir/out.args"
	for line in 'sh_many(a=1, b=2, c=3, d=4, e=5, f=6, g=7, h=8)' 'sh_split(a=1, b=4294967298, c=3, d=4)' \
		'sh_fargs(a=1.5, b=2.25, c=3.5, d=4, e=5.125)' 'sh_ret_three(v=9)' 'sh_ll(x=2)' 'sh_ret_pair(a=5)'; do
		grep -qF -- " $line" "$dir/args.text"
		ok $? "[sh4 args] --args shows $line"
	done
	# The struct's address in r2 takes no argument's place.
	grep -qE ' sh_with_struct\(out=0x[0-9a-f]+, v=11\)' "$dir/args.text"
	ok $? "[sh4 args] --args shows sh_with_struct(out=0x..., v=11): r2 is not an argument"
}
sh4_args

# A root that is not there is named, with the variable that chose it
# (qemu alone would call the host's loader an "Invalid ELF image").
missing_root() {
	local dir=$T_TMP/$Q-own-$P-gcc var out
	[ -x "$dir/own" ] || { ok 1 "[sh4 root] $dir/own was not built"; return; }
	for var in OBJPATCH_ROOT_sh4 QEMU_LD_PREFIX; do
		out=$(env -u OBJPATCH_ROOT_sh4 "$var=$T_TMP/no-root" "$OBJPATCH" run -- "$dir/own" 2>&1)
		is "$?:$out" "2:objpatch run: $var=$T_TMP/no-root: no such directory (the root qemu-sh4 runs the program in)" \
			"[sh4 root] $var naming no directory: one line, status 2"
	done
}
missing_root

done_testing
