#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Typed arguments (objpatch run/record --args): testdata/args/args.c (every
# class of parameter, more than any machine's registers, aggregates by
# value, long double, varargs, recursion) traced on each machine whose
# port captures arguments, every value checked against
# testdata/args/expect.txt by check_args.py in every format: text, JSON's
# "B" args, Perfetto's debug annotations (read by perfetto_trace.py), and
# a recording reported (strings as addresses there).  Per machine, every
# hook form it traces: x86_64 gcc -pg, -pg -mfentry, --nop, 5-byte pads
# and clang; i386 gcc -pg and -pg -mfentry; AArch64's pads (its -pg sites
# show "?" for every argument: gcc moves them before the call); s390x gcc
# -pg, --nop, -pg -mfentry, -mfentry -mrecord-mcount -mnop-mcount and clang
# -pg -mfentry (every hook before the prologue, every argument seen), and
# testdata/args/s390x.c for its ABI's corners (returns in memory moving the
# arguments along, small aggregates, narrow stack values); riscv64's
# gcc -pg (relaxed, -mno-relax, --nop, with and without a frame pointer)
# and clang -pg, and ppc64le's gcc
# -pg (through a PLT stub), --nop and clang -pg, whose register arguments
# are "?" the same way but whose stack arguments show, and ppc64's (ELFv1)
# the same with -O0 and non-PIC too; 32-bit PowerPC's
# gcc -pg (before the prologue: every argument shows), --nop, non-PIC and
# clang -pg (after it: the stack arguments only); 32-bit ARM
# gcc -pg and --nop, Thumb-2 and ARM code (stack arguments past a prologue
# the runtime reads; "?" after stack probes it does not), clang --nop,
# Thumb-2 and ARM code (every argument "?": an ordinary call); MIPS n64
# (mips64el, mips64) and o32 (mipsel, mips): gcc -pg as PIE, non-PIC, each also after
# recordmcount --nop, -mlong-calls after --nop, and clang -pg (the hook
# follows the prologue, which leaves the argument registers alone; the
# runtime reads the prologue for the entry sp, where the stack arguments
# are; o32's long double is a double, and shows its value), and on both
# abi_mips.c with gcc -pg: the placing rules args.c does not reach;
# sparc64 gcc -pg, --nop, non-PIC and clang -pg (the hook follows `save`:
# register arguments show unless the code before the hook wrote one of
# them, stack arguments always); sh4 gcc -pg at -O2 and -O0 (the hook is
# the function's first code: every argument shows).  A
# stripped program shows the same; without --args no call shows any.
. "$(dirname "$0")/lib.sh"

OBJPATCH=$TOP/build/objpatch
SRC=$TOP/testdata/args
CHECK=(python3 "$SRC/check_args.py")
EVENTS=(python3 "$TOP/testdata/runtime/perfetto_trace.py")
D=$T_TMP

# form LABEL DIR CC STRIP RMC-FLAGS CFLAGS...: compile, record, link (with
# FORM_LDFLAGS), strip (ARGS_SRC: another program than args.c).
form() {
	local label=$1 dir=$2 cc=$3 strip=$4 rmc=$5 src=${ARGS_SRC:-$SRC/args.c} out
	shift 5
	[ "$rmc" != - ] || rmc=
	mkdir -p "$dir"
	compile_ok "[$label]" $cc -O2 -g "$@" -c "$src" -o "$dir/args.o" || return 1
	# shellcheck disable=SC2086
	if ! out=$("$RMC" --mode=user $rmc "$dir/args.o" 2>&1); then
		ok 1 "[$label] recordmcount --mode=user $rmc"
		diag "$out"
		return 1
	fi
	# shellcheck disable=SC2086
	compile_ok "[$label] link" $cc ${FORM_LDFLAGS:-} -o "$dir/prog" "$dir/args.o" &&
	compile_ok "[$label] strip" "$strip" -o "$dir/prog.stripped" "$dir/prog"
}

