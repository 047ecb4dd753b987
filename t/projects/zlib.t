#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The plain Makefile project: zlib, its hand-written configure and
# Makefile, out of tree (configure from another directory), make -j2, its
# own `make test` (example and minigzip, static and shared), make install
# DESTDIR=; libz.so --check clean; a driver against the installed libz
# traced: each value the driver printed is the traced return of that call.
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
no_gmon "$T_TMP"
done_testing
