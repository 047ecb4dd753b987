#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Objects whose sites the compiler recorded itself: gcc's
# -mrecord-mcount (__mcount_loc) and -fpatchable-function-entry
# (__patchable_function_entries), on every target whose gcc here has them,
# and clang's -fpatchable-function-entry on x86_64 and aarch64.
#
#   - both modes keep every compiler-recorded site, none twice, and add the
#     prototype table: `objpatch list` shows testdata/recorded's prototypes;
#     a second run changes nothing; --no-protos in kernel mode changes nothing;
#   - user mode moves a -mrecord-mcount table's sites to its own tables (the
#     compiler's is excluded from links): g++'s COMDAT program, which gcc's
#     table alone cannot link (t/31), links with ld.bfd and lld, runs, passes
#     --check and is traced with typed return values;
#   - x86_64 programs of every form (-mrecord-mcount with and without
#     -mfentry, -mnop-mcount, gcc's and clang's -fpatchable-function-entry
#     pads, N,M pads) are traced by the runtime with the compiler's own
#     tables, values checked against hand-written expectations; AArch64
#     pads (gcc, clang, and with pac-ret and BTI) under qemu-user.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../scripts/machines.sh"

SRC=$TOP/testdata/recorded
EXPECT=$(grep -v '^#' "$SRC/recorded_expect.txt" | sort)
# clang's DWARF names the base type "long", gcc's "long int"
EXPECT_CLANG=$(sed 's/long int/long/g' <<< "$EXPECT" | sort)

sites() { "$RMC" --list "$1" | sort; }
has_section() { readelf -SW "$1" 2>/dev/null | grep -q " $2 "; }
prototypes() { "$TOP/build/objpatch" list "$1" | cut -d' ' -f2- | sort; }

# shift_sites N: SECTION+0xOFF lines, N bytes further
shift_sites() {
	local l
	while IFS= read -r l; do
		printf '%s+0x%x\n' "${l%+0x*}" $((0x${l##*+0x} + $1))
	done | sort
}

# recorded LABEL CC FLAGS...: one compiler-recorded object through both modes
recorded() {
	local label=$1 cc=$2 d=$T_TMP/$1 before mode expect=$EXPECT
	shift 2
	[ "$cc" = clang ] && expect=$EXPECT_CLANG
	mkdir -p "$d"
	compile_ok "[$label]" "$cc" -O2 -g "$@" -c "$SRC/recorded.c" -o "$d/orig.o" || return
	before=$(sites "$d/orig.o")
	[ "$(wc -l <<< "$before")" -ge 7 ]
	ok $? "[$label] the compiler recorded every function ($(wc -l <<< "$before") entries)"
	cp "$d/orig.o" "$d/noprotos.o"
	"$RMC" --no-protos "$d/noprotos.o" && cmp -s "$d/orig.o" "$d/noprotos.o"
	ok $? "[$label] kernel mode --no-protos: left byte-identical"
	for mode in kernel user; do
		cp "$d/orig.o" "$d/$mode.o"
		run_ok "[$label] $mode mode" "$RMC" --mode=$mode "$d/$mode.o" || continue
		if [ "$label/$mode" = s390x-mrecord/user ]; then
			# gcc names the `stg` that starts s390's sequence; user mode the brasl, 6 bytes on.
			is "$(sites "$d/$mode.o")" "$(shift_sites 6 <<< "$before")" \
				"[$label] $mode mode: the same sites (the calls), none twice"
		else
			is "$(sites "$d/$mode.o")" "$before" "[$label] $mode mode: the same sites, none twice"
		fi
		has_section "$d/$mode.o" __mcount_proto
		ok $? "[$label] $mode mode: a prototype table was added"
		is "$(prototypes "$d/$mode.o")" "$expect" "[$label] $mode mode: objpatch list shows every prototype"
		cp "$d/$mode.o" "$d/$mode-again.o"
		"$RMC" --mode=$mode "$d/$mode-again.o" && cmp -s "$d/$mode.o" "$d/$mode-again.o"
		ok $? "[$label] $mode mode: a second run changes nothing"
	done
	case $label in
	*-pfe*) ;;	# patchable tables: t/35-patchable.t
	s390x-mrecord)
		# gcc records the start of s390's `stg %r14; brasl; lg` sequence, not the call:
		# --check takes the call after it, user mode records the call itself.
		recorded_check "$label" "$d"
		;;
	*) recorded_check "$label" "$d" ;;
	esac
}

