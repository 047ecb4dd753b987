#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Kbuild integration on a real kernel.  Builds Debian's linux-source-6.1 for
# 32-bit ARM (arm-linux-gnueabihf-gcc, ARM mode, -pg calls to __gnu_mcount_nc)
# from tinyconfig plus FUNCTION_TRACER, DYNAMIC_FTRACE, DEBUG_INFO_DWARF5 and
# a few modules, twice: once with OUR recordmcount run by Kbuild on every
# object, once with the kernel's own scripts/recordmcount (the reference).
# Then checks:
#
#   * Kbuild ran our tool and never the kernel's: a logging wrapper replaces
#     scripts/recordmcount after `make prepare` (Kbuild does not rebuild it:
#     it is newer than recordmcount.c and its command line is unchanged) and
#     is still there, unchanged, after the build; every object compiled with
#     calls to the hook got a __mcount_loc table;
#   * `recordmcount --list vmlinux` is exactly the set of `bl __gnu_mcount_nc`
#     in `objdump -d vmlinux`, one per function; each .ko's list is exactly
#     its relocations against the hook;
#   * `recordmcount --check`: every .ko is clean; on vmlinux the only findings
#     are the stale entries of overridden weak functions (their code stays,
#     no symbol covers it), exactly those it finds in the reference vmlinux,
#     and a copy is clean after `--check --fix`;
#   * per object: every object as the compiler wrote it (the wrapper keeps a
#     copy) recorded by the kernel's tool and by ours gives the same --list;
#   * whole build: vmlinux and every .ko have the same --list in both builds,
#     and the loaded image (objcopy -O binary -R .notes vmlinux: all but the
#     build ID, which also hashes our non-allocated tables) is byte-identical;
#   * warnings: recordmcount -w lines, linker orphan-section warnings and
#     modpost warnings are counted (the prototype tables __mcount_proto and
#     __mcount_str are sections the kernel's linker script does not name).
#
# Usage:  make kbuild-test            (same as scripts/kbuild-test.sh)
#         scripts/kbuild-test.sh --checks-only   re-run the checks on the last builds
# Environment: JOBS (default 2), KBUILD_TEST_DIR (default build/kbuild),
# LINUX_SOURCE_TARBALL (default /usr/src/linux-source-6.1.tar.xz).
# Needs gcc-arm-linux-gnueabihf, flex, bison, bc (scripts/deps.sh) and
# build/recordmcount (make).  About 8 minutes on 2 idle cores (two builds of
# about 3 minutes each, then a minute of checks); the trees (about 1.9 GB with
# the extracted source) stay in build/kbuild/ for inspection.  Prints a
# summary; exits 1 on any failure.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
work=${KBUILD_TEST_DIR:-$top/build/kbuild}
tarball=${LINUX_SOURCE_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
jobs=${JOBS:-2}
rmc=$top/build/recordmcount
arch=arm
cross=arm-linux-gnueabihf-
hook=__gnu_mcount_nc
src=$work/linux-source-6.1
out=$work/out-$arch
ref=$work/out-$arch-ref

# Both builds must differ only by the recordmcount they run.
export KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 2026' KBUILD_BUILD_USER=kbuild-test \
	KBUILD_BUILD_HOST=kbuild-test KBUILD_BUILD_VERSION=1
kmake() { local o=$1; shift; make -s -C "$src" O="$o" ARCH="$arch" CROSS_COMPILE="$cross" "$@"; }

checks_only=0
case ${1:-} in
--checks-only) checks_only=1 ;;
"") ;;
*) echo "usage: $0 [--checks-only]" >&2; exit 2 ;;
esac

failures=()
summary=()
fail() { failures+=("$*"); echo "kbuild-test: FAIL: $*" >&2; }
note() { summary+=("$*"); echo "kbuild-test: $*"; }
step() { echo "kbuild-test: == $*"; }
count() { grep -c . "$@" || true; }
relpath() { echo "${1#"$out"/}"; }

