#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Differential test against the kernel's recordmcount: the sources in
# testdata/src are compiled at test time for every architecture of
# scripts/machines.sh with gcc and clang, in several flag sets, and the sites both
# tools record are compared.  Where the kernel tool is known to be wrong, our
# sites are checked against the disassembly instead: each must be the call
# (or the first instruction of the call sequence) to the profiling hook, one
# per function that calls it.  Calls in untraced executable sections must
# become NOPs, and a second run must leave every object byte-identical.
#
# The cases run two at a time (JOBS=N to change); each writes its results to
# a file, and the results are printed in case order so that the TAP stream is
# stable.  ONLY=REGEX runs the arches matching it, KEEP=1 keeps the objects,
# SUMMARY=FILE writes which cases agree and which are decode-checked, and why.
# Compile commands are word lists, and the awk programs are literal text:
# shellcheck disable=SC2086,SC2016,SC2089,SC2090
. "$(dirname "$0")/lib.sh"
. "$TOP/scripts/machines.sh"

SRC=$TOP/testdata/src
REF=$("$TOP/scripts/ref-recordmcount.sh" 2>&1) || {
	echo "1..0 # SKIP kernel recordmcount not available: $REF"
	exit 0
}
[ -x "$RMC" ] || { echo "Bail out! $RMC not built"; exit 1; }
export RMC REF SRC T_TMP

C_SOURCES=(funcs.c weak.c hotcold.c sections.c many.c)

# ---------------------------------------------------------------- the cases
#
# One line per object: id, arch, binutils prefix, compiler label, compile
# command (flags included, space-separated), source, mode and reason.  Mode
# `compare` compares with the kernel tool; `decode:FAULT` checks the
# disassembly instead, and checks that the kernel tool's output is what its
# known FAULT predicts (see kernel_as_predicted), so the reason given holds.

CASES=$T_TMP/cases
: > "$CASES"
ncase=0

add_case() {	# arch prefix label mode reason src cmd...
	local arch=$1 prefix=$2 label=$3 mode=$4 reason=$5 src=$6
	shift 6
	ncase=$((ncase + 1))
	printf '%04d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$ncase" "$arch" "$prefix" "$label" \
		"$*" "$src" "$mode" "$reason" >> "$CASES"
}

# kernel_fault (scripts/machines.sh): the kernel tool's known faults, by arch and compiler.

