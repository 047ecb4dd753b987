#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# sh4's toolchain, which Debian 12 cannot give: its sh4-linux-gnu-gcc 12.2
# miscompiles at -O1 and above and its libc6-sh4-cross was built with it
# (docs/architectures.md, "sh4").  Debian 13's gcc 14 and glibc 2.41 work,
# but need a host glibc >= 2.38, so they live in a Debian 13 root of their
# own, outside the repo:
#
#   $OBJPATCH_TOOLCHAINS (default ~/.cache/objpatch-toolchains)/sh4/
#     root/   debootstrap --variant=minbase of the system archive's next
#             release, with gcc-sh4-linux-gnu, g++-sh4-linux-gnu and
#             libc6-dev-sh4-cross; root/usr/sh4-linux-gnu is the sysroot
#             (qemu-sh4's -L, objpatch's OBJPATCH_QEMU_ROOT), with libelf
#             and zlib built from Debian's sources by that gcc
#     bin/    sh4-linux-gnu-gcc, -g++, -ar, ... : each runs the root's tool
#             in bubblewrap, with the root's /usr over the host's and every
#             other path (the work tree, $TMPDIR, $HOME) the host's, so
#             files are named as the caller names them.  The host's mounts
#             are never changed: bwrap's are private to the command.
#     ready   written last: its presence means everything above is there
#
# Idempotent: with `ready` there it does nothing.  scripts/deps.sh runs it;
# the Makefile (cross runtime) and t/95-rt-sh4.t put bin/ first in PATH for
# sh4 only (scripts/machines.sh's machine_toolchain), and the recorder's
# tests keep Debian 12's compiler.  Usage: scripts/toolchain-sh4.sh
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# source_lists, suite_lists: the system's archive, as apt is configured.
# shellcheck source=scripts/debian-source.sh
. "$here/debian-source.sh"

dir=${OBJPATCH_TOOLCHAINS:-${XDG_CACHE_HOME:-$HOME/.cache}/objpatch-toolchains}/sh4
triple=sh4-linux-gnu
suite=trixie	# the first Debian release whose sh4 gcc compiles correctly
[ -e "$dir/ready" ] && exit 0

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
for tool in debootstrap bwrap; do
	command -v "$tool" >/dev/null || PATH=$PATH:/usr/sbin:/sbin
	command -v "$tool" >/dev/null || { echo "toolchain-sh4: $tool is not installed (scripts/deps.sh installs it)" >&2; exit 1; }
done
mkdir -p "$dir"
exec 9>"$dir/.lock"
flock 9
[ -e "$dir/ready" ] && exit 0
start=$(date +%s)

