#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Large and unusual objects: more than 65535 sections (SHN_XINDEX), a
# function larger than 64 KiB, compressed debug sections (-gz), objects
# without calls, and text sections whose only symbol is weak (the kernel
# tool's "Cannot find symbol for section"), with gcc and clang.
. "$(dirname "$0")/lib.sh"
. "$TOP/scripts/machines.sh"

SRC=$TOP/testdata/large
REF=$("$TOP/scripts/ref-recordmcount.sh" 2>/dev/null) || REF=
cd "$T_TMP" || exit 1

# mawk has no strtonum.
AWK_HEX='function hex(h,   v, i) {
	h = tolower(h); sub(/^0x/, "", h); v = 0
	for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
	return v
}'
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
# The table's relocations as "SYMBOL+0xADDEND" lines, read by objdump (not by us).
table_relocs() { objdump -r -j __mcount_loc "$1" | awk '$2 ~ /^R_/ { print $3 }'; }
# The 64-bit addresses stored in a linked file's __mcount_loc, sorted.
linked_table() {
	objcopy -O binary -j __mcount_loc "$1" "$1.tab" &&
		od -An -v -tx8 "$1.tab" | tr -s ' ' '\n' | grep . | sort
}

# ---- more than 65535 sections ----
# gas numbers sections past SHN_LORESERVE with e_shnum = 0 and an extended
# section index table; every function is in its own section and calls mcount,
# and no section symbol is emitted (nothing refers to the sections), so the
# tool must add section symbols beyond SHN_LORESERVE too.
N=40000
awk -v n=$N 'BEGIN {
	for (i = 0; i < n; i++)
		printf "\t.section .text.f%d,\"ax\",@progbits\n\t.globl f%d\n\t.type f%d, @function\n" \
		       "f%d:\n\tpushq %%rbp\n\tmovq %%rsp, %%rbp\n\tcall mcount\n\tpopq %%rbp\n\tret\n" \
		       "\t.size f%d, .-f%d\n", i, i, i, i, i, i
}' > many.s
awk -v n=$N 'BEGIN {
	for (i = 0; i < n; i++)
		printf "\t.section .text.g%d,\"ax\",@progbits\n\t.globl g%d\ng%d:\n\tret\n", i, i, i
}' > nocalls.s
printf '\t.text\n\t.globl mcount\nmcount:\n\tret\n' > mcount.s
x86_64-linux-gnu-as many.s -o many.o && x86_64-linux-gnu-as nocalls.s -o nocalls.o &&
	x86_64-linux-gnu-as mcount.s -o mcount.o || { echo "Bail out! cannot assemble"; exit 1; }
shnum=$(readelf -hW many.o | awk -F: '/Number of section headers/ { gsub(/ /, "", $2); print $2 }')
case $shnum in
0\(*\)) ok 0 "many.o has $shnum sections (e_shnum 0: extended numbering)" ;;
*) ok 1 "many.o has more than 65535 sections"; diag "readelf says $shnum" ;;
esac

cp many.o ours.o
# CPU time (user + system), which other work on a shared machine does not
# stretch as it stretches the wall clock.
cpu=$( { TIMEFORMAT='%3U %3S'; time "$RMC" ours.o >/dev/null 2>"$T_TMP/many.err"; echo "rc $?" >&2; } 2>&1 )
rc=$(awk '$1 == "rc" { print $2 }' <<< "$cpu")
is "$rc" 0 "$N sections with a call each: processed"
[ "$rc" = 0 ] || diag "$(cat "$T_TMP/many.err")"
ours_time=$(awk '$1 != "rc" { printf "%.2f", $1 + $2 }' <<< "$cpu")
awk -v t="$ours_time" 'BEGIN { exit !(t < 20) }'
ok $? "$N sections processed in ${ours_time} s of CPU time (under 20)"
table_relocs ours.o | sed 's/+0x0*/+0x/' > ours.rel
is "$(wc -l < ours.rel)" $N "one table entry per function"
is "$(sed 's/+.*//' ours.rel | sort -u | wc -l)" $N "every text section has its entry"
is "$(grep -cv '^\.text\.f[0-9]*+0x4$' ours.rel)" 0 "every entry is SECTION+4, against the section (not the function symbol)"
last_sec=$(readelf -SW ours.o | awk '/ \.text\.f'$((N - 1))' / { gsub(/[][]/, " "); print $1 }')
[ "${last_sec:-0}" -gt 65535 ]
ok $? "the last function's section index ($last_sec) is beyond 65535"
readelf -sW ours.o | awk -v s="$last_sec" '$4 == "SECTION" && $7 == s { f = 1 } END { exit !f }'
ok $? "a section symbol for section $last_sec exists (SHN_XINDEX via .symtab_shndx)"

