#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The runtime on 64-bit big-endian PowerPC, ELFv1 (function descriptors in
# .opd, the TOC in r2, a 48-byte linkage area, every struct returned in
# memory through a hidden pointer in r3) under qemu-user (t/rt-lib.sh):
# rt_test + rt_cxx (a C++ exception and a longjmp through traced frames)
# built
#  - with gcc -pg as Debian builds (PIE): `bl _mcount; nop` after the
#    prologue, the call through a PLT stub to libc's _mcount, so the nop
#    became the TOC restore `ld r2,40(r1)` and the disabled form is
#    `b .+8`; also recorded under qemu (a big-endian 64-bit recording whose
#    function names come from .opd) and reported by this machine's objpatch;
#  - with gcc -pg at -O0;
#  - with gcc -pg, not stripped (.symtab's function symbols name .opd
#    descriptors), also recorded and reported;
#  - with gcc -pg and recordmcount --nop (the nop stays);
#  - with gcc -pg, non-PIC and linked -no-pie;
#  - with clang -pg (its ELFv1 output: descriptors too, the same call);
# each traced in every format and checked against rt_expect.txt: LP64,
# and the structs by member, from the memory whose address the runtime
# kept from the entry's r3, as x86_64's come from rax.  Then rt_toggle's
# 10,000 live toggles with 8 threads, with --nop sites and with the calls
# (`b .+8` <-> `bl stub`, one aligned word); tail calls (rt_tail.c) with
# gcc and clang; `objpatch list` naming functions at their code, not
# their descriptors; rt_ppc64le.c and rt_ppc64le_catch.cc (ABI-neutral): the
# TOC restore after disabled and enabled sites with junk in the TOC save
# words, IBM double-double long double returns, and a catch that drops
# the frame whose slot lies in the catcher's own frame.  About 80 s.
. "$(dirname "$0")/rt-lib.sh"

P=powerpc64-linux-gnu
Q=ppc64

REPORT=1 cross_variant $Q $P $P-gcc $P-g++ pg ""
cross_variant $Q $P $P-gcc $P-g++ O0 "" -O0
# Not stripped: .symtab's function symbols name .opd descriptors (which
# objpatch list resolves to their code: ppc64_own); traced and reported.
KEEP_SYMBOLS=1 REPORT=1 cross_variant $Q $P $P-gcc $P-g++ symbols ""
cross_variant $Q $P $P-gcc $P-g++ nop --nop
RT_LDFLAGS=-no-pie
cross_variant $Q $P $P-gcc $P-g++ nopic "" -fno-pic
RT_LDFLAGS=
# clang compiles the C part; the cross g++ (which also links) the C++ part.
cross_variant $Q $P clang $P-g++ clang ""
toggle_cross $Q $P
TOGGLE_RMC="" toggle_cross $Q $P
# Tail calls: the function jumped to finds the hooked LR in its caller's frame.
tail_check ppc64-gcc $P-gcc "qemu-$Q -L /usr/$P" -pg
tail_check ppc64-clang "clang --target=$P" "qemu-$Q -L /usr/$P" -pg

# every_site_restores_toc LABEL PROG: the premise of rt_ppc64le.c here:
# every recorded site is followed by the linker's `ld r2,40(r1)`
# (0xe8410028), ELFv1's TOC save word.
every_site_restores_toc() {
	local label=$1 prog=$2 sites bad=0 n=0 a next
	sites=$("$RMC" --list "$prog" | awk '{print $1}')
	for a in $sites; do
		n=$((n + 1))
		next=$(printf '0x%x' $((a + 4)))
		$P-objdump -d --start-address="$next" --stop-address=$((next + 4)) "$prog" |
			grep -q 'e8 41 00 28[[:space:]]*ld[[:space:]]*r2,40(r1)' || bad=$((bad + 1))
	done
	[ "$n" -gt 0 ] && [ "$bad" -eq 0 ]
	ok $? "[$label] all $n sites are followed by the linker's TOC restore ld r2,40(r1)"
	[ "$bad" -eq 0 ] || diag "$bad of $n sites are not"
}

# names_at_code LABEL PROG: `objpatch list` of a program with a .symtab but
# no DWARF, whose function symbols name .opd descriptors, puts each
# function at its code: where objdump's `.NAME` label (binutils' own
# reading of .opd) is.
names_at_code() {
	local label=$1 prog=$2 n=0 bad=0 addr name code
	$P-objdump -d "$prog" | sed -n 's/^0*\([0-9a-f]*\) <\.\([A-Za-z_][A-Za-z0-9_]*\)>:$/\2 \1/p' > "$prog.code"
	while read -r addr name; do
		n=$((n + 1))
		code=$(awk -v f="$name" '$1 == f { print $2; exit }' "$prog.code")
		[ -n "$code" ] && [ $((16#$code)) -eq $((addr)) ] || { bad=$((bad + 1)); diag "$name at $addr, its code at 0x${code:-?}"; }
	done < <("$OBJPATCH" list "$prog" | sed -n 's/^\(0x[0-9a-f]*\) .*[ *]\([A-Za-z_][A-Za-z0-9_]*\)(.*/\1 \2/p')
	[ "$n" -gt 0 ] && [ "$bad" -eq 0 ]
	ok $? "[$label] objpatch list names all $n functions at their code, not their .opd descriptors"
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

# rt_ppc64le.c and rt_ppc64le_catch.cc, which are ABI-neutral: junk in
# the TOC save words under disabled (`b .+8`) and enabled sites, IBM long
# double in f1:f2, and a catch dropping the frame whose slot (16 bytes
# above its entry r1 in both ABIs) lies in the catcher's own frame.
ppc64_own() {
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
	# Without DWARF: the names come from .symtab alone.
	compile_ok "[$label] rt_ppc64le.c -g0" $P-gcc -std=gnu11 "${WARN[@]}" "${CFLAGS[@]}" -g0 -c "$RT/rt_ppc64le.c" \
		-o "$dir/toc-symtab.o" &&
	compile_ok "[$label] recordmcount --mode=user, no DWARF" "$RMC" --mode=user "$dir/toc-symtab.o" &&
	compile_ok "[$label] link -g0" $P-gcc -pie -o "$dir/toc-symtab" "$dir/toc-symtab.o" &&
	names_at_code "$label" "$dir/toc-symtab"
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
ppc64_own

done_testing
