# SPDX-License-Identifier: GPL-2.0-only
#
# make check-projects' helpers (t/projects/*.t): one real project from its
# Debian source package, built with the compiler wrapper through its own
# build system, unmodified, in a scratch copy; its own tests; recordmcount
# --check on every ELF executable and shared library it installs; a run
# traced by objpatch, its return values compared with what the run printed.
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

OBJPATCH=$TOP/build/objpatch
# The wrapper under test: a variable so that the harness can be tried with
# another one (or with a plain compiler, when only the builds are wanted).
OBJPATCH_CC=${OBJPATCH_CC:-$TOP/build/objpatch-cc}
OBJPATCH_CXX=${OBJPATCH_CXX:-$TOP/build/objpatch-c++}
JOBS=${JOBS:-2}
STEP=0

# project PACKAGE: its cached sources copied to $SRC (the build systems
# that write into their source tree must not write into the cache), an
# empty $BLD and $DEST.  One test.
project() {
	local pkg=$1 cached out
	if ! out=$("$TOP/scripts/debian-source.sh" "$pkg" 2>&1); then
		ok 1 "$pkg: Debian sources fetched (scripts/debian-source.sh)"
		diag "$out"
		done_testing
		exit
	fi
	cached=$(tail -1 <<< "$out")
	SRC=$T_TMP/src BLD=$T_TMP/build DEST=$T_TMP/dest
	cp -a "$cached" "$SRC" && mkdir "$BLD" "$DEST"
	ok $? "$pkg $(cat "$cached/.debian-version"): sources copied to a scratch directory"
	[ -x "$OBJPATCH_CC" ] || diag "no wrapper at $OBJPATCH_CC: build it with make (or set OBJPATCH_CC)"
}

# step DESCRIPTION CMD...: one test; the command's output goes to a log whose
# tail is shown when it fails.  Returns the command's status.
step() {
	local desc=$1 log status
	shift
	STEP=$((STEP + 1))
	log=$T_TMP/step$STEP.log
	"$@" > "$log" 2>&1
	status=$?
	ok $status "$desc"
	[ $status -eq 0 ] || diag "$ $*" "exit status $status" "$(tail -25 "$log")"
	return $status
}

# The regular files under DIR that are ELF executables or shared libraries
# (not objects or archives): what "it installs" means for the checks below.
installed_elves() {	# installed_elves DIR
	local f
	find "$1" -type f | sort | while read -r f; do
		LC_ALL=C readelf -h "$f" 2>/dev/null | grep -qE '^ *Type: *(EXEC|DYN) ' && echo "$f"
	done
}

# checked_installed: recordmcount --check clean on each of them, and there
# is at least one.
checked_installed() {
	local files f out n=0
	files=$(installed_elves "$DEST")
	for f in $files; do
		n=$((n + 1))
		if out=$("$RMC" --check "$f" 2>&1); then
			ok 0 "recordmcount --check clean: ${f#"$DEST"}"
		else
			ok 1 "recordmcount --check clean: ${f#"$DEST"}"
			diag "$out"
		fi
	done
	[ $n -gt 0 ]
	ok $? "installs at least one ELF executable or shared library ($n)"
}

# traced OUT CMD...: objpatch run -o $T_TMP/OUT.trace -- CMD, the
# program's standard output in $T_TMP/OUT.out (or $STDOUT), its exit
# status in RUN_STATUS.  One test: objpatch wrote a trace.
RUN_STATUS=
traced() {
	local out=$1
	shift
	"$OBJPATCH" run -o "$T_TMP/$out.trace" -- "$@" > "${STDOUT:-$T_TMP/$out.out}" 2> "$T_TMP/$out.err"
	RUN_STATUS=$?
	[ -s "$T_TMP/$out.trace" ] && grep -q '^# objpatch function graph' "$T_TMP/$out.trace"
	ok $? "objpatch run -- $* wrote a trace"
	[ -s "$T_TMP/$out.trace" ] || diag "stderr: $(head -20 "$T_TMP/$out.err")"
}

# The returns of a text trace, one per line: NAME<TAB>VALUE, for calls
# shown on one line ("f(); /* ret=V */") and on several ("} /* f ret=V */").
trace_returns() {	# trace_returns TRACE
	sed -n -e 's/^.*|  *\([^ (]*\)(); \/\* ret=\(.*\) \*\/$/\1\t\2/p' \
		-e 's/^.*|  *} \/\* \([^ ]*\) ret=\(.*\) \*\/$/\1\t\2/p' "$1"
}

# returned TRACE NAME VALUE DESCRIPTION: some call of NAME returned VALUE
# (as the trace prints it, by type).
returned() {
	local trace=$1 name=$2 value=$3 desc=$4 got
	got=$(trace_returns "$trace" | awk -F '\t' -v n="$name" '$1 == n { print $2 }' | sort -u)
	if grep -qxF -- "$value" <<< "$got"; then
		ok 0 "$desc"
	else
		ok 1 "$desc"
		diag "expected $name ret=$value; its returns in the trace: ${got:-none}" "$(head -30 "$trace")"
	fi
}

# printed_returns TRACE OUTPUT: every "= NAME VALUE" line the driver
# printed (what a library call returned, as the program itself saw it) is
# a return of NAME in the trace.
printed_returns() {
	local trace=$1 output=$2 name value n=0
	while read -r name value; do
		n=$((n + 1))
		returned "$trace" "$name" "$value" "traced $name ret=$value, as the program printed it"
	done < <(sed -n 's/^= //p' "$output")
	[ $n -gt 0 ]
	ok $? "the driver printed the values it got ($n)"
}

# no_gmon DIR...: no gprof profile anywhere: nothing was linked with -pg.
no_gmon() {
	local found
	found=$(find "$@" -name gmon.out 2>/dev/null)
	[ -z "$found" ]
	ok $? "no gmon.out under the build, install and run directories"
	[ -z "$found" ] || diag "$found"
}

# driver FILE SOURCE CC FLAGS...: a small program against the installed
# library, compiled at test time (plain, untraced) from $T_TMP/FILE into
# $T_TMP/FILE less its suffix.  One test.
driver() {
	local file=$1 src=$2 cc=$3
	shift 3
	printf '%s\n' "$src" > "$T_TMP/$file"
	step "driver ${file%.*} built against the installed library" \
		"$cc" -O2 -o "$T_TMP/${file%.*}" "$T_TMP/$file" "$@"
}
