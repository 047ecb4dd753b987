#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Our recordmcount where the kernel still runs its own: Debian's
# Linux 7.3 (linux-source-7.3, from the experimental suite of the system's
# own archive, scripts/debian-source.sh) built twice per machine from one
# .config, once with the kernel's recorder (scripts/recordmcount, or
# scripts/recordmcount.pl on sh) and once with ours in its place, both booted
# under Debian's qemu-system emulators:
#
#   1. the self-test boot of each build: no tracer on the command line, so
#      every configured tracer runs its start-up self-test.  ftrace's
#      "allocating N entries" must be the same for both builds, and every
#      self-test must pass with ours or fail the same way with the kernel's.
#   2. the trace boot of our build: function_graph on a few functions every
#      boot runs, dumped by ftrace_dump_on_oops at the panic that ends a boot
#      without user space; `objpatch annotate --image vmlinux` must read
#      every line and find every traced function in the prototype tables our
#      recorder wrote.
#
# Beside the boots: the objects of both trees, recorded each by its tool,
# must hold the same sites (recordmcount --list) and the same other
# relocations, and every object ours recorded must pass `recordmcount
# --check`.  The recorder's CPU time (user + system of every call, through
# /usr/bin/time) is summed per build, beside the build's own.
#
# Machines (MACHINES or arguments; default all): arm (ARM), arm-thumb2,
# mips (32-bit big-endian, malta), mipsel, mips64 (64-bit big-endian,
# malta), ppc32 (mac99), sparc64 (sun4u), sh4 (r2d), i386, x86_64.  Where a
# machine's default is another recorder (x86's objtool or compiler,
# ppc32's -fpatchable-function-entry), that route's Kconfig default is
# turned off in the source, for both builds alike: what is compared is the
# recordmcount route the kernel still keeps for them.
#
# Usage:  make kernel-matrix-test [MACHINES="mipsel sh4"]
#         scripts/kernel-matrix-test.sh [--no-build] [MACHINE...]
# Environment: JOBS (default 2), KERNEL_MATRIX_DIR (default
# build/kernel-matrix), BOOT_TIMEOUT (default 600 s), KERNEL_CORPUS=DIR
# (the kernel-recorder build copies every object it records, as the
# compiler left it, to DIR/MACHINE/PATH: bench/kernel-corpus.sh's corpus;
# a cached build copies nothing, so remove its out-* tree first).  Builds are cached:
# a finished build is not built again (rm its out-* tree to rebuild);
# --no-build only boots.  Installs the qemu-system and cross-compiler
# packages it needs when missing (not in scripts/deps.sh: CI does not run
# this test).  Exits 1 on any failure.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
work=${KERNEL_MATRIX_DIR:-$top/build/kernel-matrix}
jobs=${JOBS:-2}
rmc=$top/build/recordmcount
objpatch=$top/build/objpatch
version=7.3
src=$work/linux-source-$version
harness=kernel-matrix-test
all_machines="arm arm-thumb2 mips mipsel mips64 ppc32 sparc64 sh4 i386 x86_64"
# shellcheck source=scripts/kernel-lib.sh
. "$top/scripts/kernel-lib.sh"

export KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 2026' KBUILD_BUILD_USER=$harness \
	KBUILD_BUILD_HOST=$harness KBUILD_BUILD_VERSION=1

build=1
# The hook copies from Kbuild's directory: an absolute path.
[ -z "${KERNEL_CORPUS:-}" ] || KERNEL_CORPUS=$(realpath -m "$KERNEL_CORPUS")
machines=()
for a in "$@" ${MACHINES:-}; do
	case " $all_machines --no-build " in
	*" $a "*) [ "$a" = --no-build ] && build=0 || machines+=("$a") ;;
	*) echo "usage: $0 [--no-build] [MACHINE...]   (machines: $all_machines)" >&2; exit 2 ;;
	esac
