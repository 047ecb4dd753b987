#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# objpatch-cc and objpatch-c++ (objpatch/cc): every kind of invocation a
# build system makes, against gcc, g++, clang and cross compilers under
# qemu-user.  Each instrumented object is recorded (prototype table in it),
# passthrough commands are byte-identical to the plain compiler's, links
# never get -pg (no gmon.out, no mcount reference), the linked programs
# check clean and `objpatch run` traces them with typed return values
# equal to what the program itself printed.
# shellcheck source=t/lib.sh
. "$(dirname "$0")/lib.sh"

W=$TOP/build/objpatch-cc
# Machines' own toolchains (scripts/machines.sh's machine_toolchain) where
# the user's cache has them, before the cache below becomes the test's.
export OBJPATCH_TOOLCHAINS=${OBJPATCH_TOOLCHAINS:-${XDG_CACHE_HOME:-$HOME/.cache}/objpatch-toolchains}
# The wrapper's cache of compilers' targets: this test's own.
export XDG_CACHE_HOME=$T_TMP/cache
WXX=$TOP/build/objpatch-c++
OBJPATCH=$TOP/build/objpatch
D=$T_TMP

for f in "$W" "$WXX" "$OBJPATCH" "$RMC"; do
	if [ ! -x "$f" ]; then
		ok 1 "$f is built (make all)"
		done_testing
		exit
	fi
done

# The test program: three files, a math call (-lm), results printed so the
# trace's values are checked against the program's own.
mkdir -p "$D/src/sub"
# Clones (add.constprop.0, twice.isra.0) have no prototype: gcc makes none of noipa functions.
NOCLONE='#if defined(__GNUC__) && !defined(__clang__)
#define NOCLONE __attribute__((noipa))
#else
#define NOCLONE __attribute__((noinline))
#endif'
cat > "$D/src/add.c" <<EOF
$NOCLONE
int NOCLONE add(int a, int b) { return a + b; }
EOF
cat > "$D/src/sub/half.c" <<EOF
#include <math.h>
$NOCLONE
double NOCLONE half(double x) { return sqrt(x) / 2; }
EOF
cat > "$D/src/main.c" <<'EOF'
#include <stdio.h>
int add(int a, int b);
double half(double x);
int main(int argc, char **argv)
{
	(void)argv;
	printf("add=%d\nhalf=%g\n", add(argc, argc + 1), half(argc * 16.0));
	return 0;
}
EOF
cat > "$D/src/prog.cc" <<EOF
#include <cstdio>
#include <string>
$NOCLONE
struct Box { int v; NOCLONE long twice() const { return 2L * v; } };
NOCLONE int add(int a, int b) { return a + b; }
NOCLONE double half(double x) { return x / 2; }
int main(int argc, char **)
{
	Box b{argc + 20};
	std::printf("add=%d\nhalf=%g\ntwice=%ld\n", add(argc, argc + 1), half(argc * 4.0), b.twice());
	return std::string("x").size() == 1 ? 0 : 1;
}
EOF
cat > "$D/src/asm.S" <<'EOF'
	.text
	.globl asm_seven
	.type asm_seven, @function
asm_seven:
	movl $7, %eax
	ret
	.size asm_seven, .-asm_seven
	.section .note.GNU-stack,"",@progbits
EOF
cat > "$D/src/use_asm.c" <<'EOF'
#include <stdio.h>
int asm_seven(void);
int __attribute__((noinline)) plus_one(int x) { return x + 1; }
int main(void) { printf("plus_one=%d\n", plus_one(asm_seven())); return 0; }
EOF
printf 'int broken(void) { return }\n' > "$D/src/broken.c"

# recorded OBJ LABEL: objpatch-cc recorded it (its prototype table, entries --list finds).
recorded() {
	local obj=$1 label=$2 secs
	secs=$(readelf -SW "$obj" 2>&1)
	if grep -q '__mcount_proto' <<< "$secs" && [ -n "$("$RMC" --list "$obj" 2>/dev/null)" ]; then
		ok 0 "$label: recorded (prototype table, sites listed)"
	else
		ok 1 "$label: recorded (prototype table, sites listed)"
		diag "$secs"
	fi
}

