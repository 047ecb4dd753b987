#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The runtime on i386 under qemu-user (t/rt-lib.sh): rt_test + rt_cxx
# (long long in edx:eax, float/double/long double in st(0), struct returns
# through a hidden pointer, a C++ exception through traced frames) built
# with gcc -pg (PIE: `call *mcount@GOT(%ebx)`, 6-byte sites patched to
# `call *abs32`), gcc -pg -mfentry (5-byte `call __fentry__`; gcc has no
# 32-bit PIC -mfentry, so those objects are -fno-pie), gcc + --nop, and
# clang + --nop (`call mcount@PLT`); each traced in all three formats.
# Then rt_toggle's 10,000 live toggles with 8 threads (the int3 protocol,
# here through RWX mprotect windows: qemu-user's /proc/self/mem is the
# host's view), and rt_i386.c (x87 results and state, register arguments,
# realigned frames) in the same four builds; pads, which qemu-user keeps
# the runtime from joining (traced by make check-i386-system).  About 70 s.
. "$(dirname "$0")/rt-lib.sh"

# Debian's libc6-i386 (/lib32, listed in the host's /etc/ld.so.cache, which
# qemu -L lets the guest read) is another build than libc6-i386-cross's
# ld.so in /usr/i686-linux-gnu: with the two mixed, the first
# pthread_create spins forever.  The guest takes its libraries from the
# cross libc's directory first (qemu's QEMU_SET_ENV; `objpatch run` adds
# its own -E LD_PRELOAD).
export QEMU_SET_ENV=LD_LIBRARY_PATH=/usr/i686-linux-gnu/lib
# ILP32, structs in memory (rt_expect_i386.txt says what differs and why).
export RT_EXPECT=$RT/rt_expect_i386.txt

cross_variant i386 i686-linux-gnu i686-linux-gnu-gcc i686-linux-gnu-g++ pg ""
cross_variant i386 i686-linux-gnu i686-linux-gnu-gcc i686-linux-gnu-g++ fentry "" -mfentry -fno-pie
cross_variant i386 i686-linux-gnu i686-linux-gnu-gcc i686-linux-gnu-g++ nop --nop
# clang compiles the C part; the cross g++ (which also links) the C++ part.
cross_variant i386 i686-linux-gnu clang i686-linux-gnu-g++ clang --nop
toggle_cross i386 i686-linux-gnu
# Tail calls (`jmp` to another traced function, which finds the hooked return address).
tail_check i386-gcc i686-linux-gnu-gcc "qemu-i386 -L /usr/i686-linux-gnu" -pg
tail_check i386-fentry i686-linux-gnu-gcc "qemu-i386 -L /usr/i686-linux-gnu" -pg -mfentry -fno-pie
TAIL_RMC=--nop tail_check i386-clang "clang --target=i686-linux-gnu" "qemu-i386 -L /usr/i686-linux-gnu" -pg

# i386_variant NAME CC RMC-FLAGS [CFLAGS...]: rt_i386.c (x87 returns and
# the x87 state, regparm/fastcall arguments through the hook, DRAP-realigned
# frames, struct returns) untraced and traced, checked by the program itself
# and by rt_i386_expect.txt.
i386_variant() {
	local name=$1 cc=$2 rmc=$3 label="i386 rt_i386 $1" dir=$T_TMP/i386-own-$1 target=()
	shift 3
	[ "$cc" = clang ] && target=(--target=i686-linux-gnu)
	command -v "$cc" > /dev/null || { skip "[$label] $cc is not installed"; return; }
	mkdir -p "$dir"
	compile_ok "[$label]" "$cc" "${target[@]}" -std=gnu11 "${WARN[@]}" "${CFLAGS[@]}" "$@" -I"$RT" \
		-c "$RT/rt_i386.c" -o "$dir/rt_i386.o" &&
	compile_ok "[$label] recordmcount --mode=user${rmc:+ $rmc}" "$RMC" --mode=user $rmc "$dir/rt_i386.o" &&
	compile_ok "[$label] link" i686-linux-gnu-gcc -pie -o "$dir/prog" "$dir/rt_i386.o" -lm || return
	untraced "$label" qemu-i386 -L /usr/i686-linux-gnu "$dir/prog"
	timeout 60 "$OBJPATCH" run --output "$dir/trace.text" -- "$dir/prog" > "$dir/out" 2> "$dir/err"
	program_ok "[$label] traced: exit 0, the program's checks pass" $? "$dir/out"
	[ -s "$dir/err" ] && diag "[$label] stderr:" "$(head -5 "$dir/err")"
	check_trace "$label" text "$RT/rt_i386_expect.txt" "$dir/trace.text"
}
i386_variant pg i686-linux-gnu-gcc ""
i386_variant fentry i686-linux-gnu-gcc "" -mfentry -fno-pie
i386_variant nop i686-linux-gnu-gcc --nop
i386_variant clang clang --nop

# Pads (-fpatchable-function-entry=5: gcc's five 0x90s, clang's 66 90 66
# 90 90) are joined into one NOP only while no other thread runs, which the
# runtime reads from /proc/self/stat; qemu-user 7.2 writes 0 there and
# lists its own threads in /proc/self/task, so here the pads are left
# alone, with one line that says why.  They are traced on a real i386
# kernel: make check-i386-system.
pads_dir=$T_TMP/i386-pads
mkdir -p "$pads_dir"
compile_ok "[i386 pads] gcc -fpatchable-function-entry=5" i686-linux-gnu-gcc -std=gnu11 "${WARN[@]}" -O2 -g \
	-fpatchable-function-entry=5 -I"$RT" -c "$RT/rt_i386.c" -o "$pads_dir/rt_i386.o" &&
compile_ok "[i386 pads] link" i686-linux-gnu-gcc -pie -o "$pads_dir/prog" "$pads_dir/rt_i386.o" -lm &&
{
	timeout 60 "$OBJPATCH" run --output "$pads_dir/trace.text" -- "$pads_dir/prog" > "$pads_dir/out" 2> "$pads_dir/err"
	status=$?
	# objpatch run's status is 1: no site could be used.
	[ "$status" = 1 ]
	ok $? "[i386 pads] objpatch run: status 1 (no site it could use)"
	program_ok "[i386 pads] ... the program ran and its checks passed" 0 "$pads_dir/out"
	grep -qE '^objpatch: .*: [0-9]+ -fpatchable-function-entry pads of several NOPs left alone: other threads may be inside one \(or, under qemu-user, the thread count is unknown\)' "$pads_dir/err"
	ok $? "[i386 pads] the runtime says in one line why it left the pads alone"
	[ $? = 0 ] || diag "stderr:" "$(head -5 "$pads_dir/err")"
	skip "[i386 pads] traced only on a real i386 kernel (make check-i386-system): qemu-user hides the thread count"
}

done_testing
