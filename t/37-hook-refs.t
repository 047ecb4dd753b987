#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Every relocation against the hook in code is accounted for:
# testdata/hookrefs/*.s reference the hook in ways no compiler emits today
# (tail jumps, address loads, data words in code, RISC-V `tail` under the
# call's own relocation type, a MIPS %hi/%lo with no call after it), next to
# one ordinary call.  For each machine, assembled at test time:
#  - recordmcount records the call and prints one warning per other
#    reference, naming the section, offset and relocation type; exit 0;
#  - --strict fails (exit 1) with one line that counts them and names the
#    first, and leaves the file as it was;
#  - --check on the recorded object reports each as a hook-ref finding
#    (exit 1), and a reference in a data section is not one;
#  - linked with a definition of the hook, --check finds the jumps into it
#    by decoding the code, and nothing else: an address load with no call
#    through its register is no call missing from the table.
# The counts are the EXPECT line of each file.  About 10 s.
. "$(dirname "$0")/lib.sh"

[ -x "$RMC" ] || { echo "Bail out! $RMC not built"; exit 1; }
SRC=$TOP/testdata/hookrefs
# machine, binutils prefix, flags for the C compiler that builds the hook and _start
MACHINES=(
	"x86_64 x86_64-linux-gnu- -fno-pic"
	"aarch64 aarch64-linux-gnu- -fno-pic"
	"arm arm-linux-gnueabihf- -marm -fno-pic"
	"riscv64 riscv64-linux-gnu- -fno-pic"
	"mipsel mipsel-linux-gnu- -fno-pic -mno-abicalls"
)

cat > "$T_TMP/hook.c" <<'C'
void __fentry__(void) {}
void mcount(void) {}
void _mcount(void) {}
void __gnu_mcount_nc(void) {}
void _start(void) { for (;;) ; }
C


for row in "${MACHINES[@]}"; do
	read -r m p cflags <<< "$row"
	s=$SRC/$m.s d=$T_TMP/$m
	mkdir -p "$d"
	if ! command -v "${p}as" > /dev/null || ! command -v "${p}gcc" > /dev/null; then
		ok 1 "[$m] ${p}as and ${p}gcc installed (scripts/deps.sh)"
		continue
	fi
	read -r strays linked < <(sed -n 's/^.*EXPECT strays=\([0-9]*\) linked=\([0-9]*\).*/\1 \2/p' "$s")
	compile_ok "[$m] assemble" "${p}as" -o "$d/refs.o" "$s" || continue
	cp "$d/refs.o" "$d/orig.o"

	"$RMC" "$d/refs.o" 2> "$d/w.err"
	rc=$?
	n=$(grep -c ': warning: \.text+0x[0-9a-f]*: R_[A-Z0-9_]* against [_a-z]* is not a call to the hook' "$d/w.err")
	is "$rc $n $(wc -l < "$d/w.err")" "0 $strays $strays" \
		"[$m] recordmcount: exit 0, one warning per reference with its section, offset and type"
	[ "$n" = "$strays" ] || diag "$(cat "$d/w.err")"
	is "$("$RMC" --list "$d/refs.o" | wc -l)" 1 "[$m] the ordinary call is recorded"

	cp "$d/orig.o" "$d/strict.o"
	"$RMC" --strict "$d/strict.o" 2> "$d/s.err"
	rc=$?
	first=$(sed -n '1s/^.*warning: \(\.text+0x[0-9a-f]*: R_[A-Z0-9_]* against [_a-z]*\) .*/\1/p' "$d/w.err")
	if [ "$rc" = 1 ] && [ "$(wc -l < "$d/s.err")" = 1 ] && cmp -s "$d/orig.o" "$d/strict.o" &&
		grep -qF "recordmcount: $d/strict.o: $strays references to the hook are not a call recordmcount knows, first $first (--strict: left unchanged" "$d/s.err"; then
		ok 0 "[$m] --strict: exit 1, one line (the count, the first), the object left as it was"
	else
		ok 1 "[$m] --strict: exit 1, one line (the count, the first), the object left as it was"
		diag "exit $rc" "$(cat "$d/s.err")"
	fi

	"$RMC" --check --json "$d/refs.o" > "$d/check.json"
	rc=$?
	n=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(1 for f in d["files"][0]["findings"] if f["kind"] == "hook-ref"))' "$d/check.json" 2>&1)
	is "$rc $n" "1 $strays" "[$m] --check on the object: exit 1, $strays hook-ref findings"

	if ! "${p}gcc" -O2 $cflags -c "$T_TMP/hook.c" -o "$d/hook.o" 2> "$d/cc.err" ||
		! "${p}gcc" -nostdlib -static -no-pie -o "$d/prog" "$d/refs.o" "$d/hook.o" 2>> "$d/cc.err"; then
		ok 1 "[$m] links with a definition of the hook"
		diag "$(cat "$d/cc.err")"
		continue
	fi
	"$RMC" --check --json "$d/prog" > "$d/linked.json"
	rc=$?
	n=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(1 for f in d["files"][0]["findings"] if f["kind"] == "hook-ref"))' "$d/linked.json" 2>&1)
	want=0
	[ "$linked" = 0 ] || want=1
	is "$rc $n" "$want $linked" "[$m] --check on the linked program: $linked jump(s) into the hook found by decoding"
	[ "$n" = "$linked" ] || diag "$(cat "$d/linked.json")"
	# An address load of the hook with no call through it (MIPS's %hi/%lo
	# in addr, as the kernel's arch/mips/kernel/ftrace.c makes
	# instructions of it) is no call the table lacks.
	n=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(1 for f in d["files"][0]["findings"] if f["kind"] != "hook-ref"))' "$d/linked.json" 2>&1)
	is "$n" 0 "[$m] --check on the linked program: no other finding (an address load is no missing call)"
	[ "$n" = 0 ] || diag "$(cat "$d/linked.json")"
