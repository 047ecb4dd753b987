# SPDX-License-Identifier: GPL-2.0-only
# The architecture matrix the tests and benchmarks compile for: the rows of
# arch/machines.h, the project's one list of machines.

# machine_rows: one line per row, its fields separated by tabs (name prefix
# clang kflags port qemu em class data).
machine_rows() {
	awk -F, -v OFS='\t' '/^MACHINE\(/ {
		sub(/^MACHINE\(/, ""); sub(/\)[[:space:]]*$/, "")
		for (i = 1; i <= NF; i++) gsub(/^[[:space:]]+|[[:space:]]+$/, "", $i)
		$1 = $1; print
	}' "$(dirname "${BASH_SOURCE[0]}")/../arch/machines.h"
}

# for_each_arch FUNC: calls FUNC name gcc_prefix clang_target kflags (flags space-separated)
for_each_arch() {
	local fn=$1 name prefix ctarget kflags rest
	while IFS=$'\t' read -r name prefix ctarget kflags rest; do
		[ -n "$name" ] || continue
		"$fn" "$name" "$prefix" "$ctarget" "$kflags"
	done < <(machine_rows)
}
