#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The runtime on riscv64 (lp64d) under qemu-user (t/rt-lib.sh): rt_test +
# rt_cxx traced in all three formats, built with
#  - gcc -pg: the linker relaxes each `auipc ra; jalr ra` to _mcount's PLT
#    entry into a 4-byte `jal ra` (4-byte sites);
#  - gcc -pg -mno-relax: no R_RISCV_RELAX, 8-byte `auipc ra; jalr ra` sites;
#  - gcc -pg + recordmcount --nop: 8-byte NOP sites;
#  - gcc -pg without -fno-omit-frame-pointer (the slot found through a0);
#  - clang -pg (clang 14 emits no R_RISCV_RELAX: its C part's sites stay 8
#    bytes, g++'s C++ part's become `jal`);
# rt_riscv64.c (lp64d returns: long double in a0:a1) with gcc and clang;
# rt_toggle's 10,000 live toggles with 8 threads, its sites recorded --nop
# (8 bytes: the `jalr` word toggles) and not (relaxed to `jal`: the whole
# 4-byte site toggles).  Each variant's sites are checked to be in the
# form it is meant to test, some at addresses 2 mod 4 (the C extension
# aligns code to 2 bytes).  About 70 s wall, 30 s CPU (2 shared cores).
. "$(dirname "$0")/rt-lib.sh"
# A struct over 16 bytes comes back through an address the callee need not keep ('?'),
# and the runtime does not place this ABI's struct floats (raw, '?').
rt_expect_with 'ret_big ?' 'ret_fpair ~^0x[0-9a-f]+\?$'

P=riscv64-linux-gnu
FORMS=$TOP/testdata/runtime/riscv64_site_forms.py

# site_forms LABEL PROG REGEX: the counts riscv64_site_forms.py prints for PROG's
# recorded sites match REGEX.
site_forms() {
	local label=$1 prog=$2 want=$3 got
	if [ ! -e "$prog" ]; then
		ok 1 "[$label] site forms: $prog was not built"
		return
	fi
	"$RMC" --list "$prog" > "$T_TMP/sites" &&
		$P-objdump -d "$prog" > "$T_TMP/dis" &&
		got=$(python3 "$FORMS" "$T_TMP/sites" "$T_TMP/dis")
	if [[ "$got" =~ $want ]]; then
		ok 0 "[$label] site forms: $got"
	else
		ok 1 "[$label] site forms"
		diag "got:  $got" "want: $want"
	fi
}

cross_variant riscv64 $P $P-gcc $P-g++ pg ""
site_forms "riscv64 gcc pg" "$T_TMP/riscv64-$P-gcc-pg/prog" '^jal=[1-9][0-9]* auipc=0 nop=0 other=0 mod4_2=[1-9]'
cross_variant riscv64 $P $P-gcc $P-g++ norelax "" -mno-relax
site_forms "riscv64 gcc norelax" "$T_TMP/riscv64-$P-gcc-norelax/prog" '^jal=0 auipc=[1-9][0-9]* nop=0 other=0 mod4_2=[1-9]'
cross_variant riscv64 $P $P-gcc $P-g++ nop --nop
site_forms "riscv64 gcc nop" "$T_TMP/riscv64-$P-gcc-nop/prog" '^jal=0 auipc=0 nop=[1-9][0-9]* other=0 mod4_2=[1-9]'
# gcc without a frame pointer: the slot is found by gcc's a0 (riscv64.c).
CFLAGS=(-O2 -g -pg)
cross_variant riscv64 $P $P-gcc $P-g++ nofp ""
CFLAGS=(-O2 -g -pg -fno-omit-frame-pointer)
# clang compiles the C part; the cross g++ (which also links) the C++ part.
cross_variant riscv64 $P clang $P-g++ pg ""
site_forms "riscv64 clang pg" "$T_TMP/riscv64-clang-pg/prog" '^jal=[1-9][0-9]* auipc=[1-9][0-9]* nop=0 other=0 mod4_2=[1-9]'

# rt_riscv64.c: long double returned in a0:a1 as binary128, a NaN-boxed float, __int128.
own_values riscv64 $P $P-gcc rt_riscv64.c "$RT/rt_riscv64_expect.txt"
own_values riscv64 $P clang rt_riscv64.c "$RT/rt_riscv64_expect.txt"

toggle_cross riscv64 $P
site_forms "toggle riscv64" "$T_TMP/toggle-riscv64/rt_toggle" '^jal=0 auipc=0 nop=[1-9][0-9]* other=0 mod4_2=[1-9]'

# toggle_jal: toggle_cross (t/rt-lib.sh) with recordmcount run without
# --nop: the sites stay calls to _mcount, which the linker relaxes to
# `jal`, and the runtime writes them to `nop` at start-up.
toggle_jal() {
	local label="toggle riscv64 jal" dir=$T_TMP/toggle-riscv64-jal status
	local lib=$TOP/build/riscv64/libobjpatch.a
	for tool in $P-gcc qemu-riscv64; do
		command -v "$tool" >/dev/null || { skip "[$label] $tool is not installed"; return; }
	done
	[ -e "$lib" ] || { ok 1 "[$label] build/riscv64/libobjpatch.a was not built"; return; }
	mkdir -p "$dir"
	compile_ok "[$label]" $P-gcc -std=gnu11 "${WARN[@]}" "${CFLAGS[@]}" -pthread -I"$TOP/objpatch/lib" -I"$TOP" \
		-c "$RT/rt_toggle.c" -o "$dir/rt_toggle.o" &&
	compile_ok "[$label] recordmcount --mode=user" "$RMC" --mode=user "$dir/rt_toggle.o" &&
	compile_ok "[$label] link with build/riscv64/libobjpatch.a" $P-gcc -pie -o "$dir/rt_toggle" \
		"$dir/rt_toggle.o" "$lib" -pthread -lelf -ldl || return
	site_forms "$label" "$dir/rt_toggle" '^jal=[1-9][0-9]* auipc=0 nop=0 other=0 mod4_2=[1-9]'
	OBJPATCH_OUTPUT=$dir/trace.text timeout 300 qemu-riscv64 -L /usr/$P "$dir/rt_toggle" \
		> "$dir/out" 2> "$dir/err"
	status=$?
	program_ok "[$label] 10,000 enable/disable(\"*\") with 8 threads calling: exit 0, checks pass" \
		"$status" "$dir/out"
	grep -q '^# ' "$dir/out" && diag "[$label] $(grep '^# ' "$dir/out" | sed 's/^# //')"
	[ -s "$dir/err" ] && diag "[$label] stderr:" "$(head -20 "$dir/err")"
	check_trace "$label" text "$RT/rt_toggle_expect.txt" "$dir/trace.text"
}
toggle_jal

# Tail calls: the function jumped to starts with the hooked ra.
tail_check riscv64-gcc $P-gcc "qemu-riscv64 -L /usr/$P" -pg
tail_check riscv64-clang "clang --target=$P" "qemu-riscv64 -L /usr/$P" -pg

done_testing