# The options on top of tinyconfig.  ARM's tinyconfig is a no-MMU Thumb-2 v7-M
# kernel, where DYNAMIC_FTRACE is unavailable, so a v7-A virt machine in ARM
# mode is asked for.  lib/ is built without -pg (ccflags-remove), so its
# modules have no table; fs/ and lib/xz/ are traced, and autofs4, configfs and
# xz_dec are made of several objects.
CONFIG_OPTS=(
	-e MMU -e ARCH_MULTIPLATFORM -e ARCH_MULTI_V7 -e ARCH_VIRT -d THUMB2_KERNEL
	-e PRINTK -e BINFMT_ELF
	-e MODULES -e MODULE_UNLOAD
	-e FTRACE -e FUNCTION_TRACER -e DYNAMIC_FTRACE
	-e DEBUG_KERNEL -d DEBUG_INFO_NONE -e DEBUG_INFO_DWARF5 -d DEBUG_INFO_REDUCED -d DEBUG_INFO_BTF
	-m BINFMT_MISC -m AUTOFS_FS -m CONFIGFS_FS -m XZ_DEC -m CRC7 -m CRC8
)
# What must hold in the final .config for the test to mean anything.
CONFIG_WANT='CONFIG_MMU=y CONFIG_FUNCTION_TRACER=y CONFIG_DYNAMIC_FTRACE=y CONFIG_FTRACE_MCOUNT_RECORD=y
CONFIG_FTRACE_MCOUNT_USE_RECORDMCOUNT=y CONFIG_HAVE_C_RECORDMCOUNT=y CONFIG_DEBUG_INFO_DWARF5=y
CONFIG_MODULES=y CONFIG_BINFMT_MISC=m CONFIG_AUTOFS_FS=m CONFIG_CONFIGFS_FS=m CONFIG_XZ_DEC=m CONFIG_CRC7=m'

extract() {
	if [ -f "$src/.kbuild-test-extracted" ]; then return; fi
	[ -f "$tarball" ] || { echo "kbuild-test: $tarball not found (install linux-source-6.1)" >&2; exit 1; }
	step "extracting $tarball"
	rm -rf "$src"
	mkdir -p "$work"
	tar -C "$work" -xJf "$tarball"
	touch "$src/.kbuild-test-extracted"
}