add_variant() {	# arch prefix compiler(gcc|clang) cc-cmd label-flags sources...
	local arch=$1 prefix=$2 compiler=$3 cc=$4 flags=$5 mode=compare reason='' fault src
	shift 5
	fault=$(kernel_fault "$arch" "$compiler")
	[ -z "$fault" ] || { mode=decode:${fault%%$'\t'*}; reason=${fault#*$'\t'}; }
	for src in "$@"; do
		add_case "$arch" "$prefix" "$compiler $flags" "$mode" "$reason" "$src" $cc $flags
	done
}

plan_arch() {	# name prefix clang-target kflags
	local arch=$1 prefix=$2 ct=$3 kf=$4 gcc=${2}gcc clang
	local pg="$kf -pg"

	add_variant "$arch" "$prefix" gcc "$gcc" "$pg -O2" "${C_SOURCES[@]}"
	add_variant "$arch" "$prefix" gcc "$gcc" "$pg -O2 -ffunction-sections" "${C_SOURCES[@]}"
	add_variant "$arch" "$prefix" gcc "$gcc" "$pg -O0" funcs.c
	case $arch in
	x86_64)
		add_variant "$arch" "$prefix" gcc "$gcc" "$pg -mfentry -O2" "${C_SOURCES[@]}"
		add_variant "$arch" "$prefix" gcc "$gcc" "$pg -mfentry -O2 -ffunction-sections" funcs.c weak.c
		add_variant "$arch" "$prefix" gcc "${prefix}g++" "$pg -O2" classes.cc
		add_variant "$arch" "$prefix" gcc "${prefix}g++" "$pg -O2 -ffunction-sections" classes.cc
		;;
	i386)
		add_variant "$arch" "$prefix" gcc "$gcc" "$pg -mfentry -O2" funcs.c sections.c
		;;
	mips*)
		add_variant "$arch" "$prefix" gcc "$gcc" "$pg -O2 -mlong-calls" "${C_SOURCES[@]}"
		;;
	esac
	# Debian's defaults: PIE on x86, PIC (abicalls) on MIPS.
	case $arch in
	x86_64 | i386)
		for src in "${C_SOURCES[@]}"; do
			add_case "$arch" "$prefix" "gcc -pg -O2" decode:shift+1 \
				'PIC call through the GOT: the kernel tool records r_offset-1, not the instruction' \
				"$src" "$gcc" -pg -O2
		done
		[ "$arch" = i386 ] || for src in funcs.c sections.c; do
			add_case "$arch" "$prefix" "gcc -pg -mfentry -O2" decode:shift+1 \
				'PIC call through the GOT: the kernel tool records r_offset-1, not the instruction' \
				"$src" "$gcc" -pg -mfentry -O2
		done
		;;
	mips*)
		for src in "${C_SOURCES[@]}"; do
			add_case "$arch" "$prefix" "gcc -pg -O2" decode:mips \
				'PIC %call16 + R_MIPS_JALR: the kernel tool records both relocations of one call' \
				"$src" "$gcc" -pg -O2
		done
		# PIC long calls load the hook's address from the GOT (one
		# relocation per call); -mxgot splits the GOT offset in two.
		for src in funcs.c sections.c; do
			add_case "$arch" "$prefix" "gcc -pg -O2 -mlong-calls" compare '' "$src" "$gcc" -pg -O2 -mlong-calls
			add_case "$arch" "$prefix" "gcc -pg -O2 -mxgot" decode:mips \
				'PIC -mxgot %call_hi + %call_lo + R_MIPS_JALR: the kernel tool records more than one relocation of one call' \
				"$src" "$gcc" -pg -O2 -mxgot
			add_case "$arch" "$prefix" "gcc -pg -O2 -mlong-calls -mxgot" decode:mips \
				'PIC -mxgot %got_hi + %got_lo, 8 bytes apart: the kernel tool records both relocations of one call' \
				"$src" "$gcc" -pg -O2 -mlong-calls -mxgot
		done
		;;
	esac
	[ "$ct" != - ] || return 0
	clang="clang --target=$ct"
	add_variant "$arch" "$prefix" clang "$clang" "$pg -O2" "${C_SOURCES[@]}"
	add_variant "$arch" "$prefix" clang "$clang" "$pg -O2 -ffunction-sections" "${C_SOURCES[@]}"
	add_variant "$arch" "$prefix" clang "$clang" "$pg -O0" funcs.c
	add_variant "$arch" "$prefix" clang "clang++ --target=$ct" "$pg -O2" classes.cc
	case $arch in
	x86_64) add_variant "$arch" "$prefix" clang "$clang" "$pg -mfentry -O2" "${C_SOURCES[@]}" ;;
	mips*)
		add_variant "$arch" "$prefix" clang "$clang" "$pg -O2 -mlong-calls" "${C_SOURCES[@]}"
		for src in "${C_SOURCES[@]}"; do
			add_case "$arch" "$prefix" "clang -pg -O2" decode:mips \
				'PIC %call16 + R_MIPS_JALR: the kernel tool records both relocations of one call' \
				"$src" $clang -pg -O2
		done
		;;
	esac
}

# ------------------------------------------------------------ disassembly
#
# Per arch, as extended regexes over "mnemonic operands" (spaces squeezed):
# the instruction a site must be, the instructions that have a NOP form, and
# what our NOP decodes as.
site_re() {
	case $1 in
	x86_64 | i386 | sparc64) echo '^call ' ;;
	arm*) echo '^blx? ' ;;
	aarch64 | ppc*) echo '^bl ' ;;
	mips*) echo '^(jal |lui |lw [a-z0-9]+,|ld [a-z0-9]+,)' ;;
	s390x) echo '^brasl ' ;;
	riscv64) echo '^auipc ra,' ;;
	sh4) echo '.' ;;	# the literal-pool word holding mcount's address
	esac
}
nopform_re() {
	case $1 in
	mips*) echo '.' ;;		# every relocated word of a sequence
	sh4) echo '^$' ;;		# a register call through the pool: none
	*) site_re "$1" ;;
	esac
}
nop_re() {
	case $1 in
	i386) echo '^lea (%ds:)?0x0\(%esi(,%eiz,1)?\),%esi$' ;;
	s390x) echo '^jgnop ' ;;
	mips*) echo '^(nop|addiu sp,sp,8)$' ;;	# a call word with an o32 push to undo: the pop
	*) echo '^nop' ;;
	esac
}
HOOK_RE='^\.?(_?mcount|__fentry__|__gnu_mcount_nc)$'

