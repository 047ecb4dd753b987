#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Real kernel traces, annotated.  Builds Debian's
# linux-source-6.12 for x86_64 and for arm64 with OUR recordmcount run by
# Kbuild on every traced object, boots each under qemu with the function
# graph tracer and funcgraph-retval turned on from the command line, takes
# the trace out of the serial console, and types it with `objpatch annotate
# --image vmlinux --image M.ko...`.
#
# x86_64: forcing recordmcount.  kernel/trace/Kconfig picks the recorder
# from four def_bool symbols, in order: FTRACE_MCOUNT_USE_PATCHABLE_FUNCTION_ENTRY
# (not selected on x86), FTRACE_MCOUNT_USE_CC (when the compiler takes
# -mrecord-mcount, as gcc does on x86), FTRACE_MCOUNT_USE_OBJTOOL (x86_64
# selects HAVE_OBJTOOL_MCOUNT; objtool --mcount --mnop), and last
# FTRACE_MCOUNT_USE_RECORDMCOUNT.  None of them has a prompt, so no .config
# line can change them: the script turns the `def_bool y` of
# FTRACE_MCOUNT_USE_CC and FTRACE_MCOUNT_USE_OBJTOOL into `def_bool n` in
# its own extracted copy of the source (and fails if those lines are not
# found).  Then the top Makefile sets BUILD_C_RECORDMCOUNT (x86 selects
# HAVE_C_RECORDMCOUNT), `make prepare` builds scripts/recordmcount, and
# scripts/Makefile.build runs `scripts/recordmcount "$@"` after every
# object compiled with CC_FLAGS_FTRACE (-pg -mfentry, no -mrecord-mcount).
# As in scripts/kbuild-test.sh, that binary is replaced by a wrapper after
# `make prepare` (Kbuild does not rebuild it) that logs the call and execs a
# snapshot of build/recordmcount.  The call sites stay `call __fentry__`;
# ftrace turns them into NOPs at boot.
#
# arm64: the compiler records the sites (DYNAMIC_FTRACE_WITH_ARGS selects
# FTRACE_MCOUNT_USE_PATCHABLE_FUNCTION_ENTRY: -fpatchable-function-entry=2,
# or =4,2 with DYNAMIC_FTRACE_WITH_CALL_OPS, and its
# __patchable_function_entries, which the linker script takes as the mcount
# table), so Kbuild runs no recorder and defines no
# cmd_record_mcount.  But rule_cc_o_c still calls `$(call
# cmd,record_mcount)` after every C object, and a variable given on make's
# command line overrides the makefiles' and reaches every sub-make: the
# script builds with
#     cmd_record_mcount='$(if $(findstring $(strip $(CC_FLAGS_FTRACE)),$(_c_flags)),WRAPPER "$@")'
# (the test Kbuild itself uses for recordmcount), which adds the prototype
# table to each traced object and leaves the compiler's table alone.  No
# kernel file changes, nothing is rebuilt twice.
#
# The kernels: tinyconfig plus a serial console, PRINTK, FUNCTION_GRAPH_TRACER,
# FUNCTION_GRAPH_RETVAL, DYNAMIC_FTRACE, DEBUG_INFO_DWARF5 and three modules
# (=m).  There is no user space and no block layer, so no root file system:
# the kernel finds no init, panics, and ftrace_dump_on_oops prints the trace
# buffer on the console (captured to a file); panic=-1 and qemu's
# -no-reboot end the run.  Nothing loads the modules (no user space), so the
# traced functions are all in vmlinux; the modules are still given to
# annotate, whose tables must load.
#
# Checks: Kbuild ran our tool (never the kernel's); the boot's "ftrace:
# allocating N entries" is the number of entries `recordmcount --list`
# finds in vmlinux; annotate understands every line of the dump (console
# prefixes and all, --strict), finds every traced function in the tables
# (--stats), and the trace has void, bool, enum and errno values, and on
# x86_64 narrowed ones (bits above a bool's width, left by `setcc %al`).
#
# Usage:  make kernel-retval-test     (same as scripts/kernel-retval-test.sh)
#         scripts/kernel-retval-test.sh [--no-build] [x86_64] [arm64]
#             --no-build: boot and annotate the last builds
# Environment: JOBS (default 2), KERNEL_TEST_DIR (default build/kernel-6.12),
# LINUX_SOURCE_TARBALL (default /usr/src/linux-source-6.12.tar.xz),
# TRACE_BUF_SIZE (default 1M per CPU), BOOT_TIMEOUT (default 900 s).
# Installs linux-source-6.12, qemu-system-x86 and qemu-system-arm with
# apt-get when missing (not in scripts/deps.sh: CI does not run this test).
# Builds run under nice -n 19.  Exits 1 on any failure.
# Time (measured on this project's 2-core machine): about 690 s of CPU for
# each build, 6 minutes of wall time on idle cores and up to 26 when the
# machine is shared; each boot to the end of the dump 1 to 8 s under TCG:
# 19 minutes for the whole script from scratch (41 on a loaded machine).  With the extracted source the trees take 2.4 GB in
# build/kernel-6.12/.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
work=${KERNEL_TEST_DIR:-$top/build/kernel-6.12}
tarball=${LINUX_SOURCE_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
jobs=${JOBS:-2}
rmc=$top/build/recordmcount
objpatch=$top/build/objpatch
src=$work/linux-source-6.12
harness=kernel-retval-test
# shellcheck source=scripts/kernel-lib.sh
. "$top/scripts/kernel-lib.sh"

export KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 2026' KBUILD_BUILD_USER=kernel-retval-test \
	KBUILD_BUILD_HOST=kernel-retval-test KBUILD_BUILD_VERSION=1

build=1
arches=()
for a; do
	case $a in
	--no-build) build=0 ;;
	x86_64 | arm64) arches+=("$a") ;;
	*) echo "usage: $0 [--no-build] [x86_64] [arm64]" >&2; exit 2 ;;
	esac
