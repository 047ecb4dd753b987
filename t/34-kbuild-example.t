#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A make-based project recorded the way Kbuild records the kernel
# (testdata/kbuild-example): `make -j2` compiles each object with -pg (x86_64
# also -mfentry) unless its CFLAGS_REMOVE says otherwise and runs
# $(RECORDMCOUNT) on it in the same recipe; the link keeps __mcount_loc
# between __start_mcount_loc and __stop_mcount_loc, and the program walks
# that table at run time, checking that every entry is a call to the hook.
# x86_64 natively, aarch64 under qemu-user.  The table must hold one entry per
# function compiled with -pg.  `recordmcount --check` must find nothing but
# the stale entry of the overridden weak function (as in the kernel, its code
# and entry stay), nothing at all after `--check --fix` zeroed it (the
# program still runs, skipping zero entries as ftrace does), and must reject
# (exit 1, naming exactly the functions) a build where one object's record
# step was skipped (make RECORD_SKIP=sock.o).  About 3 seconds.
. "$(dirname "$0")/lib.sh"

SRC=$TOP/testdata/kbuild-example
# The fixture's objects compiled without -pg (hook.c, and lib/notrace.c through
# CFLAGS_REMOVE_notrace.o); every other object is traced.
NOPG='hook.o lib/notrace.o'
SKIPPED=net/sock.o

# objects DIR: the objects of a build, relative to DIR.
objects() { (cd "$1" && find . -name '*.o' | sed 's|^\./||' | sort); }

# defined_funcs PREFIX OBJ...: the functions the objects define.
defined_funcs() {
	local prefix=$1
	shift
	"${prefix}readelf" -sW "$@" | awk '$4 == "FUNC" && $7 != "UND" { print $8 }' | sort
}

has_check() { "$RMC" --help 2>&1 | grep -c -- '--check' > /dev/null; }

count() { grep -c . || true; }

# overridden_weak PREFIX OBJ...: functions defined weak in one object and
# global in another.
overridden_weak() {
	local prefix=$1
	shift
	"${prefix}readelf" -sW "$@" | awk '$4 == "FUNC" && $7 != "UND" && ($5 == "WEAK" || $5 == "GLOBAL") { print $5, $8 }' |
		sort -u | awk '{ n[$2]++ } END { for (f in n) if (n[f] == 2) print f }' | sort
}

# findings TEXT: "KIND FUNCTION" of each finding in --check's text output
# ("FILE: KIND: FUNCTION+0xOFF (PLACE): WHY"), sorted.
findings() {
	awk -F': ' 'NF >= 4 && $2 ~ /^[a-z-]+$/ {
		f = $3; if (f ~ /^outside any function/) f = "(outside)"; else sub(/\+0x.*/, "", f)
		print $2, f }' <<< "$1" | sort
}

# run_prog LABEL RUNNER EXE: runs the program, its output in $PROG_OUT.
run_prog() {
	local label=$1 runner=$2 exe=$3
	# shellcheck disable=SC2086
	if PROG_OUT=$($runner "$exe" 2>&1); then
		ok 0 "$label: the program runs and finds every non-zero entry a call to the hook"
	else
		ok 1 "$label: the program runs and finds every non-zero entry a call to the hook"
		diag "$PROG_OUT"
	fi
}

field() { echo "$PROG_OUT" | awk -v k="$1" '$1 == k { print $2 }'; }