# traced LABEL PROG [RUNNER...]: runs, --check clean, no call to the hook,
# no gmon.out, and objpatch run shows each value the program printed.
traced_prog() {
	local label=$1 prog=$2 dir out status name value trace
	shift 2
	dir=$(dirname "$prog")
	rm -f "$dir/gmon.out"
	out=$(cd "$dir" && timeout 120 "$@" "$prog" 2>&1)
	status=$?
	is "$status" 0 "$label: runs untraced"
	# Where it ran: the test's own directory is shared with the tests prove runs beside it.
	[ ! -e "$dir/gmon.out" ]
	ok $? "$label: no gmon.out written (the link had no -pg)"
	run_ok "$label: recordmcount --check clean" "$RMC" --check "$prog"
	# A -pg form leaves the hook's symbol imported (glibc defines mcount and
	# __fentry__), but no site may call it.
	sum=$("$RMC" --check "$prog" 2>&1 | head -1)
	if [ -n "${NO_NOP_FORM:-}" ]; then
		# sh4: a literal word, which objpatch-cc leaves calling libc's mcount.
		skip "$label: the sites still call the hook: this machine's have no NOP form"
	else
		[[ $sum == *" 0 calls,"* && $sum == *"; 0 calls to the hook found"* ]]
		ok $? "$label: no site calls the hook (every one a NOP: --nop)"
		[ $? = 0 ] || diag "$sum"
	fi
	trace=$(cd "$dir" && timeout 300 "$OBJPATCH" run -- "$prog" 2>&1 >/dev/null)
	while IFS='=' read -r name value; do
		if grep -qE "^ *[0-9]+\) .*\<$name(\(\))?( const)?; /\* ret=$value \*/" <<< "$trace" ||
		   grep -qE "\} /\* $name ret=$value \*/" <<< "$trace"; then
			ok 0 "$label: objpatch run traces $name() with its typed value $value"
		else
			ok 1 "$label: objpatch run traces $name() with its typed value $value"
			diag "$trace"
		fi
	done <<< "$out"
}

