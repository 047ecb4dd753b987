#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# objpatch/lib/patch.c, the runtime's text writer, under load: builds
# testdata/runtime/patch_stress.c with it and x86's int3 protocol
# (arch/x86/rt_x86.c) and runs it (8 threads running a
# 5-byte and a 6-byte site while they are toggled 10,000 times; batches of
# 4096 sites; refusals; fork; foreign SIGTRAPs chained; a stray write to
# text still crashing; /proc/self/maps watched for W+X text).  Each "ok" /
# "not ok" line of the program becomes a test here; its timing lines become
# diagnostics.  Runs:
#  - -O2 build with the normal writer (/proc/self/mem), with the forced
#    mprotect fallback writer (fewer toggles: every toggle faults threads)
#    and with the forced mprotect-IPI core sync instead of membarrier;
#  - a clang -O2 build;
#  - ASan+UBSan and ThreadSanitizer builds (skipped, with the reason, when
#    the toolchain or the kernel cannot run them).
# About 40 s on 2 cores (up to a minute when the machine is busy).
. "$(dirname "$0")/lib.sh"

CC=${CC:-cc}
SRC=$TOP/testdata/runtime/patch_stress.c
FLAGS=(-std=gnu11 -D_GNU_SOURCE -pthread -Wall -Wextra -Werror -I"$TOP/objpatch/lib" -I"$TOP"
	-DRT_PORT_PATCH_H='"arch/x86/patch_x86_64.h"')

if [ "$(uname -m)" != x86_64 ] || [ "$(uname -s)" != Linux ]; then
	skip "live text patching is implemented and tested on x86_64 Linux only (this is $(uname -sm))"
	done_testing
	exit
fi

build() {	# build NAME FLAGS...: 0 when the stress program was built
	local name=$1 out
	shift
	if out=$("${BUILD_CC:-$CC}" "${FLAGS[@]}" "$@" "$SRC" "$TOP/objpatch/lib/patch.c" \
		"$TOP/arch/x86/rt_x86.c" -o "$T_TMP/$name" 2>&1); then
		ok 0 "[$name] builds with ${BUILD_CC:-$CC} -Wall -Wextra -Werror $*"
		return 0
	fi
	ok 1 "[$name] builds with ${BUILD_CC:-$CC} -Wall -Wextra -Werror $*"
	diag "$out"
	return 1
}

# Can this toolchain and kernel run a program built with FLAGS?  Prints why not.
sanitizer_works() {
	local out
	printf 'int main(void) { return 0; }\n' > "$T_TMP/probe.c"
	out=$("$CC" "$@" "$T_TMP/probe.c" -o "$T_TMP/probe" 2>&1) ||
		{ echo "cannot build: ${out%%$'\n'*}"; return 1; }
	out=$("$T_TMP/probe" 2>&1) || { echo "cannot run: ${out%%$'\n'*}"; return 1; }
}

run() {	# run LABEL BINARY [ENV=VALUE...]: the program's checks as tests
	local label=$1 bin=$2 status line n=0
	shift 2
	env "$@" "$T_TMP/$bin" > "$T_TMP/$label.out" 2> "$T_TMP/$label.err"
	status=$?
	while IFS= read -r line; do
		case $line in
		'ok '*) ok 0 "[$label] ${line#ok }"; n=$((n + 1)) ;;
		'not ok '*) ok 1 "[$label] ${line#not ok }"; n=$((n + 1)) ;;
		'# '*) diag "[$label] ${line#\# }" ;;
		esac
	done < "$T_TMP/$label.out"
	if [ "$status" -gt 128 ]; then
		ok 1 "[$label] exits normally (killed by signal $((status - 128)): $(kill -l $((status - 128))))"
	else
		ok "$status" "[$label] exits 0 after $n checks"
	fi
	# Sanitizer reports go to stderr; any stderr output is a failure.
	if [ -s "$T_TMP/$label.err" ]; then
		ok 1 "[$label] nothing on stderr"
		diag "$(head -40 "$T_TMP/$label.err")"
	else
		ok 0 "[$label] nothing on stderr"
	fi
}

FALLBACK=(OBJPATCH_PATCH_WRITE=mprotect STRESS_TOGGLES=2000 STRESS_SECONDS=5 STRESS_BATCH_REPS=5)

if build plain -O2; then
	run plain plain
	run plain-mprotect plain "${FALLBACK[@]}"
	run plain-ipi-sync plain OBJPATCH_PATCH_SYNC=ipi STRESS_TOGGLES=4000 STRESS_SECONDS=5 \
		STRESS_BATCH_REPS=5
fi

# clang passes variadic int arguments with garbage in the upper register
# halves (syscall() reads longs): a build with it once caught exactly that.
if command -v clang >/dev/null; then
	if BUILD_CC=clang build clang -O2; then
		run clang clang STRESS_TOGGLES=4000 STRESS_BATCH_REPS=5
	fi
else
	skip "clang build: clang is not installed"
fi

SAN=(-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
if why=$(sanitizer_works "${SAN[@]}"); then
	if build asan -O1 -g "${SAN[@]}"; then
		run asan asan
		run asan-mprotect asan "${FALLBACK[@]}"
	fi
else
	skip "ASan+UBSan: $why"
fi

if why=$(sanitizer_works -fsanitize=thread); then
	if build tsan -O1 -g -fsanitize=thread; then
		run tsan tsan STRESS_SECONDS=8
		run tsan-mprotect tsan "${FALLBACK[@]}"
	fi
else
	skip "ThreadSanitizer: $why"
fi

done_testing
