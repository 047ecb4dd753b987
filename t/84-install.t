#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# `make install` and `make uninstall` into a temporary root, and the
# installed tree used alone, as a user of a distribution's package would:
#  - DESTDIR=R PREFIX=/usr puts exactly the tools, the runtime
#    (libobjpatch.so.0.1.0 with SONAME libobjpatch.so.0 and the links .so.0
#    and .so), libobjpatch.a, objpatch.h, objpatch.pc, every man page and
#    each other machine's runtime in lib/objpatch/<machine>/; a second
#    install writes nothing into the build tree; uninstall leaves no file;
#  - a program calling objpatch_enable() compiles and links with only
#    `pkg-config --cflags --libs objpatch` from the installed tree, is
#    recorded by the installed recordmcount, needs libobjpatch.so.0 and
#    traces itself;
#  - the installed objpatch, in a copy of the tree moved elsewhere with no
#    build tree left, traces a -pg program with typed return values, and
#    says where it looked when its runtime is gone;
#  - with BINDIR, LIBDIR and MANDIR away from PREFIX
#    (LIBDIR=/usr/lib/x86_64-linux-gnu), the same, and another machine's
#    program (aarch64 under qemu-user) traced with the installed runtime.
# make runs on a copy of build/ (make install relinks objpatch for other
# install paths: the tree's own must not change under the other tests).
# About 30 s on 2 cores (5 make runs over the tree and its cross runtimes).
. "$(dirname "$0")/lib.sh"

# The copy leaves out what other tests write while this one runs (the
# fuzzers, the reference tool, the benchmarks), which install does not need.
bld=$T_TMP/build
tar -C "$TOP" -cf - --exclude=build/fuzz --exclude=build/ref --exclude=build/bench build |
	tar -C "$T_TMP" -xf -
is "${PIPESTATUS[*]}" "0 0" "a copy of build/ to install from"
# The install paths come from each command line here, never from the environment.
# The sanitized pass's build/ relinks as what it is.
san=()
sanitized_pass && san=(SANITIZE=1)
mk() {
	env -u PREFIX -u BINDIR -u LIBDIR -u INCLUDEDIR -u MANDIR -u PKGCONFIGDIR -u DESTDIR \
		make -C "$TOP" --no-print-directory BUILD="$bld" "${san[@]}" "$@"
}

# Each other machine's runtime this build has, by its qemu name.
mapfile -t cross < <(cd "$bld" && for f in */libobjpatch.so; do [ -e "$f" ] && echo "${f%%/*}"; done)
# The commands install copies to BINDIR: the Makefile's TOOLS, which must hold both tools.
read -ra tools <<<"$(sed -n 's/^TOOLS := //p' "$TOP/Makefile")"
is "$(printf '%s\n' "${tools[@]}" | grep -cx -e recordmcount -e objpatch)" 2 \
	"the Makefile's TOOLS (${tools[*]}) has recordmcount and objpatch"
mapfile -t pages < <(cd "$TOP/man" && printf '%s\n' *.[135])

expected_files() {	# expected_files BINDIR LIBDIR MANDIR: what install puts, sorted
	local p
	{
		for p in "${tools[@]}"; do echo "$1/$p"; done
		# the C++ wrapper and its page: links to objpatch-cc's
		printf '%s\n' "$1/objpatch-c++" "$3/man1/objpatch-c++.1"
		printf '%s\n' "$2/libobjpatch.so.0.1.0" "$2/libobjpatch.so.0" \
			"$2/libobjpatch.so" "$2/libobjpatch.a" "$2/pkgconfig/objpatch.pc" /usr/include/objpatch.h
		for p in "${pages[@]}"; do echo "$3/man${p##*.}/$p"; done
		for p in "${cross[@]}"; do echo "$2/objpatch/$p/libobjpatch.so"; done
	} | sort
}

checked() {	# checked STATUS DESCRIPTION OUTPUT: ok, with OUTPUT's end when it failed
	ok "$1" "$2"
	[ "$1" -eq 0 ] || diag "$(tail -5 <<<"$3")"
}

installed_files() { (cd "$1" && find . -type f -o -type l) | sed 's|^\.||' | sort; }

