#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Applies the series in kernel/series/ (in the order of kernel/series/order)
# to an extracted Debian linux-source-6.12 or linux-source-7.3 tree.  See
# kernel/README.
#
# A patch file is a commit message, a line "---", then operations, each a
# line "@@ OP PATH [REGEX]" followed by its text (every line up to the next
# "@@ " line or the end):
#   @@ new PATH           creates PATH (which must not exist) with the text
#   @@ after PATH REGEX   inserts the text after the one line of PATH that
#                         matches REGEX (a POSIX extended regular expression)
#   @@ before PATH REGEX  inserts the text before that line
#   @@ replace PATH REGEX the text replaces that line
#   @@ between PATH REGEX ~~ REGEX2
#                         the text replaces the lines between that line and
#                         the next one that matches REGEX2
# An operation for one kernel version only says so after the "@@", as in
# "@@7.3 after PATH REGEX": where the versions differ, each has its own
# pattern and text.  A line of series/order may likewise start with the
# one version its patch is for ("6.12 0006-....kpatch").
# Lines before the message that start with "#" are the file's own comments.
# The series changes existing kernel files only by inserting, and replacing
# lines with, lines of its own where a pattern says: no line of the kernel
# is in this repository.  A pattern that matches no line or several stops everything with the file,
# the pattern and the count.
#
# Usage: kernel/apply.sh [--diffs DIR] [--only N | --patch NAME] SRC
#   SRC           the extracted source (a tree with a Makefile of 6.12.x
#                 or 7.3.x)
#   --diffs DIR   also writes each patch as a mail with a unified diff,
#                 DIR/NNNN-name.patch, made by comparing the files before and
#                 after it (for scripts/checkpatch.pl and for posting)
#   --only N      applies the first N patches only
#   --patch NAME  applies that patch of the version's only (a fix of the
#                 kernel's own, for a reference build without the series)
# A tree is patched once: SRC/.kernel-series-applied records it, and a second
# run fails.  Exit status 1 on any failure (the tree may then be half
# patched: extract it again).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
diffs=
only=
one=
src=
while [ $# -gt 0 ]; do
	case $1 in
	--diffs) diffs=$2; shift 2 ;;
	--only) only=$2; shift 2 ;;
	--patch) one=$2; shift 2 ;;
	-*) echo "usage: $0 [--diffs DIR] [--only N | --patch NAME] SRC" >&2; exit 2 ;;
	*) src=$1; shift ;;
	esac
done
[ -n "$src" ] || { echo "usage: $0 [--diffs DIR] [--only N | --patch NAME] SRC" >&2; exit 2; }

die() { echo "kernel/apply.sh: $*" >&2; exit 1; }

[ -f "$src/Makefile" ] || die "$src: no Makefile: not a Linux source tree"
version=$(awk -F' = ' '$1 == "VERSION" { v = $2 } $1 == "PATCHLEVEL" { p = $2 } END { print v "." p }' "$src/Makefile")
case $version in
6.12 | 7.3) ;;
*) die "$src: Linux $version: the series is for 6.12 and 7.3" ;;
esac
[ ! -e "$src/.kernel-series-applied" ] ||
	die "$src: the series is already applied ($(tr '\n' ' ' < "$src/.kernel-series-applied")); extract the source again"

# The patches for this version: a line without one is for both.
mapfile -t patches < <(grep -v '^#' "$here/series/order" | awk -v v="$version" 'NF == 1 || $1 == v { print $NF }')
[ -z "$only" ] || patches=("${patches[@]:0:$only}")
if [ -n "$one" ]; then
	printf '%s\n' "${patches[@]}" | grep -qx -- "$one" || die "$one: no such patch for $version (kernel/series/order)"
	patches=("$one")
fi

# The edited text replaces FILE's in place: its mode stays (scripts stay
# executable).
keep_mode() {
	cat "$1.kernel-series" > "$1" && rm -f "$1.kernel-series"
}

# insert FILE WHERE REGEX TEXTFILE: TEXTFILE's lines after (or before) the
# one line of FILE that matches REGEX.
insert() {
	local file=$src/$1 where=$2 n
	[ -f "$file" ] || die "$patch: $1: no such file"
	n=$(PAT=$3 awk 'match($0, ENVIRON["PAT"]) { n++ } END { print n + 0 }' "$file")
	[ "$n" = 1 ] || die "$patch: $1: the pattern /$3/ matches $n lines, not 1 (not the source this series is for?)"
	PAT=$3 WHERE=$where TEXT=$4 awk '
		BEGIN { while ((getline l < ENVIRON["TEXT"]) > 0) text = text l "\n" }
		match($0, ENVIRON["PAT"]) && ENVIRON["WHERE"] == "before" { printf "%s", text }
		{ print }
		match($0, ENVIRON["PAT"]) && ENVIRON["WHERE"] == "after" { printf "%s", text }' \
		"$file" > "$file.kernel-series" || die "$patch: $1: awk failed"
	keep_mode "$file"
}