# objdump -dr output to lines: I sec func off text / R sec func insn-off off type sym
AWK_DIS='
function nz(h) { sub(/^0+/, "", h); return h == "" ? "0" : h }
BEGIN { OFS = "\t" }
/^Disassembly of section / { sec = $4; sub(/:$/, "", sec); fn = ""; ioff = ""; next }
/^[0-9a-f]+ <.*>:$/ { fn = $2; sub(/^</, "", fn); sub(/>:$/, "", fn); next }
/^[ \t]+[0-9a-f]+: R_/ {
	line = $0; sub(/^[ \t]+/, "", line); split(line, f, /[ \t]+/)
	sub(/:$/, "", f[1]); sym = f[3]; sub(/[+-]0x[0-9a-f]+$/, "", sym)
	print "R", sec, fn, ioff, nz(f[1]), f[2], sym
	next
}
/^ *[0-9a-f]+:\t/ {
	n = split($0, p, "\t")
	if (n < 3 || p[3] == "") next		# a continuation of the bytes
	off = p[1]; gsub(/[ :]/, "", off)
	text = p[3]; for (i = 4; i <= n; i++) text = text " " p[i]
	gsub(/  +/, " ", text); sub(/ +$/, "", text)
	ioff = nz(off)
	print "I", sec, fn, ioff, text
}'

AWK_COMMON='
function nz(h) { sub(/^0+/, "", h); return h == "" ? "0" : h }
function traced(s) {
	return s ~ /^\.text/ || s ~ /^\.(init|ref|sched|spinlock|irqentry|softirqentry|kprobes|cpuidle)\.text$/
}
function hex(h,   v, i) {
	v = 0
	for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
	return v
}
function tohex(v,   s) {
	s = ""
	do { s = substr("0123456789abcdef", v % 16 + 1, 1) s; v = int(v / 16) } while (v > 0)
	return s
}'

# Files: the disassembly of the original object, then our --list.  Prints a
# line per problem and a final "COUNT sites callers".
AWK_SITES=$AWK_COMMON'
BEGIN { FS = "\t"; re = ENVIRON["SITE_RE"]; hook = ENVIRON["HOOK_RE"] }
FNR == NR {
	if ($1 == "I")
		text[$2 SUBSEP $4] = $5
	else if ($1 == "R" && $7 ~ hook) {
		k = $2 SUBSEP $4; call[k] = 1; fn[k] = $3
		if (traced($2) && !(($2 SUBSEP $3) in callers)) { callers[$2 SUBSEP $3] = 1; ncallers++ }
	}
	next
}
{
	site = $0; sec = site; sub(/\+0x[0-9a-f]+$/, "", sec); off = site; sub(/^.*\+0x/, "", off)
	k = sec SUBSEP nz(off); nsites++
	if (!(k in call)) { print "site " site " is not an instruction with a relocation against the hook"; next }
	if (text[k] !~ re) { print "site " site " decodes as \"" text[k] "\", not the call"; next }
	if (!traced(sec)) print "site " site " is in an untraced section"
	per[sec SUBSEP fn[k]]++
}
END {
	for (c in callers)
		if (per[c] != 1) { split(c, p, SUBSEP); print "function " p[2] " (" p[1] ") calls the hook, but has " per[c] + 0 " sites" }
	print "COUNT " nsites + 0 " " ncallers + 0
}'

