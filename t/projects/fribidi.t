#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The Meson project: GNU FriBidi, meson setup with CC='objpatch-cc gcc' (its
# docs off: they need c2man), out of tree, meson compile -j2, its own
# `meson test`, meson install with DESTDIR; libfribidi.so and the fribidi
# command --check clean; the installed fribidi traced on a line of text.
# shellcheck source=t/projects/lib.sh
. "$(dirname "$0")/lib.sh"

project fribidi
cd "$T_TMP" || exit 1
fribidi_build() {
	step "meson setup (CC='objpatch-cc gcc', out of tree)" \
		env CC="$OBJPATCH_CC gcc" meson setup "$BLD" "$SRC" -Ddocs=false --buildtype=debugoptimized \
		--prefix=/usr --libdir=lib &&
	step "meson compile -j$JOBS" meson compile -C "$BLD" -j "$JOBS" &&
	step "its own tests: meson test" meson test -C "$BLD" --num-processes "$JOBS" --print-errorlogs &&
	step "meson install (DESTDIR=)" env DESTDIR="$DEST" meson install -C "$BLD"
}
if fribidi_build; then
	checked_installed
	line='car is THE CAR in arabic'
	printf '%s\n' "$line" > "$T_TMP/line"
	LD_LIBRARY_PATH=$DEST/usr/lib traced fribidi "$DEST/usr/bin/fribidi" --charset CapRTL --nopad "$T_TMP/line"
	plain=$(LD_LIBRARY_PATH=$DEST/usr/lib "$DEST/usr/bin/fribidi" --charset CapRTL --nopad "$T_TMP/line")
	is "$RUN_STATUS $(cat "$T_TMP/fribidi.out")" "0 $plain" "traced, fribidi prints what it prints untraced ($plain), exit 0"
	returned "$T_TMP/fribidi.trace" main "$RUN_STATUS" "traced main ret=$RUN_STATUS, its exit status"
	# Each conversion returns its length: characters in, bytes out.
	returned "$T_TMP/fribidi.trace" fribidi_charset_to_unicode "${#line}" \
		"traced fribidi_charset_to_unicode ret=${#line}, the characters of the input line"
	returned "$T_TMP/fribidi.trace" fribidi_unicode_to_charset "${#plain}" \
		"traced fribidi_unicode_to_charset ret=${#plain}, the bytes of the line it printed"
	# CapRTL reads capitals as right-to-left letters: an enum by its name.
	returned "$T_TMP/fribidi.trace" fribidi_get_bidi_type FRIBIDI_TYPE_RTL \
		"traced fribidi_get_bidi_type ret=FRIBIDI_TYPE_RTL for the capitals"
fi
no_gmon "$T_TMP"
done_testing