done
[ ${#arches[@]} -gt 0 ] || arches=(x86_64 arm64)

failures=()
summary=()
fail() { failures+=("$arch: $*"); echo "kernel-retval-test: FAIL: $arch: $*" >&2; }
note() { summary+=("$arch: $*"); echo "kernel-retval-test: $*"; }
step() { echo "kernel-retval-test: == ${arch:+$arch: }$*"; }
die() { echo "kernel-retval-test: ${arch:+$arch: }$*" >&2; exit 1; }


# The options on top of tinyconfig, for both machines: one CPU (one CPU
# column in the trace: no SMP on x86_64; arm64 is always SMP, qemu gives it
# one CPU), no block layer (so no root device: the boot ends in "No working
# init found"), the graph tracer with return values.
CONFIG_OPTS=(
	-e PRINTK -e TTY -e BINFMT_ELF -e BINFMT_SCRIPT -e PROC_FS -e SYSFS
	-e MODULES -e MODULE_UNLOAD
	-e FTRACE -e FUNCTION_TRACER -e FUNCTION_GRAPH_TRACER -e FUNCTION_GRAPH_RETVAL -e DYNAMIC_FTRACE
	-e DEBUG_KERNEL -d DEBUG_INFO_NONE -e DEBUG_INFO_DWARF5 -d DEBUG_INFO_REDUCED -d DEBUG_INFO_BTF
	-m BINFMT_MISC -m AUTOFS_FS -m CONFIGFS_FS
)
CONFIG_WANT='CONFIG_FUNCTION_TRACER=y CONFIG_FUNCTION_GRAPH_TRACER=y CONFIG_FUNCTION_GRAPH_RETVAL=y
CONFIG_DYNAMIC_FTRACE=y CONFIG_FTRACE_MCOUNT_RECORD=y CONFIG_DEBUG_INFO_DWARF5=y
CONFIG_MODULES=y CONFIG_BINFMT_MISC=m CONFIG_AUTOFS_FS=m CONFIG_CONFIGFS_FS=m'
CONFIG_UNWANTED='CONFIG_BLOCK=y'

# The traced functions (ftrace_filter=), by the class of their return type,
# each seen running during this boot (no user space):
TRACED=(
	# void
	tick_handle_periodic
	# bool (on x86_64 the last three set %al alone: the bits above are the caller's)
	queue_work_on slab_is_available is_vmalloc_addr mutex_is_locked
	# enum (irqreturn_t)
	handle_irq_event __handle_irq_event_percpu
	# int: a count, or 0 or -errno
	__wake_up do_one_initcall kernel_execve init_eaccess
	# pointers (ERR_PTR too)
	filp_open
)

# setup_arch ARCH: the machine's variables.
setup_arch() {
	arch=$1
	out=$work/out-$arch
	case $arch in
	x86_64)
		karch=x86_64 cross= image=arch/x86/boot/bzImage console=ttyS0
		qemu=(qemu-system-x86_64 -m 256M)
		# the PC's RTC: rtc_cmos_read() returns an unsigned char
		arch_opts=(-e 64BIT -e SERIAL_8250 -e SERIAL_8250_CONSOLE -e RTC_CLASS -e RTC_DRV_CMOS)
		arch_want='CONFIG_64BIT=y CONFIG_SERIAL_8250_CONSOLE=y CONFIG_FTRACE_MCOUNT_USE_RECORDMCOUNT=y
			CONFIG_HAVE_C_RECORDMCOUNT=y'
		arch_unwanted='CONFIG_FTRACE_MCOUNT_USE_CC=y CONFIG_FTRACE_MCOUNT_USE_OBJTOOL=y CONFIG_SMP=y'
		recorder_built=1 make_extra=(RECORDMCOUNT_WARN=1)
		arch_traced=(rtc_cmos_read)
		classes='void bool enum errno narrowed'
		# Under TCG on a busy host the TSC often fails its calibration against
		# the PIT (no HPET here): sched_clock, and so the trace clock, then
		# ticks in jiffies.  The host's TSC rate is what TCG's rdtsc counts.
		arch_cmdline="tsc_early_khz=$(awk '/^cpu MHz/ { printf "%d", $4 * 1000; exit }' /proc/cpuinfo) tsc=reliable"
		;;
	arm64)
		karch=arm64 cross=aarch64-linux-gnu- image=arch/arm64/boot/Image console=ttyAMA0
		qemu=(qemu-system-aarch64 -M virt -cpu cortex-a57 -m 256M)
		arch_opts=(-e SERIAL_AMBA_PL011 -e SERIAL_AMBA_PL011_CONSOLE)
		arch_want='CONFIG_SERIAL_AMBA_PL011_CONSOLE=y CONFIG_DYNAMIC_FTRACE_WITH_ARGS=y
			CONFIG_FTRACE_MCOUNT_USE_PATCHABLE_FUNCTION_ENTRY=y'
		arch_unwanted='CONFIG_FTRACE_MCOUNT_USE_RECORDMCOUNT=y'
		# the compiler records the sites: our tool adds the tables through
		# the command-line cmd_record_mcount (see the header)
		recorder_built=0
		make_extra=(RECORDMCOUNT_WARN=1
			"cmd_record_mcount=\$(if \$(findstring \$(strip \$(CC_FLAGS_FTRACE)),\$(_c_flags)),$out/recordmcount-hook \"\$@\")")
		# the generic timer's interrupt (irqreturn_t): its per-CPU interrupt
		# calls the handler directly, not through handle_irq_event()
		arch_traced=(arch_timer_handler_virt arch_timer_handler_phys)
		# gcc sets a bool with cset, which writes all of w0: nothing to trim
		classes='void bool enum errno'
		arch_cmdline=""
		;;
	esac
}

