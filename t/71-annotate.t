#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# objpatch annotate: kernel function_graph traces (funcgraph-retval, and the
# argument lists of funcgraph-args) typed by the prototype tables of a
# "vmlinux" and a "module".
#  1. testdata/annotate/kernel.c and module.c, compiled with -g -pg for
#     x86_64 (-mfentry -mcmodel=kernel), aarch64 and arm, recorded by
#     recordmcount in its default (kernel) mode, which writes the prototype
#     table; module.o linked with `ld -r` into mod.ko, kernel.o linked into a
#     static "vmlinux" at a kernel address by testdata/annotate/vmlinux.lds.
#  2. Hand-written traces in the kernel's formats (seed 003's snippet as
#     posted, the 2019 RFC's nameless closings across CPUs and a context
#     switch, 6.5's "= V" with the ftrace.rst example, 6.13's "ret=V" with
#     abstime, task, return address and argument columns, its retval-hex
#     form, no columns at all, latency format; 6.15's funcgraph-args lists
#     written from print_function_args()'s documented form: every class,
#     nameless arguments, structs by value, "..." after six, varargs, a
#     struct returned in memory, and the lists left alone (unknown
#     function, clone, two signatures, counts that differ); a 32-bit trace
#     for arm; plain char by signedness) against expectations written by
#     hand from the return and parameter types: against the objects and
#     against the linked image, with and without --hex.
#     Then a real trace (testdata/annotate/console.trace, 152 lines of a
#     6.12 x86_64 boot dumped on the console by ftrace_dump_on_oops,
#     printk's time before each line) against console.c's prototypes;
#     console prefixes on the hand-written traces; --stats.  The objects
#     recorded with --protos=compact (return types only) type every trace
#     of return values, and the real dump, as the full table does.
#  3. Usage and bad input: no table, not ELF, another machine, missing
#     files (exit 2, one line); --strict; standard input; CRLF lines.
#  4. An ASan/UBSan build on the traces and on 20,000 mutated lines.
# OBJPATCH=PATH runs it all with another objpatch binary.
# About 11 s on 2 cores, 8 of them the ASan build.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../scripts/machines.sh"

OBJPATCH=${OBJPATCH:-$TOP/build/objpatch}
PFX=
SRC=$TOP/testdata/annotate

# ELF files per arch in $T_TMP/ARCH: kernel.o, mod.ko, vmlinux.
build_arch() {	# build_arch NAME PREFIX BASE FLAGS...
	local name=$1 prefix=$2 base=$3 dir=$T_TMP/$1 u
	shift 3
	if ! command -v "${prefix}gcc" >/dev/null; then
		skip "$name: no ${prefix}gcc"
		return 1
	fi
	mkdir -p "$dir"
	for u in kernel module; do
		compile_ok "$name $u.c" "${prefix}gcc" -O2 -g -pg -ffreestanding "$@" \
			-c "$SRC/$u.c" -o "$dir/$u.o" || return 1
	done
	run_ok "$name: recordmcount (kernel mode)" "$RMC" "$dir/kernel.o" "$dir/module.o" || return 1
	run_ok "$name: mod.ko (ld -r)" "${prefix}ld" -r -o "$dir/mod.ko" "$dir/module.o" || return 1
	run_ok "$name: vmlinux (ld -T vmlinux.lds)" "${prefix}ld" --no-warn-rwx-segments \
		-T "$SRC/vmlinux.lds" -Ttext="$base" -o "$dir/vmlinux" "$dir/kernel.o" || return 1
	# The expectations rely on the table holding gcc's clone under its own name.
	local list
	list=$("$OBJPATCH" list "$dir/vmlinux" "$dir/mod.ko" 2>&1)
	if [[ $list = *"void rcu_all_qs(void)"* && $list = *"void probe_one(struct pci_dev *pdev)"* &&
	      $list = *"long int scale_load.constprop.0(long int v, int k) [unreliable]"* ]]; then
		ok 0 "$name: the tables hold every function, gcc's clone unreliable"
	else
		ok 1 "$name: the tables hold every function, gcc's clone unreliable"
		diag "$list"
		return 1
	fi
}

# check LABEL EXPECTED ARGS...: annotate's output is EXPECTED, byte for byte.
check() {
	local label=$1 expected=$2 out
	shift 2
	if out=$("$OBJPATCH" annotate "$@" 2>"$T_TMP/err"; echo "rc=$?"); then :; fi
	if [ "$out" = "$(cat "$expected"; echo rc=0)" ]; then
		ok 0 "$PFX$label"
	else
		ok 1 "$PFX$label"
		diag "$(diff <(cat "$expected"; echo rc=0) <(printf '%s\n' "$out") | head -20)" "$(head -3 "$T_TMP/err")"
	fi
}

