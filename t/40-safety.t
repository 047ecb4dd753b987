#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The in-place rewrite is safe: atomic replacement (new inode, no temporary
# file left), mode and symlinks kept, the input byte-identical after any
# error, idempotence, the files Kbuild expects to be left alone, several files
# in one call, and -o.
. "$(dirname "$0")/lib.sh"

SRC=$TOP/testdata/safety
CC=x86_64-linux-gnu-gcc
IMMUTABLE=
MOUNTED=
cleanup() {
	[ -z "$IMMUTABLE" ] || chattr -i "$IMMUTABLE" 2>/dev/null
	[ -z "$MOUNTED" ] || umount "$MOUNTED" 2>/dev/null
	[ "${KEEP:-0}" = 1 ] || rm -rf "$T_TMP"
}
trap cleanup EXIT

compile() {	# compile SOURCE OUT [FLAGS...]
	local src=$1 out=$2
	shift 2
	$CC -O2 -fno-pic "$@" -c "$SRC/$src" -o "$out"
}
has_table() { readelf -SW "$1" 2>/dev/null | grep -q ' __mcount_loc '; }
leftovers() {	# the temporary files left in the given directories
	find "$@" -maxdepth 1 -name '.*.rmc-*.tmp' | wc -l
}
inode() { stat -c %i "$1"; }

# expect_error DESC FILE CMD...: CMD fails with status 1 and exactly one line
# `recordmcount: FILE: reason` on stderr.
expect_error() {
	local desc=$1 file=$2 rc err
	shift 2
	err=$("$@" 2>&1 >/dev/null)
	rc=$?
	is "$rc" 1 "$desc: exit status 1"
	is "$(printf '%s\n' "$err" | grep -c .)" 1 "$desc: one line on stderr"
	case $err in
	"recordmcount: $file: "?*) ok 0 "$desc: the line names $file" ;;
	*) ok 1 "$desc: the line names $file"; diag "stderr: $err" ;;
	esac
}

W=$T_TMP/w
mkdir -p "$W"
compile calls.c "$T_TMP/calls.o" -pg || { echo "Bail out! cannot compile with $CC"; exit 1; }
compile calls.c "$T_TMP/nopg.o"
compile data.c "$T_TMP/data.o" -pg
compile hookref.c "$T_TMP/hookref.o"
has_table "$T_TMP/calls.o" && { echo "Bail out! the compiler already emits __mcount_loc"; exit 1; }
cp "$T_TMP/calls.o" "$T_TMP/processed.o"
"$RMC" "$T_TMP/processed.o" || { echo "Bail out! recordmcount fails on a plain object"; exit 1; }

# --- atomic replacement ---
cp "$T_TMP/calls.o" "$W/a.o"
before=$(inode "$W/a.o")
run_ok "plain object processed" "$RMC" "$W/a.o"
ok "$(has_table "$W/a.o"; echo $?)" "it now has __mcount_loc"
[ "$(inode "$W/a.o")" != "$before" ]
ok $? "the file was replaced by rename (new inode)"
is "$(leftovers "$W")" 0 "no temporary file left after success"

for mode in 0640 0755 0600 0444; do
	cp "$T_TMP/calls.o" "$W/m.o"
	chmod "$mode" "$W/m.o"
	(umask 077 && "$RMC" "$W/m.o")
	ok $? "mode $mode: processed"
	is "$(stat -c %#a "$W/m.o")" "$mode" "mode $mode kept (umask 077 does not apply)"
	ok "$(has_table "$W/m.o"; echo $?)" "mode $mode: table added"
	rm -f "$W/m.o"
done
# A read-only file in a writable directory is replaced (the 0444 case above):
# rename needs write access to the directory, not to the file.  The kernel's
# tool does the same: it creates FILE.rc with the file's mode and renames it.
if REF=$("$TOP/scripts/ref-recordmcount.sh" 2>/dev/null); then
	cp "$T_TMP/calls.o" "$W/k.o"
	chmod 0444 "$W/k.o"
	(umask 022 && "$REF" "$W/k.o" >/dev/null 2>&1)
	ok $? "kernel tool also processes a read-only file"
	is "$(stat -c %#a "$W/k.o")" 0444 "kernel tool keeps it read-only too"
	ok "$(has_table "$W/k.o"; echo $?)" "kernel tool's result has __mcount_loc"
	rm -f "$W/k.o"
else
	REF=
	skip "kernel tool not available (scripts/ref-recordmcount.sh failed)"
fi