# check LABEL DIR [CHECK-OPTIONS]: every format of a traced run, a recording,
# and the stripped program (pads' tables need the symbols: not for them).
# ARGS_EXPECT: the expectations of another program than args.c.
check() {
	local label=$1 dir=$2 unknown=${3:-} expect=${ARGS_EXPECT:-$SRC/expect.txt} fmt out
	for fmt in text json perfetto; do
		if ! out=$("$OBJPATCH" run --args --format "$fmt" -o "$dir/t.$fmt" -- "$dir/prog" 2>&1 >/dev/null); then
			ok 1 "[$label] objpatch run --args --format $fmt"
			diag "$out"
			continue
		fi
		if [ "$fmt" = perfetto ]; then
			"${EVENTS[@]}" "$dir/t.$fmt" > "$dir/t.events" && out=$("${CHECK[@]}" "$expect" events "$dir/t.events" $unknown 2>&1)
		else
			out=$("${CHECK[@]}" "$expect" "$fmt" "$dir/t.$fmt" $unknown 2>&1)
		fi
		ok $? "[$label] $fmt: every argument of every call as expected"
		[ -z "$out" ] || diag "$out"
	done
	if "$OBJPATCH" record --args -o "$dir/t.data" -- "$dir/prog" > /dev/null 2>&1 &&
	   "$OBJPATCH" report -o "$dir/t.report" "$dir/t.data" 2> "$dir/report.err"; then
		out=$("${CHECK[@]}" "$expect" text "$dir/t.report" --recording $unknown 2>&1)
		ok $? "[$label] record --args + report: the same, strings as their addresses"
		[ -z "$out" ] || diag "$out"
	else
		ok 1 "[$label] record --args + report"
		diag "$(cat "$dir/report.err")"
	fi
	[[ $label != *-pads ]] || return 0
	"$OBJPATCH" run --args -o "$dir/s.text" -- "$dir/prog.stripped" > /dev/null 2>&1
	out=$("${CHECK[@]}" "$expect" text "$dir/s.text" $unknown 2>&1)
	ok $? "[$label] stripped: the same"
	[ -z "$out" ] || diag "$out"
}

if [ "$(uname -m)" != x86_64 ]; then
	skip "the runtime is tested from x86_64 (this is $(uname -m))"
	done_testing
	exit
fi

# ---- x86_64: every hook form ----
while read -r label cc rmc flags; do
	dir=$D/$label
	# shellcheck disable=SC2086
	form "$label" "$dir" "$cc" strip "$rmc" $flags && check "$label" "$dir"
done <<'EOF2'
x86_64-pg gcc - -pg
x86_64-fentry gcc - -pg -mfentry
x86_64-nop gcc --nop -pg -mfentry
x86_64-pads gcc - -fpatchable-function-entry=5
x86_64-clang clang - -pg -mfentry
EOF2

# Without --args: no call shows an argument (and nothing records them).
"$OBJPATCH" run -o "$D/plain.text" -- "$D/x86_64-fentry/prog" > /dev/null 2>&1
! grep -E '\|\s+\w+\([^)]' "$D/plain.text"
ok $? "without --args no call shows arguments"
head -c 15 "$D/x86_64-fentry/t.data" | grep -q 'OBJPATCH-RAW-4'
ok $? "a recording with arguments is format version 4"
"$OBJPATCH" record -o "$D/plain.data" -- "$D/x86_64-fentry/prog" > /dev/null 2>&1
head -c 15 "$D/plain.data" | grep -q 'OBJPATCH-RAW-3'
ok $? "one without is version 3, as before"

# ---- i386, under qemu-user (objpatch run starts it) ----
if command -v i686-linux-gnu-gcc > /dev/null && [ -f "$TOP/build/i386/libobjpatch.so" ]; then
	form i386-pg "$D/i386-pg" i686-linux-gnu-gcc i686-linux-gnu-strip - -pg && check i386-pg "$D/i386-pg"
	form i386-fentry "$D/i386-fentry" i686-linux-gnu-gcc i686-linux-gnu-strip - -pg -mfentry -fno-pic -no-pie &&
		check i386-fentry "$D/i386-fentry"