# Files: the disassembly of the original object, then of ours.  For every
# call to the hook in an untraced section: a call with a NOP form must now
# decode as a NOP with an R_*_NONE relocation (MIPS: its delay slot too when
# that is the o32 stack adjustment _mcount undoes, else it stays), and
# any other must be left as it was.  Prints problems, then "NOP section
# nopped kept" per untraced section with calls.
AWK_NOP=$AWK_COMMON'
BEGIN { FS = "\t"; form = ENVIRON["NOPFORM_RE"]; nop = ENVIRON["NOP_RE"]; hook = ENVIRON["HOOK_RE"] }
FNR == NR {
	if ($1 == "I")
		otext[$2 SUBSEP $4] = $5
	else if ($1 == "R" && $7 ~ hook && !traced($2)) {
		n++; sec[n] = $2; ioff[n] = $4; roff[n] = $5; type[n] = $6
	}
	next
}
$1 == "I" { ntext[$2 SUBSEP $4] = $5; next }
$1 == "R" { rel[$2 SUBSEP $5] = rel[$2 SUBSEP $5] " " $6; if ($7 ~ hook) left[$2 SUBSEP $5] = 1 }
END {
	for (i = 1; i <= n; i++) {
		k = sec[i] SUBSEP ioff[i]; r = sec[i] SUBSEP roff[i]; was = otext[k]
		where = sec[i] "+0x" ioff[i] " (" was ")"
		if (was ~ form) {
			nopped[sec[i]]++
			if (ntext[k] !~ nop) print where ": now \"" ntext[k] "\", not a NOP"
			if (rel[r] !~ /_NONE( |$)/ || (r in left)) print where ": relocation now" rel[r] ", not R_*_NONE"
			if (was ~ /^jal /) {
				ds = sec[i] SUBSEP tohex(hex(ioff[i]) + 4)
				if (otext[ds] ~ /^d?addiu sp,sp,-8$/) {
					slots++
					if (ntext[ds] !~ nop) print where ": delay slot now \"" ntext[ds] "\", not a NOP"
				} else if (ntext[ds] != otext[ds])
					print where ": delay slot \"" otext[ds] "\" (work of the function) now \"" ntext[ds] "\""
			}
		} else {
			kept[sec[i]]++
			if (ntext[k] != was) print where ": no NOP form, but now \"" ntext[k] "\""
			if (!(r in left)) print where ": no NOP form, but its hook relocation is gone"
		}
		seen[sec[i]] = 1
	}
	for (s in seen) print "NOP " s " " nopped[s] + 0 " " kept[s] + 0
	if (slots) print "SLOTS " slots
}'
# The kernel tool's MIPS filter, replayed over the original's disassembly: a
# hook relocation 4 bytes after the previous one (in any earlier section, as
# its state is static) is the second half of a %hi/%lo pair and not a call.
AWK_MIPS_KERNEL=$AWK_COMMON'
BEGIN { FS = "\t"; hook = ENVIRON["HOOK_RE"] }
$1 == "R" && $7 ~ hook && traced($2) {
	r = hex($5)
	if (!have || r - prev != 4) print $2 "+0x" $5
	prev = r; have = 1
}'
export HOOK_RE AWK_DIS AWK_SITES AWK_NOP AWK_MIPS_KERNEL

# ---------------------------------------------------------------- one case
#
# Writes "PASS<TAB>description", "FAIL<TAB>description", "# diagnostic" and
# one "MODE<TAB>..." line (for the summary) to stdout.

pass() { printf 'PASS\t%s\n' "$1"; }
fail() { printf 'FAIL\t%s\n' "$1"; }
cdiag() { sed 's/^/# /'; }

# The kernel tool failed: is it on a text section whose only symbols are weak?
weak_only_failure() {	# object kernel-output
	local idx name
	read -r idx name < <(sed -n 's/.*Cannot find symbol for section \([0-9]*\): \(.*\)\.$/\1 \2/p' "$2" | head -1)
	[ -n "${idx:-}" ] || return 1
	readelf -sW "$1" | awk -v n="$idx" '
		$7 == n { all++; if ($5 == "WEAK") weak++ }
		END { exit !(all > 0 && all == weak) }' || return 1
	echo "$name"
}

