#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Malformed objects for every architecture: 1000 structured mutants per target
# (testdata/tools/mutate.py: ELF header, section header fields, self and
# cyclic links, symbols, relocations, string tables, SHN_XINDEX, groups,
# special names, call-site bytes, truncations, random bytes, combinations) of
# objects compiled here, with and without DWARF and COMDAT groups.  Each must
# be processed (then its table reads back with --list, a second run changes
# nothing, and readelf finds nothing wrong in it that it did not find in the
# input) or rejected with status 1, one line `recordmcount: FILE: reason`
# and the file untouched; no crash, no hang, no temporary file; --list and
# `objpatch list` never crash on any of them.  Modes rotate per batch
# (kernel, user, --nop).  A crashing batch is rerun one file at a time.
# Then: time on size-scaled malformed objects grows linearly and huge
# claimed sizes are refused at once; the first 100 mutants per target under
# ASan/UBSan; the regression inputs in testdata/malformed/.  SEED=... and
# COUNT=... explore further.  Takes about 2 minutes.
. "$(dirname "$0")/lib.sh"
. "$TOP/scripts/machines.sh"

MUT=$TOP/testdata/tools/mutate.py
SRC=$TOP/testdata
SEED=${SEED:-44}
COUNT=${COUNT:-1000}
command -v python3 >/dev/null || { echo "Bail out! python3 is needed"; exit 1; }
TOOL=$T_TMP/recordmcount
OBJPATCH=$T_TMP/objpatch
cp "$RMC" "$TOOL" && cp "$TOP/build/objpatch" "$OBJPATCH" || { echo "Bail out! build the tools first"; exit 1; }

# The objects the mutants start from, per target: plain; with DWARF and
# sections the tool must NOP; with DWARF macros in COMDAT groups and a
# section per function; C++ COMDAT functions where a g++ is installed.
bases() {	# bases NAME PREFIX CLANG-TARGET KFLAGS: prints the objects made
	local name=$1 cc=${2}gcc cxx=${2}g++ d=$T_TMP/base/$1
	# shellcheck disable=SC2086
	mkdir -p "$d" &&
		$cc -O2 -pg $4 -c "$SRC/src/funcs.c" -o "$d/funcs.o" &&
		$cc -O2 -pg -g $4 -c "$SRC/src/sections.c" -o "$d/sections-g.o" &&
		$cc -O1 -pg -g3 -ffunction-sections $4 -c "$SRC/src/weak.c" -o "$d/weak-g3.o" ||
		return 1
	echo "$d/funcs.o $d/sections-g.o $d/weak-g3.o"
	# shellcheck disable=SC2086
	if command -v "$cxx" >/dev/null && $cxx -O0 -pg $4 -c "$SRC/safety/comdat.cc" -o "$d/comdat.o" 2>/dev/null; then
		echo "$d/comdat.o"
	fi
}