else
	ok 1 "i686-linux-gnu-gcc and build/i386/libobjpatch.so (scripts/deps.sh, make)"
fi

# ---- AArch64, under qemu-user ----
if command -v aarch64-linux-gnu-gcc > /dev/null && [ -f "$TOP/build/aarch64/libobjpatch.so" ]; then
	form aarch64-pads "$D/aarch64-pads" aarch64-linux-gnu-gcc aarch64-linux-gnu-strip - \
		-fpatchable-function-entry=2 && check aarch64-pads "$D/aarch64-pads"
	form aarch64-pg "$D/aarch64-pg" aarch64-linux-gnu-gcc aarch64-linux-gnu-strip - -pg &&
		check aarch64-pg "$D/aarch64-pg" --unknown
else
	ok 1 "aarch64-linux-gnu-gcc and build/aarch64/libobjpatch.so (scripts/deps.sh, make)"
fi

# ---- s390x, under qemu-user: every form its port traces, all before the prologue ----
P=s390x-linux-gnu
if command -v $P-gcc > /dev/null && [ -f "$TOP/build/s390x/libobjpatch.so" ]; then
	while read -r label cc rmc flags; do
		dir=$D/$label
		# shellcheck disable=SC2086
		form "$label" "$dir" "$cc" $P-strip "$rmc" $flags && check "$label" "$dir"
	done <<EOF2
s390x-pg $P-gcc - -pg
s390x-nop $P-gcc --nop -pg
s390x-fentry $P-gcc - -pg -mfentry
s390x-mrecord $P-gcc - -pg -mfentry -mrecord-mcount -mnop-mcount
EOF2
	# Returns in memory (r2 holds their address), small aggregates, narrow stack values.
	ARGS_SRC=$SRC/s390x.c form s390x-corners "$D/s390x-corners" $P-gcc $P-strip - -pg -mfentry &&
		ARGS_EXPECT=$SRC/s390x_expect.txt check s390x-corners "$D/s390x-corners"
	if command -v clang > /dev/null; then
		form s390x-clang "$D/s390x-clang" "clang --target=$P" $P-strip - -pg -mfentry -Wno-unknown-attributes &&
			check s390x-clang "$D/s390x-clang"
	else
		skip "[s390x-clang] clang is not installed"
	fi
else
	ok 1 "$P-gcc and build/s390x/libobjpatch.so (scripts/deps.sh, make)"
fi

# ---- riscv64, under qemu-user: every form t/95-rt-riscv64.t traces ----
# gcc (`mv a0, ra` before the call) and clang both move the arguments out
# of a0-a7/fa0-fa7 before calling _mcount: those are "?"; the stack
# arguments, just above the saved ra, show.  gcc without a frame pointer
# too: args.c's fp() and ten_doubles() schedule up to 30 bytes of
# register copies between `mv a0, ra` and the call, which rt_rv_slot()
# must see past to find the saved ra (it once looked 8 bytes back only,
# took s0 - 8, and the run aborted).
if command -v riscv64-linux-gnu-gcc > /dev/null && [ -f "$TOP/build/riscv64/libobjpatch.so" ]; then
	while read -r label cc rmc flags; do
		dir=$D/$label
		# shellcheck disable=SC2086
		form "$label" "$dir" "${cc//,/ }" riscv64-linux-gnu-strip "$rmc" $flags &&
			check "$label" "$dir" "--machine $SRC/machine-riscv64.txt"
	done <<'EOF2'
riscv64-pg riscv64-linux-gnu-gcc - -pg -fno-omit-frame-pointer
riscv64-norelax riscv64-linux-gnu-gcc - -pg -fno-omit-frame-pointer -mno-relax
riscv64-nop riscv64-linux-gnu-gcc --nop -pg -fno-omit-frame-pointer
riscv64-nofp riscv64-linux-gnu-gcc - -pg
riscv64-nofp-nop riscv64-linux-gnu-gcc --nop -pg
riscv64-clang clang,--target=riscv64-linux-gnu - -pg
EOF2
else
	ok 1 "riscv64-linux-gnu-gcc and build/riscv64/libobjpatch.so (scripts/deps.sh, make)"