done
[ ${#machines[@]} -gt 0 ] || read -r -a machines <<< "$all_machines"

failures=()
exceptions=()
summary=()
table=()
arch=
fail() { failures+=("$arch: $*"); echo "$harness: FAIL: $arch: $*" >&2; }
note() { summary+=("$arch: $*"); echo "$harness: $*"; }
step() { echo "$harness: == ${arch:+$arch: }$*"; }
die() { echo "$harness: ${arch:+$arch: }$*" >&2; exit 1; }

# What every machine's .config has: tinyconfig plus these.
CONFIG_OPTS=(
	-e PRINTK -e TTY -e BINFMT_ELF -e PROC_FS -e SYSFS -e MODULES -e MODULE_UNLOAD
	-e FTRACE -e FUNCTION_TRACER -e FUNCTION_GRAPH_TRACER -e FUNCTION_GRAPH_RETVAL -e DYNAMIC_FTRACE
	-e FTRACE_STARTUP_TEST -d EVENT_TRACE_STARTUP_TEST
	-e DEBUG_KERNEL -d DEBUG_INFO_NONE -e DEBUG_INFO_DWARF5 -d DEBUG_INFO_REDUCED -d DEBUG_INFO_BTF
	-m BINFMT_MISC -m CONFIGFS_FS
)
CONFIG_WANT='CONFIG_FUNCTION_TRACER=y CONFIG_FUNCTION_GRAPH_TRACER=y CONFIG_DYNAMIC_FTRACE=y
CONFIG_FTRACE_STARTUP_TEST=y CONFIG_DEBUG_INFO_DWARF5=y CONFIG_FTRACE_MCOUNT_USE_RECORDMCOUNT=y CONFIG_MODULES=y'
CONFIG_UNWANTED='CONFIG_FTRACE_MCOUNT_USE_CC=y CONFIG_FTRACE_MCOUNT_USE_OBJTOOL=y
CONFIG_FTRACE_MCOUNT_USE_PATCHABLE_FUNCTION_ENTRY=y'

# Functions every boot without user space runs, of several return classes.
TRACED=(do_one_initcall kernel_execve filp_open queue_work_on slab_is_available mutex_is_locked __wake_up)

setup_machine() {
	arch=$1
	qemu_io=(-nographic)
	recorder=c
	arch_cmdline=
	arch_unwanted=
	branch_test=
	case $arch in
	arm | arm-thumb2)
		karch=arm cross=arm-linux-gnueabihf- image=arch/arm/boot/zImage console=ttyAMA0
		qemu=(qemu-system-arm -M virt -cpu cortex-a15 -m 256M)
		arch_opts=(-e MMU -e ARCH_MULTIPLATFORM -e ARCH_MULTI_V7 -e ARCH_VIRT -e VFP
			-e SERIAL_AMBA_PL011 -e SERIAL_AMBA_PL011_CONSOLE -d SMP)
		if [ "$arch" = arm-thumb2 ]; then
			arch_opts+=(-e THUMB2_KERNEL) arch_want='CONFIG_THUMB2_KERNEL=y'
		else
			arch_opts+=(-d THUMB2_KERNEL) arch_want='CONFIG_ARM=y' arch_unwanted='CONFIG_THUMB2_KERNEL=y'
		fi
		packages=(qemu-system-arm gcc-arm-linux-gnueabihf)
		# The PL011 console starts after the postponed self-tests: a
		# panic there (Thumb-2, below) would leave the console empty.
		arch_cmdline=earlycon
		;;
	mips | mipsel | mips64)
		karch=mips image=vmlinux console=ttyS0
		arch_opts=(-e MIPS_MALTA -e SERIAL_8250 -e SERIAL_8250_CONSOLE -d SMP)
		case $arch in
		mips) cross=mips-linux-gnu- qemu=(qemu-system-mips -M malta -m 256M)
			arch_opts+=(-e CPU_MIPS32_R2 -e CPU_BIG_ENDIAN -d CPU_LITTLE_ENDIAN -d 64BIT -e 32BIT)
			arch_want='CONFIG_MIPS_MALTA=y CONFIG_CPU_BIG_ENDIAN=y CONFIG_32BIT=y' ;;
		mipsel) cross=mipsel-linux-gnu- qemu=(qemu-system-mipsel -M malta -m 256M)
			arch_opts+=(-e CPU_MIPS32_R2 -e CPU_LITTLE_ENDIAN -d CPU_BIG_ENDIAN -d 64BIT -e 32BIT)
			arch_want='CONFIG_MIPS_MALTA=y CONFIG_CPU_LITTLE_ENDIAN=y CONFIG_32BIT=y' ;;
		mips64) cross=mips64-linux-gnuabi64- qemu=(qemu-system-mips64 -M malta -cpu MIPS64R2-generic -m 256M)
			arch_opts+=(-e CPU_MIPS64_R2 -e CPU_BIG_ENDIAN -d CPU_LITTLE_ENDIAN -e 64BIT -d 32BIT)
			arch_want='CONFIG_MIPS_MALTA=y CONFIG_CPU_BIG_ENDIAN=y CONFIG_64BIT=y' ;;
		esac
		packages=(qemu-system-mips "gcc-${cross%-}")
		;;
	ppc32)
		karch=powerpc cross=powerpc-linux-gnu- image=vmlinux console=ttyS0
		qemu=(qemu-system-ppc -M mac99 -m 256M)
		# OpenBIOS enters the kernel through prom_init, which tinyconfig leaves out.
		arch_opts=(-e PPC_BOOK3S_32 -e PPC_PMAC -e PPC_OF_BOOT_TRAMPOLINE -e PCI -e SERIAL_PMACZILOG -e SERIAL_PMACZILOG_TTYS
			-e SERIAL_PMACZILOG_CONSOLE -d SMP)
		arch_want='CONFIG_PPC32=y CONFIG_PPC_PMAC=y CONFIG_PPC_OF_BOOT_TRAMPOLINE=y CONFIG_SERIAL_PMACZILOG_CONSOLE=y'
		packages=(qemu-system-ppc gcc-powerpc-linux-gnu)
		;;
	sparc64)
		karch=sparc64 cross=sparc64-linux-gnu- image=arch/sparc/boot/image console=ttyS0
		qemu=(qemu-system-sparc64 -M sun4u -m 256M)
		arch_opts=(-e 64BIT -e PCI -e SERIAL_SUNSU -e SERIAL_SUNSU_CONSOLE -d SMP)
		arch_want='CONFIG_SPARC64=y CONFIG_SERIAL_SUNSU_CONSOLE=y'
		packages=(qemu-system-sparc gcc-sparc64-linux-gnu)
		;;
	sh4)
		karch=sh cross=sh4-linux-gnu- image=arch/sh/boot/zImage console=ttySC1,115200
		# r2d's console is its second serial port.
		qemu=(qemu-system-sh4 -M r2d -m 64M)
		qemu_io=(-display none -monitor none -serial null -serial stdio)
		# r2d's memory starts at 0x0c000000 (Kconfig's default is
		# 0x08000000, and tinyconfig writes the load address too).
		arch_opts=(-e CPU_SUBTYPE_SH7751R -e SH_RTS7751R2D -e SERIAL_SH_SCI -e SERIAL_SH_SCI_CONSOLE
			-e CMDLINE_FROM_BOOTLOADER --set-val MEMORY_START 0x0c000000 --set-val PHYSICAL_START 0x0c000000 -d SMP)
		arch_want='CONFIG_CPU_SUBTYPE_SH7751R=y CONFIG_SH_RTS7751R2D=y CONFIG_SERIAL_SH_SCI_CONSOLE=y
			CONFIG_MEMORY_START=0x0c000000 CONFIG_PHYSICAL_START=0x0c000000'
		arch_cmdline=noiotrap
		# What sets the T bit a conditional branch reads (compiler_defect).
		branch_test='tst|cmp/'
		# sh has no C recorder: Kbuild runs scripts/recordmcount.pl.
		recorder=perl
		packages=(qemu-system-misc gcc-sh4-linux-gnu)
		;;
	i386 | x86_64)
		local bits=64
		[ "$arch" = x86_64 ] || bits=32
		karch=$arch cross= image=arch/x86/boot/bzImage console=ttyS0
		qemu=("qemu-system-$arch" -m 256M)
		arch_opts=("$([ $bits = 64 ] && printf %s -e || printf %s -d)" 64BIT -e SERIAL_8250 -e SERIAL_8250_CONSOLE -d SMP)
		arch_want="CONFIG_X86_$bits=y CONFIG_SERIAL_8250_CONSOLE=y"
		# 32-bit x86 has no graph tracer at -Os, tinyconfig's choice.
		[ $bits = 64 ] || arch_opts+=(-e CC_OPTIMIZE_FOR_PERFORMANCE -d CC_OPTIMIZE_FOR_SIZE)
		packages=(qemu-system-x86)
		;;
	esac
	kout=$work/out-$arch-kernel
	oout=$work/out-$arch-ours
}

