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
# show "?" for every argument: gcc moves them before the call); MIPS n64
# (mips64el) and o32 (mipsel): gcc -pg as PIE, non-PIC, each also after
# recordmcount --nop, -mlong-calls after --nop, and clang -pg (the hook
# follows the prologue, which leaves the argument registers alone; the
# runtime reads the prologue for the entry sp, where the stack arguments
# are; o32's long double is a double, and shows its value), and on both
# abi_mips.c with gcc -pg: the placing rules args.c does not reach.  A
# stripped program shows the same; without --args no call shows any.
. "$(dirname "$0")/lib.sh"

OBJPATCH=$TOP/build/objpatch
SRC=$TOP/testdata/args
CHECK=(python3 "$SRC/check_args.py" "$SRC/expect.txt")
EVENTS=(python3 "$TOP/testdata/runtime/perfetto_trace.py")
D=$T_TMP

# form LABEL DIR CC STRIP RMC-FLAGS CFLAGS...: compile (testdata/args/args.c,
# or FORM_SRC there), record, link (with FORM_LDFLAGS), strip.
form() {
	local label=$1 dir=$2 cc=$3 strip=$4 rmc=$5 out
	shift 5
	[ "$rmc" != - ] || rmc=
	mkdir -p "$dir"
	compile_ok "[$label]" $cc -O2 -g "$@" -c "$SRC/${FORM_SRC:-args.c}" -o "$dir/args.o" || return 1
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

# check LABEL DIR [OPTION]: every format of a traced run, a recording,
# and the stripped program (pads' tables need the symbols: not for them).
check() {
	local label=$1 dir=$2 unknown=${3:-} fmt out
	for fmt in text json perfetto; do
		if ! out=$("$OBJPATCH" run --args --format "$fmt" -o "$dir/t.$fmt" -- "$dir/prog" 2>&1 >/dev/null); then
			ok 1 "[$label] objpatch run --args --format $fmt"
			diag "$out"
			continue
		fi
		if [ "$fmt" = perfetto ]; then
			"${EVENTS[@]}" "$dir/t.$fmt" > "$dir/t.events" && out=$("${CHECK[@]}" events "$dir/t.events" $unknown 2>&1)
		else
			out=$("${CHECK[@]}" "$fmt" "$dir/t.$fmt" $unknown 2>&1)
		fi
		ok $? "[$label] $fmt: every argument of every call as expected"
		[ -z "$out" ] || diag "$out"
	done
	if "$OBJPATCH" record --args -o "$dir/t.data" -- "$dir/prog" > /dev/null 2>&1 &&
	   "$OBJPATCH" report -o "$dir/t.report" "$dir/t.data" 2> "$dir/report.err"; then
		out=$("${CHECK[@]}" text "$dir/t.report" --recording $unknown 2>&1)
		ok $? "[$label] record --args + report: the same, strings as their addresses"
		[ -z "$out" ] || diag "$out"
	else
		ok 1 "[$label] record --args + report"
		diag "$(cat "$dir/report.err")"
	fi
	[[ $label != *-pads ]] || return 0
	"$OBJPATCH" run --args -o "$dir/s.text" -- "$dir/prog.stripped" > /dev/null 2>&1
	out=$("${CHECK[@]}" text "$dir/s.text" $unknown 2>&1)
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

# ---- MIPS n64 (mips64el), under qemu-user: the forms t/95-rt-mips64el.t traces ----
if command -v mips64el-linux-gnuabi64-gcc > /dev/null && [ -f "$TOP/build/mips64el/libobjpatch.so" ]; then
	while read -r label cc rmc ldflags flags; do
		[ "$ldflags" != - ] || ldflags=
		# shellcheck disable=SC2086
		FORM_LDFLAGS=${ldflags//+/ } form "$label" "$D/$label" "${cc//,/ }" mips64el-linux-gnuabi64-strip "$rmc" $flags &&
			check "$label" "$D/$label"
	done <<'EOF2'
mips64el-pg mips64el-linux-gnuabi64-gcc - - -pg
mips64el-clang clang,--target=mips64el-linux-gnuabi64 - - -pg
mips64el-nopic mips64el-linux-gnuabi64-gcc - -no-pie+-Wl,-Ttext-segment=0x10000000 -pg -fno-pic -mno-abicalls
mips64el-nopic-nop mips64el-linux-gnuabi64-gcc --nop -no-pie+-Wl,-Ttext-segment=0x10000000 -pg -fno-pic -mno-abicalls
mips64el-pg-nop mips64el-linux-gnuabi64-gcc --nop - -pg
mips64el-longcalls-nop mips64el-linux-gnuabi64-gcc --nop - -pg -mlong-calls
EOF2
	# The placing rules args.c does not reach (abi_mips.c), with gcc -pg.
	FORM_SRC=abi_mips.c form mips64el-abi "$D/mips64el-abi" mips64el-linux-gnuabi64-gcc \
		mips64el-linux-gnuabi64-strip - -pg &&
		CHECK[2]=$SRC/expect_mips64el.txt && check mips64el-abi "$D/mips64el-abi"
	CHECK[2]=$SRC/expect.txt
else
	ok 1 "mips64el-linux-gnuabi64-gcc and build/mips64el/libobjpatch.so (scripts/deps.sh, make)"
fi

# ---- MIPS o32 (mipsel), under qemu-user: the forms t/95-rt-mipsel.t traces (long double is double) ----
if command -v mipsel-linux-gnu-gcc > /dev/null && [ -f "$TOP/build/mipsel/libobjpatch.so" ]; then
	while read -r label cc rmc ldflags flags; do
		[ "$ldflags" != - ] || ldflags=
		# shellcheck disable=SC2086
		FORM_LDFLAGS=${ldflags//+/ } form "$label" "$D/$label" "${cc//,/ }" mipsel-linux-gnu-strip "$rmc" $flags &&
			check "$label" "$D/$label" --ldbl-double
	done <<'EOF2'
mipsel-pg mipsel-linux-gnu-gcc - - -pg
mipsel-clang clang,--target=mipsel-linux-gnu - - -pg
mipsel-nopic mipsel-linux-gnu-gcc - -no-pie -pg -fno-pic -mno-abicalls
mipsel-nopic-nop mipsel-linux-gnu-gcc --nop -no-pie -pg -fno-pic -mno-abicalls
mipsel-pg-nop mipsel-linux-gnu-gcc --nop - -pg
mipsel-longcalls-nop mipsel-linux-gnu-gcc --nop - -pg -mlong-calls
EOF2
	FORM_SRC=abi_mips.c form mipsel-abi "$D/mipsel-abi" mipsel-linux-gnu-gcc mipsel-linux-gnu-strip - -pg &&
		CHECK[2]=$SRC/expect_mipsel.txt && check mipsel-abi "$D/mipsel-abi"
	CHECK[2]=$SRC/expect.txt
else
	ok 1 "mipsel-linux-gnu-gcc and build/mipsel/libobjpatch.so (scripts/deps.sh, make)"
fi

done_testing