fi

# ---- ppc64le, under qemu-user: every form t/95-rt-ppc64le.t traces ----
# gcc -pg (the linker's PLT stub to libc's _mcount and TOC restore after
# each site), gcc -pg + recordmcount --nop, clang -pg.  Both compilers copy
# the register arguments away and may reuse r3-r10/f1-f13 before calling
# _mcount: those print "?".  The stack arguments are read from the
# caller's parameter save area: they show.
if command -v powerpc64le-linux-gnu-gcc > /dev/null && [ -f "$TOP/build/ppc64le/libobjpatch.so" ]; then
	while read -r label cc rmc flags; do
		dir=$D/$label
		# shellcheck disable=SC2086
		form "$label" "$dir" "${cc//,/ }" powerpc64le-linux-gnu-strip "$rmc" $flags &&
			check "$label" "$dir" "--machine $SRC/machine-ppc64le.txt"
	done <<'EOF2'
ppc64le-pg powerpc64le-linux-gnu-gcc - -pg
ppc64le-nop powerpc64le-linux-gnu-gcc --nop -pg
ppc64le-clang clang,--target=powerpc64le-linux-gnu - -pg
EOF2
else
	ok 1 "powerpc64le-linux-gnu-gcc and build/ppc64le/libobjpatch.so (scripts/deps.sh, make)"
fi

# ---- ppc64 (ELFv1, big-endian), under qemu-user: every form t/95-rt-ppc64.t traces ----
# As ppc64le: the hook is an ordinary call after the prologue, the register
# arguments are "?" (machine-ppc64.txt), the stack ones show, from the
# caller's parameter save area 48 bytes above its r1 (ELFv1's linkage
# area), a value narrower than its doubleword at its end.
P=powerpc64-linux-gnu
if command -v $P-gcc > /dev/null && command -v clang > /dev/null && [ -f "$TOP/build/ppc64/libobjpatch.so" ]; then
	while read -r label cc rmc ldflags flags; do
		[ "$ldflags" != - ] || ldflags=
		# shellcheck disable=SC2086
		FORM_LDFLAGS=$ldflags form "$label" "$D/$label" "${cc//,/ }" $P-strip "$rmc" $flags &&
			check "$label" "$D/$label" "--machine $SRC/machine-ppc64.txt"
	done <<EOF2
ppc64-pg $P-gcc - - -pg
ppc64-O0 $P-gcc - - -pg -O0
ppc64-nop $P-gcc --nop - -pg
ppc64-nopic $P-gcc - -no-pie -pg -fno-pic
ppc64-clang clang,--target=$P - - -pg
EOF2
else
	ok 1 "$P-gcc, clang and build/ppc64/libobjpatch.so (scripts/deps.sh, make)"
fi

# ---- 32-bit PowerPC (SysV, big-endian), under qemu-user: the forms t/95-rt-ppc.t traces ----
# gcc calls _mcount first, before the prologue, with every argument where
# the call left it: all show (r3-r10, f1-f8, long long in an aligned
# register pair or 8-aligned on the stack, the caller's parameter area from
# 8 above its r1).  clang calls it after the prologue as an ordinary call:
# the register arguments are "?", the stack ones show
# (machine-ppc-clang.txt).
P=powerpc-linux-gnu
if command -v $P-gcc > /dev/null && command -v clang > /dev/null && [ -f "$TOP/build/ppc/libobjpatch.so" ]; then
	while read -r label cc rmc ldflags unknown flags; do
		[ "$ldflags" != - ] || ldflags=
		[ "$unknown" != - ] || unknown=
		[[ $unknown != machine* ]] || unknown="--machine $SRC/$unknown.txt"
		# shellcheck disable=SC2086
		FORM_LDFLAGS=$ldflags form "$label" "$D/$label" "${cc//,/ }" $P-strip "$rmc" $flags &&
			check "$label" "$D/$label" "$unknown"
	done <<EOF2