extract() {
	if [ -f "$src/.kernel-retval-test-extracted" ]; then return; fi
	[ -f "$tarball" ] || die "$tarball not found (apt-get install linux-source-6.12)"
	step "extracting $tarball"
	rm -rf "$src"
	mkdir -p "$work"
	tar -C "$work" -xJf "$tarball"
	touch "$src/.kernel-retval-test-extracted"
}

# Every object Kbuild had our tool record that has sites (our __mcount_loc
# on x86_64, the compiler's __patchable_function_entries on arm64) has a
# prototype table now.
check_tables() {
	local obj secs sited=0 typed=0 missing=""
	while read -r obj; do
		[ -f "$out/$obj" ] || continue
		secs=$("${cross}readelf" -SW "$out/$obj" 2>/dev/null |
			awk '{ sub(/^ *\[ *[0-9]+\] /, "") } $1 ~ /^(__mcount_loc|__patchable_function_entries|__mcount_proto)$/ { print $1 }' |
			sort -u | tr '\n' ' ')
		case $secs in *__mcount_loc* | *__patchable_function_entries*) ;; *) continue ;; esac
		sited=$((sited + 1))
		case $secs in *__mcount_proto*) typed=$((typed + 1)) ;; *) missing+="$obj " ;; esac
	done < <(awk '{ print $NF }' "$out/rmc.log" | sort -u)
	note "objects with sites: $sited; with a prototype table: $typed"
	[ -z "$missing" ] || fail "objects with sites but no __mcount_proto: $missing"
}

