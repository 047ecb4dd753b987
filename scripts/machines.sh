# SPDX-License-Identifier: GPL-2.0-only
# The architecture matrix the scripts (deps, demo), tests and benchmarks
# compile for: the rows of arch/machines.h, the project's one list of machines.

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

# cc_takes "FLAGS" CC...: whether the compiler compiles with FLAGS (words)
# for its machine.  Which machines have -mfentry, -mrecord-mcount or CET is
# the compiler's to say: asked, not listed.
cc_takes() {
	local flags=$1
	shift
	# shellcheck disable=SC2086
	"$@" $flags -c -x c /dev/null -o /dev/null 2> /dev/null
}

# The kernel tool's (scripts/ref-recordmcount.sh) known faults for
# kernel-style code, by arch and compiler: "FAULT<TAB>reason", nothing when
# there is none.  Data about the machines, one each, not a list of them to
# run over (t/08-machine-lists.t).
kernel_fault() {	# arch compiler
	case $1/$2 in
	s390x/gcc) printf 'shift-12\t%s\n' 'the kernel tool subtracts 14 from the relocation and misses the brasl' ;;
	s390x/clang) printf 'empty\t%s\n' 'clang calls mcount, which the kernel tool ignores on s390x' ;;
	riscv64/*) printf 'unsupported\t%s\n' 'the kernel tool does not know EM_RISCV' ;;
	sparc64/clang) printf 'empty\t%s\n' 'clang calls mcount; the kernel tool only knows _mcount on sparc64' ;;
	esac
}

# machine_toolchain QEMU: a machine's own toolchain, where Debian 12's
# cannot build for it (scripts/toolchain-QEMU.sh: sh4's), for the tests:
# prints its directory (bin/ for PATH, root/usr/TRIPLE for qemu's -L) when
# it is set up; nothing when the host's toolchain serves; fails, printing
# what is missing, when it is needed and not set up.
machine_toolchain() {
	local dir=${OBJPATCH_TOOLCHAINS:-${XDG_CACHE_HOME:-$HOME/.cache}/objpatch-toolchains}/$1
	[ -e "$(dirname "${BASH_SOURCE[0]}")/toolchain-$1.sh" ] || return 0
	if [ -e "$dir/ready" ]; then
		echo "$dir"
		return 0
	fi
	echo "$dir/ready is missing: scripts/toolchain-$1.sh (run by scripts/deps.sh) did not finish, see $dir/debootstrap.log"
	return 1
}
