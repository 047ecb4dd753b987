#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# recordmcount --check on the compiler's own -fpatchable-function-entry=N[,M]
# tables (testdata/patchable/pfe.c: a static function, one opting out with
# patchable_function_entry(0), a cold one in .text.unlikely), for every gcc
# here that accepts the flag and clang where it does:
#  - the object and a static link pass;
#  - copies with entry 2 removed, moved by one NOP unit, duplicated onto
#    entry 3, or with the first NOP of its pad overwritten fail, with the
#    finding at the place of the damage (mutate.py), in the object and in
#    the link.
. "$(dirname "$0")/lib.sh"

SRC=$TOP/testdata/patchable/pfe.c
MUTATE=$TOP/testdata/patchable/mutate.py
command -v python3 > /dev/null || { echo "Bail out! python3 is needed"; exit 1; }

. "$(dirname "$0")/check-lib.sh"
place() { lines "$2" "$1" | sed 's/^.*(\([^)]*\)): .*/\1/' | sort -u | tr '\n' ' ' | sed 's/ $//'; }

# entry_place FILE N: where entry N points, as --check names places (objects SECTION+0xOFF, links 0xADDR).
entry_place() { "$RMC" --list "$1" | sed -n "$(($2 + 1))p" | cut -d' ' -f1; }
# moved PLACE BYTES
moved() {
	case $1 in
	0x*) printf '0x%x\n' $(($1 + $2)) ;;
	*) local sec=${1%+*} off=${1#*+}; printf '%s+0x%x\n' "$sec" $((off + $2)) ;;
	esac
}

# mutations LABEL FILE UNIT SEARCHABLE SHIFTABLE
#   SEARCHABLE: the pad has NOPs after the function's start, so a lost entry is found;
#   SHIFTABLE: a move by one unit is visible (M = 0, or M known from DW_AT_producer).
mutations() {
	local label=$1 f=$2 unit=$3 searchable=$4 shiftable=$5 d p2 p3
	d=$(dirname "$f")
	p2=$(entry_place "$f" 2)
	p3=$(entry_place "$f" 3)
	if [ -z "$p2" ] || [ -z "$p3" ]; then
		ok 1 "$label: the file has at least 4 entries"
		return
	fi

	cp "$f" "$d/drop" && python3 "$MUTATE" drop "$d/drop" 2
	if [ "$searchable" = 1 ]; then
		is "$(check "$d/out" "$d/drop") $(place "$d/out" missing)" "1 $p2" "$label: entry removed: missing at $p2"
	else
		skip "$label: entry removed: not searched (the whole pad before the function, or ppc64 links)"
	fi

	cp "$f" "$d/shift" && python3 "$MUTATE" shift "$d/shift" 2 "$unit"
	if [ "$shiftable" = 1 ]; then
		is "$(check "$d/out" "$d/shift") $(place "$d/out" 'not-call|stale')" "1 $(moved "$p2" "$unit")" \
			"$label: entry moved by $unit bytes: not-call at $(moved "$p2" "$unit")"
	else
		skip "$label: entry moved inside the pad: M is only inferred (no DW_AT_producer)"
	fi

	cp "$f" "$d/dup" && python3 "$MUTATE" dup "$d/dup" 3 2
	is "$(check "$d/out" "$d/dup") $(count duplicate "$d/out") $(place "$d/out" duplicate)" "1 1 $p2" \
		"$label: entry 3 made a copy of entry 2: duplicate at $p2"

	cp "$f" "$d/pad" && python3 "$MUTATE" pad "$d/pad" 2 "$unit"
	is "$(check "$d/out" "$d/pad") $(place "$d/out" not-call)" "1 $p2" \
		"$label: first NOP of the pad overwritten: not-call at $p2"
	[ "${VERBOSE:-0}" = 1 ] && diag "$(cat "$d/out")"
	return 0
}

