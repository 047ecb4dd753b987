#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# recordmcount --nop: the recorded calls become NOPs at build time and their
# relocations R_*_NONE, so a program links without the hook and runs at full
# speed until the runtime patches a site back into a call.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../scripts/machines.sh"

SRC=$TOP/testdata/src/funcs.c

# no_hook_relocs OBJ PREFIX: no relocation names the hook any more
no_hook_relocs() {
	! "${2}readelf" -rW "$1" | awk '{ print $5 }' | grep -qxE '\.?(_?mcount|__fentry__|__gnu_mcount_nc)'
}

# nop_sites OBJ PREFIX: the instruction at every recorded site is a NOP
nop_sites() {
	local obj=$1 prefix=$2 site sec off line bad=0
	while read -r site; do
		sec=${site%+0x*} off=$((16#${site##*+0x}))
		line=$("${prefix}objdump" -dz -j "$sec" --start-address=$off --stop-address=$((off + 8)) "$obj" |
			grep -E '^\s+[0-9a-f]+:' | head -1)
		case $line in
		# i386's 5-byte NOP is the kernel's lea 0(%esi),%esi with a %ds prefix
		*nop* | *"mov	r0, r0"* | *"brcl	0"* | *"lea    %ds:0x0(%esi,%eiz,1),%esi"*) ;;
		*) bad=1; diag "$site: $line" ;;
		esac
	done < <("$RMC" --list "$obj")
	return $bad
}

# sh4_pool_sites OBJ PREFIX: each recorded site is a literal word of its own,
# 4-aligned, holding only the hook's address for the `jmp @r1` (0x412b, its
# delay slot `lds r0,pr` 0x402a) two or three halfwords before it, and followed
# by the `lds.l @r15+,pr` (0x4f26) that call returns to.  What a runtime port
# could store to without touching another site rests on this.
sh4_pool_sites() {
	local obj=$1 prefix=$2
	"$RMC" --list "$obj" | python3 -c '
import subprocess, sys
obj, prefix = sys.argv[1], sys.argv[2]
code = {}
seen, bad, n = set(), 0, 0
for site in sys.stdin.read().split():
	sec, off = site.rsplit("+", 1)
	off = int(off, 16)
	if sec not in code:
		out = obj + ".sec"
		subprocess.run([prefix + "objcopy", "-O", "binary", "--only-section=" + sec, obj, out], check=True)
		code[sec] = open(out, "rb").read()
	b = code[sec]
	h = lambda at: int.from_bytes(b[at:at + 2], "little") if 0 <= at <= len(b) - 2 else None
	jmp = off - 4 if h(off - 2) == 0x402a else off - 6
	fine = (off % 4 == 0 and (sec, off) not in seen and h(jmp) == 0x412b and h(jmp + 2) == 0x402a
		and (jmp == off - 4 or h(off - 2) == 0x0009) and h(off + 4) == 0x4f26)
	if not fine:
		bad += 1
		print("# %s: not a literal of its own after jmp @r1" % site, file=sys.stderr)
	seen.add((sec, off))
	n += 1
sys.exit(1 if bad or n == 0 else 0)
' "$obj" "$prefix"
}

per_arch() {
	local name=$1 prefix=$2 flags=$4 obj=$T_TMP/$1.o
	# shellcheck disable=SC2086
	"${prefix}gcc" -O2 -pg $flags -c "$SRC" -o "$obj" || { ok 1 "$name: compile"; return; }
	cp "$obj" "$obj.plain"
	if [ "$name" = sh4 ]; then
		cp "$obj" "$obj.orig"
		err=$("$RMC" --nop "$obj" 2>&1)
		is "$?" 1 "sh4: --nop fails (the call goes through a literal-pool word)"
		case $err in "recordmcount: $obj: "*"cannot be replaced by NOPs"*) ok 0 "sh4: says why" ;;
		*) ok 1 "sh4: says why"; diag "$err" ;; esac
		cmp -s "$obj" "$obj.orig"
		ok $? "sh4: the object is left byte-identical"
		"$RMC" "$obj.orig"
		sh4_pool_sites "$obj.orig" "$prefix"
		ok $? "sh4: -O2: every site is a literal word of its own after its jmp @r1"
		# shellcheck disable=SC2086
		"${prefix}gcc" -O0 -pg $flags -c "$SRC" -o "$obj.O0" && "$RMC" "$obj.O0"
		sh4_pool_sites "$obj.O0" "$prefix"
		ok $? "sh4: -O0: every site is a literal word of its own after its jmp @r1"
		return
	fi
	run_ok "$name: --nop" "$RMC" --nop "$obj"
	"$RMC" "$obj.plain"
	is "$("$RMC" --list "$obj")" "$("$RMC" --list "$obj.plain")" "$name: the same sites as without --nop"
	no_hook_relocs "$obj" "$prefix"
	ok $? "$name: no relocation against the hook remains"
	nop_sites "$obj" "$prefix"
	ok $? "$name: every recorded site is a NOP"
}
for_each_arch per_arch

# Natively: a user-mode program linked without -pg (no mcount anywhere) runs.
mkdir -p "$T_TMP/native"
for cc in gcc clang; do
	d=$T_TMP/native/$cc
	mkdir -p "$d"
	printf 'int twice(int);\nint main(void) { return twice(21) == 42 ? 0 : 1; }\n' > "$d/main.c"
	printf 'int twice(int x) { return 2 * x; }\n' > "$d/lib.c"
	$cc -O2 -g -pg -ffunction-sections -c "$d/lib.c" -o "$d/lib.o" &&
		$cc -O2 -g -pg -c "$d/main.c" -o "$d/main.o"
	run_ok "$cc: --mode=user --nop" "$RMC" --mode=user --nop "$d/lib.o" "$d/main.o"
	run_ok "$cc: links without -pg and without an mcount" $cc "$d/lib.o" "$d/main.o" -o "$d/prog"
	"$d/prog"
	ok $? "$cc: the program runs"
	# Nothing defines the hook in a freestanding static link: it must not be needed.
	printf 'int twice(int);\nvoid _start(void) { __asm__ volatile("mov %%0, %%%%edi\\n\\tmov $60, %%%%eax\\n\\tsyscall" :: "r"(twice(21) - 42) : "memory"); }\n' > "$d/start.c"
	$cc -O2 -c "$d/start.c" -o "$d/start.o"
	run_ok "$cc: links statically with no hook defined anywhere" \
		$cc -static -nostdlib "$d/start.o" "$d/lib.o" -o "$d/freestanding"
	"$d/freestanding"
	ok $? "$cc: the freestanding program runs"
	is "$("$TOP/build/objpatch" list "$d/prog" | grep -c 'twice\|main')" 2 "$cc: both functions are listed"
done

done_testing
