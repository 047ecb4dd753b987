#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The ways libobjpatch(3)'s SYNOPSIS gives to link the runtime, with the
# flags read from the page itself: the static library's flags link the
# archive (no libobjpatch.so needed at run time) without a word from the
# linker (its objects are compiled -flto -ffat-lto-objects, and GIMPLE left
# in the archive would make gcc's linker plugin run LTO and lto-wrapper warn
# in the user's link), with gcc and with clang + lld; the shared library's
# flags with an rpath.  Each program enables its own tracing with
# objpatch_enable() and its trace must show the call.  About 2 seconds.
. "$(dirname "$0")/lib.sh"

page=$TOP/man/libobjpatch.3
# The .B lines of the SYNOPSIS that start with a -l flag, "\-" unescaped.
mapfile -t routes < <(sed -n '/^\.SH SYNOPSIS/,/^\.SH DESCRIPTION/p' "$page" |
	sed -n 's/^\.B \(\\-l.*\)$/\1/p' | sed 's/\\-/-/g')
is "${#routes[@]}" 2 "libobjpatch.3 gives two sets of link flags (static, shared)"
static=${routes[0]:-} shared=${routes[1]:-}
case $static in *libobjpatch.a*) ok 0 "the first names the archive: $static" ;;
	*) ok 1 "the first names the archive: $static" ;; esac

cat > "$T_TMP/p.c" <<'C'
#include <stdio.h>
#include <objpatch.h>
__attribute__((noinline)) int twice(int x) { return 2 * x; }
int main(void)
{
	if (objpatch_enable("twice") < 0)
		return 3;
	printf("%d\n", twice(21));
	return 0;
}
C
compile_ok "compile p.c" gcc -g -pg -O2 -I"$TOP/objpatch/lib" -c "$T_TMP/p.c" -o "$T_TMP/p.o" &&
	run_ok "record p.o" "$RMC" --mode=user "$T_TMP/p.o"

traced() {	# traced LABEL PROGRAM: runs, prints 42, its trace has twice() returning 42
	local label=$1 prog=$2 out err
	out=$(OBJPATCH_OUTPUT=$T_TMP/$label.trace "$prog" 2>"$T_TMP/$label.err")
	is "$?:$out" "0:42" "$label: runs and prints 42"
	grep -q 'twice(); /\* ret=42 \*/' "$T_TMP/$label.trace" 2>/dev/null
	ok $? "$label: its trace shows twice() returning 42"
}

link() {	# link LABEL CC FLAGS...: the link succeeds and the linker says nothing
	local label=$1 cc=$2 err
	shift 2
	err=$("$cc" -o "$T_TMP/$label" "$T_TMP/p.o" -L"$TOP/build" "$@" 2>&1)
	is "$?:$err" "0:" "$label: links with no message"
}

# shellcheck disable=SC2086	# the page's flags are words
link static gcc $static && traced static "$T_TMP/static"
readelf -d "$T_TMP/static" | grep -q 'NEEDED.*libobjpatch'
ok $((! $?)) "static: libobjpatch.so is not needed at run time"
if command -v clang >/dev/null && command -v ld.lld >/dev/null; then
	# shellcheck disable=SC2086
	link static-clang clang -fuse-ld=lld $static && traced static-clang "$T_TMP/static-clang"
else
	skip "clang or lld is not installed"
fi
# shellcheck disable=SC2086
link shared gcc $shared -Wl,-rpath,"$TOP/build" && traced shared "$T_TMP/shared"
done_testing