# Symlinks: the target is replaced, the link stays a link.
cp "$T_TMP/calls.o" "$W/target.o"
ln -s "$W/target.o" "$W/abs-link.o"
ln -s abs-link.o "$W/link-to-link.o"
run_ok "absolute symlink argument" "$RMC" "$W/abs-link.o"
[ -L "$W/abs-link.o" ] && [ "$(readlink "$W/abs-link.o")" = "$W/target.o" ]
ok $? "absolute symlink is still the same symlink"
ok "$(has_table "$W/target.o"; echo $?)" "its target got the table"
cp "$T_TMP/calls.o" "$W/target.o"
run_ok "symlink to a symlink" "$RMC" "$W/link-to-link.o"
[ -L "$W/link-to-link.o" ] && [ -L "$W/abs-link.o" ] && has_table "$W/target.o"
ok $? "both links kept, final target processed"

mkdir -p "$W/sub" "$W/other"
cp "$T_TMP/calls.o" "$W/other/t.o"
ln -s ../other/t.o "$W/sub/rel.o"
tino=$(inode "$W/other/t.o")
(cd "$T_TMP" && "$RMC" w/sub/rel.o)
ok $? "relative symlink into another directory, from another cwd"
[ -L "$W/sub/rel.o" ] && [ "$(readlink "$W/sub/rel.o")" = ../other/t.o ]
ok $? "relative symlink unchanged"
has_table "$W/other/t.o" && [ "$(inode "$W/other/t.o")" != "$tino" ]
ok $? "relative symlink's target replaced and processed"
is "$(leftovers "$W" "$W/sub" "$W/other")" 0 "no temporary file in either directory"

# --- errors leave the input byte-identical ---
# Root ignores permission bits, so an unwritable directory is made with
# chattr +i (creating, renaming and unlinking entries fail even for root, but
# the file itself stays writable: an in-place writer would succeed).
mkdir -p "$W/ro"
cp "$T_TMP/calls.o" "$W/ro/a.o"
if chattr +i "$W/ro" 2>/dev/null; then
	IMMUTABLE=$W/ro
	expect_error "immutable directory" "$W/ro/a.o" "$RMC" "$W/ro/a.o"
	cmp -s "$T_TMP/calls.o" "$W/ro/a.o"
	ok $? "immutable directory: input byte-identical"
	is "$(leftovers "$W/ro")" 0 "immutable directory: no temporary file"
	chattr -i "$W/ro"
	IMMUTABLE=
else
	skip "chattr +i not supported here"
fi

# An ordinary unwritable directory, as an unprivileged user: as root, run the
# tool as nobody on a world-writable file in a root-owned 0755 directory.
mkdir -p "$W/nw"
cp "$T_TMP/calls.o" "$W/nw/a.o"
chmod 0666 "$W/nw/a.o"
AS_USER=()
if [ "$(id -u)" = 0 ]; then
	if setpriv --reuid=nobody --regid=nogroup --clear-groups true 2>/dev/null; then
		AS_USER=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
		chmod 0755 "$T_TMP" "$W"
	fi
else
	chmod 0555 "$W/nw"
	AS_USER=(env)