done

# MIPS PIC long calls and -mxgot, from gcc: every call recorded (no warning),
# linked as a PIE, and the linked table checked by decoding; recorded with
# --nop, no reference to the hook is left for the linker.
cat > "$T_TMP/lc.c" <<'C'
int g(int x);
int f(int x) { return g(x) + 1; }
void v(void) { }
static int s(int a) { return a * 3; }
int h(int a) { return s(a) + g(a); }
C
cat > "$T_TMP/lcmain.c" <<'C'
int f(int x);
int g(int x) { return x * 2; }
int main(void) { return f(2) != 5; }
C
for row in "mipsel mipsel-linux-gnu-" "mips64el mips64el-linux-gnuabi64-"; do
	read -r m p <<< "$row"
	command -v "${p}gcc" > /dev/null || { ok 1 "[$m] ${p}gcc installed (scripts/deps.sh)"; continue; }
	for flags in "-mlong-calls" "-mlong-calls -mxgot" "-mxgot"; do
		d=$T_TMP/$m-${flags// /}
		label="[$m gcc -g -pg -O2 $flags]"
		mkdir -p "$d"
		compile_ok "$label compile" "${p}gcc" -O2 -g -pg $flags -c "$T_TMP/lc.c" -o "$d/lc.o" &&
			compile_ok "$label compile main" "${p}gcc" -O2 -c "$T_TMP/lcmain.c" -o "$d/main.o" || continue
		cp "$d/lc.o" "$d/lc-nop.o"
		out=$("$RMC" --mode=user --strict "$d/lc.o" 2>&1 && "$RMC" --mode=user --nop --strict "$d/lc-nop.o" 2>&1)
		rc=$?
		is "$rc:$out:$("$RMC" --list "$d/lc.o" | wc -l):$("$RMC" --list "$d/lc-nop.o" | wc -l)" "0::3:3" \
			"$label: --strict records the 3 calls, as calls and as NOPs"
		is "$("${p}readelf" -rW "$d/lc-nop.o" | awk '$5 == "_mcount"' | grep -c .)" 0 \
			"$label --nop: no relocation against _mcount is left"
		for v in lc lc-nop; do
			if ! out=$("${p}gcc" -pie -o "$d/$v" "$d/$v.o" "$d/main.o" 2>&1); then
				ok 1 "$label $v: links as a PIE"
				diag "$out"
				continue
			fi
			summary=$("$RMC" --check "$d/$v" | tail -n1)
			want="3 not verifiable"
			[ "$v" = lc ] || want="3 NOPs"
			case $summary in
			*": clean; linked, 3 entries:"*"$want"*) ok 0 "$label $v: linked, --check is clean ($want)" ;;
			*) ok 1 "$label $v: linked, --check is clean ($want)"; diag "$summary" ;;
			esac
		done
	done
done

done_testing