# The source, once for every machine: linux-source-7.3 from the archive's
# experimental suite; recordmcount made the route on x86 and ppc32.
prepare_source() {
	local deb tarball
	[ -f "$src/.$harness-ready" ] && return
	deb=$("$top/scripts/debian-source.sh" --suite experimental --binary "linux-source-$version") ||
		die "linux-source-$version could not be fetched (above)"
	tarball=$deb/usr/src/linux-source-$version.tar.xz
	[ -f "$tarball" ] || die "$tarball: the package holds no such tarball"
	rm -rf "$src"
	mkdir -p "$work"
	step "extracting linux-source-$version $(cat "$deb/.debian-version")"
	tar -C "$work" -xJf "$tarball"
	force_recordmcount
	# 32-bit powerpc records with -fpatchable-function-entry where gcc has it.
	sed -i 's/^\tdef_bool y if PPC32$/\tdef_bool n if PPC32/' "$src/arch/powerpc/Kconfig"
	grep -q '^	def_bool n if PPC32$' "$src/arch/powerpc/Kconfig" ||
		die "arch/powerpc/Kconfig: ARCH_USING_PATCHABLE_FUNCTION_ENTRY is no longer 'def_bool y if PPC32'"
	cp "$deb/.debian-version" "$src/.debian-version"
	touch "$src/.$harness-ready"
}

# The recorder a build runs, timed: a wrapper in Kbuild's way that logs each
# object and appends the CPU time of the tool's run (user system, to the
# millisecond: bash's `time` reads the child's rusage) to OUT/rmc.cpu.
# With CORPUS set, each object (Kbuild's last argument, relative to OUT)
# is first copied to CORPUS/PATH.
# timed_hook OUT TOOL...
timed_hook() {
	local o=$1 copy=
	shift
	[ -z "${CORPUS:-}" ] || copy='obj=${*: -1}; mkdir -p "'$CORPUS'/$(dirname "$obj")" && cp "$obj" "'$CORPUS'/$obj"'
	cat > "$o/recordmcount-hook" <<-EOF
	#!/bin/bash
	# $harness: log, time, run the recorder.
	echo "\$*" >> "$o/rmc.log"
	$copy
	TIMEFORMAT='%3U %3S'
	{ time $* "\$@" 2>&3; } 3>&2 2>> "$o/rmc.cpu"
	EOF
	chmod 755 "$o/recordmcount-hook"
	rm -f "$o/rmc.log" "$o/rmc.cpu"
}