one_target() {
	local label=$1 prefix=$2 hook=$3 runner=$4 dir=$T_TMP/$1 log traced o n_funcs n_list out
	if ! log=$(make -j2 -C "$SRC" O="$dir" CROSS_COMPILE="$prefix" RECORDMCOUNT="$RMC" 2>&1); then
		ok 1 "$label: make -j2"
		diag "$log"
		return
	fi
	ok 0 "$label: make -j2"

	# Kbuild's rule: recordmcount ran on exactly the objects compiled with -pg.
	is "$(echo "$log" | awk '/ -pg / { print $NF }' | sed "s|^$dir/||" | sort | tr '\n' ' ')" \
		"$(echo "$log" | awk -v r="$RMC" '$1 == r { print $2 }' | sed "s|^$dir/||" | sort | tr '\n' ' ')" \
		"$label: recordmcount ran right after compiling each -pg object, and only those"
	traced=$(objects "$dir" | grep -vxF -f <(tr ' ' '\n' <<< "$NOPG"))
	is "$(for o in $NOPG; do "${prefix}nm" -u "$dir/$o" | awk '{ print $2 }'; done | grep -cx "$hook")" 0 \
		"$label: the CFLAGS_REMOVE objects do not call $hook"
	is "$(for o in $traced; do "${prefix}nm" -u "$dir/$o" | awk '{ print $2 }' | grep -qx "$hook" || echo "$o"; done)" "" \
		"$label: every other object calls $hook"
	# shellcheck disable=SC2086 # one object per word
	n_funcs=$(cd "$dir" && defined_funcs "$prefix" $traced | grep -c .)
	diag "$label: $n_funcs functions compiled with -pg in $(echo "$traced" | grep -c .) objects"

	run_prog "$label" "$runner" "$dir/prog"
	n_list=$("$RMC" --list "$dir/prog" | grep -c .)
	is "$(field entries)" "$n_list" "$label: the program counts as many entries as --list reads ($n_list)"
	is "$(field entries)" "$n_funcs" "$label: one entry per function compiled with -pg ($n_funcs)"
	is "$(field calls)" "$n_funcs" "$label: each entry is a call to $hook at run time"

	if ! has_check; then
		ok 1 "$label: recordmcount --check"
		diag "build/recordmcount has no --check option (yet)"
		return
	fi
	# The weak arch_setup of core/sched.c is overridden by net/proto.c's: its
	# code and its entry stay, a stale entry as in the kernel, which --check
	# reports and --fix zeroes (the program skips zero entries, as ftrace does).
	local stale
	# shellcheck disable=SC2086 # one object per word
	stale=$(cd "$dir" && overridden_weak "$prefix" $traced | sed 's/^/stale /')
	diag "$label: overridden weak functions: $(tr '\n' ' ' <<< "$stale")"
	out=$("$RMC" --check "$dir/prog" 2>&1)
	is "$?" "$([ -z "$stale" ]; echo $?)" "$label: --check exits 1 exactly when there are overridden weak functions"
	is "$(findings "$out")" "$stale" "$label: --check finds the overridden weak functions' entries stale, nothing else"
	cp "$dir/prog" "$dir/prog.fixed"
	run_ok "$label: --check --fix" "$RMC" --check --fix "$dir/prog.fixed"
	out=$("$RMC" --check "$dir/prog.fixed" 2>&1)
	is "$?" 0 "$label: --check accepts the fixed program"
	is "$(findings "$out")" "" "$label: no findings left after --fix"
	run_prog "$label (fixed)" "$runner" "$dir/prog.fixed"
	is "$(field zero)/$(field calls)" "$(echo "$stale" | count)/$((n_funcs - $(echo "$stale" | count)))" \
		"$label (fixed): the stale entries are zero, every other one a call to $hook"

	# A broken build: one object's record step skipped.
	if ! log=$(make -j2 -C "$SRC" O="$dir-broken" CROSS_COMPILE="$prefix" RECORDMCOUNT="$RMC" \
			RECORD_SKIP="${SKIPPED##*/}" 2>&1); then
		ok 1 "$label: make -j2 RECORD_SKIP=${SKIPPED##*/}"
		diag "$log"
		return
	fi
	ok 0 "$label: make -j2 RECORD_SKIP=${SKIPPED##*/}"
	local skipped_funcs
	skipped_funcs=$(defined_funcs "$prefix" "$dir-broken/$SKIPPED")
	run_prog "$label (broken)" "$runner" "$dir-broken/prog"
	is "$(field entries)" "$((n_funcs - $(echo "$skipped_funcs" | count)))" \
		"$label (broken): the table lacks exactly the skipped object's functions"
	out=$("$RMC" --check "$dir-broken/prog" 2>&1)
	is "$?" 1 "$label (broken): recordmcount --check exits 1"
	is "$(findings "$out")" "$( (echo "$stale"; echo "$skipped_funcs" | sed 's/^/missing /') | grep . | sort)" \
		"$label (broken): --check finds the functions of ${SKIPPED##*/} missing ($(tr '\n' ' ' <<< "$skipped_funcs")), nothing else new"
}

if [ "$(uname -m)" = x86_64 ]; then
	one_target x86_64 "" __fentry__ ""
else
	skip "x86_64: the host is $(uname -m)"
fi
if command -v aarch64-linux-gnu-gcc > /dev/null && command -v qemu-aarch64 > /dev/null; then
	one_target aarch64 aarch64-linux-gnu- _mcount "qemu-aarch64 -L /usr/aarch64-linux-gnu"
else
	skip "aarch64: aarch64-linux-gnu-gcc or qemu-aarch64 not installed"
fi
done_testing