configure() {
	local want
	step "configuring ($arch, tinyconfig + ${#CONFIG_OPTS[@]} scripts/config arguments)"
	rm -rf "$out" "$ref"
	mkdir -p "$out"
	kmake "$out" tinyconfig > /dev/null
	"$src/scripts/config" --file "$out/.config" "${CONFIG_OPTS[@]}"
	kmake "$out" olddefconfig > /dev/null
	for want in $CONFIG_WANT; do
		grep -qx "$want" "$out/.config" || fail ".config lacks $want"
	done
	[ ${#failures[@]} -eq 0 ] || exit 1
}

# The reference is built first in the same directory as ours, then moved:
# the output path is in the debug information (DW_AT_comp_dir), which the
# linker's build IDs hash, so a different path alone would change the image.
reference_build() {
	kmake "$out" prepare
	build "$out" "reference build (the kernel's recordmcount)"
	mv "$out" "$ref"
	mkdir -p "$out"
	cp "$ref/.config" "$out/.config"
	kmake "$out" olddefconfig > /dev/null
	cmp -s "$out/.config" "$ref/.config" || { fail "the two builds' .config differ"; exit 1; }
}

# After `make prepare` Kbuild has built its own scripts/recordmcount; it is
# kept aside (for the per-object comparison) and replaced by a wrapper that
# logs every invocation, saves the object as the compiler wrote it, and execs
# a snapshot of our tool (other work may rebuild build/recordmcount meanwhile).
install_wrapper() {
	step "make prepare"
	kmake "$out" prepare
	[ -x "$out/scripts/recordmcount" ] || { fail "make prepare did not build scripts/recordmcount"; exit 1; }
	cp "$out/scripts/recordmcount" "$out/kernel-recordmcount"
	cp "$rmc" "$out/our-recordmcount"
	rm -rf "$out/pre" "$out/rmc.log"
	mkdir -p "$out/pre"
	cat > "$out/scripts/recordmcount.new" <<-EOF
	#!/bin/sh
	# kbuild-test.sh: log, keep the unrecorded object, run our recordmcount.
	for f; do :; done
	mkdir -p "$out/pre/\$(dirname "\${f#/}")" && cp "\$f" "$out/pre/\${f#/}" || exit 1
	echo "\$*" >> "$out/rmc.log"
	exec "$out/our-recordmcount" "\$@"
	EOF
	chmod 755 "$out/scripts/recordmcount.new"
	mv "$out/scripts/recordmcount.new" "$out/scripts/recordmcount"
	cp "$out/scripts/recordmcount" "$out/wrapper.copy"
}

# build DIR LABEL: vmlinux and the modules, with -w passed by Kbuild.
build() {
	local dir=$1 label=$2 t0 t1
	step "$label: make -j$jobs RECORDMCOUNT_WARN=1 vmlinux modules"
	t0=$(date +%s)
	if ! /usr/bin/time -o "$dir/build.time" -f '%U %S' \
			make -s -C "$src" O="$dir" ARCH="$arch" CROSS_COMPILE="$cross" -j"$jobs" \
			RECORDMCOUNT_WARN=1 vmlinux modules > "$dir/build.log" 2>&1; then
		tail -40 "$dir/build.log" >&2
		fail "$label: kernel build failed (log: $dir/build.log)"
		exit 1
	fi
	t1=$(date +%s)
	echo "$((t1 - t0)) s, CPU $(awk '{ printf "%.0f", $1 + $2 }' "$dir/build.time") s" > "$dir/build.seconds"
	touch "$dir/.kbuild-test-built"
}

# calls_hook OBJ: whether OBJ has a call relocation against the hook.
calls_hook() {
	"${cross}readelf" -rW "$1" | awk -v hook="$hook" '
		$3 ~ /^R_ARM_(CALL|PC24|JUMP24|THM_CALL)$/ && $5 == hook { n++ } END { exit !n }'
}

# has_section FILE NAME
has_section() {
	"${cross}readelf" -SW "$1" | awk -v s="$2" '{ sub(/^ *\[ *[0-9]+\] /, "") } $1 == s { n++ } END { exit !n }'
}

# Made by `ld -r` from other objects (a multi-object module): not compiled.
is_composite() {
	awk -v ld="${cross}ld" 'NR == 1 && $3 == ld && / -r / { f = 1 } END { exit !f }' \
		"$(dirname "$1")/.$(basename "$1").cmd" 2> /dev/null
}

# Which objects Kbuild processed, and whether each traced one has a table.
check_invocations() {
	local obj n calls=0 with_table=0 missing="" extra="" dups
	step "invocations"
	cmp -s "$out/scripts/recordmcount" "$out/wrapper.copy" ||
		fail "scripts/recordmcount is no longer our wrapper: Kbuild rebuilt it"
	n=$(count "$out/rmc.log")
	note "objects processed by our recordmcount (Kbuild invocations): $n"
	[ "$n" -gt 100 ] || fail "Kbuild ran recordmcount only $n times"
	awk '{ print $NF }' "$out/rmc.log" | sort > "$out/processed.all"
	sort -u "$out/processed.all" > "$out/processed.lst"
	dups=$(uniq -d "$out/processed.all" | tr '\n' ' ')
	[ -z "$dups" ] || note "objects processed more than once: $dups"
	[ "$(awk '$1 != "-w"' "$out/rmc.log" | count)" = 0 ] || fail "Kbuild did not always pass -w (RECORDMCOUNT_WARN=1)"
	# Every object whose compiler output calls the hook now has a table.
	while read -r obj; do
		calls_hook "$out/pre/$obj" || continue
		calls=$((calls + 1))
		if has_section "$out/$obj" __mcount_loc; then
			with_table=$((with_table + 1))
		elif [ "${obj##*/}" != ftrace.o ]; then
			missing+="$obj "
		fi
	done < "$out/processed.lst"
	note "objects calling $hook: $calls; with a __mcount_loc table now: $with_table (ftrace.o is skipped by design)"
	[ -z "$missing" ] || fail "objects with calls but no __mcount_loc: $missing"
	# No compiled object outside the log has a table (the kernel's tool never ran).
	while read -r obj; do
		obj=${obj#./}
		grep -qxF "$obj" "$out/processed.lst" && continue
		case $obj in vmlinux.o | pre/* | diff/*) continue ;; esac
		has_section "$out/$obj" __mcount_loc || continue
		is_composite "$out/$obj" || extra+="$obj "
	done < <(cd "$out" && find . -name '*.o')
	[ -z "$extra" ] || fail "objects with __mcount_loc that our tool was not run on: $extra"
}

# disasm_sites FILE: "ADDR FUNC-ADDR FUNC" of each `bl <hook>` (hex, no 0x).
disasm_sites() {
	"${cross}objdump" -d --no-show-raw-insn "$1" | awk -F'\t' -v hook="$hook" '
		/^[0-9a-f]+ <.*>:$/ { fa = $0; sub(/ .*/, "", fa); f = $0; sub(/^[0-9a-f]+ </, "", f); sub(/>:$/, "", f); next }
		$2 ~ /^bl/ && $3 ~ ("<" hook ">$") && f != hook {
			a = $1; gsub(/[ :]/, "", a); sub(/^0+/, "", a); print a, fa, f
		}'
}

# owners FILE < ADDRS: "ADDR OWNER" per address (hex, no 0x), OWNER the
# address of the function symbol whose [value, value + size) holds it, or -.
owners() {
	"${cross}nm" -S -n --defined-only "$1" > "$1.syms"
	awk "$AWK_HEX"'
		FNR == NR { if (NF == 4 && $3 ~ /^[tTwW]$/) { n++; lo[n] = hex($1); hi[n] = lo[n] + hex($2); name[n] = $1 }; next }
		{
			a = hex($1); i = 0; l = 1; h = n
			while (l <= h) { m = int((l + h) / 2); if (lo[m] <= a) { i = m; l = m + 1 } else h = m - 1 }
			o = "-"
			for (j = i; j > 0 && j > i - 8; j--) if (lo[j] <= a && a < hi[j]) { o = name[j]; break }
			print $1, o
		}' "$1.syms" -
	rm -f "$1.syms"
}

check_vmlinux() {
	local n_list n_dis n_fn diff_a diff_b
	step "vmlinux: the table against the disassembly"
	"$rmc" --list "$out/vmlinux" > "$out/vmlinux.list" || fail "--list vmlinux failed"
	awk '{ a = $1; sub(/^0x0*/, "", a); print a }' "$out/vmlinux.list" | sort > "$out/vmlinux.entries"
	disasm_sites "$out/vmlinux" | sort > "$out/vmlinux.sites"
	n_list=$(count "$out/vmlinux.entries")
	n_dis=$(count "$out/vmlinux.sites")
	cut -d' ' -f1 "$out/vmlinux.sites" | owners "$out/vmlinux" > "$out/vmlinux.owners"
	n_fn=$(awk '$2 != "-" { print $2 }' "$out/vmlinux.owners" | sort -u | count)
	n_out=$(awk '$2 == "-"' "$out/vmlinux.owners" | count)
	note "vmlinux: $n_list entries; objdump -d: $n_dis bl $hook, $((n_dis - n_out)) in $n_fn function symbols, $n_out in code no symbol covers (overridden weak functions)"
	[ "$n_list" -gt 1000 ] || fail "vmlinux: suspiciously few entries ($n_list)"
	[ "$n_list" = "$n_dis" ] || fail "vmlinux: $n_list entries but $n_dis calls"
	[ "$n_fn" = "$((n_dis - n_out))" ] || fail "vmlinux: $((n_dis - n_out)) calls in $n_fn function symbols (not one per function)"
	[ -z "$(uniq -d "$out/vmlinux.entries")" ] || fail "vmlinux: an entry appears twice"
	diff_a=$(cut -d' ' -f1 "$out/vmlinux.sites" | sort | comm -23 "$out/vmlinux.entries" - | head -5 | tr '\n' ' ')
	diff_b=$(cut -d' ' -f1 "$out/vmlinux.sites" | sort | comm -13 "$out/vmlinux.entries" - | head -5 | tr '\n' ' ')
	[ -z "$diff_a" ] || fail "vmlinux: entries that are no call to $hook: $diff_a"
	[ -z "$diff_b" ] || fail "vmlinux: calls to $hook without an entry: $diff_b"
}

# hex in awk without gawk's strtonum
AWK_HEX='function hex(s,  n, i) { s = tolower(s); sub(/^0x/, "", s); n = 0
	for (i = 1; i <= length(s); i++) n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return n }'

# reloc_sites OBJ: "SECTION+0xOFF" of every call relocation against the hook.
reloc_sites() {
	"${cross}readelf" -rW "$1" | awk -v hook="$hook" "$AWK_HEX"'
		/^Relocation section / { s = $3; gsub(/'\''/, "", s); sub(/^\.rel(a)?/, "", s); next }
		$3 ~ /^R_ARM_(CALL|PC24|JUMP24|THM_CALL)$/ && $5 == hook { printf "%s+0x%x\n", s, hex($1) }' | sort
}

# list_norm FILE: --list of an object, offsets written as reloc_sites does.
list_norm() {
	"$rmc" --list "$1" > "$1.list" || return 1
	awk -F'+' "$AWK_HEX"'{ printf "%s+0x%x\n", $1, hex($2) }' "$1.list" | sort
	rm -f "$1.list"
}

check_modules() {
	local ko n=0 bad=0 entries=0 tables=0 l r
	step "modules: each table against its relocations"
	(cd "$out" && find . -name '*.ko' ! -path './pre/*' | sed 's|^\./||' | sort) > "$out/modules.lst"
	while read -r ko; do
		n=$((n + 1))
		l=$(list_norm "$out/$ko") || { fail "--list $ko failed"; continue; }
		r=$(reloc_sites "$out/$ko")
		[ -z "$l" ] || tables=$((tables + 1))
		entries=$((entries + $(echo "$l" | count)))
		if [ "$l" != "$r" ]; then
			bad=$((bad + 1))
			fail "$ko: --list ($(echo "$l" | count)) differs from its $hook relocations ($(echo "$r" | count))"
		fi
	done < "$out/modules.lst"
	note "modules: $n .ko, $tables with a table, $entries entries in all, $bad mismatching"
	[ "$tables" -ge 4 ] || fail "expected at least 4 traced modules, found $tables"
}

# check_findings TEXT: "KIND ADDRESS" of each finding of --check's text output
# ("FILE: KIND: FUNCTION+0xOFF (ADDRESS): WHY").
check_findings() {
	awk -F': ' 'NF >= 4 && $2 ~ /^[a-z-]+$/ && match($3, /\(0x[0-9a-f]+\)/) {
		print $2, substr($3, RSTART + 1, RLENGTH - 2) }' <<< "$1" | sort
}