# forms LABEL PLAIN WRAPPED...: every invocation kind with one wrapped C compiler.
forms() {
	local label=$1 plaincc=$2 dir=$D/$1 status plain
	shift 2
	local cc=("$@")
	mkdir -p "$dir/out"
	(
		cd "$dir" || exit 1
		# -c, one source; many sources; a source in another directory, with and without -o
		"${cc[@]}" -O2 -c ../src/add.c &&
		"${cc[@]}" -O2 -c ../src/main.c ../src/sub/half.c &&
		"${cc[@]}" -O2 -c ../src/sub/half.c -o out/half.o
	)
	ok $? "[$label] -c: one source, two sources, -o into another directory"
	recorded "$dir/add.o" "[$label] -c add.c"
	recorded "$dir/main.o" "[$label] -c main.c half.c: main.o"
	recorded "$dir/half.o" "[$label] -c main.c half.c: ./half.o (gcc puts -c sub/half.c here)"
	recorded "$dir/out/half.o" "[$label] -c sub/half.c -o out/half.o"
	run_ok "[$label] links the recorded objects" "${cc[@]}" -o "$dir/prog-objs" "$dir/main.o" "$dir/add.o" "$dir/out/half.o" -lm
	traced_prog "[$label] separate compiles" "$dir/prog-objs"

	# compile and link in one step, as configure's tests do, the temporary objects in a TMPDIR of its own
	mkdir -p "$dir/tmp"
	run_ok "[$label] compile and link in one step, -lm" env TMPDIR="$dir/tmp" "${cc[@]}" -O2 -o "$dir/prog" "$D/src/main.c" "$D/src/add.c" "$D/src/sub/half.c" -lm
	traced_prog "[$label] one-step" "$dir/prog"
	(cd "$dir" && printf '#include <stdio.h>\nint main(void) { puts("conftest ok"); return 0; }\n' > conftest.c &&
		TMPDIR="$dir/tmp" "${cc[@]}" conftest.c -o conftest && ./conftest > conftest.out)
	ok $? "[$label] configure-style: cc conftest.c -o conftest && ./conftest"
	# configure's `-c -o /dev/null`: compiled, nothing recorded, /dev/null left alone
	run_ok "[$label] -c conftest.c -o /dev/null" "${cc[@]}" -c "$dir/conftest.c" -o /dev/null
	[ -c /dev/null ]
	ok $? "[$label] /dev/null is still the character device"
	# -MMD: PROG.d with the target PROG, as the plain compiler writes it
	(cd "$dir" && OBJPATCH_CC_OFF=1 "${cc[@]}" -MMD -o dep conftest.c && mv dep.d plain.d &&
		TMPDIR="$dir/tmp" "${cc[@]}" -MMD -o dep conftest.c)
	run_ok "[$label] -MMD -o dep conftest.c: dep.d as the plain compiler writes it" cmp "$dir/dep.d" "$dir/plain.d"
	is "$(ls -A "$dir/tmp")" "" "[$label] no temporary file left in TMPDIR"

	# response files, -x c on a file without .c
	printf -- '-O2 -c "%s" -o "%s"\n' "$D/src/add.c" "$dir/rsp.o" > "$dir/args.rsp"
	run_ok "[$label] @file" "${cc[@]}" "@$dir/args.rsp"
	recorded "$dir/rsp.o" "[$label] @file's -c add.c -o rsp.o"
	cp "$D/src/add.c" "$dir/code.txt"
	run_ok "[$label] -x c code.txt" "${cc[@]}" -x c -c "$dir/code.txt" -o "$dir/x.o"
	recorded "$dir/x.o" "[$label] -x c code.txt"

	# passthrough: the plain compiler's output, byte for byte
	for probe in "-E $D/src/main.c" "-M $D/src/main.c" "-MM $D/src/main.c" "--version" "-dumpmachine" "-print-prog-name=ld"; do
		# shellcheck disable=SC2086
		is "$("${cc[@]}" $probe 2>&1 | md5sum)" "$(OBJPATCH_CC_OFF=1 "${cc[@]}" $probe 2>&1 | md5sum)" \
			"[$label] $probe: the compiler's output, untouched"
	done
	(cd "$dir" && "${cc[@]}" -O2 -S "$D/src/add.c" -o wrapped.s && OBJPATCH_CC_OFF=1 "${cc[@]}" -O2 -S "$D/src/add.c" -o plain.s)
	run_ok "[$label] -S: the same assembly as the plain compiler's" cmp "$dir/wrapped.s" "$dir/plain.s"
	grep -qE 'patchable|mcount|fentry' "$dir/wrapped.s"
	ok $((!$?)) "[$label] -S: no instrumentation added"
	(cd "$dir" && OBJPATCH_CC_OFF=1 "${cc[@]}" -O2 -c "$D/src/add.c" -o off.o)
	(cd "$dir" && "$plaincc" -O2 -c "$D/src/add.c" -o plain.o 2>/dev/null)
	run_ok "[$label] OBJPATCH_CC_OFF=1: the plain compiler's object" cmp "$dir/off.o" "$dir/plain.o"

	# assembly: compiled as it is, in the same command as C
	if [ "$(OBJPATCH_CC_OFF=1 "${cc[@]}" -dumpmachine | cut -d- -f1)" = x86_64 ]; then
		(cd "$dir" && OBJPATCH_CC_OFF=1 "${cc[@]}" -c "$D/src/asm.S" -o asm-plain.o)
		run_ok "[$label] -c use_asm.c asm.S" sh -c "cd '$dir' && $(printf '%q ' "${cc[@]}") -c '$D/src/use_asm.c' '$D/src/asm.S'"
		recorded "$dir/use_asm.o" "[$label] use_asm.c beside asm.S"
		run_ok "[$label] asm.S: the plain compiler's object (no -g, no flags)" cmp "$dir/asm.o" "$dir/asm-plain.o"
		run_ok "[$label] asm.S and C in one compile-and-link" "${cc[@]}" -O2 -o "$dir/prog-asm" "$D/src/use_asm.c" "$D/src/asm.S"
		traced_prog "[$label] asm.S" "$dir/prog-asm"
	fi

	# -flto refused, the old object left as it was
	cp "$dir/add.o" "$dir/add.o.before"
	(cd "$dir" && "${cc[@]}" -O2 -flto -c "$D/src/add.c" -o add.o 2> lto.err)
	status=$?
	is "$status" 1 "[$label] -flto: refused with status 1"
	grep -q -- '-fno-lto' "$dir/lto.err" && [ "$(wc -l < "$dir/lto.err")" = 1 ]
	ok $? "[$label] -flto: one line that says to build with -fno-lto"
	run_ok "[$label] -flto: the object is untouched" cmp "$dir/add.o" "$dir/add.o.before"
	run_ok "[$label] -flto -fno-lto: compiled" "${cc[@]}" -O2 -flto -fno-lto -c "$D/src/add.c" -o "$dir/nolto.o"

	# a failing compile: the compiler's status and words
	(cd "$dir" && OBJPATCH_CC_OFF=1 "${cc[@]}" -c "$D/src/broken.c" -o broken.o 2> /dev/null)
	plain=$?
	(cd "$dir" && "${cc[@]}" -c "$D/src/broken.c" -o broken.o 2> broken.err)
	is "$?" "$plain" "[$label] a failing compile keeps the compiler's status"
	grep -q 'error' "$dir/broken.err"
	ok $? "[$label] a failing compile keeps the compiler's message"
}