# recorded_check LABEL DIR: --check on a kernel-mode -mrecord-mcount object, clean and damaged
recorded_check() {
	local label=$1 d=$2 out
	run_ok "[$label] --check passes" "$RMC" --check "$d/kernel.o"
	cp "$d/kernel.o" "$d/damaged.o"
	if [[ $label == *nop* ]]; then
		# A NOP the compiler wrote has no relocation: overwrite one instead.
		MUTATE_TABLE=__mcount_loc python3 "$TOP/testdata/patchable/mutate.py" pad "$d/damaged.o" 2 5
		out=$("$RMC" --check "$d/damaged.o")
		[ $? -eq 1 ] && grep -q 'not-call' <<< "$out"
		ok $? "[$label] --check: an entry's NOP overwritten is a not-call"
	else
		MUTATE_TABLE=__mcount_loc python3 "$TOP/testdata/patchable/mutate.py" drop "$d/damaged.o" 2
		out=$("$RMC" --check "$d/damaged.o")
		[ $? -eq 1 ] && [ "$(grep -c ': missing: ' <<< "$out")" = 1 ]
		ok $? "[$label] --check: an entry removed is one missing call"
	fi
	[ $? -eq 0 ] || diag "$out"
}

for_arch() {	# name prefix clang-target kflags
	local name=$1 prefix=$2 ctarget=$3
	shift 3
	# shellcheck disable=SC2068
	recorded "$name-pfe" "${prefix}gcc" $@ -fpatchable-function-entry=2
	# where gcc has -mrecord-mcount (x86, s390x)
	if cc_takes "$* -pg -mrecord-mcount" "${prefix}gcc"; then
		# shellcheck disable=SC2068
		recorded "$name-mrecord" "${prefix}gcc" $@ -pg -mrecord-mcount
	fi
}
for_each_arch for_arch
recorded x86_64-pfe-5-2 x86_64-linux-gnu-gcc -fpatchable-function-entry=5,2
recorded x86_64-fentry-nop x86_64-linux-gnu-gcc -fno-pic -pg -mfentry -mrecord-mcount -mnop-mcount
recorded aarch64-pfe-4-2 aarch64-linux-gnu-gcc -fpatchable-function-entry=4,2
recorded clang-x86_64-pfe clang --target=x86_64-linux-gnu -fpatchable-function-entry=5
recorded clang-aarch64-pfe clang --target=aarch64-linux-gnu -fpatchable-function-entry=2

# ---- user mode repairs g++'s -mrecord-mcount COMDAT program (t/31 shows it fail) ----
cxx=$T_TMP/cxx
mkdir -p "$cxx"
for u in cxx_one cxx_two cxx_main; do
	compile_ok "g++ -mrecord-mcount" g++ -O2 -g -pg -mrecord-mcount -fPIE -c "$TOP/testdata/link/$u.cc" \
		-o "$cxx/$u.o" || break
done
if run_ok "g++ -mrecord-mcount objects: user mode" "$RMC" --mode=user "$cxx"/*.o; then
	readelf -SW "$cxx/cxx_two.o" | grep ' __mcount_loc ' | grep -q ' AE '
	ok $? "g++ -mrecord-mcount: gcc's __mcount_loc is excluded from links (SHF_EXCLUDE)"
	for ld in bfd lld; do
		run_ok "g++ -mrecord-mcount, user mode, ld.$ld: links" \
			g++ -pg -pie -fuse-ld=$ld -o "$cxx/prog-$ld" "$cxx"/*.o || continue
		is "$("$cxx/prog-$ld")" 41 "g++ -mrecord-mcount, ld.$ld: runs right"
		run_ok "g++ -mrecord-mcount, ld.$ld: --check passes" "$RMC" --check "$cxx/prog-$ld"
	done
	if [ -x "$cxx/prog-bfd" ]; then
		out=$(OBJPATCH_FILTER='*' OBJPATCH_OUTPUT=$cxx/trace.text LD_PRELOAD=$TOP/build/libobjpatch.so \
			"$cxx/prog-bfd" 2>&1)
		grep -q 'counter::bump(); /\* ret=5 \*/' "$cxx/trace.text" &&
			grep -q '} /\* unit_two ret=25 \*/' "$cxx/trace.text"
		ok $? "g++ -mrecord-mcount, traced: counter::bump returns 5, unit_two 25 (2*bump + twice<long> + twice<int>)"
		[ $? -eq 0 ] || diag "$out" "$(head -20 "$cxx/trace.text" 2>/dev/null)"
	fi
