#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The outside reproducers this file turns into tests: shared/repro/F-mrecord-mcount-untraced.sh,
# F-s390x-nop-mcount-user.sh (part 1), F-mips-jalr-hint.sh and F-site-outside-symbol.sh (part 2).
#
# The recorder's own output passes its own check.
#
# Part 1: every machine of scripts/machines.sh, in every form the suite compiles
# (gcc and clang, -pg, kernel flags and Debian's PIC/PIE defaults, -O0,
# -ffunction-sections, -mfentry, -mrecord-mcount, -mnop-mcount,
# -fpatchable-function-entry, MIPS -mlong-calls and -mxgot, ARM in Thumb-2
# and ARM code), compiles small sources (testdata/demo/demo.c has a function
# in an untraced section), records each object in kernel and user mode,
# with and without --nop, and runs recordmcount --check on every result:
# any finding (notes such as untyped aside) or a failed recording fails
# (--nop on SuperH, which has no NOP for a call, must fail and leave the
# object as it was).  About 150 s of CPU, two compilers at a time.
#
# Part 2: the damaged objects of the reports (a MIPS R_MIPS_JALR hint left
# on _mcount after its %call16 moved off, a symbol whose st_size no longer
# covers its call): recording and --check apply one rule.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../scripts/machines.sh"

command -v python3 > /dev/null || { echo "Bail out! python3 is needed"; exit 1; }
WORKER=$TOP/testdata/selfcheck/record_and_check.sh
SOURCES=("$TOP/testdata/demo/demo.c" "$TOP/testdata/src/funcs.c" "$TOP/testdata/src/sections.c"
	 "$TOP/testdata/selfcheck/mt.c")
MODES=(kernel user kernel-nop user-nop)
JOBS=$T_TMP/jobs
FORMS=$T_TMP/forms
: > "$JOBS"
: > "$FORMS"

# ---- part 1: the matrix ----

# form LABEL CC FLAGS...: compile every source with CC FLAGS (a form's label names its directory)
form() {
	local label=$1 src n=0
	shift
	printf '%s\n' "$label" >> "$FORMS"
	for src in "${SOURCES[@]}"; do
		n=$((n + 1))
		# One line per object: the worker's command, quoted for bash.
		printf '%q ' "$WORKER" "$RMC" "$T_TMP/obj/$label/$n" "$src" "$@" >> "$JOBS"
		printf '\n' >> "$JOBS"
	done
}

plan_machine() {	# name prefix clang-target kflags
	local name=$1 prefix=$2 ct=$3 kf=$4 gcc=${2}gcc
	# shellcheck disable=SC2086	# the kernel flags are words
	set -- $kf
	form "$name/gcc-pg-kernel" "$gcc" "$@" -pg
	form "$name/gcc-pg-default" "$gcc" -pg
	form "$name/gcc-pg-O0-sections" "$gcc" "$@" -pg -O0 -ffunction-sections
	form "$name/gcc-patchable" "$gcc" "$@" -fpatchable-function-entry=2
	# gcc's kernel forms, where it has them (x86, s390x)
	if cc_takes "$* -pg -mfentry -mrecord-mcount -mnop-mcount" "$gcc"; then
		form "$name/gcc-fentry" "$gcc" "$@" -pg -mfentry
		form "$name/gcc-mrecord" "$gcc" "$@" -pg -mrecord-mcount
		form "$name/gcc-fentry-mrecord" "$gcc" "$@" -pg -mfentry -mrecord-mcount
		form "$name/gcc-fentry-mrecord-nop" "$gcc" "$@" -pg -mfentry -mrecord-mcount -mnop-mcount
	fi
	case $name in
	mips*)
		form "$name/gcc-long-calls-kernel" "$gcc" "$@" -pg -mlong-calls
		form "$name/gcc-long-calls-pic" "$gcc" -pg -mlong-calls
		form "$name/gcc-xgot" "$gcc" -pg -mxgot
		;;
	esac
	[ "$ct" != - ] || return 0
	form "$name/clang-pg-kernel" clang --target="$ct" "$@" -pg
	form "$name/clang-pg-default" clang --target="$ct" -pg
	case $name in
	x86_64)
		form "$name/clang-fentry" clang --target="$ct" "$@" -pg -mfentry
		form "$name/clang-patchable" clang --target="$ct" "$@" -fpatchable-function-entry=5
		;;
	mips*) form "$name/clang-long-calls" clang --target="$ct" "$@" -pg -mlong-calls ;;
	esac
}
for_each_arch plan_machine