# make -j2 on a small Makefile, the wrapper as CC.
make_j() {
	local label=$1 wrapped=$2 dir=$D/make-$1
	mkdir -p "$dir"
	cp "$D/src/main.c" "$D/src/add.c" "$D/src/sub/half.c" "$dir/"
	# shellcheck disable=SC2016
	printf 'prog: main.o add.o half.o\n\t$(CC) -o $@ $^ -lm\n%%.o: %%.c\n\t$(CC) -O2 -c $< -o $@\n' > "$dir/Makefile"
	run_ok "[$label] make -j2 CC='$wrapped'" make -C "$dir" -j2 CC="$wrapped"
	traced_prog "[$label] make -j2" "$dir/prog"
}

# ccache in front of the wrapper, and behind it: built twice (the second
# from the cache), the objects recorded, recording again changes nothing.
with_ccache() {
	local label=$1 wrapped=$2 dir=$D/$1 n
	if ! command -v ccache > /dev/null; then
		ok 1 "[$label] ccache is installed (scripts/deps.sh installs it)"
		return
	fi
	export CCACHE_DIR=$D/ccache-$label
	# the same directory both times: -g objects hash the directory too
	mkdir -p "$dir/build"
	for n in 1 2; do
		rm -f "$dir/build/"*.o "$dir/build/prog"
		run_ok "[$label] build $n: CC='$wrapped'" make -C "$dir/build" -f "$D/make-gcc/Makefile" VPATH="$D/src:$D/src/sub" CC="$wrapped"
		recorded "$dir/build/add.o" "[$label] build $n: add.o"
		cp -r "$dir/build" "$dir/$n"
	done
	ccache -s 2>/dev/null | grep -qiE 'hits: *[1-9]|cache hit.*[1-9]'
	ok $? "[$label] the second build came from the cache"
	cp "$dir/2/add.o" "$dir/again.o"
	"$RMC" --mode=user --nop "$dir/again.o" 2>/dev/null
	run_ok "[$label] recording a recorded (cached) object again changes nothing" cmp "$dir/2/add.o" "$dir/again.o"
	traced_prog "[$label] from the cache" "$dir/2/prog"
	unset CCACHE_DIR
}

forms gcc gcc "$W" gcc
forms objpatch-cc cc "$W"
forms clang clang "$W" clang
make_j gcc "$W gcc"
with_ccache ccache-front "ccache $W gcc"
with_ccache ccache-behind "$W ccache gcc"

