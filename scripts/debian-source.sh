#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Debian source packages for the tests and benchmarks that build real
# projects (make check-projects, bench/instrument.sh): fetched with the
# system's configured archives, as deps.sh fetches elfutils, and kept in a
# cache outside the repo so a second run is offline.
#
#   scripts/debian-source.sh PACKAGE...
#   scripts/debian-source.sh --suite SUITE --binary PACKAGE
#
# prints, one per line, the directory each package is unpacked in:
# $OBJPATCH_SOURCE_CACHE (default ~/.cache/objpatch-sources)/PACKAGE/src.
# A package already there is not fetched again.  The second form takes a
# binary package (linux-source-7.3, say) from another suite of the system's
# own archive (experimental, unstable): the suite is added to a private copy
# of apt's configuration, never to the system's, and the package's files are
# unpacked (dpkg-deb -x, not installed) into .../PACKAGE/deb.  Sourced (by
# deps.sh), it only defines source_lists and suite_lists.
set -euo pipefail

# The source archives of the archives apt is configured with: every
# "deb" entry of the system's one-line lists and deb822 .sources files,
# read where apt-config says they are, turned into "deb-src", into DIR.
# The repo names no archive: the script works wherever apt does.
source_lists() {	# source_lists DIR
	local dir=$1 Dir='' Etc='' List='' Parts=''
	eval "$(apt-config shell Dir Dir Etc Dir::Etc List Dir::Etc::sourcelist Parts Dir::Etc::sourceparts)"
	local etc=${Etc%/}
	[ "${etc#/}" != "$etc" ] || etc=${Dir%/}/$etc
	[ -z "$List" ] || [ ! -f "$etc/$List" ] || sed -n 's/^[[:space:]]*deb[[:space:]]/deb-src /p' "$etc/$List" >"$dir/system.list"
	for f in "$etc/${Parts%/}"/*.list; do
		[ -f "$f" ] && sed -n 's/^[[:space:]]*deb[[:space:]]/deb-src /p' "$f" >"$dir/list-$(basename "$f")"
	done
	for f in "$etc/${Parts%/}"/*.sources; do
		[ -f "$f" ] && sed 's/^Types:.*/Types: deb-src/' "$f" >"$dir/$(basename "$f")"
	done
	[ -n "$(ls -A "$dir")" ]
}

