#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Kernel-mode tables survive the links Kbuild does, on every architecture:
# traced objects are processed, combined with `ld -r`, then linked into a
# static non-PIE executable (libc-less, never run).  The table read back from
# the executable must be exactly the set of hook call sites found by
# disassembling the executable: one per traced function, none duplicated,
# each decoding to the arch's call (SH: the literal-pool word the call loads).
# RISC-V is also linked with relaxation, which moves code after assembly.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../scripts/machines.sh"

SRC=$TOP/testdata/link
HOOK_NAMES='mcount|_mcount|__gnu_mcount_nc|__fentry__'

# The mnemonic of the call to the hook, for the arches where the site is the call.
call_mnemonic() {
	case $1 in
	x86_64 | i386 | sparc64) echo call ;;
	arm | arm-arm | aarch64 | ppc*) echo bl ;;
	mips*) echo jal ;;
	s390x) echo brasl ;;
	esac
}

# disasm PREFIX EXE: "ADDR FUNC INSN..." per instruction, ADDR in hex without
# leading zeros, FUNC the symbol objdump labels the code with (an ELFv1
# ".name" without its dot).
disasm() {
	"${1}objdump" -d --no-show-raw-insn "$2" | awk -F'\t' '
		/^[0-9a-f]+ <.*>:$/ { f = $0; sub(/^[0-9a-f]+ <\.?/, "", f); sub(/>:$/, "", f); next }
		/^ *[0-9a-f]+:\t/ {
			a = $1; gsub(/[ :]/, "", a); sub(/^0+/, "", a)
			insn = $2; for (i = 3; i <= NF; i++) insn = insn " " $i
			print a, f, insn
		}'
}

# sites ARCH HOOK < disasm: "ADDR FUNC" of every call to HOOK outside HOOK,
# at the address the table must hold for it.
sites() {
	awk -v arch="$1" -v hook="$2" -v mn="$(call_mnemonic "$1")" '
		function refs_hook(s) { return s ~ ("<\\.?" hook "(\\+0x[0-9a-f]+)?>") }
		$2 == hook { next }
		arch == "riscv64" && $3 == "jal" && refs_hook($0) { print $1, $2 }
		arch == "riscv64" && $3 == "jalr" && refs_hook($0) {
			print (prev3 == "auipc" ? prev1 : "jalr-without-auipc@" $1), $2
		}
		arch == "sh4" && $3 == "mov.l" && $0 ~ ("! [0-9a-f]+ <" hook ">") {
			pool = $4; sub(/^0+/, "", pool); print pool, $2
		}
		mn != "" && $3 == mn && refs_hook($0) { print $1, $2 }
		{ prev1 = $1; prev3 = $3 }'
}

# entries EXE: the addresses our --list reads from the linked table.
entries() {
	"$RMC" --list "$1" | awk '{ a = $1; sub(/^0x0*/, "", a); print a }'
}

# Defined functions of the traced objects: the ones that must have one entry each.
traced_functions() {
	local prefix=$1
	shift
	"${prefix}readelf" -sW "$@" | awk '$4 == "FUNC" && $(NF - 1) != "UND" { print $NF }' | sort -u
}

# check_table ARCH PREFIX EXE LABEL HOOK: the table against the disassembly.
check_table() {
	local arch=$1 prefix=$2 exe=$3 label=$4 hook=$5 dir
	dir=$(dirname "$exe")
	disasm "$prefix" "$exe" > "$exe.dis"
	sites "$arch" "$hook" < "$exe.dis" | sort > "$exe.sites"
	if ! entries "$exe" > "$exe.entries"; then
		ok 1 "$label: --list reads the linked table"
		return
	fi
	ok 0 "$label: --list reads the linked table"
	is "$(grep -c . "$exe.entries")" "$(grep -c . "$exe.sites")" "$label: as many entries as hook calls ($(grep -c . "$exe.sites"))"
	is "$(sort "$exe.entries" | uniq -d | tr '\n' ' ')" "" "$label: no entry twice"
	is "$(cut -d' ' -f1 "$exe.sites" | sort -u | comm -23 <(sort -u "$exe.entries") - | tr '\n' ' ')" "" \
		"$label: every entry is a call to $hook"
	is "$(cut -d' ' -f1 "$exe.sites" | sort -u | comm -13 <(sort -u "$exe.entries") - | tr '\n' ' ')" "" \
		"$label: every call to $hook has an entry"
	is "$(cut -d' ' -f2 "$exe.sites" | sort | uniq -d | tr '\n' ' ')" "" "$label: one call per function"
	is "$(cut -d' ' -f2 "$exe.sites" | sort | tr '\n' ' ')" \
		"$(traced_functions "$prefix" "$dir"/[abc].o | tr '\n' ' ')" "$label: the traced functions are the ones called"
	is "$("$RMC" --list "$exe" | awk '$2 !~ /^\.text\+/' | tr '\n' ' ')" "" "$label: entries lie in .text"
}