# C++: objpatch-c++ runs c++ by default; g++ and clang++ named.
for cxx in "$WXX" "$WXX g++" "$WXX clang++"; do
	label="C++ ${cxx#"$TOP"/build/}"
	dir=$D/cxx-$(echo "$label" | tr -c 'a-z0-9+\n' _)
	mkdir -p "$dir"
	# shellcheck disable=SC2086
	run_ok "[$label] -c prog.cc" $cxx -O2 -c "$D/src/prog.cc" -o "$dir/prog.o"
	recorded "$dir/prog.o" "[$label] prog.o"
	# shellcheck disable=SC2086
	run_ok "[$label] compile and link in one step" $cxx -O2 -o "$dir/prog" "$D/src/prog.cc"
	traced_prog "[$label]" "$dir/prog"
done

# The wrapper's own mistakes and its environment.
fake=$D/fake
mkdir -p "$fake"
# A compiler that writes no object but says it made one.
# shellcheck disable=SC2016
printf '#!/bin/sh\nfor a; do case $a in -dumpmachine) echo x86_64-linux-gnu; exit 0;; esac; done\n'\
'out=; prev=; for a; do [ "$prev" = -o ] && out=$a; prev=$a; done\necho "not ELF" > "$out"\n' > "$fake/badcc"
# A compiler for a machine the recorder reads and no runtime serves: the
# first row without a port whose toolchain no row with a port shares (arm
# in ARM code shares arm's).
# shellcheck source=scripts/machines.sh
. "$TOP/scripts/machines.sh"
read -r portless portless_triple < <(machine_rows | awk -F'\t' '
	{ name[NR] = $1; prefix[NR] = $2; port[NR] = $5; if ($5 != "-") served[$2] = 1 }
	END { for (i = 1; i <= NR; i++) if (port[i] == "-" && !served[prefix[i]]) { sub(/-$/, "", prefix[i]); print name[i], prefix[i]; exit } }')
# shellcheck disable=SC2016
printf '#!/bin/sh\nfor a; do case $a in -dumpmachine) echo %s; exit 0;; esac; done\nexit 0\n' "${portless_triple:-none}" > "$fake/portlesscc"
chmod +x "$fake/badcc" "$fake/portlesscc"
(cd "$D" && "$W" "$fake/badcc" -c src/add.c -o bad.o 2> bad.err)
status=$?
[ "$status" -ne 0 ] && [ ! -e "$D/bad.o" ] && grep -q '^objpatch-cc: bad.o: ' "$D/bad.err" && [ "$(wc -l < "$D/bad.err")" = 1 ]
ok $? "an object that cannot be recorded: one line naming it, status $status, the object removed"
diag "$(cat "$D/bad.err")"
if [ -n "${portless:-}" ]; then
	"$W" "$fake/portlesscc" -c "$D/src/add.c" -o "$D/portless.o" 2> "$D/portless.err"
	status=$?
	[ "$status" = 1 ] && grep -q "^objpatch-cc: $portless: no tracing runtime for this machine.*OBJPATCH_CC_OFF=1" "$D/portless.err"
	ok $? "a machine without a runtime port ($portless): refused with one line (status $status)"
	diag "$(cat "$D/portless.err")"
	OBJPATCH_CC_OFF=1 "$W" "$fake/portlesscc" -c "$D/src/add.c" -o "$D/portless.o"
	ok $? "OBJPATCH_CC_OFF=1 runs it all the same"
else
	skip "every row of arch/machines.h has a runtime port: no machine to refuse"
	skip "every row of arch/machines.h has a runtime port: OBJPATCH_CC_OFF=1 has nothing to let through"
fi
# -dumpmachine is asked once per compiler binary (and target flags), again
# when the binary changes; without a usable cache the compiler is asked.
# shellcheck disable=SC2016
printf '#!/bin/sh\nfor a; do [ "$a" = -dumpmachine ] && echo x >> "%s/asked"; done\nexec gcc "$@"\n' "$fake" > "$fake/countcc"
chmod +x "$fake/countcc"
for i in 1 2 3; do "$W" "$fake/countcc" -c "$D/src/add.c" -o "$D/count.o" || break; done
is "$(wc -l < "$fake/asked")" 1 "three compiles ask the compiler's target once (then the cache)"
recorded "$D/count.o" "a compile whose target came from the cache"
touch -d '2001-01-01' "$fake/countcc"
"$W" "$fake/countcc" -c "$D/src/add.c" -o "$D/count.o"
is "$(wc -l < "$fake/asked")" 2 "a changed compiler binary is asked again"
err=$(XDG_CACHE_HOME=/proc/no-such-dir "$W" "$fake/countcc" -c "$D/src/add.c" -o "$D/count.o" 2>&1)
is "$?:$err:$(wc -l < "$fake/asked")" "0::3" "an unusable cache directory: the compiler is asked, nothing said"
"$W" no-such-compiler-xyz -c "$D/src/add.c" 2> "$D/nocc.err"
status=$?
[ "$status" = 127 ] && grep -q '^objpatch-cc: no-such-compiler-xyz: .*PATH' "$D/nocc.err"
ok $? "a compiler that is not in PATH: one line, status 127"
OBJPATCH_CC_VERBOSE=1 OBJPATCH_CC_FLAGS='-pg -mfentry' "$W" gcc -c "$D/src/add.c" -o "$D/flags.o" 2> "$D/flags.err"
if grep -q -- '-pg -mfentry -g -fno-var-tracking$' "$D/flags.err"; then
	recorded "$D/flags.o" "OBJPATCH_CC_FLAGS='-pg -mfentry'"
else
	ok 1 "OBJPATCH_CC_FLAGS replaces the form ($(cat "$D/flags.err"))"
fi
# The -g the wrapper adds goes without var-tracking (prototypes need no
# locations): the same code and prototypes; a -g of the user's keeps it.
OBJPATCH_CC_VERBOSE=1 "$W" gcc -O2 -g -c "$D/src/add.c" -o "$D/userg.o" 2> "$D/userg.err"
grep -q -- ' -g ' "$D/userg.err" && ! grep -q -- '-fno-var-tracking' "$D/userg.err"
ok $? "a -g the user gave: var-tracking stays on"
if OBJPATCH_CC_OFF=1 gcc -O2 -pg -g -c "$D/src/add.c" -o "$D/vt.o" && "$RMC" --mode=user --nop "$D/vt.o" &&
   OBJPATCH_CC_FLAGS=-pg "$W" gcc -O2 -c "$D/src/add.c" -o "$D/novt.o"; then
	is "$(objdump -d "$D/novt.o" | tail -n +4)" "$(objdump -d "$D/vt.o" | tail -n +4)" \
		"without var-tracking: the same code as with -g"
	is "$("$OBJPATCH" list "$D/novt.o")" "$("$OBJPATCH" list "$D/vt.o")" "without var-tracking: the same prototypes"
else
	ok 1 "objects with and without var-tracking"
fi
# Every compile of a compile-and-link gets the whole form, not just the first.
OBJPATCH_CC_VERBOSE=1 OBJPATCH_CC_FLAGS='-pg -mfentry' TMPDIR=$D "$W" gcc -O2 -o "$D/flags2" "$D/src/main.c" "$D/src/add.c" \
	"$D/src/sub/half.c" -lm 2> "$D/flags2.err"
is "$(grep -c -- ' -c -o .* -pg -mfentry -g -fno-var-tracking$' "$D/flags2.err")" 3 "each of 3 sources compiled with the whole form"
! grep -- ' -o '"$D/flags2"' ' "$D/flags2.err" | grep -q -- '-pg'
ok $? "the link of a compile-and-link has no -pg"
"$W" --version | grep -q '^objpatch-cc ' && "$W" --help | grep -q '^usage: objpatch-cc'
ok $? "objpatch-cc --version and --help, alone"
is "$("$W" gcc --version | md5sum)" "$(gcc --version | md5sum)" "objpatch-cc gcc --version is gcc's"
"$WXX" --version | grep -q '^objpatch-c++ '
ok $? "objpatch-c++ --version names objpatch-c++"
# A directory of links named gcc in front of PATH, ccache's way: no loop.
mkdir -p "$D/links"
ln -sf "$W" "$D/links/gcc"
(cd "$D" && PATH=$D/links:$PATH gcc -O2 -c src/add.c -o linked.o)
is "$(PATH=$D/links:$PATH gcc --version | md5sum)" "$(gcc --version | md5sum)" "a link named gcc: gcc --version is gcc's"
ok $? "gcc linked to objpatch-cc in PATH finds the real gcc"
recorded "$D/linked.o" "gcc linked to objpatch-cc"
# -m32 changes the machine: i386's form, whatever -dumpmachine alone says.
if OBJPATCH_CC_OFF=1 clang -m32 -o "$D/m32" "$D/src/add.c" "$D/src/main.c" "$D/src/sub/half.c" -lm 2>/dev/null; then
	OBJPATCH_CC_VERBOSE=1 "$W" clang -m32 -O2 -c "$D/src/add.c" -o "$D/m32.o" 2> "$D/m32.err"
	grep -q -- ' -pg -g -fno-var-tracking$' "$D/m32.err" && ! grep -q patchable "$D/m32.err"
	ok $? "clang -m32: i386's form (-pg), not x86_64's"
else
	skip "clang -m32 cannot link here (no i386 libc)"
fi

# Cross compilers: every other machine with a runtime (arch/machines.h's
# rows with a port and a qemu), with its gcc and with clang, each object
# compiled alone and then linked, and in one step; the programs run and
# are traced under qemu-user.
# shellcheck source=scripts/machines.sh
. "$TOP/scripts/machines.sh"
host=$(gcc -dumpmachine)
# (fd 3: a program run under the loop must not read the rows)
while IFS=$'\t' read -r _ prefix ctarget _ port q _ <&3; do
	p=${prefix%-}
	if [ "$port" = - ] || [ "$q" = - ] || [ "$p" = "$host" ]; then continue; fi
	# A machine with its own toolchain (sh4's, scripts/toolchain-sh4.sh):
	# its bin/ first in PATH and its root for qemu, for this row only.
	root=/usr/$p
	outer_path=$PATH
	if ! tc=$(machine_toolchain "$q"); then
		skip "[$q] needs its own toolchain: $tc"
		continue
	elif [ -n "$tc" ]; then
		PATH=$tc/bin:$PATH
		root=$tc/root/usr/$p
		export "OBJPATCH_ROOT_$q=$root"
	fi
	ccs=("$p-gcc")
	[ "$ctarget" = - ] || ccs+=("clang --target=$ctarget")
	for cc in "${ccs[@]}"; do
		label="$q ${cc%% *}"
		if ! command -v "${cc%% *}" > /dev/null || ! command -v "qemu-$q" > /dev/null; then
			skip "[$label] ${cc%% *} or qemu-$q is not installed (scripts/deps.sh)"
			continue
		fi
		if [ ! -e "$TOP/build/$q/libobjpatch.so" ]; then
			ok 1 "[$label] build/$q/libobjpatch.so is built (make all)"
			continue
		fi
		dir=$D/cross-$q-${cc%% *}
		mkdir -p "$dir"
		# shellcheck disable=SC2086
		run_ok "[$label] -c, then the link" sh -c "cd '$dir' && $W $cc -O2 -c '$D/src/add.c' '$D/src/main.c' &&
			$W $cc -O2 -c '$D/src/sub/half.c' -o half.o && $W $cc -o prog-objs main.o add.o half.o -lm"
		recorded "$dir/add.o" "[$label] add.o"
		# Whether the recorder can NOP this machine's sites (a copy of add.o, recorded again).
		NO_NOP_FORM=
		OBJPATCH_CC_OFF=1 $cc -O2 -pg -c "$D/src/add.c" -o "$dir/nopprobe.o" 2>/dev/null &&
			"$RMC" --mode=user --nop "$dir/nopprobe.o" 2>&1 | grep -q 'cannot be replaced by NOPs' && NO_NOP_FORM=1
		traced_prog "[$label] separate compiles" "$dir/prog-objs" "qemu-$q" -L "$root"
		# shellcheck disable=SC2086
		run_ok "[$label] compile and link in one step" $W $cc -O2 -o "$dir/prog" "$D/src/main.c" "$D/src/add.c" "$D/src/sub/half.c" -lm
		traced_prog "[$label] one-step" "$dir/prog" "qemu-$q" -L "$root"
	done
	PATH=$outer_path
done 3< <(machine_rows)

done_testing