fi
if [ ${#AS_USER[@]} -gt 0 ]; then
	expect_error "unwritable directory ($(id -un) -> ${AS_USER[0]})" "$W/nw/a.o" "${AS_USER[@]}" "$RMC" "$W/nw/a.o"
	cmp -s "$T_TMP/calls.o" "$W/nw/a.o"
	ok $? "unwritable directory: input byte-identical"
	is "$(leftovers "$W/nw")" 0 "unwritable directory: no temporary file"
	chmod 0755 "$W/nw"
else
	skip "cannot drop privileges (setpriv) to test an unwritable directory"
fi

# A failure after the temporary file exists: the rename onto a directory.
cp "$T_TMP/calls.o" "$W/in.o"
mkdir -p "$W/outdir"
expect_error "-o onto a directory" "$W/in.o" "$RMC" -o "$W/outdir" "$W/in.o"
cmp -s "$T_TMP/calls.o" "$W/in.o"
ok $? "-o onto a directory: input byte-identical"
is "$(leftovers "$W")" 0 "-o onto a directory: temporary file removed"
expect_error "-o into a missing directory" "$W/in.o" "$RMC" -o "$W/nosuch/out.o" "$W/in.o"
cmp -s "$T_TMP/calls.o" "$W/in.o"
ok $? "-o into a missing directory: input byte-identical"

# A failure while writing: a full file system (a small tmpfs, if we may mount).
mkdir -p "$W/full"
if mount -t tmpfs -o size=64k rmc-full "$W/full" 2>/dev/null; then
	MOUNTED=$W/full
	cp "$T_TMP/calls.o" "$W/full/a.o"
	dd if=/dev/zero of="$W/full/filler" bs=1k count=1024 2>/dev/null
	expect_error "full file system" "$W/full/a.o" "$RMC" "$W/full/a.o"
	cmp -s "$T_TMP/calls.o" "$W/full/a.o"
	ok $? "full file system: input byte-identical"
	is "$(leftovers "$W/full")" 0 "full file system: temporary file removed"
	umount "$W/full"
	MOUNTED=
else
	skip "cannot mount a tmpfs to fill up"
fi

# Objects with thousands of sections are written through a mapping, where a
# file that cannot grow would kill the process with SIGBUS: the space is
# reserved first, so a full file system is an ordinary error there too.
python3 -c 'print("\n".join("__attribute__((section(\".text.f%d\"))) int f%d(int x) { return x + %d; }" % (i, i, i) for i in range(1500)))' > "$W/sections.c"
gcc -O2 -pg -c "$W/sections.c" -o "$T_TMP/sections.o"
size=$(( $(stat -c %s "$T_TMP/sections.o") / 1024 + 16 ))
mkdir -p "$W/full2"
if mount -t tmpfs -o size=${size}k rmc-full2 "$W/full2" 2>/dev/null; then
	MOUNTED=$W/full2
	cp "$T_TMP/sections.o" "$W/full2/a.o"
	expect_error "full file system, 3000 sections" "$W/full2/a.o" "$RMC" "$W/full2/a.o"
	cmp -s "$T_TMP/sections.o" "$W/full2/a.o"
	ok $? "full file system, 3000 sections: input byte-identical"
	is "$(leftovers "$W/full2")" 0 "full file system, 3000 sections: temporary file removed"
	umount "$W/full2"
	MOUNTED=
else
	skip "cannot mount a tmpfs to fill up"
fi

# --- idempotence and the objects left alone ---
cp "$T_TMP/processed.o" "$W/twice.o"
before=$(inode "$W/twice.o")
run_ok "second run succeeds" "$RMC" "$W/twice.o"
cmp -s "$T_TMP/processed.o" "$W/twice.o"
ok $? "second run changes nothing"
is "$(inode "$W/twice.o")" "$before" "second run does not even rewrite the file"
cp "$T_TMP/processed.o" "$W/twice-user.o"
run_ok "user mode on a kernel-mode result succeeds" "$RMC" --mode=user "$W/twice-user.o"
# It takes the sites over into its own tables (as from gcc's -mrecord-mcount,
# t/36) and keeps the kernel table out of links: the same sites, once.
is "$("$RMC" --list "$W/twice-user.o" | sort)" "$("$RMC" --list "$T_TMP/processed.o" | sort)" \
	"user mode on a kernel-mode result: the same sites, none twice"
readelf -SW "$W/twice-user.o" | grep ' __mcount_loc ' | grep -q ' AE ' &&
	readelf -SW "$W/twice-user.o" | grep -qE ' __(mcount|fentry)_rel '
ok $? "user mode on a kernel-mode result: the kernel table is excluded from links, user tables hold the sites"
cp "$W/twice-user.o" "$W/twice-user1.o"
"$RMC" --mode=user "$W/twice-user.o" && "$RMC" "$W/twice-user.o" && cmp -s "$W/twice-user1.o" "$W/twice-user.o"
ok $? "user mode on a kernel-mode result: processed again in both modes, unchanged"
cp "$T_TMP/calls.o" "$W/user.o"
"$RMC" --mode=user "$W/user.o" && cp "$W/user.o" "$W/user1.o" &&
	"$RMC" --mode=user "$W/user.o" && "$RMC" "$W/user.o"
ok $? "user mode result processed again in both modes"
cmp -s "$W/user1.o" "$W/user.o"
ok $? "user mode result unchanged by both"

if [ -n "$REF" ]; then
	cp "$T_TMP/calls.o" "$W/kernel.o"
	"$REF" "$W/kernel.o" >/dev/null 2>&1 && has_table "$W/kernel.o"
	ok $? "kernel tool result has __mcount_loc"
	cp "$W/kernel.o" "$W/kernel1.o"
	run_ok "our tool on the kernel tool's result" "$RMC" "$W/kernel.o"
	cmp -s "$W/kernel1.o" "$W/kernel.o"
	ok $? "kernel tool's result left byte-identical"
else
	skip "kernel tool not available"
fi

compile calls.c "$W/rec.o" -pg -mrecord-mcount
cp "$W/rec.o" "$W/rec1.o"
if has_table "$W/rec.o"; then
	run_ok "gcc -mrecord-mcount object" "$RMC" "$W/rec.o"
	cmp -s "$W/rec1.o" "$W/rec.o"
	ok $? "gcc -mrecord-mcount object left byte-identical"
else
	ok 1 "gcc -mrecord-mcount emits __mcount_loc"
fi

mkdir -p "$W/kernel/trace"
cp "$T_TMP/calls.o" "$W/kernel/trace/ftrace.o"
run_ok "*/ftrace.o accepted" "$RMC" "$W/kernel/trace/ftrace.o"
cmp -s "$T_TMP/calls.o" "$W/kernel/trace/ftrace.o"
ok $? "*/ftrace.o left byte-identical"
(cd "$W/kernel/trace" && "$RMC" ftrace.o)
ok $? "bare ftrace.o accepted"
cmp -s "$T_TMP/calls.o" "$W/kernel/trace/ftrace.o"
ok $? "bare ftrace.o left byte-identical"
cp "$T_TMP/calls.o" "$W/kernel/trace/myftrace.o"
"$RMC" "$W/kernel/trace/myftrace.o" && has_table "$W/kernel/trace/myftrace.o"
ok $? "myftrace.o is processed (the skip is for the exact name)"

for f in nopg data hookref; do
	cp "$T_TMP/$f.o" "$W/$f.o"
	before=$(inode "$W/$f.o")
	run_ok "$f.o (no calls to the hook) accepted" "$RMC" "$W/$f.o"
	cmp -s "$T_TMP/$f.o" "$W/$f.o" && [ "$(inode "$W/$f.o")" = "$before" ]
	ok $? "$f.o left byte-identical and not rewritten"
done

# --- several files, one bad ---
for pos in first middle last missing; do
	d=$W/multi-$pos
	mkdir -p "$d"
	cp "$T_TMP/calls.o" "$d/good1.o"
	cp "$T_TMP/calls.o" "$d/good2.o"
	echo "not an object" > "$d/bad.o"
	case $pos in
	first) args=("$d/bad.o" "$d/good1.o" "$d/good2.o") ;;
	middle) args=("$d/good1.o" "$d/bad.o" "$d/good2.o") ;;
	last) args=("$d/good1.o" "$d/good2.o" "$d/bad.o") ;;
	missing) rm "$d/bad.o"; args=("$d/good1.o" "$d/bad.o" "$d/good2.o") ;;
	esac
	expect_error "bad file $pos of three" "$d/bad.o" "$RMC" "${args[@]}"
	has_table "$d/good1.o" && has_table "$d/good2.o"
	ok $? "bad file $pos of three: the good ones are processed"
	cmp -s "$T_TMP/processed.o" "$d/good1.o"
	ok $? "bad file $pos of three: same result as alone"
	if [ "$pos" != missing ]; then
		is "$(cat "$d/bad.o")" "not an object" "bad file $pos of three: left as it was"
	fi
	is "$(leftovers "$d")" 0 "bad file $pos of three: no temporary file"