# annotate_arch NAME TRACES...: each trace against objects and the linked image.
annotate_arch() {
	local name=$1 dir=$T_TMP/$1 t images
	shift
	for images in "kernel.o mod.ko" "vmlinux mod.ko"; do
		local args=() i
		for i in $images; do args+=(--image "$dir/$i"); done
		for t in "$@"; do
			check "$name $t, ${images/ / + }" "$SRC/$t.expected" "${args[@]}" "$SRC/$t.trace"
			[ -e "$SRC/$t.hex.expected" ] &&
				check "$name $t --hex, ${images/ / + }" "$SRC/$t.hex.expected" --hex "${args[@]}" "$SRC/$t.trace"
		done
	done
}

KFLAGS=()
kflags_of() { [ "$1" = "$WANT" ] && read -ra KFLAGS <<< "$4"; }
flags_for() { WANT=$1; KFLAGS=(); for_each_arch kflags_of; }

TRACES64=(seed003 rfc v6.5 v6.13 v6.13-hex v6.15-args bare latency)
built=()
flags_for x86_64
build_arch x86_64 x86_64-linux-gnu- 0xffffffff81000000 "${KFLAGS[@]}" -mfentry -mcmodel=kernel && built+=(x86_64)
flags_for aarch64
build_arch aarch64 aarch64-linux-gnu- 0xffff800008000000 "${KFLAGS[@]}" && built+=(aarch64)
flags_for arm
build_arch arm arm-linux-gnueabihf- 0xc0008000 "${KFLAGS[@]}" && built+=(arm)

for a in "${built[@]}"; do
	case $a in
	x86_64) annotate_arch x86_64 "${TRACES64[@]}"; sign=signed ;;
	aarch64) annotate_arch aarch64 "${TRACES64[@]}"; sign=unsigned ;;
	arm) annotate_arch arm arm32; sign=unsigned ;;
	esac
	check "$a: plain char is $sign" "$SRC/char.$sign.expected" --image "$T_TMP/$a/vmlinux" "$SRC/char.trace"
done