if [ -n "$REF" ]; then
	cp many.o ref.o
	t0=$(now)
	"$REF" ref.o
	rc=$?
	t1=$(now)
	is $rc 0 "kernel tool processes the same object"
	diag "time for $N sections: ours ${ours_time}s, kernel tool $(elapsed "$t0" "$t1")s"
	table_relocs ref.o | sed 's/+0x0*/+0x/; s/^f/.text.f/' | sort > ref.rel
	sort ours.rel | cmp -s - ref.rel
	ok $? "same entries as the kernel tool (its base symbols are the functions: fN+4 = .text.fN+4)"
	"$RMC" --list ours.o > ours.list && "$REF" ref.o >/dev/null 2>&1 && "$RMC" --list ref.o > ref.list
	cmp -s <(sort ours.list) <(sort ref.list)
	ok $? "--list agrees on both objects"
	if x86_64-linux-gnu-ld -o ours.exe -e f0 ours.o mcount.o &&
	   x86_64-linux-gnu-ld -o ref.exe -e f0 ref.o mcount.o; then
		linked_table ours.exe > ours.addrs
		linked_table ref.exe > ref.addrs
		is "$(wc -l < ours.addrs)" $N "linked: $N addresses in __mcount_loc"
		cmp -s ours.addrs ref.addrs
		ok $? "linked: the same addresses as with the kernel tool's object"
	else
		ok 1 "both objects link"
	fi
else
	skip "kernel tool not available: no comparison for $N sections"
fi

# User mode: a table and a relocation section per function, 160000 sections.
cp many.o user.o
t0=$(now)
"$RMC" --mode=user user.o
rc=$?
t1=$(now)
is $rc 0 "user mode on $N sections: processed ($(elapsed "$t0" "$t1")s)"
if x86_64-linux-gnu-ld -o user.exe -e f0 user.o mcount.o; then
	# Self-relative 32-bit entries: address = the entry's own address + value.
	base=$(readelf -SW user.exe | awk '/ __mcount_rel / { sub(/^.*\] /, ""); print $3 }')
	objcopy -O binary -j __mcount_rel user.exe user.tab
	od -An -v -td4 user.tab | tr -s ' ' '\n' | grep . |
		awk -v base="$base" "$AWK_HEX"'{ printf "%016x\n", hex(base) + 4 * (NR - 1) + $1 }' | sort > user.addrs
	is "$(wc -l < user.addrs)" $N "user mode, linked: $N entries"
	if [ -s ref.addrs ]; then
		cmp -s user.addrs ref.addrs
		ok $? "user mode, linked: the same addresses as the kernel tool's table"
	fi
else
	ok 1 "user mode result links"
fi

cp ours.o ours2.o
"$RMC" ours2.o && cmp -s ours.o ours2.o
ok $? "second run on the $N-section result changes nothing"
cp nocalls.o nocalls2.o
t0=$(now)
"$RMC" nocalls2.o
rc=$?
t1=$(now)
is $rc 0 "$N sections without calls: accepted"
cmp -s nocalls.o nocalls2.o
ok $? "$N sections without calls: byte-identical ($(elapsed "$t0" "$t1")s)"
rm -f many.s nocalls.s ./*.exe ./*.tab ours2.o nocalls2.o user.o

# ---- a function larger than 64 KiB, on every machine ----
bigfunc() {	# name prefix clang-target kflags
	local o=bf-$1.o fault
	fault=$(kernel_fault "$1" gcc)
	# shellcheck disable=SC2086
	"${2}gcc" -pg -O2 $4 -c "$SRC/bigfunc.c" -o "$o" || { ok 1 "$1: compile bigfunc.c"; return; }
	cp "$o" "ours-$o"
	"$RMC" "ours-$o"
	ok $? "$1: object with a 70000-byte function processed"
	"$RMC" --list "ours-$o" > "ours-$o.list"
	awk -F+ "$AWK_HEX"' hex($2) > 65536 { n++ } END { exit !(n >= 2) }' "ours-$o.list"
	ok $? "$1: entries beyond offset 0x10000 recorded"
	if [ -n "$REF" ] && [ -n "$fault" ]; then
		skip "$1: same sites as the kernel tool: ${fault#*$'\t'}"
	elif [ -n "$REF" ]; then
		cp "$o" "ref-$o"
		"$REF" "ref-$o" >/dev/null
		"$RMC" --list "ref-$o" > "ref-$o.list"
		cmp -s "ours-$o.list" "ref-$o.list"
		local same=$?
		ok $same "$1: same sites as the kernel tool"
		[ $same = 0 ] || diag "ours: $(tr '\n' ' ' < "ours-$o.list")" "kernel: $(tr '\n' ' ' < "ref-$o.list")"
	fi
}
for_each_arch bigfunc
# Each x86_64 site must be a call with a relocation against mcount.
x86_64-linux-gnu-objdump -dr bf-x86_64.o | awk "$AWK_HEX"'
	/^ *[0-9a-f]+:\t/ { off = $1; sub(/:$/, "", off); call[off] = ($0 ~ /\tcall /) }
	/R_X86_64_PLT32\tmcount/ { off = $1; sub(/:$/, "", off); rel[hex(off)] = 1 }
	END { for (o in call) if (call[o] && (hex(o) + 1) in rel) print o }' |
	sed 's/^0*//; s/^$/0/' | sort > bf-calls
