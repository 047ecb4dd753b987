# SPDX-License-Identifier: GPL-2.0-only
#
# What t/95-rt-ppc64.t (ELFv1, big-endian) and t/95-rt-ppc64le.t (ELFv2)
# share: the premise of their TOC cases, that every recorded site is
# followed by the linker's TOC restore `ld r2,TOC_SAVE(r1)` (40 in ELFv1,
# 24 in ELFv2), and the ABI-neutral own cases, rt_ppc64le.c and
# rt_ppc64le_catch.cc.  Set P (the triple), Q (qemu's name) and TOC_SAVE
# before calling them.
. "$(dirname "${BASH_SOURCE[0]}")/rt-lib.sh"

# every_site_restores_toc LABEL PROG: every recorded site of PROG is
# followed by `ld r2,TOC_SAVE(r1)`, as objdump shows its bytes in the
# machine's byte order.
every_site_restores_toc() {
	local label=$1 prog=$2 sites bad=0 n=0 a next bytes
	if [ "$Q" = ppc64le ]; then
		bytes=$(printf '%02x 00 41 e8' "$TOC_SAVE")
	else
		bytes=$(printf 'e8 41 00 %02x' "$TOC_SAVE")
	fi
	sites=$("$RMC" --list "$prog" | awk '{print $1}')
	for a in $sites; do
		n=$((n + 1))
		next=$(printf '0x%x' $((a + 4)))
		$P-objdump -d --start-address="$next" --stop-address=$((next + 4)) "$prog" |
			grep -q "$bytes[[:space:]]*ld[[:space:]]*r2,$TOC_SAVE(r1)" || bad=$((bad + 1))
	done
	[ "$n" -gt 0 ] && [ "$bad" -eq 0 ]
	ok $? "[$label] all $n sites are followed by the linker's TOC restore ld r2,$TOC_SAVE(r1)"
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

# ppc64_own: rt_ppc64le.c and rt_ppc64le_catch.cc, which are ABI-neutral:
# junk in the TOC save words under disabled (`b .+8`) and enabled sites,
# IBM long double in f1:f2, and a catch dropping the frame whose slot (16
# bytes above its entry r1 in both ABIs) lies in the catcher's own frame.
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