# edit FILE OP REGEX REGEX2 TEXTFILE: replace (REGEX2 empty) or between.
edit() {
	local file=$src/$1 n
	[ -f "$file" ] || die "$patch: $1: no such file"
	n=$(PAT=$3 awk 'match($0, ENVIRON["PAT"]) { n++ } END { print n + 0 }' "$file")
	[ "$n" = 1 ] || die "$patch: $1: the pattern /$3/ matches $n lines, not 1 (not the source this series is for?)"
	PAT=$3 END2=$4 TEXT=$5 awk '
		BEGIN { while ((getline l < ENVIRON["TEXT"]) > 0) text = text l "\n" }
		state == 1 && match($0, ENVIRON["END2"]) { printf "%s", text; state = 2 }
		state == 1 { next }
		match($0, ENVIRON["PAT"]) {
			if (ENVIRON["END2"] == "") { printf "%s", text; state = 2; next }
			state = 1
		}
		{ print }
		END { exit state != 2 }' "$file" > "$file.kernel-series" ||
		die "$patch: $1: no line matches /$4/ after /$3/"
	keep_mode "$file"
}

# run_op OP PATH REGEX TEXTFILE
run_op() {
	case $1 in
	new)
		[ ! -e "$src/$2" ] || die "$patch: $2 exists already"
		mkdir -p "$(dirname "$src/$2")"
		cp "$4" "$src/$2"
		chmod 644 "$src/$2"
		;;
	after | before) insert "$2" "$1" "$3" "$4" ;;
	replace) edit "$2" replace "$3" "" "$4" ;;
	between)
		[[ $3 == *" ~~ "* ]] || die "$patch: between $2: no ' ~~ ' between the two patterns"
		edit "$2" between "${3%% ~~ *}" "${3#* ~~ }" "$4"
		;;
	*) die "$patch: unknown operation '$1'" ;;
	esac
}

# The operations of a patch file for this version, each handed to run_op.
apply_ops() {
	local f=$1 line op="" path="" re="" text tag
	text=$(mktemp)
	while IFS= read -r line || [ -n "$line" ]; do
		if [[ $line =~ ^@@[0-9.]*\  ]]; then
			[ -z "$op" ] || run_op "$op" "$path" "$re" "$text"
			read -r tag op path re <<< "$line"
			case $tag in
			@@ | "@@$version") ;;
			@@6.12 | @@7.3) op= ;;
			*) die "$patch: '$tag': an operation is for both versions (@@) or one (@@6.12, @@7.3)" ;;
			esac
			: > "$text"
		elif [ -n "$op" ]; then
			printf '%s\n' "$line" >> "$text"
		fi
	done < <(sed '1,/^---$/d' "$f")
	[ -z "$op" ] || run_op "$op" "$path" "$re" "$text"
	rm -f "$text"
}

# The files a patch touches in this version, each once.
touched() {
	sed '1,/^---$/d' "$1" |
		awk -v v="$version" '($1 == "@@" || $1 == "@@" v) && !seen[$3]++ { print $3 }'
}

# --diffs: the patch as a mail, its diff made from the copies in $before.
write_mail() {
	local f=$1 num=$2 total=$3 out path subject
	out=$diffs/$(printf '%04d' "$num")-$(basename "$f" .kpatch | sed 's/^[0-9]*-//').patch
	subject=$(grep -v '^#' "$f" | sed -n 's/^Subject: //p' | head -1)
	{
		grep -v '^#' "$f" | sed -n '/^From: /p' | head -1
		echo "Subject: [PATCH $num/$total] $subject"
		echo
		grep -v '^#' "$f" | sed '/^---$/,$d' | sed '1,/^$/d'
		echo "---"
		while read -r path; do
			if [ -e "$before/$path" ]; then
				diff -u --label "a/$path" --label "b/$path" "$before/$path" "$src/$path" || true
			else
				diff -u --label /dev/null --label "b/$path" /dev/null "$src/$path" || true
			fi | sed "1i diff --git a/$path b/$path"
		done < <(touched "$f")
	} > "$out"
}

[ -z "$diffs" ] || mkdir -p "$diffs"
i=0
for patch in "${patches[@]}"; do
	i=$((i + 1))
	f=$here/series/$patch
	[ -f "$f" ] || die "$f: no such patch"
	grep -q '^---$' "$f" || die "$patch: no '---' line after the message"
	if [ -n "$diffs" ]; then
		before=$(mktemp -d)
		while read -r path; do
			if [ -e "$src/$path" ]; then
				mkdir -p "$(dirname "$before/$path")"
				cp "$src/$path" "$before/$path"
			fi
		done < <(touched "$f")
	fi
	apply_ops "$f"
	echo "kernel/apply.sh: applied $patch"
	if [ -n "$diffs" ]; then
		write_mail "$f" "$i" "${#patches[@]}"
		rm -rf "$before"
	fi
	echo "$patch" >> "$src/.kernel-series-applied"
done