# What Kbuild ran, and the tables it left.
check_build() {
	local n entries protos
	n=$(grep -c . "$out/rmc.log" || true)
	note "build with our recordmcount: $(cat "$out/build.seconds") (-j$jobs, nice -n 19; wall and CPU)"
	note "objects recorded by our recordmcount (Kbuild invocations): $n"
	[ "$n" -gt 100 ] || fail "Kbuild ran our recordmcount only $n times"
	check_tables
	"$rmc" --list "$out/vmlinux" > "$out/vmlinux.list" || fail "recordmcount --list vmlinux failed"
	entries=$(grep -c . "$out/vmlinux.list")
	# scripts/sorttable zeroes the entries of overridden weak functions (a
	# 6.12 stable backport), and ftrace skips them at boot.
	zeroed=$(grep -c '^0x0 ' "$out/vmlinux.list" || true)
	protos=$("$objpatch" list "$out/vmlinux" | grep -c .) || fail "objpatch list vmlinux failed"
	note "vmlinux: $entries mcount entries (recordmcount --list; $zeroed zeroed), $protos functions listed with prototypes (objpatch list)"
	echo "$((entries - zeroed))" > "$out/entries"
}

# The kernel's command line: the graph tracer from the first initcalls on
# (Documentation/admin-guide/kernel-parameters.txt: ftrace=, ftrace_filter=,
# trace_options=, trace_buf_size=, ftrace_dump_on_oops), return values on,
# printk's time on each line, the buffer dumped to the console at the
# panic, and the panic ends qemu.
cmdline() {
	local IFS=,
	echo "console=$console ftrace=function_graph ftrace_filter=${TRACED[*]}${arch_traced[*]:+,${arch_traced[*]}}" \
		"trace_options=funcgraph-retval trace_buf_size=${TRACE_BUF_SIZE:-1M}" \
		"ftrace_dump_on_oops panic=-1 printk.time=1${arch_cmdline:+ $arch_cmdline}"
}

# Boots the image under qemu (TCG unless /dev/kvm is usable for this
# machine) and captures the serial console to $out/console.log.
boot() {
	local accel=tcg t0 t1 rc=0
	[ "$arch" = x86_64 ] && [ -w /dev/kvm ] && accel=kvm
	step "booting under ${qemu[0]} (-accel $accel): $(cmdline)"
	t0=$(date +%s.%N)
	timeout "${BOOT_TIMEOUT:-900}" "${qemu[@]}" -accel "$accel" -nographic -no-reboot \
		-kernel "$out/$image" -append "$(cmdline)" < /dev/null > "$out/console.log" 2>&1 || rc=$?
	t1=$(date +%s.%N)
	echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", b - a }') s ($accel)" > "$out/boot.seconds"
	[ "$rc" = 124 ] && die "qemu did not stop within ${BOOT_TIMEOUT:-900} s (console: $out/console.log)"
	[ "$rc" = 0 ] || die "${qemu[0]} exited with status $rc (console: $out/console.log)"
	note "boot to the panic and the dump: $(cat "$out/boot.seconds")"
}