ppc-pg $P-gcc - - - -pg
ppc-nop $P-gcc --nop - - -pg
ppc-nopic $P-gcc - -no-pie - -pg -fno-pic
ppc-clang clang,--target=$P - - machine-ppc-clang -pg
EOF2
else
	ok 1 "$P-gcc, clang and build/ppc/libobjpatch.so (scripts/deps.sh, make)"
fi

# ---- 32-bit ARM (armhf), under qemu-user: Thumb-2 and ARM code ----
# gcc's hook runs after the prologue: registers as the call left them, the
# caller's stack past the prologue the runtime reads (a stack probe it does
# not read: "?", machine-arm-probe.txt); clang's `bl mcount` is an
# ordinary call: every argument "?".
P=arm-linux-gnueabihf
if command -v $P-gcc > /dev/null && command -v clang > /dev/null && [ -f "$TOP/build/arm/libobjpatch.so" ]; then
	while read -r label cc rmc unknown flags; do
		dir=$D/$label
		[[ $unknown != machine* ]] || unknown="--machine $SRC/$unknown.txt"
		[ "$cc" = clang ] && cc="clang --target=$P"
		# shellcheck disable=SC2086
		form "$label" "$dir" "$cc" $P-strip "$rmc" $flags && check "$label" "$dir" "$unknown"
	done <<EOF2
arm-pg $P-gcc - machine-arm -pg -mthumb
arm-pg-arm $P-gcc - machine-arm -pg -marm
arm-nop $P-gcc --nop machine-arm -pg -mthumb
arm-nop-arm $P-gcc --nop machine-arm -pg -marm
arm-probe $P-gcc - machine-arm-probe -pg -mthumb -fstack-clash-protection
arm-probe-arm $P-gcc - machine-arm-probe -pg -marm -fstack-clash-protection
arm-clang clang --nop --unknown -w -pg -mthumb
arm-clang-arm clang --nop --unknown -w -pg -marm
EOF2
else
	ok 1 "$P-gcc, clang and build/arm/libobjpatch.so (scripts/deps.sh, make)"
fi

# ---- sparc64 (SPARC V9), under qemu-user: the forms t/95-rt-sparc64.t traces ----
# The hook follows `save`: the arguments are in %i0-%i5 and %d0-%d30 as
# the call left them unless the code before the hook (its delay slot
# included) wrote one, which the runtime reads per site and then shows
# every register argument "?" (machine-sparc64*.txt: which functions, by
# compiler); the stack slots past %o5 show in every function.
P=sparc64-linux-gnu
if command -v $P-gcc > /dev/null && command -v clang > /dev/null && [ -f "$TOP/build/sparc64/libobjpatch.so" ]; then
	while read -r label cc rmc ldflags machine flags; do
		[ "$ldflags" != - ] || ldflags=
		# shellcheck disable=SC2086
		FORM_LDFLAGS=$ldflags form "$label" "$D/$label" "${cc//,/ }" $P-strip "$rmc" $flags &&
			check "$label" "$D/$label" "--machine $SRC/$machine.txt"
	done <<EOF2
sparc64-pg $P-gcc - - machine-sparc64 -pg
sparc64-nop $P-gcc --nop - machine-sparc64 -pg
sparc64-nopic $P-gcc - -no-pie machine-sparc64 -pg -fno-pic
sparc64-clang clang,--target=$P - - machine-sparc64-clang -w -pg
EOF2
else
	ok 1 "$P-gcc, clang and build/sparc64/libobjpatch.so (scripts/deps.sh, make)"
fi