# Two objects at a time (the machine's two cores are shared): each job line is a quoted command.
xargs -d '\n' -P 2 -I {} bash -c {} < "$JOBS"

# One line per form and mode, with every failure's words (a failed compile in the kernel line).
while IFS= read -r label; do
	for mode in "${MODES[@]}"; do
		bad=() refused=''
		for dir in "$T_TMP/obj/$label"/*; do
			src=${SOURCES[$((${dir##*/} - 1))]##*/}
			if [ "$(cat "$dir/compile.rc" 2> /dev/null)" != ok ]; then
				[ "$mode" != kernel ] || bad+=("$src: compile: $(head -3 "$dir/compile.err" 2> /dev/null)")
				continue
			fi
			read -r rec chk < "$dir/$mode.rc"
			# --nop where the arch has no NOP for a call (sh): refused, the object left as it was.
			if [[ $mode == *-nop ]] && [ "$rec" != 0 ] && grep -q 'the call cannot be replaced by NOPs on' "$dir/$mode.rec" &&
				cmp -s "$dir/orig.o" "$dir/$mode.o"; then
				refused=' (--nop refused, no NOP form: left unchanged)'
				continue
			fi
			[ "$rec" = 0 ] || bad+=("$src: recording failed ($rec): $(head -3 "$dir/$mode.rec")")
			[ "$chk" = 0 ] || bad+=("$src: --check ($chk): $(grep -v ': [0-9]* functions\? without a prototype' "$dir/$mode.check" | head -6)")
		done
		[ ${#bad[@]} -eq 0 ]
		ok $? "[$label] $mode: every object records and passes --check$refused"
		[ ${#bad[@]} -eq 0 ] || diag "${bad[@]}"
	done
done < "$FORMS"

# ---- part 2: damaged objects ----

D=$T_TMP/damaged
mkdir -p "$D"

# A MIPS PIC call whose %call16 was retargeted off _mcount, its R_MIPS_JALR hint left on it:
# the jalr calls whatever t9 holds, not the hook.  A stray, never recorded or NOP'd.
if compile_ok "mipsel -O0 -pg PIC" mipsel-linux-gnu-gcc -O0 -pg -c "$TOP/testdata/selfcheck/mt.c" -o "$D/jalr-orig.o"; then
	python3 - "$D/jalr-orig.o" "$D/jalr.o" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
# ELF32 LE: retarget the first R_MIPS_CALL16 (type 11) against _mcount to symbol 1
shoff, = struct.unpack_from('<I', d, 0x20); shnum, = struct.unpack_from('<H', d, 0x30)
sh = [struct.unpack_from('<10I', d, shoff + 40 * i) for i in range(shnum)]
symtab = [s for s in sh if s[1] == 2][0]; strtab = sh[symtab[6]]
def name(i):
    o = strtab[4] + struct.unpack_from('<I', d, symtab[4] + 16 * i)[0]; return bytes(d[o:d.index(0, o)])
for s in sh:
    if s[1] == 9:
        for o in range(s[4], s[4] + s[5], 8):
            off, info = struct.unpack_from('<II', d, o)
            if info & 0xff == 11 and name(info >> 8) == b'_mcount':
                struct.pack_into('<I', d, o + 4, (1 << 8) | 11); open(sys.argv[2], 'wb').write(d); sys.exit(0)
sys.exit(1)
PY
	ok $? "MIPS JALR hint: the %call16 moved off _mcount"
	cp "$D/jalr.o" "$D/jalr-strict.o"
	out=$("$RMC" --mode=kernel --nop --strict "$D/jalr-strict.o" 2>&1)
	[ $? -ne 0 ] && grep -q 'R_MIPS_JALR against _mcount' <<< "$out" && cmp -s "$D/jalr.o" "$D/jalr-strict.o"
	ok $? "MIPS JALR hint: --strict fails naming the R_MIPS_JALR, the object left as it was"
	[ $? -eq 0 ] || diag "$out"
	cp "$D/jalr.o" "$D/jalr-nop.o"
	out=$("$RMC" --mode=kernel --nop "$D/jalr-nop.o" 2>&1)
	[ $? -eq 0 ] && grep -q 'warning: .text+0x28: R_MIPS_JALR against _mcount is not a call' <<< "$out"
	ok $? "MIPS JALR hint: recorded with the hook-ref warning"
	[ $? -eq 0 ] || diag "$out"
	is "$(mipsel-linux-gnu-objdump -d "$D/jalr-nop.o" | awk '$1 == "28:" { print $2 }')" 0320f809 \
		"MIPS JALR hint: --nop leaves the jalr (not a call to the hook)"
	is "$("$RMC" --list "$D/jalr-nop.o" | grep -c '^.text+0x28$')" 0 "MIPS JALR hint: no entry for it"
	out=$("$RMC" --check "$D/jalr-nop.o")
	[ $? -eq 1 ] && [ "$(grep -v untyped <<< "$out" | grep -c ': hook-ref: leaf+0x28 ')" = 1 ] &&
		[ "$(grep -vc -e untyped -e hook-ref <<< "$out")" = 0 ]
	ok $? "MIPS JALR hint: --check reports the hook-ref only"
	[ $? -eq 0 ] || diag "$out"
fi

# A function symbol whose st_size no longer covers its call (a damaged symbol table): the call is
# outside every function.  The recorder warns (--strict: fails) and NOPs it; --check agrees.
# shrink_sum_squares IN OUT: OUT is the ELF64 object IN with sum_squares's st_size 1 (its call
# outside it); status 1 when IN has no sum_squares.
shrink_sum_squares() {
	python3 - "$1" "$2" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
shoff, = struct.unpack_from('<Q', d, 0x28); shnum, = struct.unpack_from('<H', d, 0x3c)
sh = [struct.unpack_from('<IIQQQQIIQQ', d, shoff + 64 * i) for i in range(shnum)]
st = [s for s in sh if s[1] == 2][0]; strs = sh[st[6]]
for o in range(st[4], st[4] + st[5], 24):
    n, = struct.unpack_from('<I', d, o)
    if d[strs[4] + n: strs[4] + n + 12] == b'sum_squares\0':
        struct.pack_into('<Q', d, o + 16, 1)
        open(sys.argv[2], 'wb').write(d); sys.exit(0)
sys.exit(1)
PY
}
if compile_ok "x86_64 -pg" gcc -O2 -g -pg -c "$TOP/testdata/demo/demo.c" -o "$D/size-orig.o"; then
	shrink_sum_squares "$D/size-orig.o" "$D/size.o"
	ok $? "st_size: sum_squares shrunk to 1 byte"
	site=$("$RMC" --list "$D/size-orig.o" 2> /dev/null; "$RMC" --mode=user -o "$D/size-plain.o" "$D/size-orig.o" &&
		"$RMC" --list "$D/size-plain.o" | sed -n 2p)
	cp "$D/size.o" "$D/size-strict.o"
	out=$("$RMC" --mode=user --strict "$D/size-strict.o" 2>&1)
	[ $? -ne 0 ] && grep -q "outside every function symbol.*first $site " <<< "$out" &&
		cmp -s "$D/size.o" "$D/size-strict.o"
	ok $? "st_size: --strict fails naming the call ($site), the object left as it was"
	[ $? -eq 0 ] || diag "$out"
	for mode in kernel user; do
		cp "$D/size.o" "$D/size-$mode.o"
		out=$("$RMC" --mode=$mode "$D/size-$mode.o" 2>&1)
		[ $? -eq 0 ] && grep -q "warning: $site: call to the hook outside every function symbol" <<< "$out"
		ok $? "st_size, $mode mode: recorded with a warning naming the call"
		[ $? -eq 0 ] || diag "$out"
		is "$("$RMC" --list "$D/size-$mode.o" | grep -c "^$site\$")" 0 "st_size, $mode mode: no entry for it"
		out=$("$RMC" --check "$D/size-$mode.o")
		ok $? "st_size, $mode mode: --check passes (the call is a NOP)"
		[ $? -eq 0 ] || diag "$out"
	done
	# An entry the symbols no longer cover (recorded before the damage): one finding, stale.
	shrink_sum_squares "$D/size-plain.o" "$D/size-stale.o"
	out=$("$RMC" --check "$D/size-stale.o")
	[ $? -eq 1 ] && [ "$(grep -c ": stale: .*($site): not inside any function symbol" <<< "$out")" = 1 ] &&
		[ "$(grep -c -e ': missing: ' -e ': not-call: ' <<< "$out")" = 0 ]
	ok $? "st_size: an entry recorded before the damage is one finding (stale), not also missing"
	[ $? -eq 0 ] || diag "$out"
fi

done_testing