# install_recorder kernel|ours: after `make prepare`, the build's recorder
# is the timed hook around the kernel's tool or a snapshot of ours.
install_recorder() {
	local which=$1
	step "$which: make prepare"
	kmake "$out" prepare
	cp "$rmc" "$out/our-recordmcount"
	make_extra=()
	if [ "$recorder" = c ]; then
		[ -x "$out/scripts/recordmcount" ] ||
			die "make prepare did not build scripts/recordmcount (is CONFIG_FTRACE_MCOUNT_USE_RECORDMCOUNT set?)"
		cp "$out/scripts/recordmcount" "$out/kernel-recordmcount"
		if [ "$which" = kernel ]; then
			CORPUS=${KERNEL_CORPUS:+$KERNEL_CORPUS/$arch} timed_hook "$out" "$out/kernel-recordmcount"
		else
			timed_hook "$out" "$out/our-recordmcount"
		fi
		cp "$out/recordmcount-hook" "$out/scripts/recordmcount.new"
		mv "$out/scripts/recordmcount.new" "$out/scripts/recordmcount"
		recorder_built=1
	else
		recorder_built=0
		if [ "$which" = kernel ]; then
			CORPUS=${KERNEL_CORPUS:+$KERNEL_CORPUS/$arch} timed_hook "$out" perl "$src/scripts/recordmcount.pl"
			# Kbuild's command, its arguments kept, through the hook.
			# shellcheck disable=SC2016
			make_extra=('sub_cmd_record_mcount=$(RECORDMCOUNT_HOOK) "$(ARCH)" "$(if $(CONFIG_CPU_BIG_ENDIAN),big,little)" "$(if $(CONFIG_64BIT),64,32)" "$(OBJDUMP)" "$(OBJCOPY)" "$(CC) $(KBUILD_CPPFLAGS) $(KBUILD_CFLAGS)" "$(LD) $(KBUILD_LDFLAGS)" "$(NM)" "$(RM)" "$(MV)" "$(if $(part-of-module),1,0)" "$(@)";')
		else
			timed_hook "$out" "$out/our-recordmcount"
			# shellcheck disable=SC2016
			make_extra=('sub_cmd_record_mcount=$(RECORDMCOUNT_HOOK) "$(@)";')
		fi
		make_extra+=("RECORDMCOUNT_HOOK=$out/recordmcount-hook")
	fi
}

# stale OUT: a finished build whose .config lacks a line this script now
# asks for (sh4's PHYSICAL_START, added after its first build), or has one
# it refuses, is not reused: its marker goes, and it is built again.
stale() {
	local o=$1 want
	[ -f "$o/.$harness-built" ] || return 0
	for want in $CONFIG_WANT $arch_want; do
		grep -qx "$want" "$o/.config" && continue
		note "$(basename "$o"): its .config lacks $want (built by an older script): built again"
		rm -f "$o/.$harness-built"
		return 0
	done
	for want in ${CONFIG_UNWANTED:-} ${arch_unwanted:-}; do
		grep -qx "$want" "$o/.config" || continue
		note "$(basename "$o"): its .config has $want (built by an older script): built again"
		rm -f "$o/.$harness-built"
		return 0
	done
}

# Both builds from one .config: the kernel's first, then ours from a copy.
build_both() {
	local config
	out=$kout
	stale "$kout"
	# ours copies the kernel build's .config: a new one makes ours new too
	[ -f "$kout/.$harness-built" ] || rm -f "$oout/.$harness-built"
	stale "$oout"
	if [ ! -f "$kout/.$harness-built" ]; then
		configure
		install_recorder kernel
		build_kernel
	fi
	config=$kout/.config
	out=$oout
	if [ -f "$oout/.$harness-built" ] && ! cmp -s "$rmc" "$oout/our-recordmcount"; then
		note "$(basename "$oout"): built by another build/recordmcount: built again"
		rm -f "$oout/.$harness-built"
	fi
	if [ ! -f "$oout/.$harness-built" ]; then
		step "ours: the kernel build's .config"
		rm -rf "$oout"
		mkdir -p "$oout"
		cp "$config" "$oout/.config"
		kmake "$oout" olddefconfig > /dev/null
		cmp -s "$config" "$oout/.config" || die "olddefconfig changed the copied .config"
		install_recorder ours
		build_kernel
	fi
}

# The CPU seconds of a build's recorder calls, and how many.
recorder_cpu() {
	awk '/^[0-9.]+ [0-9.]+$/ { s += $1 + $2; n++ } END { printf "%.1f s over %d objects", s, n }' "$1/rmc.cpu"
}

# relocs OBJ: its relocations but the tables' own and DWARF's (whose strings
# name each build's directory), as "section offset type symbol+addend":
# symbol indexes differ when a recorder adds symbols, and the order when
# recordmcount.pl's `ld -r` merges sections.
relocs() {
	"${cross}readelf" -rW "$1" | awk '/^Relocation section/ { sec = $3; next }
		sec != "" && sec !~ /mcount|debug/ && $1 ~ /^[0-9a-f]+$/ && NF >= 3 { $2 = ""; print sec, $0 }' |
		LC_ALL=C sort
}