# --check on vmlinux finds the entries of overridden weak functions stale (their
# code stays, no symbol covers it): the kernel's own build has exactly the
# same ones.  Anything else, or any finding in a module, is a failure.
run_check() {
	local f n=0 bad=0 txt help ours theirs rc
	step "recordmcount --check on vmlinux and every .ko"
	help=$("$rmc" --help 2>&1 || true)
	case $help in
	*--check*) ;;
	*) fail "build/recordmcount has no --check yet: the check step could not run"; return ;;
	esac
	: > "$out/check.log"
	txt=$("$rmc" --check "$out/vmlinux" 2>&1) && rc=0 || rc=$?
	printf 'vmlinux: exit %s\n%s\n' "$rc" "$txt" >> "$out/check.log"
	ours=$(check_findings "$txt")
	theirs=$(check_findings "$("$rmc" --check "$ref/vmlinux" 2>&1 || true)")
	note "--check vmlinux: exit $rc, $(echo "$ours" | count) findings ($(echo "$ours" | awk '{ print $1 }' | sort | uniq -c | awk '{ printf "%s%s %s", s, $2, $1; s = ", " }')); the reference vmlinux: $(echo "$theirs" | count)"
	[ "$ours" = "$theirs" ] || fail "--check vmlinux: findings differ from the reference build's"
	[ -z "$(echo "$ours" | awk '$1 != "stale"')" ] || fail "--check vmlinux: findings other than stale entries"
	[ "$(grep -c ': stale: .*an overridden weak function$' <<< "$txt" || true)" = "$(echo "$ours" | count)" ] ||
		fail "--check vmlinux: a stale entry not explained as an overridden weak function"
	[ "$rc" = "$([ -z "$ours" ]; echo $?)" ] || fail "--check vmlinux: exit $rc with $(echo "$ours" | count) findings"
	cp "$out/vmlinux" "$out/vmlinux.fixed"
	if txt=$("$rmc" --check --fix "$out/vmlinux.fixed" 2>&1) && txt=$("$rmc" --check "$out/vmlinux.fixed" 2>&1); then
		note "--check --fix on a copy of vmlinux, then --check: clean ($(echo "$txt" | grep -E '^[^:]*: clean;' | tail -1 | sed 's/^[^:]*: //'))"
	else
		fail "--check after --check --fix on a copy of vmlinux: $(echo "$txt" | tail -2)"
	fi
	while read -r f; do
		n=$((n + 1))
		if txt=$("$rmc" --check "$out/$f" 2>&1); then
			printf '%s: ok\n%s\n' "$f" "$txt" >> "$out/check.log"
		else
			bad=$((bad + 1))
			printf '%s: FAILED\n%s\n' "$f" "$txt" >> "$out/check.log"
			fail "--check $f: $(echo "$txt" | head -3)"
		fi
	done < "$out/modules.lst"
	note "--check on the modules: $n files, $bad with findings (output in $(relpath "$out/check.log"))"
}