sed 's/^\.text+0x//' ours-bf-x86_64.o.list | sort > bf-sites
[ -s bf-calls ] && cmp -s bf-calls bf-sites
same=$?
ok $same "x86_64: the sites are exactly the calls to mcount in the disassembly"
[ $same = 0 ] || diag "calls: $(tr '\n' ' ' < bf-calls)" "sites: $(tr '\n' ' ' < bf-sites)"

# ---- compressed debug sections ----
compressed_sections() { readelf -SW "$1" | awk '/\]/ { sub(/^.*\] /, ""); if ($0 ~ / C /) print $1 }'; }
x86_64-linux-gnu-gcc -g -gz -pg -O2 -fno-pic -c "$SRC/gz.c" -o gz.o
csecs=$(compressed_sections gz.o | tr '\n' ' ')
[ -n "$csecs" ]
ok $? "-gz object has compressed sections: $csecs"
cp gz.o gz-ours.o
run_ok "-gz object processed" "$RMC" gz-ours.o
"$RMC" --list gz-ours.o | grep -q '^\.text\.rmc_asm_weak+'
ok $? "its weak assembly function is recorded (a section symbol was inserted)"
[ "$(readelf -sW gz.o | awk '$4 == "SECTION"' | wc -l)" -lt "$(readelf -sW gz-ours.o | awk '$4 == "SECTION"' | wc -l)" ]
ok $? "symbols were inserted, so the debug relocations were renumbered"
is "$(compressed_sections gz-ours.o | tr '\n' ' ')" "$csecs" "the same sections are still compressed (flag C)"
bad=0
for s in $csecs; do
	cmp -s <(readelf -x "$s" gz.o) <(readelf -x "$s" gz-ours.o) || { bad=1; diag "$s differs"; }
done
ok $bad "compressed sections byte-identical (raw readelf -x)"
# Every relocation, of the debug sections too, names the same symbol after
# the renumbering (the inserted section symbol shifts the global symbols).
old_relocs() {
	readelf -rW "$1" | awk '/^Relocation section/ { keep = ($3 !~ /__mcount/); if (keep) print $3; next }
		keep && NF >= 5 { $2 = ""; print }'
}
cmp -s <(old_relocs gz.o) <(old_relocs gz-ours.o)
ok $? "all former relocations name the same symbols and addends as before"
if x86_64-linux-gnu-gcc -pg -no-pie gz.o -o gz0 && x86_64-linux-gnu-gcc -pg -no-pie gz-ours.o -o gz1; then
	ok 0 "-gz result links"
	bad=0
	for f in rmc_gz main; do
		a0=$(nm gz0 | awk -v f=$f '$3 == f { print $1 }')
		a1=$(nm gz1 | awk -v f=$f '$3 == f { print $1 }')
		l0=$(addr2line -e gz0 "0x$a0")
		l1=$(addr2line -e gz1 "0x$a1")
		case $l1 in *gz.c:[1-9]*) ;; *) bad=1 ;; esac
		[ "$l0" = "$l1" ] || bad=1
		[ $bad = 0 ] || diag "$f: $l0 (original) vs $l1 (processed)"
	done
	ok $bad "linked: DWARF line info still maps functions to their source lines"
	(cd "$T_TMP" && ./gz1)
	ok $? "linked -gz program runs"
