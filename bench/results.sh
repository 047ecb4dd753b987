# SPDX-License-Identifier: GPL-2.0-only
# Sourced by the bench scripts that write one section each of a results file.

# results_put NAME SECTION-FILE RESULTS-FILE: the section (which begins with
# <!-- NAME --> and ends with <!-- /NAME -->) replaces the one between those
# markers in RESULTS-FILE, or is added at its end; an empty RESULTS-FILE:
# nothing is written.
results_put() {
	local name=$1 section=$2 results=$3

	[ -n "$results" ] || return 0
	[ -f "$results" ] || : > "$results"
	awk -v f="$section" -v first="<!-- $name -->" -v last="<!-- /$name -->" '
		$0 == first { while ((getline l < f) > 0) print l; skip = 1; done = 1; next }
		$0 == last { skip = 0; next }
		!skip { print }
		END { if (!done) { print ""; while ((getline l < f) > 0) print l } }' "$results" > "$results.tmp"
	mv "$results.tmp" "$results"
}
