#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The kernel prints typed return values itself.  Applies
# the series in kernel/ to Debian's linux-source-7.3 (from the experimental
# suite of the system's own archive, as kernel-matrix-test.sh fetches it) or
# linux-source-6.12 (KERNEL_VERSION=6.12; kernel/apply.sh),
# builds it with OUR recordmcount as Kbuild's recorder (as
# scripts/kernel-retval-test.sh does: the same Kconfig forcing and wrapper on
# x86_64) plus FUNCTION_GRAPH_RETVAL_TYPES, FTRACE_STARTUP_TEST and kprobe
# events, and boots it three times under qemu:
#
#   1. the self-test boot: no tracer on the command line (a boot tracer turns
#      the self-tests off), so every configured tracer runs its start-up
#      self-test; all must print PASSED, none FAILED, and the series' table
#      must be loaded ("fgraph_types: N functions").
#   2. the trace boot: the graph tracer with funcgraph-retval on the functions
#      of TRACED, and a kretprobe event on each of them whose argument is the
#      raw return register ("r:r1,F,ret=$retval:x64"), all in the one trace
#      buffer that ftrace_dump_on_oops prints at the panic.
#   3. the user boot: kernel/test/init.c in an initramfs loads binfmt_misc.ko,
#      traces all its functions and makes calls whose results it prints;
#      the module's returns must all be typed (its table was loaded), and
#      the values init got back must be those the kernel printed (on ARM a
#      64-bit one, from r0:r1).  On x86_64 init also puts kretprobes on the
#      module's functions, for the check below with --image binfmt_misc.ko.
#
# The check: every return line the kernel printed (typed by the series) that
# has its kretprobe event next to it is rebuilt in the unpatched format from
# the event's raw value (6.12: "f(); /* = 0x1 */", "} /* f = -22 */"; 7.3:
# "f(); /* ret=0x1 */", "} /* f ret=-22 */": hex, or decimal for an errno),
# those lines go through `objpatch annotate --image
# vmlinux`, and each must come out identical to the kernel's line.  On
# 32-bit ARM the kernel also types 64-bit values (r0:r1), which annotate,
# reading one register, marks '?': those are counted, not failures.
#
# Where the unpatched kernel is known to break down (ARM), the source
# without the series is built from the same options and booted the same
# two ways, and each boot must break down in the same places.
#
# ARM: a v7-A Thumb-2 kernel for qemu-system-arm -M virt (cortex-a15),
# arm-linux-gnueabihf-gcc, -pg calls to __gnu_mcount_nc recorded by our tool
# through the kernel's own cmd_record_mcount (the wrapper as on x86_64).
#
# Usage:  make kernel-series-test      (same as scripts/kernel-series-test.sh)
#         scripts/kernel-series-test.sh [--no-build] [x86_64] [arm]
# Environment: KERNEL_VERSION (7.3, the default, or 6.12), PROTOS (full,
# the default: __mcount_proto; or compact: our recordmcount runs with
# --protos=compact and writes __mcount_ret, which the series reads too),
# JOBS (default 2), KERNEL_SERIES_DIR (default build/kernel-series/VERSION,
# or VERSION-compact),
# LINUX_SOURCE_TARBALL (default: 7.3 from the archive through
# scripts/debian-source.sh, 6.12 /usr/src/linux-source-6.12.tar.xz),
# LINUX_SOURCE_TREE (an extracted tree of that version to copy instead of
# extracting the tarball; it must not be patched),
# BOOT_TIMEOUT (default 300 s), QEMU_ACCEL (default kvm for x86_64 where
# /dev/kvm is writable and a first boot under it prints, else tcg).  Needs
# build/recordmcount and build/objpatch; installs qemu-system-x86,
# qemu-system-arm, gcc-arm-linux-gnueabihf and dwarves when missing.  Not
# in make check.  Exits 1 on any failure.  Time, from the tarball on this project's
# 2-core machine (idle): 23 minutes (builds: x86_64 6 min, ARM 5 min, ARM's
# reference 5 min, 1,850 s of CPU; the seven boots under a minute); the
# trees take 4.2 GB.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
version=${KERNEL_VERSION:-7.3}
case $version in
6.12 | 7.3) ;;
*) echo "kernel-series-test: KERNEL_VERSION=$version: the series is for 6.12 and 7.3" >&2; exit 2 ;;
esac
protos=${PROTOS:-full}
case $protos in
full) table=__mcount_proto other=__mcount_ret rmc_args=() ;;
compact) table=__mcount_ret other=__mcount_proto rmc_args=(--protos=compact) ;;
*) echo "kernel-series-test: PROTOS=$protos: full or compact" >&2; exit 2 ;;
esac
work=${KERNEL_SERIES_DIR:-$top/build/kernel-series/$version${rmc_args[*]+-compact}}
tarball=${LINUX_SOURCE_TARBALL:-}
[ -n "$tarball" ] || [ "$version" != 6.12 ] || tarball=/usr/src/linux-source-6.12.tar.xz
jobs=${JOBS:-2}
rmc=$top/build/recordmcount
objpatch=$top/build/objpatch
src=$work/linux-source-$version
# How funcgraph-retval puts a value (6.5 to 6.12 "= ", 6.13 on "ret=").
case $version in
6.12) retval_mark=' = ' ;;
*) retval_mark=' ret=' ;;
esac
harness=kernel-series-test
# Both machines record with scripts/recordmcount, our wrapper in its place.
recorder_built=1
# shellcheck source=scripts/kernel-lib.sh
. "$top/scripts/kernel-lib.sh"

export KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 2026' KBUILD_BUILD_USER=kernel-series-test \
	KBUILD_BUILD_HOST=kernel-series-test KBUILD_BUILD_VERSION=1

build=1
arches=()
for a; do
	case $a in
	--no-build) build=0 ;;
	x86_64 | arm) arches+=("$a") ;;
	*) echo "usage: $0 [--no-build] [x86_64] [arm]" >&2; exit 2 ;;
	esac
done
[ ${#arches[@]} -gt 0 ] || arches=(x86_64 arm)

failures=()
summary=()
fail() { failures+=("$arch: $*"); echo "kernel-series-test: FAIL: $arch: $*" >&2; }
note() { summary+=("$arch: $*"); echo "kernel-series-test: $*"; }
step() { echo "kernel-series-test: == ${arch:+$arch: }$*"; }
die() { echo "kernel-series-test: ${arch:+$arch: }$*" >&2; exit 1; }

# As in kernel-retval-test.sh, plus the series' option, the tracers'
# self-tests (not the events' one, which enables every event in turn: minutes
# under TCG) and kprobe events for the raw values.
CONFIG_OPTS=(
	-e PRINTK -e TTY -e BINFMT_ELF -e BINFMT_SCRIPT -e PROC_FS -e SYSFS
	-e MODULES -e MODULE_UNLOAD -e BLK_DEV_INITRD
	-e FTRACE -e FUNCTION_TRACER -e FUNCTION_GRAPH_TRACER -e FUNCTION_GRAPH_RETVAL -e DYNAMIC_FTRACE
	-e FUNCTION_GRAPH_RETVAL_TYPES
	-e FTRACE_STARTUP_TEST -d EVENT_TRACE_STARTUP_TEST -e KPROBES -e KPROBE_EVENTS
	-e DEBUG_KERNEL -d DEBUG_INFO_NONE -e DEBUG_INFO_DWARF5 -d DEBUG_INFO_REDUCED -d DEBUG_INFO_BTF
	-m BINFMT_MISC -m AUTOFS_FS -m CONFIGFS_FS
)
CONFIG_WANT='CONFIG_FUNCTION_GRAPH_TRACER=y CONFIG_FUNCTION_GRAPH_RETVAL=y CONFIG_FUNCTION_GRAPH_RETVAL_TYPES=y
CONFIG_DYNAMIC_FTRACE=y CONFIG_DEBUG_INFO_DWARF5=y CONFIG_FTRACE_STARTUP_TEST=y
CONFIG_KPROBE_EVENTS=y CONFIG_SYMBOLIC_ERRNAME=y CONFIG_FTRACE_MCOUNT_USE_RECORDMCOUNT=y
CONFIG_BLK_DEV_INITRD=y CONFIG_BINFMT_MISC=m'
# 7.x dropped FTRACE_MCOUNT_RECORD: every recorder records.
[ "$version" != 6.12 ] || CONFIG_WANT+=' CONFIG_FTRACE_MCOUNT_RECORD=y'

# The traced functions, by the class of their return type (those of
# kernel-retval-test.sh: each runs during a boot without user space).
TRACED=(
	tick_handle_periodic
	queue_work_on slab_is_available is_vmalloc_addr mutex_is_locked
	handle_irq_event __handle_irq_event_percpu
	__wake_up do_one_initcall kernel_execve init_eaccess
	filp_open
)

setup_arch() {
	arch=$1
	out=$work/out-$arch
	case $arch in
	x86_64)
		karch=x86_64 cross= image=arch/x86/boot/bzImage console=ttyS0 regbits=64
		qemu=(qemu-system-x86_64 -m 256M)
		arch_opts=(-e 64BIT -e SERIAL_8250 -e SERIAL_8250_CONSOLE -e RTC_CLASS -e RTC_DRV_CMOS -d SMP)
		arch_want='CONFIG_64BIT=y CONFIG_SERIAL_8250_CONSOLE=y CONFIG_HAVE_C_RECORDMCOUNT=y'
		# 7.x's x86_64 reads bit 0 of a tracer callback's address as "jump,
		# do not call" (DYNAMIC_FTRACE_WITH_JMP), so it needs functions at
		# even addresses; gcc before 14 ignores -falign-functions at -Os
		# (tinyconfig's), and an odd function_trace_call() became a jump
		# to the byte before it: an oops in "Testing dynamic ftrace",
		# without the series too.  -O2 aligns them.
		if [ "$version" != 6.12 ]; then
			arch_opts+=(-d CC_OPTIMIZE_FOR_SIZE -e CC_OPTIMIZE_FOR_PERFORMANCE)
			arch_want+=' CONFIG_CC_OPTIMIZE_FOR_PERFORMANCE=y'
		fi
		arch_traced=(rtc_cmos_read)
		probed=("${TRACED[@]}" "${arch_traced[@]}")
		known_broken=
		user_probed="bm_register_write bm_status_read bm_entry_write bm_status_write bm_get_tree generic_file_llseek"
		arch_cmdline="tsc_early_khz=$(awk '/^cpu MHz/ { printf "%d", $4 * 1000; exit }' /proc/cpuinfo) tsc=reliable"
		;;
	arm)
		karch=arm cross=arm-linux-gnueabihf- image=arch/arm/boot/zImage console=ttyAMA0 regbits=32
		qemu=(qemu-system-arm -M virt -cpu cortex-a15 -m 256M)
		arch_opts=(-e MMU -e ARCH_MULTIPLATFORM -e ARCH_MULTI_V7 -e ARCH_VIRT -e THUMB2_KERNEL -e VFP
			-e SERIAL_AMBA_PL011 -e SERIAL_AMBA_PL011_CONSOLE -d SMP)
		arch_want='CONFIG_THUMB2_KERNEL=y CONFIG_SERIAL_AMBA_PL011_CONSOLE=y CONFIG_HAVE_FUNCTION_GRAPH_FREGS=y'
		# the virt machine's timer interrupt (irqreturn_t)
		arch_traced=(arch_timer_handler_virt arch_timer_handler_phys)
		# ARM's kprobes re-enter on the helpers their own handlers call
		# (is_vmalloc_addr() and the like: "Failed to recover from
		# reentered kprobes"): the raw values come from outer functions.
		probed=(do_one_initcall kernel_execve init_eaccess filp_open)
		# Debian's 6.12.118 for Thumb-2 ARM breaks down the same without
		# the series (its unpatched build, same .config, booted by hand):
		# "Testing fgraph storage of 1 byte: *** Failed to execute storage
		# byte ***FAILED!", an oops in the kprobe self-test
		# (kprobe_trace_selftest_target), and with kretprobes and the graph
		# tracer together an oops at "PC is at 0x6" after the first
		# initcalls.  Reported, not failed, here; the pairs before it count.
		known_broken="the unpatched kernel breaks down the same: checked below"
		[ "$version" != 7.3 ] || reference_patches=0007-arm-thumb2-graph-frame-pointer.kpatch
		# No kretprobes in the user boot either (the oops above): init's
		# values are the check there.
		user_probed=
		# A panic before the PL011 driver (the unpatched 7.3's, in the
		# function_graph self-test) reaches the console only through earlycon.
		arch_cmdline=earlycon
		;;
	esac
}

