#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Every man page renders cleanly: groff with every warning on (-ww) says
# nothing, nor does man --warnings on an 80-column terminal (a table wider
# than the line), the source holds no control character (a "\f" that a script
# turned into a form feed renders as a stray "R" or "B" after the word), and
# the rendered text holds no font escape that leaked through (a letter
# glued to a path by a missing "\f").
# objpatch has one page per command, as git and uftrace do: every command
# `objpatch --help` names has man/objpatch-COMMAND.1, named in objpatch.1's
# SEE ALSO, with EXAMPLES, ENVIRONMENT and FILES sections; every option
# (long, and its short letter) that `objpatch COMMAND --help` prints is in
# that page's OPTIONS section.  Under a few seconds.
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

# section PAGE NAME: the source lines of section NAME (after its .SH, up to
# the next .SH), "\-" as "-".
section() {
	awk -v s="$2" '/^\.SH / { inside = $0 == ".SH " s || $0 == ".SH \"" s "\""; next } inside' "$1" |
		sed 's/\\-/-/g'
}

OBJPATCH=$TOP/build/objpatch
if [ ! -x "$OBJPATCH" ]; then
	skip "the pages against objpatch's options: build/objpatch is not built (make all)"
	done_testing
	exit
fi
commands=$("$OBJPATCH" --help | sed -n 's/^ *\(usage:\)\{0,1\} *objpatch \([a-z][a-z]*\) .*/\2/p' | sort -u)
ok "$([ "$(printf '%s\n' "$commands" | wc -l)" -ge 6 ]; echo $?)" \
	"objpatch --help names the commands ($(echo $commands))"
overview=$TOP/man/objpatch.1
for opt in --help --version; do
	section "$overview" OPTIONS | grep -qE -- "(^|[^a-z-])$opt([^a-z-]|\$)"
	ok $? "objpatch.1: OPTIONS documents $opt"
done
for cmd in $commands; do
	page=$TOP/man/objpatch-$cmd.1
	name=objpatch-$cmd.1
	if [ ! -f "$page" ]; then
		ok 1 "$name: exists (objpatch $cmd has a page of its own)"
		continue
	fi
	section "$overview" "SEE ALSO" | grep -qF "objpatch-$cmd (1)"
	ok $? "objpatch.1: SEE ALSO names objpatch-$cmd(1)"
	grep -q "^\.TH OBJPATCH-${cmd^^} 1 " "$page"
	ok $? "$name: .TH OBJPATCH-${cmd^^} 1"
	for sec in SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" ENVIRONMENT FILES EXAMPLES "SEE ALSO"; do
		[ -n "$(section "$page" "$sec" | tr -d '[:space:]')" ]
		ok $? "$name: section $sec, not empty"
	done
	options=$(section "$page" OPTIONS)
	help=$("$OBJPATCH" "$cmd" --help)
	missing=
	for opt in $(printf '%s\n' "$help" | grep -oE -- '--[a-z][a-z-]*' | sort -u); do
		[[ $options =~ (^|[^a-z-])$opt([^a-z-]|$) ]] || missing="$missing $opt"
	done
	# "  -F, --filter=GLOB": the letter with its long name, on one line of the page
	while read -r letter long; do
		found=
		while IFS= read -r line; do
			[[ $line =~ (^|[^a-z-])$letter([^a-zA-Z-]|$) && $line =~ $long([^a-z-]|$) ]] && found=1 && break
		done <<< "$options"
		[ -n "$found" ] || missing="$missing $letter,$long"
	done < <(printf '%s\n' "$help" | sed -n 's/^ *\(-[a-zA-Z]\), \(--[a-z][a-z-]*\).*/\1 \2/p')
	is "${missing# }" "" "$name: OPTIONS documents every option objpatch $cmd --help prints"
done
done_testing
