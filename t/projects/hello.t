#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The autotools project: GNU hello (with its gnulib), configure out of tree
# with CC='objpatch-cc gcc' (its feature tests compile, link and run
# through the wrapper), make -j2, its own `make check`, make install
# DESTDIR=; /usr/bin/hello --check clean; hello traced.
. "$(dirname "$0")/lib.sh"

project hello
cd "$T_TMP" || exit 1
hello_build() {
	step "configure (CC='objpatch-cc gcc', out of tree)" \
		env -C "$BLD" CC="$OBJPATCH_CC gcc" CFLAGS='-O2 -g' "$SRC/configure" --prefix=/usr &&
	step "make -j$JOBS" make -C "$BLD" -j"$JOBS" &&
	step "its own tests: make check" make -C "$BLD" -j"$JOBS" check &&
	step "make install DESTDIR=" make -C "$BLD" install DESTDIR="$DEST"
}
if hello_build; then
	checked_installed
	traced greet status "$DEST/usr/bin/hello" -g 'traced, hello'
	is "$status $(cat "$T_TMP/greet.out")" "0 traced, hello" "traced hello prints its greeting, exit 0"
	returned "$T_TMP/greet.trace" close_stream 0 "traced close_stream ret=0: standard output was closed without error"
	# hello's own test of a failed write (gnulib's closeout): its exit
	# status follows close_stream's return, traced as the int it is.
	STDOUT=/dev/full traced full status "$DEST/usr/bin/hello"
	is "$status" 1 "traced hello > /dev/full fails, exit 1"
	returned "$T_TMP/full.trace" close_stream -1 "traced close_stream ret=-1 (EOF): the write to /dev/full failed"
fi
no_gmon "$T_TMP"
done_testing