# ---- sh4, under qemu-user with Debian 13's toolchain (scripts/toolchain-sh4.sh) ----
# The hook runs first in the function, so every argument shows: r4-r7,
# fr4-fr11 and the stack from the entry sp; non-PIC (gcc's default on
# sh4), at -O2 and -O0.  Without the toolchain: skipped, saying why.
# shellcheck source=scripts/machines.sh
. "$TOP/scripts/machines.sh"
P=sh4-linux-gnu
if ! tc=$(machine_toolchain sh4) || [ -z "$tc" ]; then
	skip "sh4 needs Debian 13's toolchain: $tc"
elif [ ! -f "$TOP/build/sh4/libobjpatch.so" ]; then
	ok 1 "build/sh4/libobjpatch.so (make, with $tc set up)"
else
	while read -r label flags; do
		# shellcheck disable=SC2086
		PATH=$tc/bin:$PATH OBJPATCH_ROOT_sh4=$tc/root/usr/$P FORM_LDFLAGS=-no-pie \
			form "$label" "$D/$label" $P-gcc $P-strip - $flags &&
		PATH=$tc/bin:$PATH OBJPATCH_ROOT_sh4=$tc/root/usr/$P \
			check "$label" "$D/$label" "--machine $SRC/machine-sh4.txt"
	done <<'EOF2'
sh4-pg -pg
sh4-O0 -pg -O0
EOF2
fi

# ---- MIPS n64 and o32, either byte order, under qemu-user: the forms t/95-rt-<name>.t traces ----
# mips_forms NAME TRIPLE EXPECT CHECK-OPTIONS NOPIC-LDFLAGS: the forms of
# NAME, then abi_mips.c (the placing rules args.c does not reach) with gcc
# -pg against EXPECT.  One port serves both byte orders (arch/mips/), and
# the values are the same on both.
mips_forms() {
	local m=$1 p=$2 expect=$3 opts=$4 nopic=$5 label cc rmc ldflags flags
	if ! command -v "$p-gcc" > /dev/null || [ ! -f "$TOP/build/$m/libobjpatch.so" ]; then
		ok 1 "$p-gcc and build/$m/libobjpatch.so (scripts/deps.sh, make)"
		return
	fi
	while read -r label cc rmc ldflags flags; do
		[ "$ldflags" != - ] || ldflags=
		# shellcheck disable=SC2086
		FORM_LDFLAGS=${ldflags//+/ } form "$label" "$D/$label" "${cc//,/ }" "$p-strip" "$rmc" $flags &&
			check "$label" "$D/$label" "$opts"
	done <<EOF2
$m-pg $p-gcc - - -pg
$m-clang clang,--target=$p - - -pg
$m-nopic $p-gcc - $nopic -pg -fno-pic -mno-abicalls
$m-nopic-nop $p-gcc --nop $nopic -pg -fno-pic -mno-abicalls
$m-pg-nop $p-gcc --nop - -pg
$m-longcalls-nop $p-gcc --nop - -pg -mlong-calls
EOF2
	ARGS_SRC=$SRC/abi_mips.c form "$m-abi" "$D/$m-abi" "$p-gcc" "$p-strip" - -pg &&
		ARGS_EXPECT=$SRC/$expect check "$m-abi" "$D/$m-abi"
}
# Every row of arch/machines.h with port mips: n64 (ELFCLASS64), whose
# non-PIC code must lie below 4 GiB, or o32, whose long double is a double
# and shows its value.  (fd 3: a program run under the loop must not read
# the rows.)
# shellcheck source=scripts/machines.sh
. "$TOP/scripts/machines.sh"
while IFS=$'\t' read -r name prefix _ _ port _ _ class _ <&3; do
	[ "$port" = mips ] || continue
	if [ "$class" = ELFCLASS64 ]; then
		mips_forms "$name" "${prefix%-}" expect_n64.txt "" -no-pie+-Wl,-Ttext-segment=0x10000000
	else
		mips_forms "$name" "${prefix%-}" expect_o32.txt "--machine $SRC/machine-o32.txt" -no-pie
	fi
done 3< <(machine_rows)

done_testing