# Every object each tool recorded: the same sites in both trees, every
# other relocation the same (both compiled the same code); ours passes --check.
compare_objects() {
	local o n=0 differ=0 findings=0 relocs_differ=0
	: > "$oout/objects.differ"
	: > "$oout/objects.relocs"
	: > "$oout/objects.check"
	while read -r o; do
		[ -f "$kout/$o" ] && [ -f "$oout/$o" ] || continue
		n=$((n + 1))
		if ! cmp -s <(cd "$kout" && "$rmc" --list "$o" 2>&1) <(cd "$oout" && "$rmc" --list "$o" 2>&1); then
			differ=$((differ + 1))
			echo "$o" >> "$oout/objects.differ"
		fi
		if ! cmp -s <(relocs "$kout/$o") <(relocs "$oout/$o"); then
			relocs_differ=$((relocs_differ + 1))
			echo "$o" >> "$oout/objects.relocs"
		fi
		"$rmc" --check "$oout/$o" >> "$oout/objects.check" 2>&1 || findings=$((findings + 1))
	done < <(awk '{ print $NF }' "$oout/rmc.log" | sort -u)
	note "objects recorded: $n; sites differing from the kernel tool's: $differ ($oout/objects.differ);" \
		"other relocations differing: $relocs_differ; ours failing --check: $findings"
	[ "$n" -gt 100 ] || fail "only $n objects were recorded by both builds"
	[ "$findings" = 0 ] || fail "$findings objects of ours fail recordmcount --check ($oout/objects.check)"
	[ "$relocs_differ" = 0 ] ||
		fail "$relocs_differ objects' other relocations differ between the builds ($oout/objects.relocs)"
	objects_differ=$differ
}

# boot OUT NAME CMDLINE: the serial console to OUT/NAME.txt.  The boot ends
# in a panic (no user space), whose panic=-1 resets the board, which ends
# qemu (-no-reboot); a board the kernel cannot reset (malta) halts instead,
# or panics again at each try (sun4u: "Reboot failed!"), and qemu is
# stopped once the console says so; one whose reset qemu does
# not end (mac99: OpenBIOS starts again, silently) once the console has
# been quiet for 5 s after the panic line, the trace dump included.
boot() {
	local o=$1 name=$2 cmdline=$3 t0 rc=0 accel=tcg pid waited=0 size last=-1 quiet=0
	[ "$arch" = x86_64 ] && [ -w /dev/kvm ] && accel=kvm
	step "$(basename "$o"): $name boot under ${qemu[0]}: $cmdline"
	t0=$(date +%s)
	"${qemu[@]}" -accel "$accel" "${qemu_io[@]}" -no-reboot \
		-kernel "$o/$image" -append "$cmdline" < /dev/null > "$o/$name.log" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2> /dev/null; do
		if [ -f "$o/$name.log" ] &&
		   grep -qE -- '---\[ end Kernel panic|Reboot failed -- System halted|Kernel panic - not syncing: Reboot failed!' "$o/$name.log"; then
			sleep 1
			kill "$pid" 2> /dev/null || true
			break
		fi
		if [ -f "$o/$name.log" ] && grep -q 'Kernel panic - not syncing' "$o/$name.log"; then
			size=$(stat -c %s "$o/$name.log")
			[ "$size" = "$last" ] && quiet=$((quiet + 1)) || quiet=0
			last=$size
			if [ "$quiet" -ge 5 ]; then
				kill "$pid" 2> /dev/null || true
				break
			fi
		fi
		if [ "$waited" -ge "${BOOT_TIMEOUT:-600}" ]; then
			kill "$pid" 2> /dev/null || true
			rc=124
			break
		fi
		sleep 1
		waited=$((waited + 1))
	done
	wait "$pid" 2> /dev/null || true
	tr -d '\r' < "$o/$name.log" > "$o/$name.txt"
	[ "$rc" != 124 ] || { fail "$name boot of $(basename "$o"): no panic within ${BOOT_TIMEOUT:-600} s ($o/$name.txt)"; return 1; }
	grep -q 'Kernel panic - not syncing' "$o/$name.txt" ||
		{ fail "$name boot of $(basename "$o"): ${qemu[0]} stopped before the panic: $(tail -1 "$o/$name.txt")"; return 1; }
	echo "$(($(date +%s) - t0))" > "$o/$name.seconds"
}

entries() { sed -n 's/.*ftrace: allocating \([0-9]*\) entries.*/\1/p' "$1" | head -1; }
# The self-tests' verdicts, one per line ("Testing X: PASSED"): a verdict
# the console put lines later, after the counters ops tests print
# ("(3 3 5 0 76818) PASSED") or other messages between (i386's keyboard
# driver split "Testing ftrace filter: OK" in two), joined to its test; a
# test the kernel panicked in has "PANIC" for its verdict.
selftests() {
	awk 'held != "" && /^Testing / { print held; held = "" }
		/^Testing [^:]+: *$/ { held = $0; next }
		held != "" && /^\([0-9 ]+\) *$/ { next }
		held != "" && /Kernel panic - not syncing/ { print held " PANIC"; held = ""; next }
		held != "" && /^(\([0-9 ]+\) )?(PASSED|OK|FAILED|\*\*\*)/ { sub(/^\([0-9 ]+\) /, ""); print held " " $0; held = ""; next }
		{ print }
		END { if (held != "") print held }' "$1" |
		grep -oE '^Testing [^:]+: +(PASSED|OK|PANIC|\*\*\* [^*]+|FAILED[^ ]*)' | sed -E 's/ +/ /g; s/ *$//' || true
}

# vmlinux's table as `recordmcount --check` decodes it: "ENTRIES MISSING",
# the entries and the calls to the hook that have none.
vmlinux_table() {
	"$rmc" --check "$1/vmlinux" > "$1/vmlinux.check" 2>&1 || true
	awk '/ entries: / {
		e = $0; sub(/ entries: .*/, "", e); sub(/.* /, "", e)
		m = 0; if (match($0, /missing [0-9]+/)) m = substr($0, RSTART + 8, RLENGTH - 8)
		print e, m }' "$1/vmlinux.check" | tail -1
}

