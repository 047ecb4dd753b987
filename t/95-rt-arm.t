#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The runtime on 32-bit ARM (armhf) under qemu-user (t/rt-lib.sh): rt_test +
# rt_cxx built with gcc -pg as Thumb-2 (Debian's default) and as ARM code
# (-marm), with gcc + --nop (the runtime puts back gcc's `push {lr}`), and
# with clang + --nop as Thumb-2 and as ARM code, each traced in all three
# formats against rt_expect_arm.txt (ILP32, structs returned in memory,
# constructors returning `this`).  Then rt_toggle's 10,000 live toggles
# with 8 threads, as Thumb-2 and as ARM code; the Thumb build must have
# sites at 2 mod 4, which one word store cannot patch
# (arch/arm/rt_arm.c).  About 90 s.
. "$(dirname "$0")/rt-lib.sh"

RT_EXPECT=$RT/rt_expect_arm.txt
P=arm-linux-gnueabihf

cross_variant arm $P $P-gcc $P-g++ pg ""
cross_variant arm $P $P-gcc $P-g++ pg-arm "" -marm
cross_variant arm $P $P-gcc $P-g++ nop --nop
# clang's `bl mcount` (no push before it; glibc's mcount is for old
# binaries only, so --nop): clang compiles the C part, the cross g++ (which
# also links) the C++ part, so both hook forms meet in one program.
cross_variant arm $P clang $P-g++ clang --nop
cross_variant arm $P clang $P-g++ clang-arm --nop -marm

# sites_mod4 LABEL PROG WANT: the residues mod 4 of PROG's recorded sites
# must include WANT ("2": Thumb code at 2 mod 4) or be only WANT ("0": ARM
# code).  Which Thumb functions start at 2 mod 4 follows the sizes of the
# functions before them: a residue of 0 comes and goes with rt_toggle.c.
sites_mod4() {
	local label=$1 prog=$2 want=$3 got addr rest
	got=$("$RMC" --list "$prog" | while read -r addr rest; do echo $((addr % 4)); done | sort -u | tr '\n' ' ')
	if [ "$want" = 0 ]; then
		is "${got% }" 0 "[$label] the recorded sites' addresses mod 4: all 0"
	else
		[[ " $got" == *" $want "* ]]
		ok $? "[$label] the recorded sites' addresses mod 4 (${got% }) include $want"
	fi
}

toggle_cross arm $P
[ -e "$T_TMP/toggle-arm/rt_toggle" ] && sites_mod4 "toggle arm, Thumb-2" "$T_TMP/toggle-arm/rt_toggle" 2
toggle_cross arm $P -marm
[ -e "$T_TMP/toggle-arm_marm/rt_toggle" ] && sites_mod4 "toggle arm, -marm" "$T_TMP/toggle-arm_marm/rt_toggle" 0

# Tail calls (`b.w` to another traced function: it starts with the hooked return address).
tail_check arm-thumb $P-gcc "qemu-arm -L /usr/$P" -pg
tail_check arm-arm $P-gcc "qemu-arm -L /usr/$P" -pg -marm
TAIL_RMC=--nop tail_check arm-clang "clang --target=$P" "qemu-arm -L /usr/$P" -pg

done_testing
