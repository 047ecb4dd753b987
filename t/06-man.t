#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Every man page renders cleanly: groff with every warning on (-ww) says
# nothing, nor does man --warnings on an 80-column terminal (a table wider
# than the line), the source holds no control character (a "\f" that a script
# turned into a form feed renders as a stray "R" or "B" after the word), and
# the rendered text holds no font escape that leaked through (a letter
# glued to a path by a missing "\f").  Under a second.
. "$(dirname "$0")/lib.sh"

for page in "$TOP"/man/*.[0-9]; do
	name=${page##*/}
	warnings=$(groff -ww -z -man "$page" 2>&1)
	is "$warnings" "" "$name: groff -ww renders it without a warning"
	warnings=$(MANWIDTH=80 man --warnings -l "$page" 2>&1 > /dev/null)
	is "$warnings" "" "$name: man --warnings at 80 columns says nothing"
	ctl=$(LC_ALL=C grep -n $'[\x01-\x08\x0b-\x1f\x7f]' "$page" | head -3)
	is "$ctl" "" "$name: no control character in the source"
	text=$(MANWIDTH=100 MAN_KEEP_FORMATTING=0 man -l "$page" 2>&1 | sed $'s/.\b//g')
	# A leaked font switch leaves "fR", "fB" or "fI" glued to a word, or a
	# lone capital font letter right after a path component.
	leaked=$(printf '%s\n' "$text" | grep -nE '\\f[BIRP]|[a-z/](fR|fB|fI)\b|/[a-z]+[RBI][),.]' | head -3)
	is "$leaked" "" "$name: no font escape leaked into the text"
done
done_testing