# The dump: from "Dumping ftrace buffer:" to the dashes that close it, with
# the console's prefixes, carriage returns removed.
extract_trace() {
	local n
	tr -d '\r' < "$out/console.log" | awk '
		/\] Dumping ftrace buffer:$/ { on = 1 }
		on { print }
		on && /\] -+$/ && ++dashes == 2 { exit }' > "$out/trace.txt"
	grep -q 'Kernel panic' "$out/console.log" || fail "the boot did not end in a panic (console: $out/console.log)"
	[ -s "$out/trace.txt" ] || die "no \"Dumping ftrace buffer:\" on the console (console: $out/console.log)"
	grep -q '(ftrace buffer empty)' "$out/trace.txt" && die "the trace buffer was empty (console: $out/console.log)"
	note "trace: $(grep -c . "$out/trace.txt") lines on the console ($out/trace.txt)"
	# ftrace's count of the table at boot against ours.
	n=$(tr -d '\r' < "$out/console.log" | sed -n 's/.*ftrace: allocating \([0-9]*\) entries.*/\1/p' | head -1)
	if [ -z "$n" ]; then
		fail "no \"ftrace: allocating N entries\" on the console"
	elif [ "$n" != "$(cat "$out/entries")" ]; then
		fail "ftrace allocated $n entries at boot, recordmcount --list vmlinux finds $(cat "$out/entries") (not zeroed)"
	else
		note "ftrace at boot: \"allocating $n entries\", as many as recordmcount --list vmlinux finds (not zeroed)"
	fi
}
# objpatch annotate on the dump: every line understood (--strict), every
# function in the tables (--stats fails otherwise), and each class of value
# present.
annotate() {
	local images=(--image "$out/vmlinux") ko rc=0 stats c n
	while read -r ko; do
		images+=(--image "$out/$ko")
	done < <(cd "$out" && find . -name '*.ko' | sed 's|^\./||' | sort)
	[ ${#images[@]} -gt 2 ] || fail "no module (.ko) was built"
	step "objpatch annotate ${images[*]#"$out/"} trace.txt"
	"$objpatch" annotate --strict --stats "${images[@]}" "$out/trace.txt" \
		> "$out/trace.annotated" 2> "$out/annotate.err" || rc=$?
	sed 's/^/  /' "$out/annotate.err"
	[ "$rc" = 0 ] || fail "objpatch annotate exited with $rc: $(grep -v ': [0-9]* lines, ' "$out/annotate.err" | head -3 | tr '\n' ' ')"
	stats=$(grep -m1 '^objpatch annotate: [0-9]* lines, ' "$out/annotate.err") ||
		{ fail "objpatch annotate printed no --stats line"; return; }
	note "annotated: ${stats#objpatch annotate: }"
	note "modules given to annotate: $(((${#images[@]} - 2) / 2)) (none is loaded: no user space)"
	# Each class must have been seen at least once.
	for c in $classes; do
		n=$(sed -n "s/.* $c \([0-9]*\).*/\1/p" <<< "$stats")
		[ "${n:-0}" -gt 0 ] || fail "no $c value in the trace: trace other functions (TRACED in $0)"
	done
	n=$(sed -n 's/.* functions (\([0-9]*\) not in the tables).*/\1/p' <<< "$stats")
	[ "${n:-1}" = 0 ] || fail "$n traced functions are not in the tables"
	# Some traced functions (with a list of names) are expected, not all.
	for f in "${TRACED[@]}" "${arch_traced[@]}"; do
		grep -q "[ {;]$f[();]" "$out/trace.txt" || grep -q "/\* $f = " "$out/trace.txt" ||
			note "$f: not in the trace (did not run, or the buffer wrapped)"
	done
	diff "$out/trace.txt" "$out/trace.annotated" | grep -c '^>' > "$out/changed.lines" || true
	note "lines changed by annotate: $(cat "$out/changed.lines") of $(grep -c . "$out/trace.txt")"
}

for tool in "$rmc" "$objpatch"; do
	[ -x "$tool" ] || die "$tool not built (make -j2 build/recordmcount build/objpatch)"
done
arch=
need_packages linux-source-6.12 qemu-system-x86 qemu-system-arm gcc-aarch64-linux-gnu libelf-dev libssl-dev
for a in "${arches[@]}"; do
	setup_arch "$a"
	if [ "$build" = 1 ]; then
		extract
		[ "$arch" = x86_64 ] && force_recordmcount
		configure
		install_wrapper
		build_kernel
	fi
	[ -f "$out/.kernel-retval-test-built" ] || die "no finished build in $out (run without --no-build)"
	check_build
	boot
	extract_trace
	annotate
done

echo
echo "kernel-retval-test: summary (linux-source-6.12: ${arches[*]}; trees in $work)"
printf '  %s\n' "${summary[@]}"
if [ ${#failures[@]} -gt 0 ]; then
	echo "kernel-retval-test: ${#failures[@]} failure(s):"
	printf '  %s\n' "${failures[@]}"
	exit 1
fi
echo "kernel-retval-test: all checks passed"