# one LABEL CC UNIT N M [EXTRA_FLAGS]: an object and a static link.
one() {
	local label=$1 cc=$2 unit=$3 n=$4 m=$5 extra=${6:-} d flag producer searchable shiftable
	d=$T_TMP/$label
	mkdir -p "$d/o" "$d/x"
	flag=-fpatchable-function-entry=$n${m:+,$m}
	# shellcheck disable=SC2086
	if ! $cc -O2 -g $extra "$flag" -c "$SRC" -o "$d/o/pfe.o" 2> "$d/err"; then
		skip "$label: $cc rejects $flag: $(head -1 "$d/err")"
		return
	fi
	producer=0
	case $cc in *gcc*) producer=1 ;; esac
	searchable=1
	[ "${m:-0}" -ge "$n" ] && searchable=0
	case $label in mips*) searchable=0 ;; esac	# gcc puts MIPS's whole pad before the label
	shiftable=1
	[ "$producer" = 0 ] && [ "${m:-0}" -gt 0 ] && shiftable=0
	is "$(check "$d/o/out" "$d/o/pfe.o")" 0 "$label $flag: object passes"
	grep -q ' at a function' "$d/o/out" || diag "$(cat "$d/o/out")"
	mutations "$label $flag object" "$d/o/pfe.o" "$unit" "$searchable" "$shiftable"

	# shellcheck disable=SC2086
	if ! $cc -O2 -g $extra "$flag" -static "$SRC" -o "$d/x/pfe" 2> "$d/err" &&
	   ! $cc -O2 -g $extra "$flag" -nostdlib -static -e main "$SRC" -o "$d/x/pfe" 2> "$d/err"; then
		ok 1 "$label $flag: static link ($(head -1 "$d/err"))"
		return
	fi
	is "$(check "$d/x/out" "$d/x/pfe")" 0 "$label $flag: static link passes"
	grep -q ': clean;' "$d/x/out" || diag "$(cat "$d/x/out")"
	# ppc64 linkers make NOPs of TOC loads at functions' starts: no search for lost entries there.
	case $label in ppc64*) searchable=0 ;; esac
	mutations "$label $flag link" "$d/x/pfe" "$unit" "$searchable" "$shiftable"
}

# label gcc-prefix unit (N M)...
GCC_CASES='
x86_64   x86_64-linux-gnu-        1 5: 5,2
i686     i686-linux-gnu-          1 5: 5,2
aarch64  aarch64-linux-gnu-       4 2: 4,2
riscv64  riscv64-linux-gnu-       2 4: 4,1
arm      arm-linux-gnueabihf-     2 2: 3,1
ppc64le  powerpc64le-linux-gnu-   4 2:
ppc64    powerpc64-linux-gnu-     4 2:
ppc      powerpc-linux-gnu-       4 2: 3,1
s390x    s390x-linux-gnu-         2 3: 3,1
mips     mips-linux-gnu-          4 2: 3,1
mips64el mips64el-linux-gnuabi64- 4 2:
sh4      sh4-linux-gnu-           2 2: 3,1
sparc64  sparc64-linux-gnu-       4 2: 3,1
'

while read -r label prefix unit shapes; do
	[ -n "$label" ] || continue
	if ! command -v "${prefix}gcc" > /dev/null; then
		skip "$label: ${prefix}gcc is not installed"
		continue
	fi
	for s in $shapes; do
		nm=${s%:}
		one "$label-gcc-${nm/,/-}" "${prefix}gcc" "$unit" "${nm%%,*}" "$(case $nm in *,*) echo "${nm#*,}" ;; esac)"
	done
done <<< "$GCC_CASES"

# clang: label target unit shapes
CLANG_CASES='
x86_64  x86_64-linux-gnu   1 5: 5,2
aarch64 aarch64-linux-gnu  4 2: 4,2
riscv64 riscv64-linux-gnu  2 4:
'
if command -v clang > /dev/null; then
	while read -r label target unit shapes; do
		[ -n "$label" ] || continue
		for s in $shapes; do
			nm=${s%:}
			one "$label-clang-${nm/,/-}" "clang --target=$target" "$unit" "${nm%%,*}" \
				"$(case $nm in *,*) echo "${nm#*,}" ;; esac)" "-fuse-ld=bfd"
		done
	done <<< "$CLANG_CASES"
else
	skip "clang is not installed"
fi

done_testing
