#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The runtime on ppc64le (ELFv2) under qemu-user (t/rt-lib.sh): rt_test +
# rt_cxx built with gcc -pg (linked against libc's _mcount: the linker
# sends each site through a PLT stub and turns the nop after it into the
# TOC restore `ld r2,24(r1)`), with gcc and --nop (the nop stays), and with
# clang -pg, traced in all three formats; rt_toggle's 10,000 live toggles
# with 8 threads, with --nop sites and with sites followed by the TOC
# restore (`b .+8` <-> `bl stub`); and ppc64le's own cases:
# rt_ppc64le.c (the TOC restore after disabled and enabled sites, with
# junk in the TOC save words; IBM double-double long double returns) and
# rt_ppc64le_catch.cc (a catch drops the frame whose slot lies in the
# catcher's own frame).  About 60 s.
. "$(dirname "$0")/rt-lib.sh"
# A struct over 16 bytes comes back through an address the callee need not keep ('?'),
# and the runtime does not place this ABI's struct floats (raw, '?').
rt_expect_with 'ret_big ?' 'ret_fpair ~^0x[0-9a-f]+\?$'

P=powerpc64le-linux-gnu
Q=ppc64le

cross_variant $Q $P $P-gcc $P-g++ pg ""
cross_variant $Q $P $P-gcc $P-g++ nop --nop
# clang compiles the C part; the cross g++ (which also links) the C++ part.
cross_variant $Q $P clang $P-g++ pg ""
toggle_cross $Q $P
TOGGLE_RMC="" toggle_cross $Q $P
# Tail calls: the function jumped to finds the hooked LR in its caller's frame.
tail_check ppc64le-gcc $P-gcc "qemu-$Q -L /usr/$P" -pg
tail_check ppc64le-clang "clang --target=$P" "qemu-$Q -L /usr/$P" -pg

# every_site_restores_toc LABEL PROG: the premise of rt_ppc64le.c: every
# recorded site is followed by the linker's `ld r2,24(r1)` (0xe8410018).
every_site_restores_toc() {
	local label=$1 prog=$2 sites bad=0 n=0 a next
	sites=$("$RMC" --list "$prog" | awk '{print $1}')
	for a in $sites; do
		n=$((n + 1))
		next=$(printf '0x%x' $((a + 4)))
		$P-objdump -d --start-address="$next" --stop-address=$((next + 4)) "$prog" |
			grep -q '18 00 41 e8[[:space:]]*ld[[:space:]]*r2,24(r1)' || bad=$((bad + 1))
	done
	[ "$n" -gt 0 ] && [ "$bad" -eq 0 ]
	ok $? "[$label] all $n sites are followed by the linker's TOC restore ld r2,24(r1)"
	[ "$bad" -eq 0 ] || diag "$bad of $n sites are not"
}

# run_prog LABEL DIR NAME RUNNER...: the program's own checks pass under RUNNER.
run_prog() {
	local label=$1 dir=$2 name=$3 status
	shift 3
	timeout 60 "$@" > "$dir/out.$name" 2> "$dir/err.$name"
	status=$?
	program_ok "[$label] $name: exit 0, the program's checks pass" "$status" "$dir/out.$name"
	[ -s "$dir/err.$name" ] && diag "[$label] stderr ($name):" "$(head -20 "$dir/err.$name")"
}

ppc64le_own() {
	local label="$Q own" dir=$T_TMP/$Q-own tool
	for tool in $P-gcc $P-g++ $P-objdump qemu-$Q; do
		command -v "$tool" >/dev/null || { skip "[$label] $tool is not installed"; return; }
	done
	[ -e "$TOP/build/$Q/libobjpatch.so" ] || { ok 1 "[$label] build/$Q/libobjpatch.so was not built"; return; }
	mkdir -p "$dir"
	compile_ok "[$label] rt_ppc64le.c" $P-gcc -std=gnu11 "${WARN[@]}" "${CFLAGS[@]}" -c "$RT/rt_ppc64le.c" \
		-o "$dir/toc.o" &&
	compile_ok "[$label] recordmcount --mode=user" "$RMC" --mode=user "$dir/toc.o" &&
	compile_ok "[$label] link" $P-gcc -pie -o "$dir/toc" "$dir/toc.o" &&
	compile_ok "[$label] strip" $P-strip "$dir/toc" || return
	every_site_restores_toc "$label" "$dir/toc"
	run_prog "$label" "$dir" untraced qemu-$Q -L /usr/$P "$dir/toc"
	# Only main traced: toc_* sites hold `b .+8`, and a NOP would load the junk.
	run_prog "$label" "$dir" "toc_* disabled" "$OBJPATCH" run --filter main --output "$dir/trace.main" -- "$dir/toc"
	run_prog "$label" "$dir" "all traced" "$OBJPATCH" run --output "$dir/trace.all" -- "$dir/toc"
	check_trace "$label" text "$RT/rt_ppc64le_expect.txt" "$dir/trace.all"

	compile_ok "[$label] rt_ppc64le_catch.cc" $P-g++ "${WARN[@]}" "${CFLAGS[@]}" -c "$RT/rt_ppc64le_catch.cc" \
		-o "$dir/catch.o" &&
	compile_ok "[$label] recordmcount --mode=user" "$RMC" --mode=user "$dir/catch.o" &&
	compile_ok "[$label] link" $P-g++ -pie -o "$dir/catch" "$dir/catch.o" || return
	run_prog "$label" "$dir" "catch, untraced_helper filtered out" "$OBJPATCH" run --filter '*' \
		--filter '!untraced_*' --output "$dir/trace.catch" -- "$dir/catch"
	check_trace "$label catch" text "$RT/rt_ppc64le_catch_expect.txt" "$dir/trace.catch"
}
ppc64le_own

done_testing
