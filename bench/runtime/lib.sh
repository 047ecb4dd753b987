# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash disable=SC2154 # top, res, runit and rep are the caller's
# Sourced by the runtime benchmarks that time runs with bench/runtime/runit.c
# (bench/runtime.sh, bench/xray.sh): running and logging one measured run,
# alternating the order of configurations, medians and arithmetic for the
# report.  The caller sets top (the repository), res (the results
# directory), runit (the built launcher) and defines die.

# show_cmd RUNIT-ARGS...: the command that runit runs, as a shell would write it
show_cmd() {
	local -a pre=()
	local to="" s
	while [ $# -gt 0 ]; do
		case $1 in
		-e) if [[ $2 == *" "* ]]; then pre+=("${2%%=*}=\"${2#*=}\""); else pre+=("$2"); fi; shift 2 ;;
		-o) to=$2; shift 2 ;;
		--) shift; break ;;
		*) break ;;
		esac
	done
	s="${pre[*]:+${pre[*]} }$*${to:+ > $to}"
	echo "${s//$top\//}"
}
declare -A shown
# run_one TAG RUNIT-ARGS...: one run; its line (wall cpu sys rss status main) is
# appended to $res/TAG.tsv, everything the program and the tool print to TAG.log.
# The run must exit with $want_status (default 0).
run_one() {
	local tag=$1 line
	shift
	if [ -z "${shown[$tag]:-}" ]; then
		shown[$tag]=1
		printf '%s\t%s\n' "$tag" "$(show_cmd "$@")" >> "$res/commands.tsv"
	fi
	line=$("$runit" "$@" 2>> "$res/$tag.log") || die "$tag: runit failed (see $res/$tag.log)"
	[ "$(cut -f5 <<< "$line")" = "${want_status:-0}" ] ||
		die "$tag: exited with status $(cut -f5 <<< "$line"), not ${want_status:-0} (see $res/$tag.log)"
	echo "$line" >> "$res/$tag.tsv"
}
# rotate WORDS...: the list starting at its ($rep mod n)-th word, so the order alternates
rotate() {
	local -a w=("$@")
	local n=${#w[@]} k=$((rep % ${#w[@]})) i
	for ((i = 0; i < n; i++)); do printf '%s ' "${w[(i + k) % n]}"; done
}
median() { sort -g | awk '{ v[NR] = $1 } END { if (!NR) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
col() { cut -f"$2" "$res/$1.tsv" | median; }	# col TAG FIELD: median of a column (1 wall, 2 cpu, 3 sys, 4 max RSS KiB)
calc() { awk "function max(a, b) { return a > b ? a : b } BEGIN { v = $1; printf \"$2\", v }"; }	# calc EXPR FORMAT
ms() { calc "$1 / 1e6" "%.1f"; }
mib() { calc "$1 / 1048576" "%.1f MiB"; }
# result FILE KEY: KEY=VALUE from a program's result line
result() { grep -o "$2=[0-9]*" "$1" | head -1 | cut -d= -f2; }
