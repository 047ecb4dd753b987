#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The plain Makefile project: zlib, its hand-written configure and
# Makefile, out of tree (configure from another directory), make -j2, its
# own `make test` (example and minigzip, static and shared), make install
# DESTDIR=; libz.so --check clean; a driver against the installed libz
# traced: each value the driver printed is the traced return of that call.
# Then README's first trace, as README gives it (configure and make in the
# source tree, default flags): what its --check and run print is README's
# block between the zlib-output markers, process IDs, durations and
# addresses set aside.
# shellcheck source=t/projects/lib.sh
. "$(dirname "$0")/lib.sh"

project zlib
cd "$T_TMP" || exit 1
zlib_build() {
	step "configure (CC='objpatch-cc gcc', out of tree)" \
		env -C "$BLD" CC="$OBJPATCH_CC gcc" CFLAGS='-O2 -g' "$SRC/configure" --prefix=/usr &&
	step "make -j$JOBS" make -C "$BLD" -j"$JOBS" &&
	step "its own tests: make test" make -C "$BLD" test &&
	step "make install DESTDIR=" make -C "$BLD" install DESTDIR="$DEST"
}
if zlib_build; then
	checked_installed
	driver zdrv.c '#include <stdio.h>
#include <string.h>
#include <zlib.h>
int main(void)
{
	static const char text[] = "hello, hello, hello, hello!";
	unsigned char z[256], back[256];
	uLongf zlen = sizeof(z), blen = sizeof(back);
	int c = compress2(z, &zlen, (const Bytef *)text, sizeof(text), 9);
	int u = uncompress(back, &blen, z, zlen);
	printf("= zlibVersion \"%s\"\n", zlibVersion());
	printf("= compressBound %lu\n", compressBound(sizeof(text)));
	printf("= compress2 %d\n= uncompress %d\n", c, u);
	printf("= crc32 %lu\n", crc32(0, back, blen));
	return c != Z_OK || u != Z_OK || blen != sizeof(text) || memcmp(back, text, blen);
}' gcc -I"$DEST/usr/include" -L"$DEST/usr/lib" -lz &&
	{
		LD_LIBRARY_PATH=$DEST/usr/lib traced zdrv "$T_TMP/zdrv"
		is "$RUN_STATUS" 0 "the traced driver round-trips its text through the installed libz"
		printed_returns "$T_TMP/zdrv.trace" "$T_TMP/zdrv.out"
	}
fi
# README's "A first trace", its commands as README has them.
readme_example() {
	local dir=$T_TMP/readme
	cp -a "$SRC" "$dir" &&
		step "README: CC='objpatch-cc gcc' ./configure && make -j2 (in the source tree)" \
			env -C "$dir" sh -c "CC='$OBJPATCH_CC gcc' ./configure && make -j$JOBS" || return
	(
		cd "$dir" && export PATH=$TOP/build:$PATH &&
		recordmcount --check minigzip 2>&1
		echo 'hello, hello, hello' > in.txt
		objpatch run -F 'gz*' -- ./minigzip -c in.txt 2>&1 > in.txt.gz
	) > "$T_TMP/readme.out"
	python3 - "$TOP/README.md" "$T_TMP/readme.out" > "$T_TMP/readme.diff" <<'PY'
import re, sys
def normal(line):
    line = re.sub(r'\bpid \d+', 'pid N', line)
    line = re.sub(r'0x[0-9a-f]+', '0xADDR', line)
    return re.sub(r'^\s*\d+\)\s*(?:[+!#*@]?\s*[\d.]+ [mun]?s)?\s*\|', 'TID) DURATION |', line).rstrip()
m = re.search(r'<!-- zlib-output -->\n(.*?)<!-- /zlib-output -->', open(sys.argv[1]).read(), re.S)
want = [normal(l[4:]) for l in m.group(1).splitlines() if l.startswith('    ')] if m else ['(no zlib-output block)']
got = [normal(l) for l in open(sys.argv[2]).read().splitlines()]
for i in range(max(len(want), len(got))):
    w = want[i] if i < len(want) else '(nothing)'
    g = got[i] if i < len(got) else '(nothing)'
    if w != g:
        print('line %d: README has: %s' % (i + 1, w))
        print('line %d: printed:    %s' % (i + 1, g))
        break
PY
	[ ! -s "$T_TMP/readme.diff" ]
	ok $? "README's first trace: --check and run print README's lines"
	[ -s "$T_TMP/readme.diff" ] && diag "$(cat "$T_TMP/readme.diff")"
}
readme_example
no_gmon "$T_TMP"
done_testing