# Why the kernel's tool left calls out: its objects' missing sites, from
# `recordmcount --check` of each object whose sites differ from ours, by
# cause:
#  - 4 bytes after the previous hook relocation, of another section (MIPS:
#    the C tool drops a relocation 4 bytes after the one before it, taken
#    for the second half of a -mlong-calls pair, and its memory of the one
#    before crosses sections: -ffunction-sections puts each function at 0);
#  - in a weak function (recordmcount.pl refers to a section through a
#    function symbol that is not weak, and drops a section that has none).
# The hook's name is readelf -rW's fifth field (RELA adds " + addend").
explain_missing() {
	local o total=0 pairs=0 weak=0 lines counts p w n
	: > "$oout/kernel-missing"
	while read -r o; do
		lines=$("$rmc" --check "$kout/$o" 2>&1 | grep ': missing: ' || true)
		[ -n "$lines" ] || continue
		printf '%s\n' "$lines" >> "$oout/kernel-missing"
		# Each missing call once, by its first cause: "PAIRS WEAK TOTAL".
		# Lines: "R SEC+0xOFF" of each pair-rule relocation, "W FUNC" of
		# each weak function, then the --check lines
		# ("...: missing: FUNC+0xN (SEC+0xN): ...").
		counts=$({ "${cross}readelf" -rW "$kout/$o" | awk '
			function hex(h,   i, v) { v = 0; for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(tolower(h), i, 1)) - 1; return v }
			/^Relocation section / { sec = $3; gsub(/'"'"'/, "", sec); sub(/^\.rela?/, "", sec) }
			$5 == "_mcount" || $5 == "__gnu_mcount_nc" || $5 == "__fentry__" || $5 == "mcount" {
				off = hex($1)
				if (have && off == prev + 4 && sec != prevsec) printf "R %s+0x%x\n", sec, off
				prev = off; prevsec = sec; have = 1 }'
			"${cross}readelf" -sW "$kout/$o" | awk '$5 == "WEAK" && $4 == "FUNC" { print "W", $8 }'
			printf '%s\n' "$lines"; } | awk '
			$1 == "R" { pair[$2] = 1; next }
			$1 == "W" { weak[$2] = 1; next }
			match($0, /: missing: [^+ ]*\+/) {
				fn = substr($0, RSTART + 11, RLENGTH - 12)
				site = $0; sub(/^[^(]*\(/, "", site); sub(/\).*/, "", site)
				n++
				if (site in pair) p++; else if (fn in weak) w++ }
			END { print p + 0, w + 0, n + 0 }')
		read -r p w n <<< "$counts"
		total=$((total + n)) pairs=$((pairs + p)) weak=$((weak + w))
	done < "$oout/objects.differ"
	note "the kernel tool's objects leave $total calls out of their tables ($oout/kernel-missing):" \
		"$pairs 4 bytes after the previous section's hook relocation, $weak in weak functions," \
		"$((total - pairs - weak)) otherwise"
	missing_causes="$pairs pair rule, $weak weak"
	[ "$((total - pairs - weak))" = 0 ] || missing_causes+=", $((total - pairs - weak)) other"
}

# compiler_defect: whether the machine's compiler drops the test of a
# global in `if (x) g();`, the way Debian 12's sh4-linux-gnu-gcc 12.2.0
# does at -O1 and above (its CFG cleanup loses the load and the `tst`, and
# the branch reads whatever the T bit last held).  Every kernel it builds
# dies before its console: zImage's decompressor spins in error(), and
# vmlinux started directly calls a NULL sh_mv.mv_mem_init, since
# sh_mv_setup()'s tests are gone too.  Both recorders' builds are equally
# unbootable, so their boots would say nothing of the recorders; the
# objects are still compared.  Prints the cause; true when defective.
compiler_defect() {
	local probe=$oout/compiler-probe f
	[ -n "$branch_test" ] || return 1
	printf 'int x;\nvoid g(void);\nvoid f(void) { if (x) g(); }\n' > "$probe.c"
	"${cross}gcc" -O2 -c "$probe.c" -o "$probe.o" || die "${cross}gcc cannot compile $probe.c"
	f=$("${cross}objdump" -d --no-show-raw-insn "$probe.o" | awk '/<f>:$/ { on = 1; next } on && NF' | tr -s ' \t' ' ')
	printf '%s\n' "$f" | grep -qE "$branch_test" && return 1
	printf '%s %s compiles `int x; void f(void) { if (x) g(); }` at -O2 to a branch with no load of x and no test (%s) before it: %s' \
		"${cross}gcc" "$("${cross}gcc" -dumpfullversion)" "${branch_test//|/, }" \
		"$(printf '%s\n' "$f" | head -4 | sed 's/^ *[0-9a-f]*: //; s/ *$//' | paste -sd';' | sed 's/;/; /g')"
}

# object_of FUNCTION ADDRESS: the object of our tree that defines the
# function at ADDRESS of our vmlinux: its source file from the DWARF, else
# the first recorded object whose symbol table defines it.
object_of() {
	local f o
	f=$("${cross}addr2line" -e "$oout/vmlinux" "$2" | sed 's/:.*//')
	o=${f#"$src"/}
	o=${o%.[cS]}.o
	if [ "$o" != "$f" ] && [ -f "$oout/$o" ]; then
		echo "$o"
		return
	fi
	while read -r o; do
		"${cross}nm" --defined-only "$oout/$o" 2> /dev/null | awk -v f="$1" '$3 == f && $2 ~ /[tTW]/ { found = 1 } END { exit !found }' &&
			{ echo "$o"; return; }
	done < <(awk '{ print $NF }' "$oout/rmc.log" | sort -u)
}

# The calls our vmlinux's table leaves out, each checked in its object:
# one our tool recorded there (recordmcount --list) was dropped after it,
# at the final link: the kernel's scripts/sorttable zeroes an entry whose
# address it finds in no function of `nm -S vmlinux`, and its fscanf of
# that list falls out of step at a symbol without a size ("00000020 a i"
# on i386), losing the next one.  Prints "RECORDED NOT-RECORDED".
ours_missing_in_objects() {
	local func off addr o sym recorded=0 lost=0
	: > "$oout/vmlinux-missing"
	while read -r func off addr; do
		o=$(object_of "$func" "$addr")
		sym=$( [ -z "$o" ] || "${cross}readelf" -sW "$oout/$o" | awk -v f="$func" '$8 == f && $4 == "FUNC" { print $2, $7; exit }')
		if [ -n "$sym" ] && "$rmc" --list "$oout/$o" | grep -qx "$("${cross}readelf" -SW "$oout/$o" |
			awk -v i="${sym#* }" '{ sub(/^ *\[ */, ""); sub(/\]/, "") } $1 == i { print $2 }')+0x$(printf '%x' $((0x${sym% *} + off)))"; then
			recorded=$((recorded + 1))
			echo "$func+$off ($addr): recorded in $o, not in vmlinux's table" >> "$oout/vmlinux-missing"
		else
			lost=$((lost + 1))
			echo "$func+$off ($addr): not recorded in ${o:-any object}" >> "$oout/vmlinux-missing"
		fi
	done < <(sed -n 's/.*: missing: \([^+ ]*\)+\(0x[0-9a-f]*\) (\(0x[0-9a-f]*\)).*/\1 \2 \3/p' "$oout/vmlinux.check")
	echo "$recorded $lost"
}

check_selftest_boots() {
	local ke oe passed dropped=0 in_objects not_recorded
	boot "$kout" selftest "console=$console panic=-1 ${arch_cmdline}" || return 0
	boot "$oout" selftest "console=$console panic=-1 ${arch_cmdline}" || return 0
	ke=$(entries "$kout/selftest.txt") oe=$(entries "$oout/selftest.txt")
	read -r ot_entries ot_missing <<< "$(vmlinux_table "$oout")"
	read -r kt_entries kt_missing <<< "$(vmlinux_table "$kout")"
	note "vmlinux tables (recordmcount --check): ours ${ot_entries:-?} entries, ${ot_missing:-?} calls left out;" \
		"the kernel tool's ${kt_entries:-?} entries, ${kt_missing:-?} calls left out"
	# Calls the final link dropped are missing from both tables alike;
	# only the rest count against a recorder.
	if [ "${ot_missing:-1}" != 0 ]; then
		read -r in_objects not_recorded <<< "$(ours_missing_in_objects)"
		[ "$not_recorded" = 0 ] ||
			fail "our vmlinux leaves ${ot_missing:-?} calls to the hook out of its table, $not_recorded not recorded in their objects ($oout/vmlinux-missing)"
		dropped=$in_objects
		note "our vmlinux's table lacks $dropped calls that our tool recorded in their objects (dropped at the final link: $(head -3 "$oout/vmlinux-missing" | tr '\n' ';'))"
	fi
	ot_missing=$((${ot_missing:-0} - dropped)) kt_missing=$((${kt_missing:-0} - dropped))
	[ -n "$oe" ] || fail "our build's boot printed no \"ftrace: allocating N entries\" ($oout/selftest.txt)"
	if [ "$ke" = "$oe" ]; then
		note "ftrace allocating entries: ours $oe, the kernel tool's $ke: the same"
	elif [ "${ot_missing:-1}" = 0 ] && [ "${kt_missing:-0}" -gt 0 ] && [ "$((oe - ke))" = "$((ot_entries - kt_entries))" ]; then
		note "ftrace allocating entries: ours $oe, the kernel tool's $ke: its tool left $kt_missing calls out" \
			"(ours none); the difference is the tables' own ($ot_entries - $kt_entries)"
		explain_missing
	else
		fail "ftrace allocating entries: ours $oe, the kernel tool's ${ke:-none}, not explained by the tables" \
			"(ours ${ot_entries:-?} entries, ${ot_missing:-?} left out; the kernel's ${kt_entries:-?}, ${kt_missing:-?})"
	fi
	selftests "$kout/selftest.txt" > "$kout/selftests"
	selftests "$oout/selftest.txt" > "$oout/selftests"
	passed=$(grep -cE '(PASSED|OK)$' "$oout/selftests" || true)
	[ "$passed" -gt 0 ] || fail "no ftrace self-test ran with ours ($oout/selftest.txt)"
	if ! grep -qvE '(PASSED|OK)$' "$oout/selftests"; then
		note "start-up self-tests with ours: $passed PASSED, none failed"
		selftest_result="$passed passed"
	elif cmp -s "$kout/selftests" "$oout/selftests"; then
		note "start-up self-tests: $passed PASSED; failed the same with the kernel's tool: $(grep -vE '(PASSED|OK)$' "$oout/selftests" | tr '\n' ';')"
		selftest_result="$passed passed, $(grep -cvE '(PASSED|OK)$' "$oout/selftests") fail as with the kernel's"
	else
		fail "self-tests with ours: $(grep -vE '(PASSED|OK)$' "$oout/selftests" | tr '\n' ';'); with the kernel's tool: $(grep -vE '(PASSED|OK)$' "$kout/selftests" | tr '\n' ';')"
		selftest_result="differ"
	fi
	entries_result="${oe:-none}/${ke:-none}"
	[ "${kt_missing:-0}" = 0 ] || entries_result+=" (the kernel's tool left $kt_missing calls out: $missing_causes)"
	[ "$dropped" = 0 ] || entries_result+=" (both tables lack $dropped recorded calls that scripts/sorttable dropped)"
}

# The trace boot of ours, annotated from the tables ours wrote.
check_trace_boot() {
	local IFS=, dump=$oout/trace.dump stats rc=0
	boot "$oout" trace "console=$console ftrace=function_graph ftrace_filter=${TRACED[*]} trace_options=funcgraph-retval trace_buf_size=256K ftrace_dump_on_oops panic=-1 ${arch_cmdline}" ||
		return 0
	unset IFS
	awk '/Dumping ftrace buffer:$/ { on = 1 } on { print } on && /^(\[[^]]*\] )?-+$/ && ++d == 2 { exit }' \
		"$oout/trace.txt" > "$dump"
	[ -s "$dump" ] || { fail "no \"Dumping ftrace buffer:\" on the trace boot's console ($oout/trace.txt)"; return 0; }
	"$objpatch" annotate --strict --stats --image "$oout/vmlinux" "$dump" > "$oout/trace.annotated" 2> "$oout/annotate.err" || rc=$?
	[ "$rc" = 0 ] || fail "objpatch annotate exited with $rc: $(head -2 "$oout/annotate.err" | tr '\n' ' ')"
	stats=$(grep -m1 '^objpatch annotate: [0-9]* lines, ' "$oout/annotate.err" || true)
	note "trace boot: $(grep -c . "$dump") lines dumped; annotate: ${stats#objpatch annotate: }"
	traced_lines=$(grep -c . "$dump")
	[ -n "$stats" ] || fail "objpatch annotate printed no --stats line"
}

for tool in "$rmc" "$objpatch"; do
	[ -x "$tool" ] || die "$tool not built (make -j2 build/recordmcount build/objpatch)"
done
[ "$build" = 0 ] || prepare_source
for m in "${machines[@]}"; do
	setup_machine "$m"
	need_packages "${packages[@]}"
	entries_result=- selftest_result=- traced_lines=- objects_differ=- missing_causes=-
	if [ "$build" = 1 ]; then
		if ! (build_both); then
			fail "the build failed: $(cat "$kout/build.log" "$oout/build.log" 2>/dev/null | grep -m1 -E 'error|Error' || echo 'see above')"
			table+=("$m | build failed | | | | |")
			continue
		fi
	fi
	[ -f "$kout/.$harness-built" ] && [ -f "$oout/.$harness-built" ] || die "no finished builds (run without --no-build)"
	note "builds: the kernel's tool: $(cat "$kout/build.seconds"); ours: $(cat "$oout/build.seconds")"
	note "recorder CPU: ours $(recorder_cpu "$oout"); the kernel's $(recorder_cpu "$kout")"
	compare_objects
	if defect=$(compiler_defect); then
		exceptions+=("$m: not booted: $defect")
		note "not booted: $defect; a kernel it builds dies before its console, with either recorder"
		selftest_result="not booted: ${cross}gcc drops tests (above)"
	else
		check_selftest_boots
		check_trace_boot
	fi
	table+=("$m | $entries_result | $objects_differ | $selftest_result | $traced_lines | $(recorder_cpu "$oout" | cut -d' ' -f1-2) / $(recorder_cpu "$kout" | cut -d' ' -f1-2) | $(cut -d, -f2 "$oout/build.seconds")")
done

echo
echo "$harness: summary (linux-source-$version $(cat "$src/.debian-version" 2>/dev/null); trees in $work)"
printf '  %s\n' "${summary[@]}"
echo
echo "| machine | entries ours/kernel's | objects differing | self-tests | traced lines | recorder CPU ours / kernel's | our build |"
echo "|---|---|---|---|---|---|---|"
printf '| %s |\n' "${table[@]}"
if [ ${#exceptions[@]} -gt 0 ]; then
	echo "$harness: ${#exceptions[@]} machine(s) not booted, for a cause outside both recorders:"
	printf '  %s\n' "${exceptions[@]}"
fi
if [ ${#failures[@]} -gt 0 ]; then
	echo "$harness: ${#failures[@]} failure(s):"
	printf '  %s\n' "${failures[@]}"
	exit 1
fi
echo "$harness: all checks passed"