# broken WHAT: a failure, or on a machine whose unpatched kernel breaks
# down the same, a note saying so.
broken() {
	if [ -n "$known_broken" ]; then note "KNOWN: $* ($known_broken)"; else fail "$*"; fi
}

# The tarball of the version: 7.3's fetched from the archive's experimental
# suite once (scripts/debian-source.sh caches it).
source_tarball() {
	local deb
	if [ -z "$tarball" ]; then
		deb=$("$top/scripts/debian-source.sh" --suite experimental --binary "linux-source-$version") ||
			die "linux-source-$version could not be fetched (above)"
		tarball=$deb/usr/src/linux-source-$version.tar.xz
	fi
	[ -f "$tarball" ] || die "$tarball not found (apt-get install linux-source-$version)"
}

# extract DIR: the source of the version into DIR/linux-source-VERSION.
extract() {
	if [ -n "${LINUX_SOURCE_TREE:-}" ]; then
		step "copying $LINUX_SOURCE_TREE"
		cp -a "$LINUX_SOURCE_TREE" "$1/linux-source-$version"
		rm -f "$1/linux-source-$version"/.kernel-retval-test-*
	else
		source_tarball
		step "extracting $tarball"
		tar -C "$1" -xJf "$tarball"
	fi
	[ -f "$1/linux-source-$version/Makefile" ] || die "$tarball holds no linux-source-$version/"
}

# The source, patched once for both machines.
prepare_source() {
	if [ -f "$src/.kernel-series-applied" ]; then return; fi
	rm -rf "$src"
	mkdir -p "$work"
	extract "$work"
	force_recordmcount
	step "applying the series (kernel/apply.sh --diffs $work/patches)"
	rm -rf "$work/patches"
	"$top/kernel/apply.sh" --diffs "$work/patches" "$src"
}

