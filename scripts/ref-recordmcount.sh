#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build the kernel's own scripts/recordmcount from Debian's linux-source-6.1
# in a scratch directory (build/ref/), for differential tests and benchmarks.
# Its code is never committed; only its behaviour is compared with ours.
# Prints the path of the binary.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/ref
bin=$out/recordmcount
tarball=${LINUX_SOURCE_TARBALL:-/usr/src/linux-source-6.1.tar.xz}

if [ ! -x "$bin" ]; then
	[ -f "$tarball" ] || { echo "ref-recordmcount: $tarball not found (install linux-source-6.1)" >&2; exit 1; }
	mkdir -p "$out"
	tar -C "$out" -xJf "$tarball" --strip-components=2 \
		linux-source-6.1/scripts/recordmcount.c linux-source-6.1/scripts/recordmcount.h
	cc -O2 -o "$bin.tmp" "$out/recordmcount.c"
	mv "$bin.tmp" "$bin"
fi
echo "$bin"