declare -A TOTAL=()
one_arch() {	# the mutants of one target
	local name=$1 objs rc
	if ! objs=$(bases "$@" 2>"$T_TMP/cc.log"); then
		ok 1 "$name: compile the base objects"
		diag "$(tail -5 "$T_TMP/cc.log")"
		return
	fi
	# shellcheck disable=SC2086
	python3 "$MUT" run --tool "$TOOL" --objpatch "$OBJPATCH" --mode-cycle --count "$COUNT" --seed "$SEED" \
		--tag "$name" --work "$T_TMP/m/$name" --save "$T_TMP/failed" --readelf 60 $objs > "$T_TMP/out-$name" 2>&1
	rc=$?
	get() { awk -v k="$1" '$1 == k {print $2}' "$T_TMP/out-$name"; }
	local bad=0 k
	for k in crashes timeouts slow result_too_large bad_messages changed_on_error temp_left \
		 second_run_changed list_failed list_crashes objpatch_crashes readelf_new_errors; do
		bad=$((bad + $(get "$k")))
	done
	[ "$rc" = 0 ] && [ "$(get mutants)" = "$COUNT" ] && [ "$bad" = 0 ]
	ok $? "$name: $(get mutants) mutants of $(echo "$objs" | wc -w) objects: $(get processed) processed, $(get rejected) rejected cleanly, no crash or hang"
	if [ "$rc" != 0 ] || [ "$bad" != 0 ]; then
		grep -E '^(FAIL|Traceback|  File|[A-Za-z]+Error)' "$T_TMP/out-$name" | head -15 | while read -r l; do diag "$l"; done
	fi
	[ "${VERBOSE:-0}" = 0 ] || diag "$name: $(grep -vE '^FAIL' "$T_TMP/out-$name" | tr '\n' ' ')"
	for k in mutants processed modified rejected runs readelf_checked; do
		TOTAL[$k]=$((${TOTAL[$k]:-0} + $(get "$k")))
	done
	rm -rf "$T_TMP/m/$name"
}
start=$SECONDS
for_each_arch one_arch
diag "mutants: ${TOTAL[mutants]} (processed ${TOTAL[processed]}, of which ${TOTAL[modified]} rewritten; rejected ${TOTAL[rejected]}), tool runs ${TOTAL[runs]}, results checked by readelf ${TOTAL[readelf_checked]}, $((SECONDS - start)) s"
[ -d "$T_TMP/failed" ] && diag "failing inputs kept in $T_TMP/failed (KEEP=1)"

# ---- linear time ----
# 1000, 4000 and 16000 functions with a defect that grows with them: all
# relocations at one place, every symbol at address 0 or of the largest size,
# every relocation against one symbol, a section per function.  16 times the
# input may take at most 40 times as long (quadratic would be 256 times), in
# CPU time (user + system), which other work on the machine does not stretch.
python3 "$MUT" scaled --tool "$TOOL" --work "$T_TMP/scaled" > "$T_TMP/scaled.out" 2>&1
rc=$?
ok "$rc" "size-scaled objects generated and run"
[ "$rc" = 0 ] || diag "$(tail -5 "$T_TMP/scaled.out")"
for kind in plain same-offset same-value huge-size one-symbol many-sections; do
	t1=$(awk -v k="$kind" '$1 == k && $2 == 1000 {print $3}' "$T_TMP/scaled.out")
	t16=$(awk -v k="$kind" '$1 == k && $2 == 16000 {print $3}' "$T_TMP/scaled.out")
	st=$(awk -v k="$kind" '$1 == k && $2 == 16000 {print $4}' "$T_TMP/scaled.out")
	[ -n "$t1" ] && [ -n "$t16" ] && awk -v a="$t1" -v b="$t16" 'BEGIN { exit !(b <= 40 * a + 0.05) }' &&
		[ "$st" -le 1 ]
	ok $? "$kind: 16000 functions take ${t16:-?} CPU s, 1000 take ${t1:-?} s (status $st)"
done
# The sections whose forged alignment the writer never applies (it leaves
# them where they are) are processed, the output growing by what it adds.
while read -r name grown secs st msg; do
	case $name in
	claim-rela-align | claim-text-align)
		[ "$st" = 0 ] && [ "$grown" -le 1048576 ] && awk -v s="$secs" 'BEGIN { exit !(s < 0.5) }'
		ok $? "$name: processed in ${secs} CPU s, the file grown by $grown bytes (the section is not moved)" ;;
	*)
		[ "$st" = 1 ] && [ "$grown" = 0 ] && awk -v s="$secs" 'BEGIN { exit !(s < 0.5) }'
		ok $? "$name: refused in ${secs} CPU s: $msg" ;;
	esac
done < <(grep '^claim-' "$T_TMP/scaled.out")