# riscv_relaxation DIR LABEL: relaxation moved the sites, so an entry kept as
# section+addend (the pre-relaxation offset) would have pointed elsewhere.
riscv_relaxation() {
	local dir=$1 label=$2 prefix=riscv64-linux-gnu- textidx first base naive misses
	is "$(awk '$3 == "jal" && /<_mcount>/' "$dir/exe.dis" | grep -c .)" "$(grep -c . "$dir/exe.sites")" \
		"$label: the linker relaxed every auipc+jalr to _mcount into jal"
	textidx=$("${prefix}readelf" -SW "$dir/rel.o" | sed -n 's/^ *\[ *\([0-9]*\)\] \.text .*/\1/p')
	first=$("${prefix}readelf" -sW "$dir/rel.o" |
		awk -v s="$textidx" '$4 == "FUNC" && $(NF - 1) == s && $2 ~ /^0+$/ { print $NF; exit }')
	base=$("${prefix}nm" "$dir/exe" | awk -v f="$first" '$3 == f { print $1 }')
	if [ -z "$first" ] || [ -z "$base" ]; then
		ok 1 "$label: .text of the ld -r object starts with a function"
		return
	fi
	naive=$("$RMC" --list "$dir/rel.o" | while IFS=+ read -r sec off; do
		[ "$sec" = .text ] && printf '%x\n' $((0x$base + off))
	done | sort -u)
	misses=$(comm -23 <(echo "$naive") <(cut -d' ' -f1 "$dir/exe.sites" | sort -u) | grep -c .)
	diag "$label: $misses of $(echo "$naive" | grep -c .) section+offset addresses miss the call"
	ok "$([ -n "$naive" ] && [ "$misses" -gt 0 ]; echo $?)" \
		"$label: entries kept as .text+offset would miss calls after relaxation"
}

link_one() {
	local name=$1 prefix=$2 flags=$3 label=$4 dir=$5 hook out
	mkdir -p "$dir"
	if ! out=$(for f in a b c; do "${prefix}gcc" -O2 -pg $flags -c "$SRC/$f.c" -o "$dir/$f.o" || exit 1; done 2>&1); then
		ok 1 "$label: compile"
		diag "$out"
		return
	fi
	hook=$("${prefix}nm" -u "$dir"/[abc].o | awk '{ print $2 }' | grep -xE "$HOOK_NAMES" | sort -u)
	is "$(echo "$hook" | grep -c .)" 1 "$label: the objects call one hook ($hook)"
	run_ok "$label: recordmcount" "$RMC" "$dir/a.o" "$dir/b.o" "$dir/c.o"
	run_ok "$label: ld -r" "${prefix}ld" -r -o "$dir/rel.o" "$dir/a.o" "$dir/b.o" "$dir/c.o"
	run_ok "$label: compile start (no -pg)" "${prefix}gcc" -O2 $flags -DHOOK="$hook" -c "$SRC/start.c" -o "$dir/start.o"
	if ! out=$("${prefix}gcc" $flags -static -nostdlib -no-pie -Wl,-e,_start -o "$dir/exe" \
			"$dir/start.o" "$dir/rel.o" 2>&1); then
		ok 1 "$label: final link"
		diag "$out"
		return
	fi
	ok 0 "$label: final link"
	is "$("${prefix}readelf" -h "$dir/exe" | awk '/Type:/ { print $2 }')" EXEC "$label: not PIE"
	check_table "$name" "$prefix" "$dir/exe" "$label" "$hook"
	if [ "$name" = riscv64 ]; then
		if [[ $flags != *-ffunction-sections* ]]; then
			riscv_relaxation "$dir" "$label"
		fi
		# Without relaxation the site is the auipc of each pair.
		run_ok "$label: final link --no-relax" "${prefix}gcc" $flags -static -nostdlib -no-pie \
			-Wl,-e,_start -Wl,--no-relax -o "$dir/exe-norelax" "$dir/start.o" "$dir/rel.o"
		check_table "$name" "$prefix" "$dir/exe-norelax" "$label --no-relax" "$hook"
		is "$(awk '$3 == "auipc"' "$dir/exe-norelax.dis" | cut -d' ' -f1 | sort | comm -12 - <(sort "$dir/exe-norelax.entries") | grep -c .)" \
			"$(grep -c . "$dir/exe-norelax.entries")" "$label --no-relax: every entry is an auipc"
	fi
}

one_arch() {
	local name=$1 prefix=$2 kflags=$4
	if ! command -v "${prefix}gcc" > /dev/null; then
		skip "$name: ${prefix}gcc not installed"
		return
	fi
	link_one "$name" "$prefix" "$kflags" "$name" "$T_TMP/$name"
	link_one "$name" "$prefix" "$kflags -ffunction-sections" "$name -ffunction-sections" "$T_TMP/$name-fs"
}

for_each_arch one_arch
done_testing
