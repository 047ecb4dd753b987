#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The image the annotate harness types its traces by: t/71's x86_64
# "vmlinux" (testdata/annotate/kernel.c, -pg -mfentry, recorded with its
# prototype table, linked at a kernel address by testdata/annotate/vmlinux.lds).
#
# usage: fuzz/annotate-image.sh RECORDMCOUNT OUTPUT
set -eu
[ $# = 2 ] || { echo "usage: $0 RECORDMCOUNT OUTPUT" >&2; exit 2; }
src=$(cd "$(dirname "$0")/.." && pwd)/testdata/annotate
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
x86_64-linux-gnu-gcc -O2 -g -pg -mfentry -mcmodel=kernel -ffreestanding -fno-pic \
	-c "$src/kernel.c" -o "$tmp/kernel.o"
"$1" "$tmp/kernel.o"
x86_64-linux-gnu-ld --no-warn-rwx-segments -T "$src/vmlinux.lds" -Ttext=0xffffffff81000000 \
	-o "$2" "$tmp/kernel.o"