check_sites() {	# dir arch prefix desc
	local d=$1 arch=$2 problems count
	problems=$(SITE_RE=$(site_re "$arch") awk "$AWK_SITES" "$d/orig.dis" "$d/ours.list")
	count=$(sed -n 's/^COUNT //p' <<< "$problems")
	problems=$(grep -v '^COUNT ' <<< "$problems")
	if [ -z "$problems" ] && [ "${count%% *}" -gt 0 ]; then
		pass "$4: ${count%% *} sites decode to the hook call, one in each of ${count#* } calling functions"
	else
		fail "$4: sites decode to the hook call, one per calling function"
		{ echo "$problems"; echo "(sites, calling functions): $count"; } | cdiag
	fi
}

# Calls in untraced sections: NOPs (or left alone without a NOP form), named
# by -w; the bytes equal the kernel tool's where it NOPs too.
check_nops() {	# dir arch prefix desc ref-ok
	local d=$1 arch=$2 prefix=$3 desc=$4 ref_ok=$5 out sec nopped kept problems kernel=
	"${prefix}objdump" -drz "$d/ours.o" | awk "$AWK_DIS" > "$d/ours.dis"
	out=$(NOPFORM_RE=$(nopform_re "$arch") NOP_RE=$(nop_re "$arch") awk "$AWK_NOP" "$d/orig.dis" "$d/ours.dis")
	problems=$(grep -v '^NOP \|^SLOTS ' <<< "$out")
	while read -r _ sec nopped kept; do
		grep -qF -- "$sec" "$d/w.err" || problems+=$'\n'"-w names no section $sec"
		if [ "$nopped" -gt 0 ] && [ "$ref_ok" = 1 ]; then
			case $arch in
			x86_64 | arm* | aarch64)
				"${prefix}objcopy" -O binary --only-section="$sec" "$d/ours.o" "$d/ours.bin"
				"${prefix}objcopy" -O binary --only-section="$sec" "$d/ref.o" "$d/ref.bin"
				cmp -s "$d/ours.bin" "$d/ref.bin" || problems+=$'\n'"$sec differs from the kernel tool's result"
				kernel=", $sec bytes as the kernel tool's"
				;;
			esac
		fi
		if [ "$kept" -gt 0 ]; then
			desc+="; $sec: $kept hook relocations of calls without a NOP form left in place"
		else
			desc+="; $sec: $nopped calls NOP'd"
		fi
	done < <(grep '^NOP ' <<< "$out" | sort)
	[ -n "$out" ] || return 0	# no calls outside the traced sections
	grep -q '^SLOTS ' <<< "$out" && desc+=" (with $(sed -n 's/^SLOTS //p' <<< "$out") stack-adjusting delay slots)"
	if [ -z "$(sed '/^$/d' <<< "$problems")" ]; then
		pass "$desc$kernel, named by -w"
	else
		fail "$desc"
		sed '/^$/d' <<< "$problems" | cdiag
	fi
}

# Is the kernel tool's list exactly what its MIPS filter gives?
mips_filter_matches() {	# dir
	awk "$AWK_MIPS_KERNEL" "$1/orig.dis" | LC_ALL=C sort > "$1/mips.list"
	cmp -s "$1/mips.list" "$1/ref.list"
}

# On MIPS a difference is the kernel tool's when its list is exactly what its
# filter gives: prints which way it errs.
mips_kernel_fault() {	# dir arch
	local d=$1 extra missing
	case $2 in mips*) ;; *) return 1 ;; esac
	mips_filter_matches "$d" || return 1
	extra=$(LC_ALL=C comm -23 "$d/ref.list" "$d/ours.list" | wc -l)
	missing=$(LC_ALL=C comm -13 "$d/ref.list" "$d/ours.list" | wc -l)
	[ "$extra" = 0 ] || echo -n "the kernel tool records $extra more relocations of n64 long-call sequences spread over more than 4 bytes"
	[ "$extra" = 0 ] || [ "$missing" = 0 ] || echo -n '; '
	[ "$missing" = 0 ] || echo -n "the kernel tool drops $missing calls 4 bytes past the previous section's last one (its %hi/%lo filter keeps state across sections)"
}