# The archive's URI: the first entry of the system's own release, with the
# suite's name in its place (suite_lists), read from a one-line list or a
# deb822 stanza.  The repo names no archive.
archive_uri() {
	local tmp uri
	tmp=$(mktemp -d)
	suite_lists "$tmp" "$suite" >/dev/null || { rm -rf "$tmp"; return 1; }
	uri=$(cat "$tmp"/suite* 2>/dev/null | awk '
		$1 == "deb" { for (i = 2; i <= NF; i++) if ($i !~ /^\[/ && $i !~ /\]$/) { print $i; exit } }
		$1 == "URIs:" { print $2; exit }')
	rm -rf "$tmp"
	[ -n "$uri" ] && echo "$uri"
}

if [ ! -e "$dir/root/.complete" ]; then
	uri=$(archive_uri) || { echo "toolchain-sh4: apt's configuration names no archive of this release" >&2; exit 1; }
	echo "toolchain-sh4: debootstrap $suite from $uri into $dir/root"
	$sudo rm -rf "${dir:?}/root.tmp" "${dir:?}/root"
	# minbase and the three packages (with their dependencies): about 450 MB.
	if ! $sudo debootstrap --variant=minbase --include=gcc-$triple,g++-$triple,libc6-dev-sh4-cross \
		"$suite" "$dir/root.tmp" "$uri" >"$dir/debootstrap.log" 2>&1; then
		echo "toolchain-sh4: debootstrap failed (the archive unreachable?): see $dir/debootstrap.log" >&2
		tail -5 "$dir/debootstrap.log" >&2
		exit 1
	fi
	$sudo touch "$dir/root.tmp/.complete"
	$sudo mv "$dir/root.tmp" "$dir/root"
fi

# The wrappers: one per tool of the root's /usr/bin/sh4-linux-gnu-*.
# --dev-bind / /: the host's whole tree (devices, /proc, the caller's
# files); then the root's /usr over it (merged /usr: /bin and /lib follow)
# and its loader cache, so its binaries load its own libraries.
rm -rf "$dir/bin.tmp" && mkdir "$dir/bin.tmp"
for t in "$dir/root/usr/bin/$triple"-*; do
	name=$(basename "$t")
	cat >"$dir/bin.tmp/$name" <<EOF
#!/bin/sh
# Written by scripts/toolchain-sh4.sh: Debian $suite's $name, run in its root.
exec bwrap --dev-bind / / --ro-bind '$dir/root/usr' /usr --ro-bind '$dir/root/etc/ld.so.cache' /etc/ld.so.cache \\
	-- /usr/bin/$name "\$@"
EOF
	chmod 755 "$dir/bin.tmp/$name"
done
rm -rf "${dir:?}/bin" && mv "$dir/bin.tmp" "$dir/bin"

# libelf and zlib for sh4 programs (the runtime links them): Debian has no
# sh4 packages in its release archives, so both are built from the
# system's own sources with the new gcc, into the sysroot's lib/ and
# include/ (where the compiler and qemu -L look; the host's libelf.h is
# hidden under the root's /usr, so the headers come along).
sysroot=$dir/root/usr/$triple
if [ ! -e "$sysroot/lib/libelf.so.1" ] || [ ! -e "$sysroot/include/libelf.h" ]; then
	echo "toolchain-sh4: building libelf and zlib for $triple from Debian's sources"
	mapfile -t src < <("$here/debian-source.sh" elfutils zlib)
	tmp=$(mktemp -d)
	export PATH=$dir/bin:$PATH
	(
		cp -a "${src[1]}" "$tmp/zlib" && cp -a "${src[0]}" "$tmp/elfutils" &&
		# gcc 14 on 32-bit Debian 13 defines _TIME_BITS=64, which glibc
		# accepts only with _FILE_OFFSET_BITS=64, which zlib's gz* files
		# undefine: their time is not in zlib's interface, so 32-bit there.
		cd "$tmp/zlib" && CHOST=$triple CFLAGS="-O2 -g -U_TIME_BITS" ./configure --prefix="$tmp/inst" >/dev/null &&
			make -s -j"$(nproc)" >/dev/null && make -s install >/dev/null &&
		# bzip2, lzma and zstd only serve libdw and the tools: left out.
		# -Wno-error: elfutils' -Werror meets gcc 14's newer warnings.
		cd "$tmp/elfutils" && ./configure -q --host=$triple --prefix="$tmp/inst" \
			--disable-debuginfod --disable-libdebuginfod --without-bzlib --without-lzma \
			--without-zstd --disable-nls CFLAGS="-O2 -g -Wno-error" \
			CPPFLAGS="-I$tmp/inst/include" LDFLAGS="-L$tmp/inst/lib" >/dev/null &&
			make -s -j"$(nproc)" -C lib >/dev/null && make -s -j"$(nproc)" -C libelf >/dev/null &&
			make -s -C libelf install >/dev/null
	) || { echo "toolchain-sh4: building libelf for $triple failed (in $tmp)" >&2; exit 1; }
	$sudo cp -P "$tmp"/inst/lib/libelf*.so* "$tmp"/inst/lib/libz.so* "$tmp"/inst/lib/libz.a "$sysroot/lib/"
	$sudo cp -a "$tmp"/inst/include/. "$sysroot/include/"
	rm -rf "$tmp"
fi
touch "$dir/ready"
echo "toolchain-sh4: ready in $(($(date +%s) - start)) s: $dir"
