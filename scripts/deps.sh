#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Install every Debian package the build, the tests and the benchmarks need.
# Idempotent: packages already present are not reinstalled, and apt is not
# touched at all when nothing is missing.
set -euo pipefail

packages=(
	make gcc g++ clang lld perl python3 xz-utils e2fsprogs util-linux
	libelf-dev libdw-dev zlib1g-dev liblzma-dev libbz2-dev libc6-dev
	binutils valgrind
	gcc-i686-linux-gnu libc6-dev-i386-cross
	gcc-arm-linux-gnueabihf libc6-dev-armhf-cross
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross
	gcc-mips-linux-gnu libc6-dev-mips-cross
	gcc-mipsel-linux-gnu libc6-dev-mipsel-cross
	gcc-mips64-linux-gnuabi64 libc6-dev-mips64-cross
	gcc-mips64el-linux-gnuabi64 libc6-dev-mips64el-cross
	gcc-powerpc-linux-gnu libc6-dev-powerpc-cross
	gcc-powerpc64-linux-gnu libc6-dev-ppc64-cross
	gcc-powerpc64le-linux-gnu libc6-dev-ppc64el-cross
	gcc-s390x-linux-gnu libc6-dev-s390x-cross
	gcc-sh4-linux-gnu libc6-dev-sh4-cross
	gcc-sparc64-linux-gnu libc6-dev-sparc64-cross
	gcc-riscv64-linux-gnu libc6-dev-riscv64-cross
	qemu-user
	linux-source-6.1
	dwarves hyperfine
)

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
	echo "deps: all ${#packages[@]} packages present"
	exit 0
fi

echo "deps: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "deps: done"