install_into() {	# install_into LABEL ROOT BINDIR LIBDIR MANDIR [VAR=VALUE...]
	local label=$1 root=$2 bin=$3 lib=$4 man=$5 out
	shift 5
	out=$(mk install DESTDIR="$root" PREFIX=/usr "$@" 2>&1)
	checked $? "[$label] make install DESTDIR=... PREFIX=/usr $*" "$out"
	is "$(installed_files "$root")" "$(expected_files "$bin" "$lib" "$man")" "[$label] the files installed"
	is "$(readlink "$root$lib/libobjpatch.so"):$(readlink "$root$lib/libobjpatch.so.0")" \
		"libobjpatch.so.0:libobjpatch.so.0.1.0" "[$label] libobjpatch.so -> .so.0 -> .so.0.1.0"
	is "$(readelf -d "$root$lib/libobjpatch.so.0.1.0" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')" \
		libobjpatch.so.0 "[$label] the runtime's SONAME"
	is "$(readlink "$root$bin/objpatch-c++"):$(readlink "$root$man/man1/objpatch-c++.1")" \
		"objpatch-cc:objpatch-cc.1" "[$label] objpatch-c++ and its page link to objpatch-cc's"
}

cat > "$T_TMP/enable.c" <<'C'
#include <stdio.h>
#include <objpatch.h>
__attribute__((noinline)) int twice(int x) { return 2 * x; }
int main(void)
{
	if (objpatch_enable("twice") < 0) {
		fprintf(stderr, "objpatch_enable: %s\n", objpatch_error());
		return 3;
	}
	printf("%d\n", twice(21));
	return 0;
}
C
cat > "$T_TMP/typed.c" <<'C'
__attribute__((noipa)) const char *name(int i) { return i ? "installed" : "build"; }
__attribute__((noipa)) double half(double x) { return x / 2; }
__attribute__((noipa)) long negate(long x) { return -x; }
int main(int argc, char **argv)
{
	(void)argv;
	return name(argc)[0] == 'i' && half(5) == 2.5 && negate(7) == -7 ? 0 : 1;
}
C

build_with() {	# build_with LABEL ROOT BINDIR CC PROG: compiles -pg, records with ROOT's recordmcount, links
	local label=$1 root=$2 bin=$3 cc=$4 prog=$5 out
	out=$T_TMP/prog-$label
	mkdir -p "$out"
	compile_ok "[$label] $prog.c" "$cc" -g -pg -O2 -c "$T_TMP/$prog.c" -o "$out/$prog.o" &&
		run_ok "[$label] the installed recordmcount --mode=user records $prog.o" \
			"$root$bin/recordmcount" --mode=user "$out/$prog.o" &&
		compile_ok "[$label] link $prog" "$cc" -o "$out/$prog" "$out/$prog.o"
}

typed_trace() {	# typed_trace LABEL ROOT BINDIR [CC]: the installed objpatch run traces typed values
	local label=$1 root=$2 bin=$3 cc=${4:-gcc} out=$T_TMP/prog-$1 trace
	build_with "$label" "$root" "$bin" "$cc" typed || return
	"$root$bin/objpatch" run -o "$out/trace" -- "$out/typed" 2>"$out/err"
	checked $? "[$label] the installed objpatch run traces typed with its installed runtime" "$(cat "$out/err")"
	trace=$(grep -o '[a-z]*(); /\* ret=.* \*/' "$out/trace" 2>/dev/null | sort)
	is "$trace" "$(printf '%s\n' 'half(); /* ret=2.5 */' 'name(); /* ret="installed" */' \
		'negate(); /* ret=-7 */')" "[$label] the trace's typed return values"
}

# ---- PREFIX=/usr ----
root=$T_TMP/root
install_into usr "$root" /usr/bin /usr/lib /usr/share/man
touch "$T_TMP/stamp"
mk install DESTDIR="$root" PREFIX=/usr > "$T_TMP/again.log" 2>&1
ok $? "[usr] make install again"
is "$(find "$bld" -newer "$T_TMP/stamp" ! -type d | head -5)" "" "[usr] the second install writes nothing into the build tree"

# A program built against the installed tree only.
pc() { PKG_CONFIG_PATH='' PKG_CONFIG_LIBDIR=$root/usr/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$root pkg-config "$@"; }
flags=$(pc --cflags --libs objpatch 2>&1)
ok $? "[usr] pkg-config --cflags --libs objpatch: $flags"
is "$(pc --modversion objpatch)" "$("$root/usr/bin/objpatch" --version | sed 's/^objpatch //')" \
	"[usr] objpatch.pc's version is objpatch --version's"