# The system's "deb" entries of its own release (the bare codename, not
# -updates or -security) with SUITE in the codename's place, into DIR: the
# same archive, another of its suites.
suite_lists() {	# suite_lists DIR SUITE
	local dir=$1 suite=$2 codename Dir='' Etc='' List='' Parts=''
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	[ -n "$codename" ] || { echo "debian-source: /etc/os-release names no VERSION_CODENAME" >&2; return 1; }
	eval "$(apt-config shell Dir Dir Etc Dir::Etc List Dir::Etc::sourcelist Parts Dir::Etc::sourceparts)"
	local etc=${Etc%/}
	[ "${etc#/}" != "$etc" ] || etc=${Dir%/}/$etc
	for f in "$etc/$List" "$etc/${Parts%/}"/*.list; do
		[ -f "$f" ] && awk -v c="$codename" -v s="$suite" \
			'$1 == "deb" { for (i = 2; i <= NF; i++) if ($i == c) { $i = s; print; break } }' "$f"
	done > "$dir/suite.list"
	for f in "$etc/${Parts%/}"/*.sources; do
		# deb822 stanzas (blank-line separated) whose Suites name the release.
		[ -f "$f" ] && awk -v c="$codename" -v s="$suite" 'BEGIN { RS = ""; ORS = "\n\n" }
			{ n = split($0, l, "\n"); keep = 0; out = ""
			  for (i = 1; i <= n; i++) {
				if (l[i] ~ /^Suites:/ && (" " l[i] " ") ~ (" " c " ")) { l[i] = "Suites: " s; keep = 1 }
				if (l[i] !~ /^#/) out = out l[i] "\n"
			  }
			  if (keep) printf "%s\n", out }' "$f" > "$dir/suite-$(basename "$f")"
	done
	grep -qs . "$dir"/suite* || { echo "debian-source: no apt entry names the release $codename: cannot add $suite" >&2; return 1; }
}

# Binary PACKAGE from SUITE of the system's archive, unpacked into
# CACHE/PACKAGE/deb (its version in .debian-version there).
fetch_binary() {	# fetch_binary CACHE SUITE PACKAGE
	local cache=$1 suite=$2 p=$3 tmp
	tmp=$(mktemp -d)
	# shellcheck disable=SC2064
	trap "rm -rf '$tmp'" RETURN
	private_apt "$tmp"
	mkdir -p "$tmp/parts" "$tmp/lists/partial" "$tmp/cache/archives/partial" "$tmp/get"
	suite_lists "$tmp/parts" "$suite" || return 1
	"${apt[@]}" update || echo "debian-source: apt-get update reported errors; trying with the indexes it got" >&2
	(cd "$tmp/get" && "${apt[@]}" download "$p" >/dev/null 2>&1) ||
		{ echo "debian-source: $p: the $suite suite of the system's archive does not serve it" >&2; return 1; }
	dpkg-deb -x "$tmp"/get/*.deb "$tmp/get/deb" ||
		{ echo "debian-source: $p: dpkg-deb could not unpack it" >&2; return 1; }
	dpkg-deb -f "$tmp"/get/*.deb Version > "$tmp/get/deb/.debian-version"
	rm -rf "${cache:?}/$p" && mkdir -p "$cache/$p"
	mv "$tmp/get/deb" "$cache/$p/deb"
}

# The apt command line that reads private source lists and keeps its
# indexes under DIR: the system's configuration is untouched.
private_apt() {	# private_apt DIR: sets the array `apt`
	apt=(apt-get -qq -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$1/parts"
		-o Dir::State::Lists="$1/lists" -o Dir::Cache="$1/cache" -o APT::Sandbox::User=root)
}

# PACKAGE's sources into DIR/get: the newest version any archive serves.  A
# mirror may list a version (security's) whose files it does not carry:
# then the next one.
download() {	# download DIR PACKAGE
	local v
	rm -rf "$1/get" && mkdir "$1/get"
	for v in $("${apt[0]/apt-get/apt-cache}" "${apt[@]:1}" showsrc "$2" 2>/dev/null |
		sed -n 's/^Version: //p' | sort -urV); do
		(cd "$1/get" && "${apt[@]}" source --download-only "$2=$v" >/dev/null 2>&1) && return 0
		rm -rf "$1/get" && mkdir "$1/get"
	done
	echo "debian-source: $2: no archive serves its sources (is it a source package of this release?)" >&2
	return 1
}

# Fetch the packages not in the cache yet, with one index update for all.
fetch_sources() {	# fetch_sources CACHE PACKAGE...
	local cache=$1 tmp p
	shift
	tmp=$(mktemp -d)
	# shellcheck disable=SC2064
	trap "rm -rf '$tmp'" RETURN
	private_apt "$tmp"
	mkdir -p "$tmp/parts" "$tmp/lists/partial" "$tmp/cache/archives/partial"
	source_lists "$tmp/parts" || { echo "debian-source: apt is configured with no archive" >&2; return 1; }
	# One archive without sources (a third party's) must not stop the rest.
	"${apt[@]}" update || echo "debian-source: apt-get update reported errors; trying with the indexes it got" >&2
	for p in "$@"; do
		download "$tmp" "$p" || return 1
		(cd "$tmp/get" && dpkg-source -q --no-check -x ./*.dsc src >/dev/null) ||
			{ echo "debian-source: $p: dpkg-source could not unpack it" >&2; return 1; }
		rm -rf "${cache:?}/$p" && mkdir -p "$cache/$p"
		# The version apt chose, for the record (the tests print it).
		sed -n 's/^Version: //p' "$tmp"/get/*.dsc | head -1 >"$tmp/get/src/.debian-version"
		mv "$tmp/get/src" "$cache/$p/src"
	done
}

main() {
	local cache=${OBJPATCH_SOURCE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/objpatch-sources} missing=() p
	[ $# -gt 0 ] || { echo "usage: $0 PACKAGE... | --suite SUITE --binary PACKAGE" >&2; exit 2; }
	mkdir -p "$cache"
	if [ "$1" = --suite ]; then
		[ $# = 4 ] && [ "$3" = --binary ] || { echo "usage: $0 --suite SUITE --binary PACKAGE" >&2; exit 2; }
		exec 9>"$cache/.lock"
		flock 9
		[ -f "$cache/$4/deb/.debian-version" ] || fetch_binary "$cache" "$2" "$4"
		echo "$cache/$4/deb"
		return
	fi
	for p in "$@"; do
		[ -f "$cache/$p/src/.debian-version" ] || missing+=("$p")
	done
	# Two test runs at once must not unpack into each other.
	exec 9>"$cache/.lock"
	flock 9
	if [ ${#missing[@]} -gt 0 ]; then
		fetch_sources "$cache" "${missing[@]}"
	fi
	for p in "$@"; do
		echo "$cache/$p/src"
	done
}

[ "${BASH_SOURCE[0]}" != "$0" ] || main "$@"