# run_all TOOL DIR: TOOL -w on each object of DIR/objs.lst under DIR/TAG/,
# one process per object as Kbuild runs it; -w lines to DIR/TAG.w, failures
# to DIR/TAG.failed, CPU seconds (user + sys) to DIR/TAG.cpu.
run_all() {
	local tool=$1 d=$2 tag=$3 obj TIMEFORMAT='%U %S'
	: > "$d/$tag.w"
	: > "$d/$tag.failed"
	{ time while read -r obj; do
		"$tool" -w "$d/$tag/$obj" >> "$d/$tag.w" 2>&1 || echo "$obj" >> "$d/$tag.failed"
	done < "$d/objs.lst"; } 2> "$d/$tag.time"
	awk '{ printf "%.2f\n", $1 + $2 }' "$d/$tag.time" > "$d/$tag.cpu"
}

# The kernel's tool and ours, with -w, on copies of the same unrecorded objects.
per_object() {
	local obj tag same=0 differ=0 d=$out/diff
	step "per object: the kernel's recordmcount and ours on every saved object"
	rm -rf "$d"
	mkdir -p "$d/k" "$d/o"
	grep -v '\(^\|/\)ftrace\.o$' "$out/processed.lst" > "$d/objs.lst" || true
	for tag in k o; do
		(cd "$out/pre" && xargs -a "$d/objs.lst" cp --parents -t "$d/$tag")
	done
	run_all "$out/kernel-recordmcount" "$d" k
	run_all "$out/our-recordmcount" "$d" o
	[ ! -s "$d/o.failed" ] || fail "our tool failed on: $(tr '\n' ' ' < "$d/o.failed")"
	: > "$out/per-object.log"
	while read -r obj; do
		grep -qxF "$obj" "$d/k.failed" "$d/o.failed" && continue
		if [ "$(list_norm "$d/k/$obj")" = "$(list_norm "$d/o/$obj")" ]; then
			same=$((same + 1))
		else
			differ=$((differ + 1))
			mkdir -p "/tmp/kbuild-test-differ/$(dirname "$obj")"
			cp "$out/pre/$obj" "/tmp/kbuild-test-differ/$obj"
			echo "$obj: lists differ (unrecorded copy in /tmp/kbuild-test-differ/)" >> "$out/per-object.log"
			fail "$obj: our sites differ from the kernel tool's"
		fi
	done < "$d/objs.lst"
	note "per object: $(count "$d/objs.lst") objects, $same identical lists, $differ different, $(count "$d/k.failed") where the kernel's tool failed; -w lines: kernel $(count "$d/k.w"), ours $(count "$d/o.w")"
	note "  CPU over those objects, one process each: the kernel's tool $(cat "$d/k.cpu") s, ours $(cat "$d/o.cpu") s (with prototype tables)"
	[ ! -s "$d/k.failed" ] || note "  the kernel's tool failed on: $(tr '\n' ' ' < "$d/k.failed")"
}