is "$(pc --libs --static objpatch | tr ' ' '\n' | grep -c -e '^-lelf$' -e '^-ldl$' -e '^-pthread$')" 3 \
	"[usr] pkg-config --static adds -lelf -ldl -pthread"
enable=$T_TMP/enable
mkdir -p "$enable"
# shellcheck disable=SC2046	# pkg-config's flags are words
if compile_ok "[usr] enable.c with pkg-config's flags" gcc -g -pg -O2 $(pc --cflags objpatch) \
		-c "$T_TMP/enable.c" -o "$enable/enable.o" &&
	run_ok "[usr] the installed recordmcount records enable.o" "$root/usr/bin/recordmcount" --mode=user "$enable/enable.o" &&
	compile_ok "[usr] link enable" gcc -o "$enable/enable" "$enable/enable.o" $(pc --libs objpatch); then
	is "$(readelf -d "$enable/enable" | sed -n 's/.*Shared library: \[\(libobjpatch.*\)\]/\1/p')" libobjpatch.so.0 \
		"[usr] enable needs libobjpatch.so.0"
	out=$(LD_LIBRARY_PATH=$root/usr/lib OBJPATCH_OUTPUT=$enable/trace "$enable/enable" 2>&1)
	is "$?:$out" "0:42" "[usr] enable runs with the installed runtime and prints 42"
	grep -q 'twice(); /\* ret=42 \*/' "$enable/trace" 2>/dev/null
	ok $? "[usr] its trace shows twice() returning 42"
fi

# The installed tree moved elsewhere, nothing left of the build tree or the original root.
moved=$T_TMP/moved
cp -a "$root" "$moved"
touch "$root/usr/lib/libother.so.1"
out=$(mk uninstall DESTDIR="$root" PREFIX=/usr 2>&1)
checked $? "[usr] make uninstall" "$out"
is "$(installed_files "$root")" /usr/lib/libother.so.1 "[usr] make uninstall leaves no file of its own, and others' alone"
rm -rf "$bld.hidden" && mv "$bld" "$bld.hidden"
[ -e /usr/lib/libobjpatch.so.0 ] && diag "/usr/lib/libobjpatch.so.0 exists: the moved tree's test may find it instead"
typed_trace moved "$moved" /usr/bin
rm "$moved/usr/lib/libobjpatch.so.0.1.0"
err=$("$moved/usr/bin/objpatch" run -- "$T_TMP/prog-moved/typed" 2>&1 >/dev/null)
is "$?:$err" "2:objpatch run: libobjpatch.so is neither beside objpatch nor installed in /usr/lib: build it with make (and make install), or give one with --lib" \
	"[moved] without its runtime, objpatch run says where it looked"
mv "$bld.hidden" "$bld"

# ---- BINDIR, LIBDIR, MANDIR away from PREFIX ----
root=$T_TMP/custom
bin=/opt/objpatch/bin lib=/usr/lib/x86_64-linux-gnu man=/opt/objpatch/man
install_into custom "$root" $bin $lib $man BINDIR=$bin LIBDIR=$lib MANDIR=$man
grep -qx "libdir=$lib" "$root$lib/pkgconfig/objpatch.pc"
ok $? "[custom] objpatch.pc's libdir is LIBDIR"
mv "$bld" "$bld.hidden"
typed_trace custom "$root" $bin
if command -v qemu-aarch64 >/dev/null && command -v aarch64-linux-gnu-gcc >/dev/null &&
	[ -e "$root$lib/objpatch/aarch64/libobjpatch.so" ]; then
	typed_trace custom-aarch64 "$root" $bin aarch64-linux-gnu-gcc
else
	skip "[custom-aarch64] needs qemu-aarch64, aarch64-linux-gnu-gcc and the aarch64 runtime (scripts/deps.sh)"
fi
mv "$bld.hidden" "$bld"
out=$(mk uninstall DESTDIR="$root" PREFIX=/usr BINDIR=$bin LIBDIR=$lib MANDIR=$man 2>&1)
checked $? "[custom] make uninstall" "$out"
is "$(installed_files "$root")" "" "[custom] make uninstall leaves no file"
done_testing
