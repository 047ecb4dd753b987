#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The kernel prints typed return values itself (issue 22, part 2).  Applies
# the series in kernel/ to Debian's linux-source-6.12 (kernel/apply.sh),
# builds it with OUR recordmcount as Kbuild's recorder (as
# scripts/kernel-retval-test.sh does: the same Kconfig forcing and wrapper on
# x86_64) plus FUNCTION_GRAPH_RETVAL_TYPES, FTRACE_STARTUP_TEST and kprobe
# events, and boots it twice under qemu:
#
#   1. the self-test boot: no tracer on the command line (a boot tracer turns
#      the self-tests off), so every configured tracer runs its start-up
#      self-test; all must print PASSED, none FAILED, and the series' table
#      must be loaded ("fgraph_types: N functions").
#   2. the trace boot: the graph tracer with funcgraph-retval on the functions
#      of TRACED, and a kretprobe event on each of them whose argument is the
#      raw return register ("r:r1,F,ret=$retval:x64"), all in the one trace
#      buffer that ftrace_dump_on_oops prints at the panic.
#
# The check: every return line the kernel printed (typed by the series) that
# has its kretprobe event next to it is rebuilt in the unpatched 6.12 format
# from the event's raw value ("f(); /* = 0x1 */", "} /* f = -22 */": hex, or
# decimal for an errno), those lines go through `objpatch annotate --image
# vmlinux`, and each must come out identical to the kernel's line.  On
# 32-bit ARM the kernel also types 64-bit values (r0:r1), which annotate,
# reading one register, marks '?': those are counted, not failures.
#
# ARM: a v7-A Thumb-2 kernel for qemu-system-arm -M virt (cortex-a15),
# arm-linux-gnueabihf-gcc, -pg calls to __gnu_mcount_nc recorded by our tool
# through the kernel's own cmd_record_mcount (the wrapper as on x86_64).
#
# Usage:  make kernel-series-test      (same as scripts/kernel-series-test.sh)
#         scripts/kernel-series-test.sh [--no-build] [x86_64] [arm]
# Environment: JOBS (default 2), KERNEL_SERIES_DIR (default
# build/kernel-series), LINUX_SOURCE_TARBALL (default
# /usr/src/linux-source-6.12.tar.xz), LINUX_SOURCE_TREE (an extracted 6.12
# tree to copy instead of extracting the tarball; it must not be patched),
# BOOT_TIMEOUT (default 300 s).  Needs build/recordmcount, build/objpatch,
# qemu-system-x86, qemu-system-arm, gcc-arm-linux-gnueabihf.  Not in make
# check.  Exits 1 on any failure.  Time, from the tarball on this project's
# 2-core machine (idle): 13 minutes, 1,419 s of CPU (x86_64 build 7 min,
# ARM 4 min, the four boots under a minute); the trees take 2.3 GB.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
work=${KERNEL_SERIES_DIR:-$top/build/kernel-series}
tarball=${LINUX_SOURCE_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
jobs=${JOBS:-2}
rmc=$top/build/recordmcount
objpatch=$top/build/objpatch
src=$work/linux-source-6.12

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
	-e MODULES -e MODULE_UNLOAD
	-e FTRACE -e FUNCTION_TRACER -e FUNCTION_GRAPH_TRACER -e FUNCTION_GRAPH_RETVAL -e DYNAMIC_FTRACE
	-e FUNCTION_GRAPH_RETVAL_TYPES
	-e FTRACE_STARTUP_TEST -d EVENT_TRACE_STARTUP_TEST -e KPROBES -e KPROBE_EVENTS
	-e DEBUG_KERNEL -d DEBUG_INFO_NONE -e DEBUG_INFO_DWARF5 -d DEBUG_INFO_REDUCED -d DEBUG_INFO_BTF
	-m BINFMT_MISC -m AUTOFS_FS -m CONFIGFS_FS
)
CONFIG_WANT='CONFIG_FUNCTION_GRAPH_TRACER=y CONFIG_FUNCTION_GRAPH_RETVAL=y CONFIG_FUNCTION_GRAPH_RETVAL_TYPES=y
CONFIG_DYNAMIC_FTRACE=y CONFIG_FTRACE_MCOUNT_RECORD=y CONFIG_DEBUG_INFO_DWARF5=y CONFIG_FTRACE_STARTUP_TEST=y
CONFIG_KPROBE_EVENTS=y CONFIG_SYMBOLIC_ERRNAME=y CONFIG_FTRACE_MCOUNT_USE_RECORDMCOUNT=y'

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
		arch_traced=(rtc_cmos_read)
		probed=("${TRACED[@]}" "${arch_traced[@]}")
		known_broken=
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
		known_broken="the unpatched kernel breaks down the same (kernel/README)"
		arch_cmdline=""
		;;
	esac
}