fi

# trace_right LABEL TRACE: check_trace.py finds every call of main() with its value
trace_right() {
	local out
	if out=$(python3 "$TOP/testdata/runtime/check_trace.py" --format text --expect "$SRC/recorded_trace.txt" \
		"$2" 2>&1); then
		ok 0 "[$1] the trace holds every call with its value ($(grep -c '^ok' <<< "$out") checks)"
	else
		ok 1 "[$1] the trace"
		diag "$(grep -v '^ok' <<< "$out" | head -20)"
	fi
}

# ---- user mode repairs g++'s -fpatchable-function-entry COMDAT program ----
# gcc 12 writes one table per object, SHF_LINK_ORDER to its first COMDAT
# section: discarded with it, it takes unit_two's and twice<int>'s entries
# along.  User mode splits it per text section.
pcx=$T_TMP/pfe-cxx
mkdir -p "$pcx/gcc" "$pcx/user"
for u in cxx_one cxx_two cxx_main; do
	compile_ok "g++ -fpatchable-function-entry" g++ -O2 -g -fpatchable-function-entry=5 -fPIE \
		-c "$TOP/testdata/link/$u.cc" -o "$pcx/gcc/$u.o" || break
	cp "$pcx/gcc/$u.o" "$pcx/user/$u.o"
done
if compile_ok "g++ -fpatchable-function-entry: gcc's tables" g++ -pie -o "$pcx/gcc/prog" "$pcx"/gcc/*.o; then
	out=$("$RMC" --check "$pcx/gcc/prog")
	[ $? -eq 1 ] && grep -q 'missing: _Z8unit_twol' <<< "$out" && grep -q 'missing: _Z5twiceIiET_S0_' <<< "$out"
	ok $? "g++ -fpatchable-function-entry, gcc's own table: unit_two's and twice<int>'s entries are lost (gcc 12)"
fi
if run_ok "g++ -fpatchable-function-entry: user mode" "$RMC" --mode=user "$pcx"/user/*.o &&
	compile_ok "g++ -fpatchable-function-entry: user mode link" g++ -pie -o "$pcx/user/prog" "$pcx"/user/*.o; then
	is "$("$RMC" --list "$pcx/user/prog" | wc -l)" 6 "g++ -fpatchable-function-entry, user mode: an entry for each of the 6 functions"
	run_ok "g++ -fpatchable-function-entry, user mode: --check passes" "$RMC" --check "$pcx/user/prog"
	OBJPATCH_FILTER='*' OBJPATCH_OUTPUT=$pcx/trace.text LD_PRELOAD=$TOP/build/libobjpatch.so "$pcx/user/prog" > /dev/null 2>&1
	grep -q 'twice<int>(); /\* ret=10 \*/' "$pcx/trace.text" && grep -q '} /\* unit_two ret=25 \*/' "$pcx/trace.text"
	ok $? "g++ -fpatchable-function-entry, user mode: traced, twice<int> and unit_two with their values"
fi

