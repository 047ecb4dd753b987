#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Regenerates the seed corpora of the libFuzzer harnesses, fuzz/corpus/H/,
# from testdata sources and fuzz/seed.c with the cross compilers and clang
# that scripts/deps.sh installs, and build/recordmcount for the processed
# and linked files.  The files are small (libFuzzer's -max_len follows the
# largest seed, and small inputs run faster) and committed; rerun this after
# a change of the table formats or of the traces in testdata/annotate.
#
# The options byte of a seed (e_ident[15], fuzz/fuzz.h) picks the harness's
# mode: rmc_pass 1 user mode, 2 no prototypes, 4 --nop, 8 -w; dwarf_table 1
# the recorded sites instead of every function; table_reader 1 --check
# --json, 2 --check --fix.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/machines.sh"
rmc=$top/build/recordmcount
make -s -C "$top" build/recordmcount
out=$top/fuzz/corpus
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
SAFETY=$top/testdata/safety
SEED=$top/fuzz/seed.c
# No unwind tables nor .comment: bytes the harnesses do not read.
SMALL="-fno-asynchronous-unwind-tables -fno-ident"
# DWARF without location lists, which the prototype reader does not use.
DWARF="-g -O1 -fno-var-tracking $SMALL"
# gcc 12 for s390x emits CFI for the -pg call even without unwind tables
# (and the assembler refuses it).
small_for() { [ "$1" = s390x ] && echo -fno-ident || echo "$SMALL"; }

for h in rmc_pass dwarf_table table_reader; do
	rm -rf "${out:?}/$h"
	mkdir -p "$out/$h"
done

# option FILE BYTE: sets the harness options byte.
option() {
	printf "\\x$(printf %02x "$2")" | dd of="$1" bs=1 seek=15 conv=notrunc status=none
}

# seed HARNESS NAME OPTION CMD...: runs the compiler command CMD (its output
# is $tmp/o.o) and keeps the object as HARNESS/NAME.
seed() {
	local h=$1 name=$2 opt=$3
	shift 3
	"$@" -o "$tmp/o.o"
	cp "$tmp/o.o" "$out/$h/$name"
	option "$out/$h/$name" "$opt"
}

# ---- rmc_pass: objects for every target, without DWARF ----
# kernel-style flags, calls.c; user mode on every other target
n=0
rmc_arch() {	# name gcc-prefix clang-target kflags
	# shellcheck disable=SC2086
	seed rmc_pass "$1.o" $((n++ % 2)) "${2}gcc" -pg -O2 $4 $(small_for "$1") -c "$SAFETY/calls.c"
}
for_each_arch rmc_arch
seed rmc_pass x86_64-fentry.o 1 x86_64-linux-gnu-gcc -pg -mfentry -O2 $SMALL -c "$SAFETY/calls.c"
seed rmc_pass x86_64-pic.o 1 x86_64-linux-gnu-gcc -pg -O2 -fPIC $SMALL -c "$SAFETY/calls.c"
seed rmc_pass i386-pic.o 0 i686-linux-gnu-gcc -pg -O2 -fPIC $SMALL -c "$SAFETY/calls.c"
seed rmc_pass mips-pic.o 1 mips-linux-gnu-gcc -pg -O2 -fPIC $SMALL -c "$SAFETY/calls.c"
seed rmc_pass mips-longcalls.o 4 mips-linux-gnu-gcc -pg -O2 -mlong-calls -fno-pic -mno-abicalls $SMALL \
	-c "$SAFETY/calls.c"
seed rmc_pass arm-clang.o 0 clang --target=arm-linux-gnueabihf -pg -O2 -fno-pic $SMALL -c "$SAFETY/calls.c"
seed rmc_pass aarch64-clang.o 5 clang --target=aarch64-linux-gnu -pg -O2 $SMALL -c "$SAFETY/calls.c"
seed rmc_pass s390x-clang.o 0 clang --target=s390x-linux-gnu -pg -O2 -fno-pic $SMALL -c "$SAFETY/calls.c"
seed rmc_pass x86_64-comdat.o 1 x86_64-linux-gnu-g++ -pg -O0 -fno-pic $SMALL -c "$SAFETY/comdat.cc"
seed rmc_pass x86_64-weak-sections.o 8 x86_64-linux-gnu-gcc -pg -O2 -ffunction-sections $SMALL \
	-c "$top/testdata/src/weak.c"
seed rmc_pass x86_64-hookref.o 0 x86_64-linux-gnu-gcc -O2 -fno-pic $SMALL -c "$SAFETY/hookref.c"
seed rmc_pass arm-dwarf.o 0 arm-linux-gnueabihf-gcc -pg -fno-pic $DWARF -c "$SEED"
seed rmc_pass i386-dwarf.o 1 i686-linux-gnu-gcc -pg -fno-pic $DWARF -c "$SEED"
# already processed: left as they are
cp "$out/rmc_pass/x86_64.o" "$tmp/p.o"
"$rmc" "$tmp/p.o"
cp "$tmp/p.o" "$out/rmc_pass/x86_64-processed.o"