# Our sites moved by N bytes (64-bit wrap-around, as --list prints them).
shift_sites() {	# N < list
	local site
	while read -r site; do
		printf '%s+0x%x\n' "${site%+0x*}" $((0x${site##*+0x} + $1))
	done
}

# Runs the kernel tool on a copy and checks its result is the one FAULT
# predicts from our sites or the code.  Returns 0 when it is and there is a
# table to check further, 2 when it is and there is none (kernel_note says
# why), 1 when it is not.
kernel_as_predicted() {	# dir fault
	local d=$1 weak
	cp "$d/orig.o" "$d/ref.o"
	if ! "$REF" "$d/ref.o" > "$d/ref.out" 2>&1; then
		if [ "$2" = unsupported ] && grep -q 'unrecognized e_machine' "$d/ref.out"; then
			kernel_note='the kernel tool refuses it'
			return 2
		fi
		# Independent of FAULT, and first: it looks for a base symbol
		# before it looks for calls.
		if weak=$(weak_only_failure "$d/orig.o" "$d/ref.out"); then
			kernel_note="the kernel tool fails on $weak, whose only symbols are weak"
			return 2
		fi
		cdiag < "$d/ref.out"
		return 1
	fi
	"$RMC" --list "$d/ref.o" 2> /dev/null | LC_ALL=C sort > "$d/ref.list"	# the kernel tool may write no table
	case $2 in
	shift*) shift_sites "${2#shift}" < "$d/ours.list" | LC_ALL=C sort > "$d/want.list" ;;
	empty) : > "$d/want.list" ;;
	mips) mips_filter_matches "$d" && cp "$d/mips.list" "$d/want.list" ;;
	*) return 1 ;;
	esac
	if cmp -s "$d/want.list" "$d/ref.list"; then
		kernel_note='the kernel tool finds no call'
		[ -s "$d/ref.list" ] || return 2
		return 0
	fi
	diff "$d/want.list" "$d/ref.list" | cdiag
	return 1
}