# broken WHAT: a failure, or on a machine whose unpatched kernel breaks
# down the same, a note saying so.
broken() {
	if [ -n "$known_broken" ]; then note "KNOWN: $* ($known_broken)"; else fail "$*"; fi
}

kmake() { local o=$1; shift; nice -n 19 make -s -C "$src" O="$o" ARCH="$karch" CROSS_COMPILE="$cross" "$@"; }

# The source, patched once for both machines.
prepare_source() {
	if [ -f "$src/.kernel-series-applied" ]; then return; fi
	rm -rf "$src"
	mkdir -p "$work"
	if [ -n "${LINUX_SOURCE_TREE:-}" ]; then
		step "copying $LINUX_SOURCE_TREE"
		cp -a "$LINUX_SOURCE_TREE" "$src"
		rm -f "$src"/.kernel-retval-test-*
	else
		[ -f "$tarball" ] || die "$tarball not found (apt-get install linux-source-6.12)"
		step "extracting $tarball"
		tar -C "$work" -xJf "$tarball"
	fi
	force_recordmcount
	step "applying the series (kernel/apply.sh --diffs $work/patches)"
	rm -rf "$work/patches"
	"$top/kernel/apply.sh" --diffs "$work/patches" "$src"
}

# x86_64 picks objtool or the compiler as its recorder; as in
# kernel-retval-test.sh, their def_bool y become n (a harness change, not
# part of the series; it changes nothing on ARM).
force_recordmcount() {
	local k=$src/kernel/trace/Kconfig sym
	for sym in FTRACE_MCOUNT_USE_CC FTRACE_MCOUNT_USE_OBJTOOL; do
		if grep -A3 "^config $sym\$" "$k" | grep -q '^	def_bool n$'; then continue; fi
		awk -v sym="$sym" '
			$0 == "config " sym { inside = 1 }
			inside && /^\tdef_bool y$/ { sub(/y$/, "n"); inside = 0; done = 1 }
			/^config / && $0 != "config " sym { inside = 0 }
			{ print }
			END { exit !done }' "$k" > "$k.new" || die "kernel/trace/Kconfig: no 'def_bool y' under 'config $sym'"
		mv "$k.new" "$k"
	done
}