build_id() { "${cross}readelf" -n "$1" | awk '/Build ID:/ { print $3 }'; }

# The whole build made with the kernel's tool against ours.
whole_build() {
	local ko same=0 differ=""
	step "whole build: ours against the reference build (the kernel's recordmcount)"
	if [ "$("$rmc" --list "$out/vmlinux")" = "$("$rmc" --list "$ref/vmlinux")" ]; then
		note "vmlinux: --list identical to the reference build's ($(count < "$out/vmlinux.list") entries)"
	else
		fail "vmlinux: --list differs from the reference build's"
	fi
	while read -r ko; do
		if [ "$("$rmc" --list "$out/$ko")" = "$("$rmc" --list "$ref/$ko")" ]; then
			same=$((same + 1))
		else
			differ+="$ko "
		fi
	done < "$out/modules.lst"
	note "modules: $same of $(count "$out/modules.lst") with --list identical to the reference build's"
	[ -z "$differ" ] || fail "modules whose --list differs from the reference build's: $differ"
	# vmlinux's build ID hashes every section, our non-allocated prototype
	# tables too, so the image is compared without .notes, which holds it.
	"${cross}objcopy" -O binary -R .notes "$out/vmlinux" "$out/Image.bin"
	"${cross}objcopy" -O binary -R .notes "$ref/vmlinux" "$ref/Image.bin"
	if cmp -s "$out/Image.bin" "$ref/Image.bin"; then
		note "loaded image (objcopy -O binary -R .notes vmlinux, $(stat -c %s "$out/Image.bin") bytes): byte-identical to the reference"
	else
		fail "loaded image differs from the reference build's: $(cmp "$out/Image.bin" "$ref/Image.bin" | head -1)"
	fi
	cmp -s "$out/arch/arm/vdso/vdso.so" "$ref/arch/arm/vdso/vdso.so" ||
		fail "vdso.so differs from the reference build's"
	note "vmlinux build ID: ours $(build_id "$out/vmlinux"), reference $(build_id "$ref/vmlinux")"
	note "vmlinux size: $(stat -c %s "$out/vmlinux") bytes, reference $(stat -c %s "$ref/vmlinux")"
}