# ---- the regression inputs ----
# Inputs that once crashed, hung or misled the tool (testdata/malformed/):
# processed or rejected cleanly, in both modes, within 2 s of CPU time (a
# limit that a busy machine's wall clock cannot trip; timeout only catches
# hangs), the result no more than 4 times the input plus 1 MiB, warnings
# only.  (A forged
# sh_addralign once made libelf pad a 1.6 KB object to 2 GB, or to 1 TB
# until the disk was full: the files the tool may write are limited to
# 128 MiB here.)
for f in "$SRC"/malformed/*.o; do
	[ -e "$f" ] || continue
	for mode in kernel user; do
		cp "$f" "$T_TMP/r.o"
		err=$(ulimit -f 131072 -t 2 && timeout 60 "$TOOL" --mode=$mode "$T_TMP/r.o" 2>&1 >/dev/null)
		rc=$?
		{ [ "$rc" = 0 ] && [ -z "$(grep -v ': warning: ' <<< "$err" | grep .)" ] && "$TOOL" --list "$T_TMP/r.o" >/dev/null &&
			[ "$(stat -c %s "$T_TMP/r.o")" -le $((4 * $(stat -c %s "$f") + 1048576)) ]; } ||
			{ [ "$rc" = 1 ] && [[ $err != *$'\n'* && $err == "recordmcount: $T_TMP/r.o: "?* ]] && cmp -s "$f" "$T_TMP/r.o"; }
		ok $? "regression ${f##*/} ($mode mode): handled cleanly (status $rc)"
		[ "$rc" -le 1 ] || diag "$err"
	done
done

# ---- under ASan/UBSan ----
# The first 100 mutants of every target (the same seed: the same files).
export ASAN_OPTIONS=exitcode=99:detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:exitcode=99:print_stacktrace=1
SAN=$T_TMP/san
if sanitized_pass; then
	skip "ASan/UBSan copy: this pass's build is sanitized, every mutant above ran under it"
elif asan_tools "$SAN" recordmcount objpatch; then
	san_arch() {
		local name=$1 d=$T_TMP/base/$1 objs
		objs=$(ls "$d"/*.o 2>/dev/null) || return
		# shellcheck disable=SC2086
		python3 "$MUT" run --tool "$SAN/recordmcount" --objpatch "$SAN/objpatch" --mode-cycle --count 100 --slow 5 \
			--seed "$SEED" --tag "$name" --work "$T_TMP/m/$name" --save "$T_TMP/failed-san" $objs \
			> "$T_TMP/san-$name" 2>&1
		echo "$name $? $(grep -c '^FAIL' "$T_TMP/san-$name")"
		grep -E '^FAIL' "$T_TMP/san-$name" | head -5 >&2
		rm -rf "$T_TMP/m/$name"
	}
	for_each_arch san_arch > "$T_TMP/san-summary" 2>"$T_TMP/san-fails"
	is "$(awk '$2 != 0 || $3 != 0' "$T_TMP/san-summary")" "" \
		"ASan/UBSan: 100 mutants of each of $(wc -l < "$T_TMP/san-summary") targets, no error"
	[ -s "$T_TMP/san-fails" ] && diag "$(head -20 "$T_TMP/san-fails")"
	n=0
	for f in "$SRC"/malformed/*.o; do
		[ -e "$f" ] || continue
		cp "$f" "$T_TMP/r.o"
		(ulimit -f 131072 && timeout 60 "$SAN/recordmcount" --mode=user "$T_TMP/r.o" >/dev/null 2>"$T_TMP/r.err")
		rc=$?
		[ "$rc" -le 1 ] || { n=$((n + 1)); diag "ASan ${f##*/}: status $rc" "$(head -20 "$T_TMP/r.err")"; }
	done
	ok "$n" "ASan/UBSan: the regression inputs"
else
	diag "$(tail -5 "$T_TMP/san.log")"
	skip "cannot build an ASan copy (make BUILD=... SANITIZE=1)"
fi

done_testing