if [[ " ${built[*]} " = *" x86_64 "* ]]; then
	X=$T_TMP/x86_64
	# Lines not understood are counted, kept, and fail --strict.
	"$OBJPATCH" annotate --image "$X/vmlinux" "$SRC/v6.5.trace" >/dev/null 2>"$T_TMP/err"
	is "$(cat "$T_TMP/err")" "objpatch annotate: 1 line not understood, passed through unchanged" \
		"v6.5: the one foreign line is counted"
	"$OBJPATCH" annotate --strict --image "$X/vmlinux" "$SRC/v6.5.trace" >/dev/null 2>&1
	is "$?" 1 "--strict: exit 1 when a line was not understood"
	"$OBJPATCH" annotate --image "$X/vmlinux" --image "$X/mod.ko" "$SRC/v6.15-args.trace" >/dev/null 2>"$T_TMP/err"
	is "$(cat "$T_TMP/err")" "objpatch annotate: 1 line not understood, passed through unchanged" \
		"v6.15-args: the one argument list that does not split is counted, not the lists left alone"
	"$OBJPATCH" annotate --strict --image "$X/vmlinux" "$SRC/seed003.trace" >/dev/null 2>&1
	is "$?" 0 "--strict: exit 0 when every line was"
	is "$("$OBJPATCH" annotate --image="$X/vmlinux" < "$SRC/seed003.trace")" "$(cat "$SRC/seed003.expected")" \
		"standard input, --image=FILE"
	sed 's/$/\r/' "$SRC/seed003.trace" > "$T_TMP/crlf.trace"
	is "$("$OBJPATCH" annotate --image "$X/vmlinux" "$T_TMP/crlf.trace" | od -c)" \
		"$(sed 's/$/\r/' "$SRC/seed003.expected" | od -c)" "CRLF lines keep their CR"
	# The console's prefixes (ftrace_dump_on_oops): the time, and the caller with
	# CONFIG_PRINTK_CALLER; the lines are typed as without them.
	for pfx in '[    1.234567] ' '[   12.000001][    T1] ' '[ 1234.5][     C0] '; do
		awk -v p="$pfx" '{ print p $0 }' "$SRC/v6.5.trace" > "$T_TMP/console.trace"
		is "$("$OBJPATCH" annotate --image "$X/vmlinux" --image "$X/mod.ko" "$T_TMP/console.trace" 2>&1)" \
			"$(awk -v p="$pfx" '{ print p $0 }' "$SRC/v6.5.expected"; \
			   echo "objpatch annotate: 1 line not understood, passed through unchanged")" \
			"console prefix '$pfx': typed as without it"
	done
	# A real trace: Linux 6.12 for x86_64 under qemu (scripts/kernel-retval-test.sh),
	# its buffer dumped on the serial console at the panic that ends a boot
	# with no init; console.c has its functions' prototypes.
	flags_for x86_64
	if compile_ok "x86_64 console.c" gcc -O2 -g -pg -ffreestanding "${KFLAGS[@]}" -mfentry -mcmodel=kernel \
		-c "$SRC/console.c" -o "$X/console.o" && run_ok "x86_64: recordmcount console.o" "$RMC" "$X/console.o"; then
		check "a real 6.12 console dump (console.trace), --strict" "$SRC/console.expected" --strict \
			--image "$X/console.o" --image "$X/mod.ko" "$SRC/console.trace"
		"$OBJPATCH" annotate --stats --image "$X/console.o" "$SRC/console.trace" >/dev/null 2>"$T_TMP/err"
		is "$?/$(cat "$T_TMP/err")" "0/objpatch annotate: 152 lines, 121 calls, 11 functions (0 not in the tables), 102 values (101 changed): void 20 (dropped), bool 12, enum 8, errno 7, integer 54, pointer 1, other 0, unknown 0, not in the tables 0; narrowed 4 (bits above the type's width dropped)" \
			"--stats on the real dump: every class, is_vmalloc_addr's %al over other bits narrowed"
	fi
	# --protos=compact, the kernel's form: return types only, names from the
	# symbols.  Every trace of return values types as with the full table;
	# argument lists (v6.13, v6.15-args) need the parameters it leaves out.
	C=$T_TMP/compact
	mkdir -p "$C"
	for u in kernel module console; do
		compile_ok "x86_64 compact: $u.c" gcc -O2 -g -pg -ffreestanding "${KFLAGS[@]}" -mfentry \
			-mcmodel=kernel -c "$SRC/$u.c" -o "$C/$u.o"
	done
	if run_ok "x86_64 compact: recordmcount --protos=compact" "$RMC" --protos=compact "$C/kernel.o" \
		"$C/module.o" "$C/console.o" &&
		run_ok "x86_64 compact: mod.ko (ld -r)" ld -r -o "$C/mod.ko" "$C/module.o" &&
		run_ok "x86_64 compact: vmlinux" ld --no-warn-rwx-segments -T "$SRC/vmlinux.lds" \
			-Ttext=0xffffffff81000000 -o "$C/vmlinux" "$C/kernel.o"; then
		for t in seed003 rfc v6.5 v6.13-hex bare latency; do
			check "compact: $t, vmlinux + mod.ko" "$SRC/$t.expected" --image "$C/vmlinux" \
				--image "$C/mod.ko" "$SRC/$t.trace"
			check "compact: $t, kernel.o + mod.ko" "$SRC/$t.expected" --image "$C/kernel.o" \
				--image "$C/mod.ko" "$SRC/$t.trace"
		done
		check "compact: the real 6.12 console dump, --strict" "$SRC/console.expected" --strict \
			--image "$C/console.o" --image "$C/mod.ko" "$SRC/console.trace"
	fi
	printf '[    1.234567] %s\n' 'Dumping ftrace buffer:' '---------------------------------' \
		'   (ftrace buffer empty)' > "$T_TMP/empty.trace"
	"$OBJPATCH" annotate --strict --image "$X/vmlinux" "$T_TMP/empty.trace" >/dev/null 2>&1
	is "$?" 0 "ftrace_dump()'s own lines are understood"
	# --stats: counts on standard error; a function the tables lack fails.
	"$OBJPATCH" annotate --stats --image "$X/vmlinux" --image "$X/mod.ko" "$SRC/v6.5.trace" >/dev/null 2>"$T_TMP/err"
	is "$?