configure() {
	local want
	step "configuring (tinyconfig + $((${#CONFIG_OPTS[@]} + ${#arch_opts[@]})) scripts/config arguments)"
	rm -rf "$out"
	mkdir -p "$out"
	kmake "$out" tinyconfig > /dev/null
	"$src/scripts/config" --file "$out/.config" "${CONFIG_OPTS[@]}" "${arch_opts[@]}"
	kmake "$out" olddefconfig > /dev/null
	for want in $CONFIG_WANT $arch_want; do
		grep -qx "$want" "$out/.config" || fail ".config lacks $want"
	done
	[ ${#failures[@]} -eq 0 ] || exit 1
}

# As in kernel-retval-test.sh: a wrapper that logs and runs a snapshot of
# our tool replaces scripts/recordmcount after `make prepare`.
install_wrapper() {
	step "make prepare"
	kmake "$out" prepare
	[ -x "$out/scripts/recordmcount" ] || die "make prepare did not build scripts/recordmcount"
	cp "$rmc" "$out/our-recordmcount"
	rm -f "$out/rmc.log"
	cat > "$out/recordmcount-hook" <<-EOF
	#!/bin/sh
	# kernel-series-test.sh: log, run our recordmcount.
	echo "\$*" >> "$out/rmc.log"
	exec "$out/our-recordmcount" "\$@"
	EOF
	chmod 755 "$out/recordmcount-hook"
	cp "$out/recordmcount-hook" "$out/scripts/recordmcount.new"
	mv "$out/scripts/recordmcount.new" "$out/scripts/recordmcount"
}

build_kernel() {
	local t0 t1
	step "make -j$jobs $(basename "$image") modules (nice -n 19)"
	t0=$(date +%s)
	if ! /usr/bin/time -o "$out/build.time" -f '%U %S' nice -n 19 \
			make -s -C "$src" O="$out" ARCH="$karch" CROSS_COMPILE="$cross" -j"$jobs" \
			"$(basename "$image")" modules > "$out/build.log" 2>&1; then
		tail -30 "$out/build.log" >&2
		die "kernel build failed (log: $out/build.log)"
	fi
	t1=$(date +%s)
	echo "$(((t1 - t0 + 30) / 60)) min ($((t1 - t0)) s), CPU $(awk '{ printf "%.0f", $1 + $2 }' "$out/build.time") s" > "$out/build.seconds"
	cmp -s "$out/scripts/recordmcount" "$out/recordmcount-hook" ||
		die "scripts/recordmcount is no longer our wrapper: Kbuild rebuilt it"
	touch "$out/.kernel-series-test-built"
}

check_build() {
	local n recs strs
	note "build: $(cat "$out/build.seconds") (-j$jobs, nice -n 19; wall and CPU)"
	n=$(grep -c . "$out/rmc.log" || true)
	[ "$n" -gt 100 ] || fail "Kbuild ran our recordmcount only $n times"
	# The records in .rodata, the loaded copy of the strings beside them.
	recs=$("${cross}nm" "$out/vmlinux" | awk '$3 == "__start_mcount_proto" { s = $1 } $3 == "__stop_mcount_proto" { e = $1 }
		END { print s, e }')
	strs=$("${cross}readelf" -SW "$out/vmlinux" | awk '{ sub(/^ *\[ *[0-9]+\] /, "") } $1 == "__mcount_str" { print $5 }')
	note "vmlinux: __start/__stop_mcount_proto at $recs; __mcount_str 0x$strs bytes (copied to .fgraph_str); objects recorded by our tool: $n"
	grep -q 'orphan section .__mcount_str' "$out/build.log" && fail "the linker still calls __mcount_str an orphan"
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

cmdline_selftest() {
	echo "console=$console panic=-1 printk.time=1${arch_cmdline:+ $arch_cmdline}"
}

# boot NAME CMDLINE: the serial console to $out/NAME.log.
boot() {
	local name=$1 cmdline=$2 accel=tcg t0 t1 rc=0
	[ "$arch" = x86_64 ] && [ -w /dev/kvm ] && accel=kvm
	step "$name boot under ${qemu[0]} (-accel $accel): $cmdline"
	t0=$(date +%s)
	timeout "${BOOT_TIMEOUT:-300}" "${qemu[@]}" -accel "$accel" -nographic -no-reboot \
		-kernel "$out/$image" -append "$cmdline" < /dev/null > "$out/$name.log" 2>&1 || rc=$?
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

# The dump, as kernel-retval-test.sh takes it.
extract_trace() {
	local oops
	oops=$(grep -m1 -E 'Internal error:|Oops|BUG:|WARNING:' "$out/trace.txt" || true)
	[ -z "$oops" ] || broken "the trace boot broke down: $oops ($out/trace.txt)"
	awk '/\] Dumping ftrace buffer:$/ { on = 1 } on { print } on && /\] -+$/ && ++d == 2 { exit }' \
		"$out/trace.txt" > "$out/dump.txt"
	[ -s "$out/dump.txt" ] || die "no \"Dumping ftrace buffer:\" on the console ($out/trace.txt)"
	note "trace: $(grep -c . "$out/dump.txt") lines; $(grep -c ' ret=0x' "$out/dump.txt" || true) kretprobe events"
}

# The pairs: each return line of F next to a kretprobe event of F (before or
# after it).  Writes $out/pairs.kernel (the kernel's lines) and
# $out/pairs.unpatched (each rebuilt in the unpatched format from the raw
# value), line for line.
pair_lines() {
	awk -v bits="$regbits" -v K="$out/pairs.kernel" -v U="$out/pairs.unpatched" '
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
	# A return line: sets rfunc, rprefix (up to the function part), rleaf.
	function return_line(l,   m) {
		if (match(l, /\| +[A-Za-z0-9_.$]+\(\);( \/\* = [^*]+ \*\/)?$/)) {
			m = substr(l, RSTART); sub(/^\| +/, "", m); rfunc = m; sub(/\(\).*/, "", rfunc)
			rprefix = substr(l, 1, length(l) - length(m)); rleaf = 1; return 1
		}
		if (match(l, /\| +\} \/\* [A-Za-z0-9_.$]+( = [^*]+)? \*\/$/)) {
			m = substr(l, RSTART); sub(/^\| +/, "", m); rfunc = m; sub(/^\} \/\* /, "", rfunc); sub(/[ ].*/, "", rfunc)
			rprefix = substr(l, 1, length(l) - length(m)); rleaf = 0; return 1
		}
		return 0
	}
	function emit(line, prefix, f, leaf, raw,   v) {
		v = unpatched(raw)
		print line > K
		print prefix (leaf ? f "(); /* = " v " */" : "} /* " f " = " v " */") > U
		pairs++
	}
	{
		if (match($0, / <- [A-Za-z0-9_.$]+\) ret=0x[0-9a-f]+ \*\/$/)) {
			pf = substr($0, RSTART + 4); sub(/\).*/, "", pf)
			pr = $0; sub(/.* ret=/, "", pr); sub(/ .*/, "", pr)
			if (lastf == pf && lastn == NR - 1) { emit(lastl, lastp, lastf, lastleaf, pr); lastf = "" }
			else { pendf = pf; pendr = pr; pendn = NR }
			next
		}
		if (return_line($0)) {
			if (pendf == rfunc && pendn == NR - 1) { emit($0, rprefix, rfunc, rleaf, pendr); pendf = ""; next }
			lastf = rfunc; lastl = $0; lastp = rprefix; lastleaf = rleaf; lastn = NR
		}
	}
	END { print pairs + 0 }' "$out/dump.txt"
}

compare() {
	local n same=0 diffs=0 wide=0 k u
	: > "$out/pairs.kernel"
	: > "$out/pairs.unpatched"
	n=$(pair_lines)
	note "return lines paired with their raw value (kretprobe): $n"
	[ "$n" -gt 0 ] || { fail "no return line had its kretprobe event next to it"; return; }
	"$objpatch" annotate --image "$out/vmlinux" "$out/pairs.unpatched" > "$out/pairs.annotated" 2> "$out/annotate.err" ||
		fail "objpatch annotate failed: $(head -3 "$out/annotate.err")"
	: > "$out/pairs.diff"
	while IFS= read -r k && IFS= read -r u <&3; do
		if [ "$k" = "$u" ]; then
			same=$((same + 1))
		elif [ "$arch" = arm ] && [[ $u == *"?"* ]] && [[ $k != *"?"* ]]; then
			wide=$((wide + 1))	# r0:r1: typed by the kernel, one register for annotate
			printf 'kernel:   %s\nannotate: %s\n' "$k" "$u" >> "$out/pairs.wide"
		else
			diffs=$((diffs + 1))
			printf 'kernel:   %s\nannotate: %s\n' "$k" "$u" >> "$out/pairs.diff"
		fi
	done < "$out/pairs.kernel" 3< "$out/pairs.annotated"
	note "kernel's typed line identical to objpatch annotate of the unpatched line: $same of $n${wide:+ ($wide 64-bit values typed from r0:r1 by the kernel only)}"
	[ "$diffs" = 0 ] || { fail "$diffs lines differ ($out/pairs.diff):"; head -6 "$out/pairs.diff" >&2; }
	# What the kernel printed, by kind.
	note "the kernel's trace: $(grep -cE '\(\);$|\} /\* [A-Za-z0-9_.]+ \*/$' "$out/dump.txt" || true) void returns (no value)," \
		"$(grep -cE '= (true|false) \*/' "$out/dump.txt" || true) bool," \
		"$(grep -cE '= -[0-9]+ \([A-Z0-9]+\) \*/' "$out/dump.txt" || true) errno names," \
		"$(grep -cE '= IRQ_[A-Z_]+ \*/' "$out/dump.txt" || true) enumerators," \
		"$(grep -cE '= [^ ]+\? \*/' "$out/dump.txt" || true) marked '?'"
}

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
	extract_trace
	compare
done

echo
echo "kernel-series-test: summary (linux-source-6.12 with kernel/series: ${arches[*]}; trees in $work)"
printf '  %s\n' "${summary[@]}"
if [ ${#failures[@]} -gt 0 ]; then
	echo "kernel-series-test: ${#failures[@]} failure(s):"
	printf '  %s\n' "${failures[@]}"
	exit 1
fi
echo "kernel-series-test: all checks passed"