check_build() {
	local n recs strs tabsize othersize btf
	note "build: $(cat "$out/build.seconds") (-j$jobs, nice -n 19; wall and CPU)"
	n=$(grep -c . "$out/rmc.log" || true)
	[ "$n" -gt 100 ] || fail "Kbuild ran our recordmcount only $n times"
	[ ${#rmc_args[@]} = 0 ] || grep -q -- " ${rmc_args[*]} " "$out/recordmcount-hook" ||
		fail "the wrapper does not pass ${rmc_args[*]} to our recordmcount ($out/recordmcount-hook)"
	# The records in .rodata, the loaded copy of the strings beside them.
	recs=$("${cross}nm" "$out/vmlinux" | awk -v t="${table#__}" '$3 == "__start_" t { s = $1 } $3 == "__stop_" t { e = $1 }
		END { print s, e }')
	strs=$(section_size "$out/vmlinux" __mcount_str)
	tabsize=$(section_size "$out/vmlinux" "$table")
	othersize=$(section_size "$out/vmlinux" "$other")
	note "vmlinux: __start/__stop_${table#__} at $recs; __mcount_str $strs bytes (copied to .fgraph_str); objects recorded by our tool: $n"
	[ "$tabsize" -gt 0 ] || fail "vmlinux has no $table records (PROTOS=$protos)"
	[ "$othersize" = 0 ] || fail "vmlinux has $othersize bytes of $other too (PROTOS=$protos)"
	btf=$(btf_size "$out/vmlinux")
	note "sizes (PROTOS=$protos): $table $tabsize + __mcount_str $strs = $((tabsize + strs)) bytes;" \
		".BTF ${btf:-(pahole failed: $out/vmlinux.btf-copy.log)}${btf:+ bytes (pahole $(pahole --version) -J --btf_gen_floats on a copy of vmlinux)}"
	grep -q 'orphan section .__mcount_str' "$out/build.log" && fail "the linker still calls __mcount_str an orphan"
	grep -q "orphan section .$table" "$out/build.log" && fail "the linker calls $table an orphan"
	true
}

# The kretprobe events: "r:r1,F,ret=$retval:x64;..." (kprobe_event=; short
# names: ARM's command line holds 1024 bytes), on the functions of PROBED.
probes() {
	local f list=() i=0
	for f in "${probed[@]}"; do
		i=$((i + 1))
		list+=("r:r$i,$f,ret=\$retval:x$regbits")
	done
	local IFS=';'
	echo "${list[*]}"
}

cmdline_trace() {
	local IFS=,
	echo "console=$console ftrace=function_graph ftrace_filter=${TRACED[*]},${arch_traced[*]}" \
		"trace_options=funcgraph-retval trace_buf_size=1M kprobe_event=$(probes)" \
		"ftrace_dump_on_oops panic=-1 printk.time=1${arch_cmdline:+ $arch_cmdline}"
}

# The user boot: kernel/test/init.c in an initramfs traces binfmt_misc.ko's
# functions and seeks in a ramfs file (generic_file_llseek(), called
# through a pointer: never inlined, as vfs_llseek() is at -O2); the graph
# tracer starts on generic_file_llseek alone, init adds the module.
cmdline_user() {
	echo "console=$console rdinit=/init ftrace=function_graph ftrace_filter=generic_file_llseek" \
		"trace_options=funcgraph-retval trace_buf_size=1M ftrace_dump_on_oops panic=-1" \
		"printk.time=1${arch_cmdline:+ $arch_cmdline}"
}

cmdline_selftest() {
	echo "console=$console panic=-1 printk.time=1${arch_cmdline:+ $arch_cmdline}"
}

# Whether KVM runs the guest: a nested KVM that hangs it prints nothing
# (seen: 300 s of silence), so the image must print its banner within 60 s
# under KVM, once per run; else every boot goes under TCG, and says so.
kvm_works() {
	if [ -z "${kvm_ok:-}" ]; then
		kvm_ok=0
		# grep's status alone: qemu dies of the closed pipe once grep has its line
		(set +o pipefail; timeout 60 "${qemu[@]}" -accel kvm -nographic -no-reboot -kernel "$out/$image" \
			-append "$(cmdline_selftest)" < /dev/null 2>&1 | grep -q -m1 'Linux version') && kvm_ok=1
		[ "$kvm_ok" = 1 ] || note "KVM printed nothing in 60 s (a nested KVM that hangs the guest?): booting under TCG"
	fi
	[ "$kvm_ok" = 1 ]
}

# boot NAME CMDLINE [INITRD]: the serial console to $out/NAME.log.
boot() {
	local name=$1 cmdline=$2 accel=${QEMU_ACCEL:-tcg} t0 t1 rc=0 initrd=()
	[ -z "${3:-}" ] || initrd=(-initrd "$3")
	[ -z "${QEMU_ACCEL:-}" ] && [ "$arch" = x86_64 ] && [ -w /dev/kvm ] && kvm_works && accel=kvm
	step "$name boot under ${qemu[0]} (-accel $accel): $cmdline"
	t0=$(date +%s)
	timeout "${BOOT_TIMEOUT:-300}" "${qemu[@]}" -accel "$accel" -nographic -no-reboot \
		-kernel "$out/$image" "${initrd[@]}" -append "$cmdline" < /dev/null > "$out/$name.log" 2>&1 || rc=$?
	t1=$(date +%s)
	[ "$rc" = 124 ] && die "qemu did not stop within ${BOOT_TIMEOUT:-300} s ($out/$name.log)"
	[ "$rc" = 0 ] || die "${qemu[0]} exited with status $rc ($out/$name.log)"
	tr -d '\r' < "$out/$name.log" > "$out/$name.txt"
	note "$name boot: $((t1 - t0)) s to the panic"
}

check_selftests() {
	local log=$out/selftest.txt passed failed loaded oops
	passed=$(grep -c 'Testing .*PASSED' "$log" || true)
	# A self-test's error ("*** ... ***") and verdict may be on the next line.
	failed=$(grep -E 'FAILED|\*\*\* ' "$log" | sed 's/^\[[^]]*\] //' | tr '\n' ' ' || true)
	oops=$(grep -m1 -E 'Internal error:|Oops|BUG:|WARNING:' "$log" || true)
	[ -z "$oops" ] || broken "the self-test boot broke down: $oops ($log)"
	note "ftrace start-up self-tests: $passed PASSED ($(grep -o 'Testing tracer [a-z_]*: PASSED' "$log" | awk '{ print $3 }' | tr -d : | tr '\n' ' '))"
	[ "$passed" -gt 0 ] || fail "no ftrace self-test ran ($log)"
	[ -z "$failed" ] || broken "self-tests failed: $failed"
	grep -q 'Testing tracer function_graph: PASSED' "$log" || fail "the function_graph self-test did not pass"
	loaded=$(sed -n 's/.*fgraph_types: \(.*\)/\1/p' "$log" | head -1)
	[ -n "$loaded" ] || fail "no \"fgraph_types:\" line: the kernel found no prototype table"
	note "the series at boot: fgraph_types: $loaded"
}

# Where the unpatched kernel breaks down too (known_broken), that is checked
# in the same run: Debian's source without the series, built from the same
# options (the series' own are not there: olddefconfig drops them), booted
# the same two ways; each boot must break down as the patched kernel's did:
# the same self-tests failed with the same message, the same oops site.
# The series' fixes of the kernel's own faults go into the reference too:
# without 7.3's Thumb-2 one (patch 7) its function_graph self-test panics,
# and no later breakdown could be compared.
reference_fixes() {
	local p
	for p in ${reference_patches:-}; do
		"$top/kernel/apply.sh" --patch "$p" "$src" || die "reference: $p does not apply"
	done
}

reference() {
	local psrc=$src pout=$out name
	src=$work/reference/linux-source-$version out=$work/out-$arch-reference
	if [ "$build" = 1 ]; then
		# the marker names the fixes applied: a cache made with others is redone
		if [ "$(cat "$src/.kernel-series-reference" 2>/dev/null)" != "fixes: ${reference_patches:-}" ]; then
			rm -rf "$work/reference"
			mkdir -p "$work/reference"
			step "reference: the source without the series"
			extract "$work/reference"
			force_recordmcount
			reference_fixes
			echo "fixes: ${reference_patches:-}" > "$src/.kernel-series-reference"
		fi
		configure reference
		install_wrapper
		build_kernel
	fi
	[ -f "$out/.kernel-series-test-built" ] || die "no finished reference build in $out (run without --no-build)"
	boot reference-selftest "$(cmdline_selftest)"
	boot reference-trace "$(cmdline_trace)"
	src=$psrc
	for name in selftest trace; do
		breakdown "$out/reference-$name.txt" > "$pout/$name.reference-breakdown"
		breakdown "$pout/$name.txt" > "$pout/$name.breakdown"
		if ! [ -s "$pout/$name.breakdown" ]; then
			note "$name boot: no breakdown with the series"
		elif cmp -s "$pout/$name.breakdown" "$pout/$name.reference-breakdown"; then
			note "$name boot breaks down as the unpatched kernel's does (same .config, this run):" \
				"$(tr '\n' ';' < "$pout/$name.breakdown")"
		else
			fail "$name boot: the series changes the breakdown: with it \"$(tr '\n' ';' < "$pout/$name.breakdown")\"," \
				"without it \"$(tr '\n' ';' < "$pout/$name.reference-breakdown")\""
		fi
	done
	out=$pout
}

# How a boot's console says it broke down: failed self-tests and the first
# oops's site, one per line.
breakdown() {
	{
		grep -oE 'Testing [^:]+: \*\*\* [^*]+' "$1" | sed 's/ *$//'
		grep -m1 -oE 'PC is at [^+ ]+' "$1"
	} || true
}

# The user boot's initramfs: init (static), the module, and on machines
# whose kretprobes work beside the graph tracer the kretprobes init adds on
# the module's functions (for compare).
make_initramfs() {
	local list=$out/user.list
	step "initramfs: kernel/test/init.c, fs/binfmt_misc.ko"
	"${cross}gcc" -static -O2 -Wall -Wextra -Werror -o "$out/user-init" "$top/kernel/test/init.c" ||
		die "kernel/test/init.c does not build (${cross}gcc -static)"
	cc -O2 -o "$out/gen_init_cpio" "$src/usr/gen_init_cpio.c" || die "usr/gen_init_cpio.c does not build"
	[ -f "$out/fs/binfmt_misc.ko" ] || die "$out/fs/binfmt_misc.ko was not built"
	cat > "$list" <<-EOF
	dir /dev 0755 0 0
	nod /dev/console 0600 0 0 c 5 1
	file /init $out/user-init 0755 0 0
	file /binfmt_misc.ko $out/fs/binfmt_misc.ko 0644 0 0
	EOF
	if [ -n "$user_probed" ]; then
		local f i=0
		for f in $user_probed; do
			i=$((i + 1))
			echo "r:u$i $f ret=\$retval:x$regbits"
		done > "$out/user.probes"
		echo "file /probes $out/user.probes 0644 0 0" >> "$list"
	fi
	"$out/gen_init_cpio" "$list" > "$out/user.cpio" || die "gen_init_cpio failed ($list)"
}

# The return lines of $out/NAME.dump as "FUNCTION VALUE" (VALUE "-" for none;
# FUNCTION without a module's " [module]").
return_values() {
	awk -v mark="$retval_mark" '{
		if (match($0, "\\| +[A-Za-z0-9_.$]+( \\[[A-Za-z0-9_]+\\])?\\(\\);( /\\*" mark "[^*]+ \\*/)?$")) {
			m = substr($0, RSTART); sub(/^\| +/, "", m); f = m; sub(/( \[.*)?\(\).*/, "", f)
		} else if (match($0, "\\| +\\} /\\* [A-Za-z0-9_.$]+( \\[[A-Za-z0-9_]+\\])?(" mark "[^*]+)? \\*/$")) {
			m = substr($0, RSTART); sub(/^\| +\} \/\* /, "", m); f = m; sub(/[ ].*/, "", f)
		} else next
		v = "-"
		if (match(m, mark "[^*]+ \\*/$")) { v = substr(m, RSTART + length(mark)); sub(/ \*\/$/, "", v) }
		print f, v
	}' "$out/$1.dump"
}

# The user boot: init's calls all worked; every return of the module's
# functions is typed (the loader loaded its table); the values init got
# back are those the kernel printed, the 64-bit ones included (r0:r1 on
# 32-bit ARM); on x86_64 the kretprobe pairs through annotate as well.
check_user() {
	local mod=$out/fs/binfmt_misc.ko rv=$out/user.returns f v got n=0 total typed
	sed -n 's/.*\(kernel-series-init: .*\)/\1/p' "$out/user.txt" > "$out/user.init"
	grep -q '^kernel-series-init: done, 0 failures$' "$out/user.init" ||
		fail "user boot: init did not finish cleanly: $(grep -E 'FAILED|done' "$out/user.init" | head -3 | tr '\n' ' ')"
	return_values user > "$rv"
	"${cross}nm" --defined-only "$mod" | awk '$2 ~ /^[tT]$/ { print $3 }' | sort -u > "$out/user.modfuncs"
	total=$(awk 'NR == FNR { m[$1] = 1; next } $1 in m' "$out/user.modfuncs" "$rv" | grep -c . || true)
	typed=$(awk 'NR == FNR { m[$1] = 1; next } $1 in m && $2 !~ /\?$/' "$out/user.modfuncs" "$rv" | grep -c . || true)
	note "user boot: binfmt_misc.ko: $total return lines of its functions, $typed typed from its table" \
		"($(awk 'NR == FNR { m[$1] = 1; next } $1 in m { print $1 }' "$out/user.modfuncs" "$rv" | sort -u | grep -c . || true) functions)"
	[ "$total" -gt 0 ] || fail "user boot: no return line of a binfmt_misc.ko function in the trace"
	[ "$typed" = "$total" ] || fail "user boot: $((total - typed)) return lines of binfmt_misc.ko untyped (marked '?')"
	# init's values, function by function, against the last returns of each:
	# "F VALUE PRINTED".
	while read -r f v got; do
		n=$((n + 1))
		if [ "$got" = "$v" ] || [[ $got =~ ^"$v"\ \([A-Z0-9]+\)$ ]]; then
			note "user boot: $f returned $v to init; the kernel printed \"$got\""
		else
			fail "user boot: $f returned $v to init, but the kernel printed \"$got\""
		fi
	done < <(awk 'NR == FNR { if (sub(/^kernel-series-init: /, "") && $2 == "=") { f[++n] = $1; v[n] = $3; k[$1]++ }; next }
		{ c[$1]++; r[$1, c[$1]] = substr($0, length($1) + 2) }
		END { for (i = 1; i <= n; i++) { j = c[f[i]] - k[f[i]] + ++seen[f[i]]
			print f[i], v[i], (j >= 1 ? r[f[i], j] : "(missing)") } }' "$out/user.init" "$rv")
	[ "$n" -gt 0 ] || fail "user boot: init reported no value"
	if [ -n "$user_probed" ]; then
		compare user --image "$mod"
	else
		kinds user
	fi
}

# extract_trace NAME: the dump of boot NAME, as kernel-retval-test.sh takes
# it, in $out/NAME.dump.
extract_trace() {
	local name=$1 oops
	oops=$(grep -m1 -E 'Internal error:|Oops|BUG:|WARNING:' "$out/$name.txt" || true)
	[ -z "$oops" ] || broken "the $name boot broke down: $oops ($out/$name.txt)"
	awk '/\] Dumping ftrace buffer:$/ { on = 1 } on { print } on && /\] -+$/ && ++d == 2 { exit }' \
		"$out/$name.txt" > "$out/$name.dump"
	[ -s "$out/$name.dump" ] || die "no \"Dumping ftrace buffer:\" on the console ($out/$name.txt)"
	note "$name trace: $(grep -c . "$out/$name.dump") lines; $(grep -c ' ret=0x' "$out/$name.dump" || true) kretprobe events"
}

# The pairs: each return line of F next to a kretprobe event of F (before or
# after it) in $out/NAME.dump.  Writes $out/NAME.pairs.kernel (the kernel's
# lines) and $out/NAME.pairs.unpatched (each rebuilt in the unpatched format
# from the raw value), line for line.
pair_lines() {
	local name=$1
	awk -v bits="$regbits" -v mark="$retval_mark" -v K="$out/$name.pairs.kernel" -v U="$out/$name.pairs.unpatched" '
	# The unpatched print_graph_retval(): hex, or %ld when the value (a
	# 32-bit one sign-extended on a 64-bit kernel) is an errno.
	function unpatched(h,   d, n, last3) {
		d = substr(h, 3); sub(/^0+/, "", d); n = length(d)
		if (n == 0) return "0x0"
		last3 = substr(d, n - 2)
		if (((bits == 64 && n == 16 && substr(d, 1, 13) == "fffffffffffff") ||
		     (n == 8 && substr(d, 1, 5) == "fffff")) && last3 != "000")
			return "-" (4096 - hex3(last3))
		return "0x" d
	}
	function hex3(s,   i, v) {
		v = 0
		for (i = 1; i <= 3; i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	# A return line: sets rname (the function as printed: a module'"'"'s
	# with " [module]"), rfunc (its name alone), rprefix (up to the function
	# part), rleaf.
	function return_line(l,   m) {
		if (match(l, "\\| +[A-Za-z0-9_.$]+( \\[[A-Za-z0-9_]+\\])?\\(\\);( /\\*" mark "[^*]+ \\*/)?$")) {
			m = substr(l, RSTART); sub(/^\| +/, "", m); rname = m; sub(/\(\).*/, "", rname); rleaf = 1
		} else if (match(l, "\\| +\\} /\\* [A-Za-z0-9_.$]+( \\[[A-Za-z0-9_]+\\])?(" mark "[^*]+)? \\*/$")) {
			m = substr(l, RSTART); sub(/^\| +/, "", m); rname = m; sub(/^\} \/\* /, "", rname)
			sub("(" mark "[^*]+)? \\*/$", "", rname); rleaf = 0
		} else
			return 0
		rfunc = rname; sub(/ \[.*/, "", rfunc)
		rprefix = substr(l, 1, length(l) - length(m))
		return 1
	}
	function emit(line, prefix, f, leaf, raw,   v) {
		v = unpatched(raw)
		print line > K
		print prefix (leaf ? f "(); /*" mark v " */" : "} /* " f mark v " */") > U
		pairs++
	}
	{
		if (match($0, / <- [A-Za-z0-9_.$]+\) ret=0x[0-9a-f]+ \*\/$/)) {
			pf = substr($0, RSTART + 4); sub(/\).*/, "", pf)
			pr = $0; sub(/.* ret=/, "", pr); sub(/ .*/, "", pr)
			if (lastf == pf && lastn == NR - 1) { emit(lastl, lastp, lastname, lastleaf, pr); lastf = "" }
			else { pendf = pf; pendr = pr; pendn = NR }
			next
		}
		if (return_line($0)) {
			if (pendf == rfunc && pendn == NR - 1) { emit($0, rprefix, rname, rleaf, pendr); pendf = ""; next }
			lastf = rfunc; lastname = rname; lastl = $0; lastp = rprefix; lastleaf = rleaf; lastn = NR
		}
	}
	END { print pairs + 0 }' "$out/$name.dump"
}

# compare NAME [--image M.ko]...: the pairs of boot NAME through annotate.
compare() {
	local name=$1 n same=0 diffs=0 wide=0 k u p=$out/$1.pairs
	shift
	: > "$p.kernel"
	: > "$p.unpatched"
	n=$(pair_lines "$name")
	note "$name boot: return lines paired with their raw value (kretprobe): $n"
	[ "$n" -gt 0 ] || { fail "$name boot: no return line had its kretprobe event next to it"; return; }
	"$objpatch" annotate --image "$out/vmlinux" "$@" "$p.unpatched" > "$p.annotated" 2> "$out/$name.annotate.err" ||
		fail "objpatch annotate failed: $(head -3 "$out/$name.annotate.err")"
	: > "$p.diff"
	while IFS= read -r k && IFS= read -r u <&3; do
		if [ "$k" = "$u" ]; then
			same=$((same + 1))
		elif [ "$arch" = arm ] && [[ $u == *"?"* ]] && [[ $k != *"?"* ]]; then
			wide=$((wide + 1))	# r0:r1: typed by the kernel, one register for annotate
			printf 'kernel:   %s\nannotate: %s\n' "$k" "$u" >> "$p.wide"
		else
			diffs=$((diffs + 1))
			printf 'kernel:   %s\nannotate: %s\n' "$k" "$u" >> "$p.diff"
		fi
	done < "$p.kernel" 3< "$p.annotated"
	note "$name boot: kernel's typed line identical to objpatch annotate of the unpatched line: $same of $n${wide:+ ($wide 64-bit values typed from r0:r1 by the kernel only)}"
	[ "$diffs" = 0 ] || { fail "$name boot: $diffs lines differ ($p.diff):"; head -6 "$p.diff" >&2; }
	kinds "$name"
}

# kinds NAME: what the kernel printed in the trace of boot NAME, by kind.
kinds() {
	local d=$out/$1.dump
	note "$1 boot: the kernel's trace: $(grep -cE '\(\);$|\} /\* [A-Za-z0-9_.]+( \[[A-Za-z0-9_]+\])? \*/$' "$d" || true) void returns (no value)," \
		"$(grep -cE "${retval_mark}(true|false) \\*/" "$d" || true) bool," \
		"$(grep -cE "${retval_mark}-[0-9]+ \\([A-Z0-9]+\\) \\*/" "$d" || true) errno names," \
		"$(grep -cE "${retval_mark}IRQ_[A-Z_]+ \\*/" "$d" || true) enumerators," \
		"$(grep -cE "${retval_mark}[^ ]+\\? \\*/" "$d" || true) marked '?'"
}

need_packages qemu-system-x86 qemu-system-arm gcc-arm-linux-gnueabihf dwarves
for tool in "$rmc" "$objpatch"; do
	[ -x "$tool" ] || die "$tool not built (make -j2 build/recordmcount build/objpatch)"
done
arch=
if [ "$build" = 1 ]; then
	prepare_source
	for p in "$work"/patches/*.patch; do
		if perl "$src/scripts/checkpatch.pl" --no-tree -q "$p" > "$p.checkpatch" 2>&1; then
			summary+=("checkpatch.pl --no-tree: $(basename "$p"): clean")
		else
			failures+=("checkpatch.pl --no-tree $(basename "$p"): $(grep -c '^\(ERROR\|WARNING\)' "$p.checkpatch") findings ($p.checkpatch)")
		fi
	done
fi
for a in "${arches[@]}"; do
	setup_arch "$a"
	if [ "$build" = 1 ]; then
		configure
		install_wrapper
		build_kernel
	fi
	[ -f "$out/.kernel-series-test-built" ] || die "no finished build in $out (run without --no-build)"
	check_build
	boot selftest "$(cmdline_selftest)"
	check_selftests
	boot trace "$(cmdline_trace)"
	extract_trace trace
	compare trace
	make_initramfs
	boot user "$(cmdline_user)" "$out/user.cpio"
	extract_trace user
	check_user
	[ -z "$known_broken" ] || reference
done

echo
echo "kernel-series-test: summary (linux-source-$version with kernel/series, PROTOS=$protos: ${arches[*]}; trees in $work)"
printf '  %s\n' "${summary[@]}"
if [ ${#failures[@]} -gt 0 ]; then
	echo "kernel-series-test: ${#failures[@]} failure(s):"
	printf '  %s\n' "${failures[@]}"
	exit 1
fi
echo "kernel-series-test: all checks passed"