else
	ok 1 "-gz result links"
fi

# ---- text sections whose only symbol is weak ----
# Kernel-style flags; no unwind tables so nothing refers to the sections.
WEAKFLAGS="-pg -O2 -fno-pic -ffunction-sections -fno-asynchronous-unwind-tables"
weak_case() {	# label compiler...
	local label=$1
	shift
	"$@" $WEAKFLAGS -c "$SRC/weak.c" -o "weak-$label.o" &&
		"$@" $WEAKFLAGS -c "$SRC/override.c" -o "override-$label.o" &&
		"$@" $WEAKFLAGS -c "$SRC/main.c" -o "main-$label.o" || { ok 1 "$label: compile"; return; }
	# The premise: no section symbol for the weak functions' sections.
	readelf -sW "weak-$label.o" | awk '
		$5 == "WEAK" { weak[$7] = 1 } $4 == "SECTION" { sec[$7] = 1 }
		END { for (s in weak) if (s in sec) exit 1; exit 0 }'
	ok $? "$label: weak functions' sections have no section symbol"
	if [ -n "$REF" ]; then
		cp "weak-$label.o" "weak-$label-ref.o"
		out=$("$REF" "weak-$label-ref.o" 2>&1)
		case $out in *"Cannot find symbol for section"*) ok 0 "$label: the kernel tool fails (\"Cannot find symbol\")" ;;
		*) ok 1 "$label: the kernel tool fails (\"Cannot find symbol\")"; diag "$out" ;; esac
	fi
	for o in weak override main; do
		"$RMC" "$o-$label.o" || { ok 1 "$label: $o.o processed"; return; }
	done
	ok 0 "$label: all three objects processed"
	# Each entry of weak.o must be relocated against a LOCAL SECTION symbol.
	readelf -sW "weak-$label.o" | awk '$1 ~ /^[0-9]+:$/ { sub(/:/, "", $1); print $1, $4, $5 }' > syms
	readelf -rW "weak-$label.o" | awk "$AWK_HEX"'
		/^Relocation section/ { keep = ($3 ~ /^.\.rela__mcount_loc.$/); next }
		keep && $3 ~ /^R_/ { print hex(substr($2, 1, length($2) - 8)), $5 }' > entries
	bad=$(awk 'NR == FNR { t[$1] = $2 " " $3; next } t[$1] != "SECTION LOCAL" { print "symbol " $1 " (" $2 ") is " t[$1] }' syms entries)
	[ -s entries ] && [ -z "$bad" ]
	ok $? "$label: every entry is relocated against a LOCAL section symbol"
	[ -z "$bad" ] || diag "$bad"
	grep -q '^[0-9]* \.text\.rmc_weak$' entries && grep -q '^[0-9]* \.text\.rmc_weak_kept$' entries
	ok $? "$label: the weak functions' sections have entries"
	# Link with the override: weak.o's entry for rmc_weak stays on the
	# discarded-in-effect weak copy, not on the override (which has its own).
	if ! x86_64-linux-gnu-gcc -pg -no-pie "main-$label.o" "weak-$label.o" "override-$label.o" -o "prog-$label"; then
		ok 1 "$label: links with the override"
		return
	fi
	linked_table "prog-$label" | sed 's/^0*//' > addrs
	x86_64-linux-gnu-objdump -d "prog-$label" | awk '
		/^ *[0-9a-f]+:\t/ && /\tcall +[0-9a-f]+ <mcount(@plt)?>/ { a = $1; sub(/:$/, "", a); print a }' | sort > calls
	is "$(wc -l < addrs)" "$(sort -u addrs | wc -l)" "$label: no duplicate entries after linking"
	is "$(sort addrs | comm -23 - calls | wc -l)" 0 "$label: every linked entry is a call to mcount"
	read -r ov size < <(nm -S "prog-$label" | awk '$4 == "rmc_weak" { print $1, $2 }')
	in_override=$(awk -v lo="$ov" -v sz="$size" "$AWK_HEX"' hex($1) >= hex(lo) && hex($1) < hex(lo) + hex(sz)' addrs | wc -l)
	is "$in_override" 1 "$label: exactly one entry in the override rmc_weak (its own)"
	is "$(wc -l < addrs)" "$(for o in weak override main; do "$RMC" --list "$o-$label.o"; done | wc -l)" \
		"$label: every object's entry survives the link"
}
weak_case gcc x86_64-linux-gnu-gcc
weak_case clang clang --target=x86_64-linux-gnu

done_testing