# ---- dwarf_table: fuzz/seed.c with DWARF, for every target ----
dw_arch() {	# name gcc-prefix clang-target kflags
	# shellcheck disable=SC2086
	seed dwarf_table "$1.o" 0 "${2}gcc" -pg $4 -g -O1 -fno-var-tracking $(small_for "$1") -c "$SEED"
}
for_each_arch dw_arch
seed dwarf_table x86_64-recorded.o 1 x86_64-linux-gnu-gcc -pg -fno-pic $DWARF -c "$SEED"
seed dwarf_table x86_64-dwarf4.o 0 x86_64-linux-gnu-gcc -pg -fno-pic $DWARF -gdwarf-4 -c "$SEED"
seed dwarf_table x86_64-gz.o 0 x86_64-linux-gnu-gcc -pg -fno-pic $DWARF -gz -c "$SEED"
seed dwarf_table x86_64-clang.o 0 clang --target=x86_64-linux-gnu -pg -fno-pic $DWARF -c "$SEED"
seed dwarf_table arm-clang.o 1 clang --target=arm-linux-gnueabihf -pg -fno-pic $DWARF -c "$SEED"
seed dwarf_table i386-statics.o 0 i686-linux-gnu-gcc -pg -fno-pic $DWARF -c "$top/testdata/protos/init_a.c"
seed dwarf_table x86_64-nopg.o 0 x86_64-linux-gnu-gcc -fno-pic $DWARF -c "$SEED"

# ---- table_reader: processed objects and linked files ----
# processed OUT MODE-ARGS... CMD...: compile to $tmp/o.o, record, keep as OUT.
processed() {
	local name=$1 args=$2
	shift 2
	"$@" -o "$tmp/o.o"
	# shellcheck disable=SC2086
	"$rmc" $args "$tmp/o.o"
	cp "$tmp/o.o" "$out/table_reader/$name"
}
processed x86_64-kernel.o "" x86_64-linux-gnu-gcc -pg -fno-pic $DWARF -c "$SEED"
processed x86_64-user.o --mode=user x86_64-linux-gnu-gcc -pg -mfentry -fno-pic $DWARF -c "$SEED"
processed arm-user.o --mode=user arm-linux-gnueabihf-gcc -pg -fno-pic $DWARF -c "$SEED"
processed ppc64-user.o "--mode=user --no-protos" powerpc64-linux-gnu-gcc -pg -O2 $SMALL -c "$SAFETY/calls.c"
processed mips-kernel.o --no-protos mips-linux-gnu-gcc -pg -O2 -fno-pic -mno-abicalls $SMALL -c "$SAFETY/calls.c"
processed riscv64-user.o "--mode=user --no-protos" riscv64-linux-gnu-gcc -pg -O2 $SMALL -c "$SAFETY/calls.c"
processed x86_64-comdat.o --mode=user x86_64-linux-gnu-g++ -pg -O0 $SMALL -c "$SAFETY/comdat.cc"

# linked LINKER-PREFIX NAME OBJECT LDFLAGS...: links a processed object with
# no libc, every undefined symbol (sink) left at 0, and tiny pages to keep it
# small.
linked() {
	local prefix=$1 name=$2 obj=$3
	shift 3
	"${prefix}ld" --build-id=none --unresolved-symbols=ignore-all -z max-page-size=16 \
		-z common-page-size=16 -z noseparate-code --no-warn-rwx-segments "$@" "$obj" -o "$tmp/l"
	cp "$tmp/l" "$out/table_reader/$name"
}
linked x86_64-linux-gnu- x86_64-static "$out/table_reader/x86_64-user.o" -e f_call -static
linked x86_64-linux-gnu- x86_64-pie "$out/table_reader/x86_64-user.o" -e f_call -pie
linked x86_64-linux-gnu- x86_64-shared.so "$out/table_reader/x86_64-user.o" -shared
aarch64-linux-gnu-gcc -pg -O1 $SMALL -c "$SEED" -o "$tmp/a64.o"
"$rmc" --mode=user --nop --no-protos "$tmp/a64.o"
linked aarch64-linux-gnu- aarch64-static "$tmp/a64.o" -e f_call -static
linked arm-linux-gnueabihf- arm-static "$out/table_reader/arm-user.o" -e f_call -static
# kernel style: __mcount_loc between __start_mcount_loc and __stop_mcount_loc;
# the undefined functions defined in the text, where a MIPS jump reaches them
cat > "$tmp/k.lds" <<'EOF'
SECTIONS
{
	.text : {
		*(.text .text.*)
		PROVIDE(mcount = .); PROVIDE(_mcount = .); PROVIDE(rmc_ext = .); PROVIDE(sink = .);
	}
	__mcount_loc : {
		__start_mcount_loc = .;
		KEEP(*(__mcount_loc))
		__stop_mcount_loc = .;
	}
	.data : { *(.data .data.*) }
	.bss : { *(.bss .bss.*) }
	__mcount_proto 0 : { KEEP(*(__mcount_proto)) }
	__mcount_str 0 : { KEEP(*(__mcount_str)) }
}
EOF
linked x86_64-linux-gnu- x86_64-vmlinux "$out/table_reader/x86_64-kernel.o" -e f_call -T "$tmp/k.lds" \
	-Ttext=0xffffffff81000000
linked mips-linux-gnu- mips-vmlinux "$out/table_reader/mips-kernel.o" -e rmc_one -T "$tmp/k.lds" -Ttext=0x80100000
x86_64-linux-gnu-strip -o "$out/table_reader/x86_64-pie-stripped" "$out/table_reader/x86_64-pie"
# recordmcount --check: 1 --json, 2 --fix
option "$out/table_reader/x86_64-user.o" 1
option "$out/table_reader/x86_64-static" 3
option "$out/table_reader/x86_64-vmlinux" 2
option "$out/table_reader/mips-vmlinux" 2
option "$out/table_reader/arm-static" 1

# ---- annotate: t/71's traces, in pieces of at most 24 lines ----
rm -rf "${out:?}/annotate"
mkdir -p "$out/annotate"
for t in "$top"/testdata/annotate/*.trace; do
	split -l 24 -d "$t" "$out/annotate/$(basename "$t" .trace)-"
done

# ---- report: recordings (fuzz/report-corpus.sh) ----
"$top/fuzz/report-corpus.sh"

du -sb --apparent-size "$out"/*
find "$out" -type f -size +6k -printf 'larger than 6 KiB: %p %s\n'