warnings() {
	local log=$1 label=$2 rmcw orphans modpost other
	rmcw=$(grep -c 'profiling hook outside\|mcount callers being ignored' "$log" || true)
	orphans=$(grep -c 'orphan section' "$log" || true)
	modpost=$(grep -c '^WARNING: modpost' "$log" || true)
	other=$(grep -i 'warning' "$log" | grep -vc 'orphan section\|^WARNING: modpost' || true)
	note "$label warnings: recordmcount -w $rmcw, linker orphan sections $orphans, modpost $modpost, other $other"
}

warning_details() {
	step "warnings"
	warnings "$out/build.log" "our build"
	warnings "$ref/build.log" "reference build"
	grep 'orphan section' "$out/build.log" | sed -n "s/.*orphan section \`\([^']*\)'.*/\1/p" |
		sort | uniq -c | sort -rn > "$out/orphans.txt"
	[ ! -s "$out/orphans.txt" ] ||
		note "  orphan sections (warnings per name): $(awk '{ printf "%s%s %s", sep, $2, $1; sep = ", " }' "$out/orphans.txt")"
	grep '^WARNING: modpost' "$out/build.log" | sort | uniq -c | sed 's/^ */  /' > "$out/modpost.txt" || true
	while read -r line; do note "  modpost:$line"; done < "$out/modpost.txt"
	"${cross}readelf" -SW "$out/vmlinux" | awk '/ __mcount_(loc|proto|str) / { sub(/^ *\[ *[0-9]+\] /, ""); print }' |
		while read -r line; do note "  vmlinux section: $line"; done
}

if [ ! -x "$rmc" ]; then
	echo "kbuild-test: $rmc not built (make)" >&2
	exit 1
fi
if [ "$checks_only" = 1 ]; then
	for d in "$out" "$ref"; do
		[ -f "$d/.kbuild-test-built" ] || { echo "kbuild-test: no finished build in $d" >&2; exit 1; }
	done
else
	extract
	configure
	reference_build
	install_wrapper
	build "$out" "our build"
fi
note "build with our recordmcount: $(cat "$out/build.seconds"); reference: $(cat "$ref/build.seconds") (-j$jobs, wall and CPU)"
check_invocations
check_vmlinux
check_modules
run_check
per_object
whole_build
warning_details

echo
echo "kbuild-test: summary ($arch, linux-source-6.1, trees $out and $ref)"
printf '  %s\n' "${summary[@]}"
if [ ${#failures[@]} -gt 0 ]; then
	echo "kbuild-test: ${#failures[@]} failure(s):"
	printf '  %s\n' "${failures[@]}"
	exit 1
fi
echo "kbuild-test: all checks passed"
