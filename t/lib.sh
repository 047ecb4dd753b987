# SPDX-License-Identifier: GPL-2.0-only
# TAP helpers for the shell tests.  Source it; call done_testing at the end.
set -u
# Sourced once, though several helper files source it.
[ -n "${T_LIB_SOURCED:-}" ] && return 0
T_LIB_SOURCED=1
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RMC=$TOP/build/recordmcount
T_N=0
T_FAILED=0

# A scratch directory per test script, removed on exit unless KEEP=1.
T_TMP=$(mktemp -d "${TMPDIR:-/tmp}/rmc-test.XXXXXX")
trap '[ "${KEEP:-0}" = 1 ] || rm -rf "$T_TMP"' EXIT

# Debian's python3 (scripts/deps.sh installs it) before any other: a pyenv
# shim first on PATH runs a dozen shell scripts per call, 0.4 s of this
# machine kind's CPU against 0.03 s, and the tests call python3 thousands
# of times.
if [ -x /usr/bin/python3 ]; then
	mkdir -p "$T_TMP/bin"
	ln -s /usr/bin/python3 "$T_TMP/bin/python3"
	PATH=$T_TMP/bin:$PATH
fi

ok() {	# ok STATUS DESCRIPTION
	T_N=$((T_N + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $T_N - $2"
	else
		echo "not ok $T_N - $2"
		T_FAILED=$((T_FAILED + 1))
	fi
}

diag() { printf '%s\n' "$@" | sed 's/^/# /' >&2; }

run_ok() {	# run_ok DESCRIPTION CMD...: passes when CMD exits 0; returns its verdict
	local desc=$1 out
	shift
	if out=$("$@" 2>&1); then ok 0 "$desc"; else ok 1 "$desc"; diag "$out"; return 1; fi
}

is() {	# is GOT EXPECTED DESCRIPTION
	if [ "$1" = "$2" ]; then
		ok 0 "$3"
	else
		ok 1 "$3"
		diag "got:      $1" "expected: $2"
	fi
}

compile_ok() {	# compile_ok LABEL CMD...: a failed build is a failed test, with the compiler's words
	local label=$1 out
	shift
	if out=$("$@" 2>&1); then return 0; fi
	ok 1 "$label: compile"
	diag "$out"
	return 1
}

skip() { T_N=$((T_N + 1)); echo "ok $T_N # SKIP $1"; }

# `make check SANITIZE=1`: build/ itself is the ASan/UBSan build.
sanitized_pass() { [ "${RMC_TEST_SANITIZED:-0}" = 1 ]; }

# asan_tools DIR TOOL...: an ASan/UBSan build of the tools in DIR, for a
# test's sanitized section; in the sanitized pass, build/ is one already,
# so DIR becomes a link to it.  Only the tools asked for are built (not the
# cross runtimes of `all`).  The make log is DIR.log.
asan_tools() {
	local dir=$1 t targets=()
	shift
	if sanitized_pass; then
		ln -sfn "$TOP/build" "$dir"
		return 0
	fi
	for t in "$@"; do targets+=("$dir/$t"); done
	make -s -C "$TOP" BUILD="$dir" SANITIZE=1 "${targets[@]}" >"$dir.log" 2>&1
}

done_testing() { echo "1..$T_N"; [ "$T_FAILED" -eq 0 ]; }