# ---- x86_64 programs traced: every compiler-recorded form, values checked ----
# traced LABEL MODE LDFLAGS CC FLAGS...: built, recordmcount in MODE (the
# prototypes), linked, run under the runtime, the trace checked.
traced() {
	local label=$1 mode=$2 ldflags=$3 cc=$4 d=$T_TMP/traced-$1 out
	shift 4
	mkdir -p "$d"
	compile_ok "[$label] traced program" "$cc" -O2 -g -DWITH_MAIN "$@" -c "$SRC/recorded.c" -o "$d/prog.o" || return
	run_ok "[$label] traced program: $mode mode" "$RMC" --mode="$mode" "$d/prog.o" || return
	# shellcheck disable=SC2086
	compile_ok "[$label] traced program: link" gcc $ldflags -o "$d/prog" "$d/prog.o" || return
	run_ok "[$label] --check passes on the program" "$RMC" --check "$d/prog"
	out=$(OBJPATCH_FILTER='*' OBJPATCH_OUTPUT=$d/trace.text LD_PRELOAD=$TOP/build/libobjpatch.so "$d/prog" 2>&1)
	is "$out" right "[$label] traced: every result right, nothing refused"
	trace_right "$label" "$d/trace.text"
}
# Converted to user tables: the sites at function entries are entry-hook sites.
traced mnop-user user -no-pie gcc -fno-pie -pg -mfentry -mrecord-mcount -mnop-mcount
readelf -SW "$T_TMP/traced-mnop-user/prog.o" | grep -q ' __fentry_rel '
ok $? "[mnop-user] the sites at function entries went to __fentry_rel"
# gcc's own tables, left as they are (kernel mode adds the prototypes only):
# the runtime tells the kind of each site by its place in its function.
traced mnop-kernel kernel -no-pie gcc -fno-pie -pg -mfentry -mrecord-mcount -mnop-mcount
traced mrecord-pie kernel "" gcc -pg -mrecord-mcount
traced mrecord-fentry-pie kernel "" gcc -pg -mfentry -mrecord-mcount
# Pads: gcc's five 0x90 (joined into one NOP at start-up), clang's one
# nopl, and a pad that starts before the function.
traced pfe-5 kernel "" gcc -fpatchable-function-entry=5
traced pfe-7-2 kernel "" gcc -fpatchable-function-entry=7,2
traced pfe-5-clang kernel "" clang -fpatchable-function-entry=5
traced pfe-5-user user "" gcc -fpatchable-function-entry=5
# lld leaves a PIE's absolute table words 0 in the file (the addresses are
# only in R_X86_64_RELATIVE addends, which the readers apply); ld.bfd
# writes them in place too.
zero_words() {	# zero_words FILE SECTION: the section's bytes are all 0 in the file
	local hex
	hex=$(readelf -x "$2" "$1" 2>/dev/null | sed -n 's/^  0x[0-9a-f]* \(\([0-9a-f]\{8\} \)\{1,4\}\).*/\1/p' | tr -d ' \n')
	[ -n "$hex" ] && [ -z "${hex//0/}" ]
}
traced pfe-5-lld kernel -fuse-ld=lld gcc -fpatchable-function-entry=5
zero_words "$T_TMP/traced-pfe-5-lld/prog" __patchable_function_entries
ok $? "[pfe-5-lld] the table's words are 0 in the file: read from the dynamic relocations"
# gcc's __mcount_loc is read-only: lld refuses its absolute words in a PIE
# (ld.bfd links it with text relocations).  User mode's tables link.
if gcc -O2 -DWITH_MAIN -pg -mrecord-mcount -c "$SRC/recorded.c" -o "$T_TMP/mrec-lld.o" && gcc -o "$T_TMP/mrec-bfd" "$T_TMP/mrec-lld.o" &&
	! gcc -fuse-ld=lld -o "$T_TMP/mrec-lld" "$T_TMP/mrec-lld.o" 2> /dev/null; then
	ok 0 "gcc -pg -mrecord-mcount: gcc's own table does not link into a PIE with lld"
else
	ok 1 "gcc -pg -mrecord-mcount: gcc's own table does not link into a PIE with lld"
fi
traced mrecord-pie-lld user -fuse-ld=lld gcc -pg -mrecord-mcount

# ---- AArch64 pads under qemu-user: `mov x9, x30; bl`, as the kernel's ftrace ----
traced_aarch64() {	# LABEL CC FLAGS...
	local label=$1 cc=$2 d=$T_TMP/a64-$1 out
	shift 2
	mkdir -p "$d"
	if ! command -v qemu-aarch64 >/dev/null || [ ! -e "$TOP/build/aarch64/libobjpatch.so" ]; then
		skip "[$label] needs qemu-aarch64 and build/aarch64/libobjpatch.so (scripts/deps.sh)"
		return
	fi
	# shellcheck disable=SC2086
	compile_ok "[$label] traced program" $cc -O2 -g -DWITH_MAIN "$@" -c "$SRC/recorded.c" -o "$d/prog.o" &&
		run_ok "[$label] traced program: kernel mode" "$RMC" "$d/prog.o" &&
		compile_ok "[$label] traced program: link" aarch64-linux-gnu-gcc -o "$d/prog" "$d/prog.o" || return
	run_ok "[$label] --check passes on the program" "$RMC" --check "$d/prog"
	out=$(timeout 300 "$TOP/build/objpatch" run --output "$d/trace.text" -- "$d/prog" 2>&1)
	is "$out" right "[$label] traced under qemu-aarch64: every result right, nothing refused"
	trace_right "$label" "$d/trace.text"
}
traced_aarch64 pfe-2 aarch64-linux-gnu-gcc -fpatchable-function-entry=2
traced_aarch64 pfe-2-clang "clang --target=aarch64-linux-gnu" -fpatchable-function-entry=2
traced_aarch64 pfe-2-pac aarch64-linux-gnu-gcc -fpatchable-function-entry=2 -mbranch-protection=standard
done_testing
