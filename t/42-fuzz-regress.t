#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The libFuzzer harnesses (fuzz/, `make fuzz`): built with clang under
# ASan/UBSan, then run once on every input of their seed corpora
# (fuzz/corpus/H) and on every regression input (testdata/fuzz-regress/H:
# inputs that once made the harness fail, since fixed).  A harness given
# files runs each once and fails on a sanitizer report, a leak, a
# descriptor or temporary file left behind, or a broken invariant of its
# own (fuzz/*.c: e.g. the tables written must read back as the sites
# recorded).  The regression inputs of rmc_pass also go through
# build/recordmcount, which must process or reject each cleanly.  Takes
# about 20 s, most of it the build.
. "$(dirname "$0")/lib.sh"

HARNESSES="rmc_pass dwarf_table table_reader annotate report"
B=$T_TMP/build/fuzz
command -v clang >/dev/null || { echo "Bail out! clang is needed (scripts/deps.sh)"; exit 1; }
if ! make -s -C "$TOP" BUILD="$T_TMP/build" fuzz-build >"$T_TMP/build.log" 2>&1; then
	ok 1 "the harnesses build (make fuzz-build)"
	diag "$(tail -20 "$T_TMP/build.log")"
	done_testing
	exit 1
fi
ok 0 "the harnesses build (make fuzz-build)"

mkdir -p "$T_TMP/scratch"
export FUZZ_SCRATCH=$T_TMP/scratch
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

# run_harness NAME FILE...: each file once; sets OUT.
run_harness() {
	local h=$1
	shift
	OUT=$(timeout 300 "$B/$h" -rss_limit_mb=2048 -timeout=10 "$@" 2>&1)
}

for h in $HARNESSES; do
	seeds=("$TOP/fuzz/corpus/$h"/*)
	if [ ! -e "${seeds[0]}" ]; then
		ok 1 "$h: has a seed corpus in fuzz/corpus/$h"
		continue
	fi
	run_harness "$h" "${seeds[@]}"
	rc=$?
	ok "$rc" "$h: ${#seeds[@]} seed inputs run clean"
	[ "$rc" = 0 ] || diag "$(printf '%s\n' "$OUT" | grep -vE '^(Running|Executed|INFO)' | head -40)"
	for f in "$TOP/testdata/fuzz-regress/$h"/*; do
		[ -e "$f" ] || continue
		run_harness "$h" "$f"
		rc=$?
		ok "$rc" "$h: regression ${f##*/} runs clean"
		[ "$rc" = 0 ] || diag "$(printf '%s\n' "$OUT" | grep -vE '^(Running|Executed|INFO)' | head -40)"
	done
done
is "$(find "$T_TMP/scratch" -mindepth 2 | wc -l)" 0 "no file left in the scratch directory"

# The regression inputs of the whole pass through the tool itself: a clean
# success, or status 1 with one line `recordmcount: FILE: reason`.
mkdir -p "$T_TMP/w"
for f in "$TOP/testdata/fuzz-regress/rmc_pass"/*; do
	[ -e "$f" ] || continue
	opt=$(od -An -tu1 -j15 -N1 "$f" | tr -d ' ')
	mode=kernel args=()
	[ $((opt & 1)) = 0 ] || mode=user
	[ $((opt & 2)) = 0 ] || args+=(--no-protos)
	[ $((opt & 4)) = 0 ] || args+=(--nop)
	cp "$f" "$T_TMP/w/x.o"
	# Under the output size limit the harness sets (64 MiB, in blocks of 512
	# bytes), over which the write fails with EFBIG (SIGXFSZ ignored).
	ERR=$(trap '' XFSZ; ulimit -f 131072; timeout 60 "$RMC" --mode="$mode" "${args[@]}" "$T_TMP/w/x.o" 2>&1 >/dev/null)
	RC=$?
	if [ "$RC" = 0 ]; then
		is "$ERR" "" "recordmcount: ${f##*/} processed without a message"
	else
		ok $([ "$RC" = 1 ] && [[ $ERR == "recordmcount: $T_TMP/w/x.o: "?* ]] && [[ $ERR != *$'\n'* ]]; echo $?) \
			"recordmcount: ${f##*/} rejected cleanly (status $RC)"
		[ "$RC" = 1 ] || diag "$ERR"
	fi
done

done_testing