done

# --- -o ---
cp "$T_TMP/calls.o" "$W/o-in.o"
before=$(inode "$W/o-in.o")
run_ok "-o OUT" "$RMC" -o "$W/o-out.o" "$W/o-in.o"
cmp -s "$T_TMP/calls.o" "$W/o-in.o" && [ "$(inode "$W/o-in.o")" = "$before" ]
ok $? "-o leaves the input alone"
cmp -s "$T_TMP/processed.o" "$W/o-out.o"
ok $? "-o output equals the in-place result"
run_ok "-o from an already processed input" "$RMC" -o "$W/o-out2.o" "$T_TMP/processed.o"
cmp -s "$T_TMP/processed.o" "$W/o-out2.o"
ok $? "-o copies an already processed input unchanged"
run_ok "-o from an input without calls" "$RMC" -o "$W/o-out3.o" "$T_TMP/nopg.o"
cmp -s "$T_TMP/nopg.o" "$W/o-out3.o"
ok $? "-o copies an input without calls unchanged"
"$RMC" -o "$W/o-two.o" "$W/o-in.o" "$T_TMP/nopg.o" 2>/dev/null
is $? 2 "-o with two inputs is a usage error"
is "$(leftovers "$W")" 0 "no temporary file left anywhere"

done_testing
