# SPDX-License-Identifier: GPL-2.0-only
#
# What scripts/kernel-retval-test.sh and scripts/kernel-series-test.sh
# share: building Debian's linux-source-6.12 with our recordmcount as
# Kbuild's recorder.  Sourced, not run.  The caller defines step, fail and
# die, and sets:
#   harness       its name (the build's marker is $out/.$harness-built)
#   src, out      the source tree and the build tree
#   karch, cross, image, jobs, rmc (our build/recordmcount)
#   CONFIG_OPTS, arch_opts      scripts/config arguments over tinyconfig
#   CONFIG_WANT, arch_want      lines the .config must have
#   CONFIG_UNWANTED, arch_unwanted (optional) lines it must not have
#   recorder_built  1 where Kbuild builds scripts/recordmcount for this
#                 machine (x86_64, ARM: our wrapper replaces it), 0 where
#                 the compiler records the sites (arm64: the caller hooks
#                 cmd_record_mcount through make_extra)
#   make_extra    (optional array) more arguments for the kernel's make
#   rmc_args      (optional array) options the wrapper passes to our
#                 recordmcount before Kbuild's (--protos=compact)

# need_packages PKG...: those not installed, with apt-get, beside what
# every kernel build needs (not in scripts/deps.sh: make check builds no
# kernel).
need_packages() {
	local p missing=() sudo=
	[ "$(id -u)" = 0 ] || sudo=sudo
	for p in "$@" flex bison bc perl xz-utils time; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
	done
	[ ${#missing[@]} -gt 0 ] || return 0
	step "installing ${missing[*]}"
	$sudo apt-get update -qq || echo "$harness: apt-get update reported errors; installing from the indexes it got"
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
		die "apt-get install ${missing[*]} failed"
}

kmake() { local o=$1; shift; nice -n 19 make -s -C "$src" O="$o" ARCH="$karch" CROSS_COMPILE="$cross" "$@"; }

# def_bool_n SYMBOL: its `def_bool y` in kernel/trace/Kconfig becomes
# `def_bool n` (done once: a tree where it is n already is left alone).
def_bool_n() {
	local k=$src/kernel/trace/Kconfig
	grep -q "^config $1\$" "$k" || die "kernel/trace/Kconfig has no 'config $1' (another kernel version? extract it again: rm -rf $src)"
	grep -A3 "^config $1\$" "$k" | grep -q '^	def_bool n$' && return
	awk -v sym="$1" '
		$0 == "config " sym { inside = 1 }
		inside && /^\tdef_bool y$/ { sub(/y$/, "n"); inside = 0; done = 1 }
		/^config / && $0 != "config " sym { inside = 0 }
		{ print }
		END { exit !done }' "$k" > "$k.new" ||
		die "kernel/trace/Kconfig: no 'def_bool y' under 'config $1' (the source changed; extract it again: rm -rf $src)"
	mv "$k.new" "$k"
}

# x86_64 picks objtool or the compiler as its recorder; both become off, so
# that Kbuild runs recordmcount (a harness change, not part of any patch:
# the symbols are off on the other machines anyway).
force_recordmcount() {
	def_bool_n FTRACE_MCOUNT_USE_CC
	def_bool_n FTRACE_MCOUNT_USE_OBJTOOL
}

# configure [reference]: tinyconfig, the options, olddefconfig, then the
# checks; a reference build (the source without the kernel/ series) skips
# the checks, since the series' options are not there.
configure() {
	local want before=${#failures[@]}
	step "${1:+$1: }configuring (tinyconfig + $((${#CONFIG_OPTS[@]} + ${#arch_opts[@]})) scripts/config arguments)"
	rm -rf "$out"
	mkdir -p "$out"
	kmake "$out" tinyconfig > /dev/null
	"$src/scripts/config" --file "$out/.config" "${CONFIG_OPTS[@]}" "${arch_opts[@]}"
	kmake "$out" olddefconfig > /dev/null
	[ -z "${1:-}" ] || return 0
	for want in $CONFIG_WANT $arch_want; do
		grep -qx "$want" "$out/.config" || fail ".config lacks $want"
	done
	for want in ${CONFIG_UNWANTED:-} ${arch_unwanted:-}; do
		grep -qx "$want" "$out/.config" && fail ".config has $want"
	done
	# this machine's .config is wrong: nothing built from it would say more
	[ ${#failures[@]} -eq "$before" ] || exit 1
}

# After `make prepare`, the recorder Kbuild runs is a wrapper that logs each
# call to $out/rmc.log and execs a snapshot of our tool (other work may
# rebuild build/recordmcount meanwhile), as in kbuild-test.sh.
install_wrapper() {
	step "make prepare"
	kmake "$out" prepare
	cp "$rmc" "$out/our-recordmcount"
	rm -f "$out/rmc.log"
	cat > "$out/recordmcount-hook" <<-EOF
	#!/bin/sh
	# $harness: log, run our recordmcount.
	echo "\$*" >> "$out/rmc.log"
	exec "$out/our-recordmcount" ${rmc_args[*]+${rmc_args[*]} }"\$@"
	EOF
	chmod 755 "$out/recordmcount-hook"
	if [ "$recorder_built" = 1 ]; then
		[ -x "$out/scripts/recordmcount" ] ||
			die "make prepare did not build scripts/recordmcount (is CONFIG_FTRACE_MCOUNT_USE_RECORDMCOUNT set?)"
		cp "$out/scripts/recordmcount" "$out/kernel-recordmcount"
		cp "$out/recordmcount-hook" "$out/scripts/recordmcount.new"
		mv "$out/scripts/recordmcount.new" "$out/scripts/recordmcount"
	else
		[ ! -e "$out/scripts/recordmcount" ] || fail "make prepare built the kernel's scripts/recordmcount"
	fi
}

# The image and the modules, timed ($out/build.seconds: wall and CPU).
build_kernel() {
	local t0 t1
	step "make -j$jobs $(basename "$image") modules (nice -n 19)"
	t0=$(date +%s)
	if ! /usr/bin/time -o "$out/build.time" -f '%U %S' nice -n 19 \
			make -s -C "$src" O="$out" ARCH="$karch" CROSS_COMPILE="$cross" -j"$jobs" \
			${make_extra[@]+"${make_extra[@]}"} "$(basename "$image")" modules > "$out/build.log" 2>&1; then
		tail -30 "$out/build.log" >&2
		die "kernel build failed (log: $out/build.log)"
	fi
	t1=$(date +%s)
	echo "$(((t1 - t0 + 30) / 60)) min ($((t1 - t0)) s), CPU $(awk '{ printf "%.0f", $1 + $2 }' "$out/build.time") s" > "$out/build.seconds"
	if [ "$recorder_built" = 1 ]; then
		cmp -s "$out/scripts/recordmcount" "$out/recordmcount-hook" ||
			die "scripts/recordmcount is no longer our wrapper: Kbuild rebuilt it"
	fi
	touch "$out/.$harness-built"
}

# section_size FILE NAME: the size in bytes of FILE's section NAME (0 when
# it has none), read with ${cross}readelf.
section_size() {
	local hex
	hex=$("${cross:-}readelf" -SW "$1" | awk -v n="$2" '{ sub(/^ *\[ *[0-9]+\] /, "") }
		$1 == n { print $5; exit }')
	echo $((16#${hex:-0}))
}

# btf_size VMLINUX: the bytes of the .BTF that pahole -J makes of a copy of
# VMLINUX (it needs its DWARF) with the options the kernel's
# scripts/Makefile.btf gives this pahole (1.24, 1.25: --btf_gen_floats);
# empty when pahole is missing or fails.  A real DEBUG_INFO_BTF build needs
# BPF_SYSCALL, which would not be the same .config.
btf_size() {
	local copy=$1.btf-copy
	command -v pahole > /dev/null || return 0
	cp "$1" "$copy"
	if pahole -J --btf_gen_floats "$copy" > "$copy.log" 2>&1; then
		section_size "$copy" .BTF
	fi
	rm -f "$copy"
}
