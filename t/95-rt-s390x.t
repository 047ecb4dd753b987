#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The runtime on s390x, the big-endian port, under qemu-user (t/rt-lib.sh):
# rt_test + rt_cxx (a C++ exception through traced frames, __int128 and
# structs returned in memory through a hidden pointer) built with
#  - gcc -pg: `stg %r14,8(%r15); brasl %r14,_mcount; lg %r14,8(%r15)`,
#  - gcc -pg + recordmcount --nop: the brasl becomes `brcl 0,0`,
#  - gcc -pg -mfentry: `brasl %r0,__fentry__` before the prologue,
#  - gcc -mfentry -mrecord-mcount -mnop-mcount: the compiler's __mcount_loc
#    and `brcl 0,0` (symbols kept: the runtime needs them for those tables),
#  - clang -pg -mfentry (clang's plain -pg calls mcount after its prologue,
#    where the runtime cannot find the return address: refused, checked
#    last),
# each traced in all three formats (gcc -pg and -mrecord-mcount also
# recorded under qemu, big-endian, and reported by this machine's objpatch);
# and rt_toggle's 10,000 live toggles with 8 threads, each a one-byte store
# (`brcl 0,stub` <-> `brasl %rN,stub`), which rt_s390x.c checks byte by byte
# for gcc -pg, --nop and -mfentry sites, with long double returned in
# memory.  About 55 s (2 busy cores).
. "$(dirname "$0")/rt-lib.sh"

P=s390x-linux-gnu

# s390x returns every struct in memory (its ABI: aggregates always), and
# trace/format.c prints a struct return as "?" on such machines
# (struct_regs 0): the expectations of rt_expect.txt for the structs,
# x86_64's values, are "?" here.  Every other line stays as it is.
rt_expect_with 'ret_pair ?' 'ret_wide_pair ?' 'ret_big ?' 'ret_fpair ~^0x[0-9a-f]+\?$'

REPORT=1 cross_variant s390x $P $P-gcc $P-g++ pg ""
cross_variant s390x $P $P-gcc $P-g++ nop --nop
cross_variant s390x $P $P-gcc $P-g++ fentry "" -mfentry
KEEP_SYMBOLS=1 REPORT=1 cross_variant s390x $P $P-gcc $P-g++ mrecord "" -mfentry -mrecord-mcount -mnop-mcount
# clang compiles the C part; the cross g++ (which also links) the C++ part.
cross_variant s390x $P clang $P-g++ fentry "" -mfentry
toggle_cross s390x $P

# site_forms NAME SITE_OFF LINK RMC-FLAGS [CFLAGS...]: rt_s390x.c with
# libobjpatch.a: the site's bytes at start-up, enabled and disabled (one
# byte changes), and long double returned in memory, in the trace.
site_forms() {
	local name=$1 off=$2 link=$3 rmc=$4 label="s390x sites $1" dir=$T_TMP/s390x-sites-$1 v tool
	shift 4
	for tool in $P-gcc qemu-s390x; do
		command -v "$tool" > /dev/null || { skip "[$label] $tool is not installed"; return; }
	done
	[ -e "$TOP/build/s390x/libobjpatch.a" ] || { ok 1 "[$label] build/s390x/libobjpatch.a was not built"; return; }
	mkdir -p "$dir"
	compile_ok "[$label]" $P-gcc -std=gnu11 "${WARN[@]}" "${CFLAGS[@]}" "$@" -DSITE_OFF="$off" -DLINK="$link" \
		-I"$TOP/objpatch/lib" -I"$TOP" -I"$RT" -c "$RT/rt_s390x.c" -o "$dir/rt_s390x.o" &&
	compile_ok "[$label] recordmcount --mode=user${rmc:+ $rmc}" "$RMC" --mode=user $rmc "$dir/rt_s390x.o" &&
	compile_ok "[$label] link with build/s390x/libobjpatch.a" $P-gcc -pie -o "$dir/prog" "$dir/rt_s390x.o" \
		"$TOP/build/s390x/libobjpatch.a" -pthread -lelf -ldl || return
	OBJPATCH_OUTPUT=$dir/trace.text timeout 60 qemu-s390x -L /usr/$P "$dir/prog" > "$dir/out" 2> "$dir/err"
	program_ok "[$label] sites: brcl 0,stub at start-up, one byte per toggle; the program's checks pass" \
		$? "$dir/out"
	[ -s "$dir/err" ] && diag "[$label] stderr:" "$(head -5 "$dir/err")"
	# binary128 values, shortest round-trip text (format.c): read from the caller's buffer
	for v in 'leaf(); /* ret=42 */' 'ret_ldbl_half(); /* ret=1.5 */' 'ret_ldbl_tenth(); /* ret=0.1 */' \
		'ret_ldbl_neg_big(); /* ret=-1e+300 */'; do
		grep -qF -- "|  $v" "$dir/trace.text"
		ok $? "[$label] the trace shows: $v"
	done
}
site_forms pg 6 0xe5 ""
site_forms nop 6 0xe5 --nop
site_forms fentry 0 0x05 "" -mfentry

# clang -pg calls mcount after its prologue has moved %r15 by a frame size
# only that prologue knows, so the trampoline could not find the return
# address: the runtime must refuse those sites (and say so), not patch
# them, while the g++ -pg part of the same program is traced.
clang_pg_refused() {
	local label="s390x clang pg (refused)" dir=$T_TMP/s390x-clang-pg status tool
	for tool in clang $P-g++ $P-strip qemu-s390x; do
		command -v "$tool" > /dev/null || { skip "[$label] $tool is not installed"; return; }
	done
	[ -e "$TOP/build/s390x/libobjpatch.so" ] || { ok 1 "[$label] build/s390x/libobjpatch.so was not built"; return; }
	CC_TARGET=(--target=$P)
	build "$label" "$dir" clang $P-g++ $P-strip --nop
	status=$?
	CC_TARGET=()
	[ "$status" = 0 ] || return
	timeout 60 "$OBJPATCH" run --output "$dir/trace.text" -- "$dir/prog" > "$dir/out" 2> "$dir/err"
	program_ok "[$label] traced: exit 0, the program's checks pass" $? "$dir/out"
	grep -q "hook calls not where this machine's trampolines can find the return address" "$dir/err"
	ok $? "[$label] the runtime names the refused mcount sites"
	[ -s "$dir/err" ] && diag "$(head -5 "$dir/err")"
	grep -q 'cx_run() {' "$dir/trace.text" && ! grep -q 'ret_int_pos()' "$dir/trace.text"
	ok $? "[$label] g++'s functions are traced, clang's are not"
}
clang_pg_refused

# Tail calls: the function jumped to finds the hooked %r14 in the same save slot.
tail_check s390x-gcc $P-gcc "qemu-s390x -L /usr/$P" -pg
tail_check s390x-fentry $P-gcc "qemu-s390x -L /usr/$P" -pg -mfentry

done_testing
