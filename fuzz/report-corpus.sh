#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The seed corpus of the report harness, fuzz/corpus/report/: small
# recordings of testdata/recording/prog.c made by `objpatch record` on
# x86_64, and under qemu-user on i386 (32-bit words), aarch64 and s390x
# (big-endian); the x86_64 one also as versions 1 and 2, with a filter,
# and the s390x one with a record of an unknown type
# (testdata/recording/rawfmt.py).  Run by
# fuzz/make-corpus.sh, or alone after a change of the recording format;
# needs `make` (build/objpatch and the cross runtimes) and the cross
# compilers.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/fuzz/corpus/report
rec=$top/testdata/recording
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rm -rf "$out"
mkdir -p "$out"

# seed NAME GCC [CFLAGS...]: prog.c built as t/75-recording.t builds it, one round recorded.
seed() {
	local name=$1 cc=$2
	shift 2
	"$cc" -O2 -g -pg "$@" -fno-asynchronous-unwind-tables -c "$rec/prog.c" -o "$tmp/$name.o"
	"$top/build/recordmcount" --mode=user "$tmp/$name.o"
	"$cc" -pie "$tmp/$name.o" -o "$tmp/$name"
	"$top/build/objpatch" record --output "$out/$name" -- "$tmp/$name" 1 > /dev/null
}
seed x86_64 x86_64-linux-gnu-gcc -mfentry
seed i386 i686-linux-gnu-gcc
seed aarch64 aarch64-linux-gnu-gcc
seed s390x s390x-linux-gnu-gcc
# With a filter (its record's patterns, and the functions they name that never ran).
"$top/build/objpatch" record -F fib -F 'n*' -F '!negate' --output "$out/x86_64-filter" -- "$tmp/x86_64" 1 > /dev/null
python3 "$rec/rawfmt.py" to-v2 "$out/x86_64" "$out/x86_64-v2"
python3 "$rec/rawfmt.py" to-v1 "$out/x86_64" "$out/x86_64-v1"
python3 "$rec/rawfmt.py" unknown "$out/s390x" "$out/s390x-unknown"
du -b "$out"/*