$(cat "$T_TMP/err")" "1
objpatch annotate: 1 line not understood, passed through unchanged
objpatch annotate: 78 lines, 65 calls, 39 functions (2 not in the tables), 49 values (40 changed): void 9 (dropped), bool 3, enum 5, errno 9, integer 12, pointer 4, other 1, unknown 4, not in the tables 2; narrowed 6 (bits above the type's width dropped)
objpatch annotate: schedule: not in the tables of the images
objpatch annotate: smp_apic_timer_interrupt: not in the tables of the images" \
		"--stats: the counts of v6.5, exit 1 naming the two functions the tables lack"
	printf ' 0)   0.234 us    |  no_such_function(); /* = 0x1 */\n' > "$T_TMP/missing.trace"
	"$OBJPATCH" annotate --stats --image "$X/vmlinux" "$T_TMP/missing.trace" >/dev/null 2>"$T_TMP/err"
	is "$?/$(tail -1 "$T_TMP/err")" "1/objpatch annotate: no_such_function: not in the tables of the images" \
		"--stats: a function not in the tables fails, named"
	printf '%s' "$(head -4 "$SRC/seed003.trace")" > "$T_TMP/noeol.trace"
	is "$("$OBJPATCH" annotate --image "$X/vmlinux" "$T_TMP/noeol.trace" | od -c)" \
		"$(printf '%s' "$(head -4 "$SRC/seed003.expected")" | od -c)" "a last line without its newline"

	# bad_input LABEL ARGS...: exit 2 with one line naming the problem.
	bad_input() {
		local label=$1 err rc
		shift
		err=$("$OBJPATCH" annotate "$@" 2>&1 >/dev/null </dev/null)
		rc=$?
		if [ "$rc" = 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] && [[ $err = "objpatch annotate: "* ]]; then
			ok 0 "$label: exit 2, one line"
		else
			ok 1 "$label: exit 2, one line"
			diag "rc=$rc" "$err"
		fi
	}
	echo "not an ELF file" > "$T_TMP/text"
	gcc -O2 -pg -c "$SRC/module.c" -o "$T_TMP/nodebug.o" && "$RMC" "$T_TMP/nodebug.o"
	bad_input "an image that is not ELF" --image "$T_TMP/text"
	bad_input "an image without a prototype table (no -g)" --image "$T_TMP/nodebug.o"
	bad_input "an image that does not exist" --image "$T_TMP/none"
	bad_input "a trace that does not exist" --image "$X/vmlinux" "$T_TMP/none"
	[[ " ${built[*]} " = *" arm "* ]] &&
		bad_input "images of two machines" --image "$X/vmlinux" --image "$T_TMP/arm/mod.ko"
	"$OBJPATCH" annotate </dev/null >/dev/null 2>&1
	is "$?" 2 "no --image: usage, exit 2"
	"$OBJPATCH" annotate --image "$X/vmlinux" --frobnicate </dev/null >/dev/null 2>&1
	is "$?" 2 "an unknown option: exit 2"
fi

# The same traces through an ASan/UBSan build, and mutated lines: no report,
# every line out for every line in.
if [[ " ${built[*]} " = *" x86_64 "* ]] && asan_tools "$T_TMP/asan" objpatch; then
	SAVED=$OBJPATCH
	OBJPATCH=$T_TMP/asan/objpatch PFX="ASan/UBSan: "
	export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1
	annotate_arch x86_64 rfc v6.5 v6.13 v6.15-args
	python3 - "$SRC" > "$T_TMP/mutated.trace" <<'EOF'
import random, sys
random.seed(71)
lines = []
for t in ("seed003", "rfc", "v6.5", "v6.13", "v6.13-hex", "v6.15-args", "arm32", "char", "bare", "latency", "console"):
    lines += open(f"{sys.argv[1]}/{t}.trace").read().split("\n")
chars = " (){};/*=|)-x0123456789abcdef<>.ret\t\r\0,?[]:"
out = []
for _ in range(20000):
    l, op = random.choice(lines), random.randrange(4)
    p = random.randrange(len(l) + 1)
    if op == 0:
        l = l[:p]
    elif op == 1:
        l = l[:p] + random.choice(chars) + l[p + 1:]
    elif op == 2:
        l = l[:p] + random.choice(chars) * random.randrange(1, 4) + l[p:]
    else:
        l = l[:p] + l[random.randrange(p, len(l) + 1):]
    out.append(l)
sys.stdout.write("\n".join(out) + "\n")
EOF
	"$OBJPATCH" annotate --image "$T_TMP/x86_64/vmlinux" --image "$T_TMP/x86_64/mod.ko" \
		"$T_TMP/mutated.trace" >"$T_TMP/mutated.out" 2>"$T_TMP/mutated.err"
	rc=$?
	if [ "$rc" = 0 ] && [ "$(wc -l < "$T_TMP/mutated.out")" = 20000 ] &&
	   ! grep -qv "not understood, passed through" "$T_TMP/mutated.err"; then
		ok 0 "ASan/UBSan: 20,000 mutated lines, no report, one line out per line in"
	else
		ok 1 "ASan/UBSan: 20,000 mutated lines, no report, one line out per line in"
		diag "rc=$rc, $(wc -l < "$T_TMP/mutated.out") lines" "$(head -20 "$T_TMP/mutated.err")"
	fi
	OBJPATCH=$SAVED PFX=
else
	diag "$(tail -5 "$T_TMP/asan.log" 2>/dev/null)"
	skip "cannot build an ASan copy (make BUILD=... SANITIZE=1)"
fi

done_testing