run_case() {	# one line of $CASES
	local id arch prefix label cmd src mode reason d desc ref_ok=0 ref_ran=0 weak rc kernel_note
	IFS=$'\t' read -r id arch prefix label cmd src mode reason <<< "$1"
	d=$T_TMP/w/$id
	desc="$arch $label $src"
	mkdir -p "$d"
	if ! $cmd -c "$SRC/$src" -o "$d/orig.o" 2> "$d/cc.err"; then
		fail "$desc: compiles"
		cdiag < "$d/cc.err"
		return
	fi
	cp "$d/orig.o" "$d/ours.o"
	if ! "$RMC" -w "$d/ours.o" 2> "$d/w.err"; then
		fail "$desc: recordmcount succeeds"
		cdiag < "$d/w.err"
		return
	fi
	"$RMC" --list "$d/ours.o" | LC_ALL=C sort > "$d/ours.list"
	"${prefix}objdump" -drz "$d/orig.o" | awk "$AWK_DIS" > "$d/orig.dis"
	# Every relocation against the hook is a call the recorder knows, or part of one.
	if grep -q 'is not a call to the hook' "$d/w.err"; then
		fail "$desc: every reference to the hook is a call recordmcount knows"
		cdiag < "$d/w.err"
	else
		pass "$desc: every reference to the hook is a call recordmcount knows"
	fi

	if [ "$mode" = compare ]; then
		cp "$d/orig.o" "$d/ref.o"
		if "$REF" "$d/ref.o" > "$d/ref.out" 2>&1; then
			ref_ok=1 ref_ran=1
			"$RMC" --list "$d/ref.o" 2> /dev/null | LC_ALL=C sort > "$d/ref.list"	# the kernel tool may write no table
			if [ -s "$d/ours.list" ] && cmp -s "$d/ours.list" "$d/ref.list"; then
				pass "$desc: the same $(wc -l < "$d/ours.list") sites as the kernel tool"
				printf 'MODE\tagree\t%s\n' "$desc"
			elif reason=$(mips_kernel_fault "$d" "$arch"); then
				pass "$desc: the kernel tool's sites differ exactly as its MIPS filter predicts"
				mode=decode
			else
				fail "$desc: the same sites as the kernel tool"
				diff "$d/ref.list" "$d/ours.list" | cdiag
				printf 'MODE\tDISAGREE\t%s\n' "$desc"
			fi
		elif weak=$(weak_only_failure "$d/orig.o" "$d/ref.out"); then
			mode=decode
			reason="the kernel tool fails on $weak, whose only symbols are weak"
		else
			fail "$desc: the kernel tool processes it"
			cdiag < "$d/ref.out"
			printf 'MODE\tKERNEL-FAILS\t%s\n' "$desc"
		fi
	fi
	if [ "${mode#decode:}" != "$mode" ]; then
		rc=0
		kernel_as_predicted "$d" "${mode#decode:}" || rc=$?
		case $rc in
		0) ref_ran=1; pass "$desc: the kernel tool's sites are as predicted by: $reason" ;;
		2) pass "$desc: $kernel_note (its known fault: $reason)" ;;
		*) fail "$desc: the kernel tool's sites are as predicted by: $reason" ;;
		esac
		mode=decode
	fi
	if [ "$mode" = decode ]; then
		check_sites "$d" "$arch" "$prefix" "$desc (not compared: $reason)"
		printf 'MODE\tdecode\t%s\t%s\n' "$desc" "$reason"
	else
		check_sites "$d" "$arch" "$prefix" "$desc"
	fi
	check_nops "$d" "$arch" "$prefix" "$desc: calls outside the traced sections" "$ref_ok"
	# The source must keep exercising a split function (gcc; 32-bit ARM cannot).
	case $src/$label/$arch in
	hotcold.c/gcc*-O2*/arm*) ;;
	hotcold.c/gcc*-O2*)
		if grep -q $'^I\t[^\t]*\tsplit_me\.cold\t' "$d/orig.dis"; then
			pass "$desc: gcc split split_me into a .cold part"
		else
			fail "$desc: gcc split split_me into a .cold part"
		fi
		;;
	esac

	cp "$d/ours.o" "$d/again.o"
	if "$RMC" "$d/again.o" && cmp -s "$d/ours.o" "$d/again.o"; then
		pass "$desc: a second run leaves it byte-identical"
	else
		fail "$desc: a second run leaves it byte-identical"
	fi
	if [ "$ref_ran" = 1 ]; then
		cp "$d/ref.o" "$d/again.o"
		if "$RMC" "$d/again.o" && cmp -s "$d/ref.o" "$d/again.o"; then
			pass "$desc: the kernel tool's output is left byte-identical"
		else
			fail "$desc: the kernel tool's output is left byte-identical"
		fi
	fi
	[ "${KEEP:-0}" = 1 ] || rm -rf "$d"
}
export -f pass fail cdiag weak_only_failure mips_filter_matches mips_kernel_fault shift_sites kernel_as_predicted check_sites check_nops run_case site_re nopform_re nop_re

# ---------------------------------------------------------------- main

for_each_arch plan_arch
# ONLY=REGEX limits a manual run to the matching arches.
if [ -n "${ONLY:-}" ]; then
	awk -F'\t' -v re="^($ONLY)\$" '$2 ~ re' "$CASES" > "$CASES.only"
	mv "$CASES.only" "$CASES"
fi
mkdir -p "$T_TMP/res"
xargs -d '\n' -n1 -P"${JOBS:-2}" bash -c 'run_case "$1" > "$T_TMP/res/${1%%[[:space:]]*}" 2>&1' _ < "$CASES"

while IFS=$'\t' read -r id arch _ label _ src _; do
	f=$T_TMP/res/$id
	grep -q '^PASS\|^FAIL' "$f" 2> /dev/null || ok 1 "$arch $label $src: the case ran"
	[ -f "$f" ] || continue
	while IFS= read -r line; do
		case $line in
		PASS$'\t'*) ok 0 "${line#*$'\t'}" ;;
		FAIL$'\t'*) ok 1 "${line#*$'\t'}" ;;
		MODE$'\t'*) printf '%s\n' "${line#*$'\t'}" >> "$T_TMP/summary" ;;
		*) printf '%s\n' "$line" >&2 ;;
		esac
	done < "$f"
done < "$CASES"
[ -f "$T_TMP/summary" ] && cut -f1 "$T_TMP/summary" | sort | uniq -c | sed 's/^ */# cases: /' >&2
[ -n "${SUMMARY:-}" ] && cp "$T_TMP/summary" "$SUMMARY"
done_testing
