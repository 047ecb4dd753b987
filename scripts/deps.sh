#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Install every Debian package the build, the tests and the benchmarks need.
# Idempotent: packages already present are not reinstalled, and apt is not
# touched at all when nothing is missing.
set -euo pipefail
# machine_rows: arch/machines.h's rows, read with awk alone (nothing is built yet).
# shellcheck source=scripts/machines.sh
. "$(dirname "${BASH_SOURCE[0]}")/machines.sh"

# debian_arch TRIPLE: Debian's name for the architecture of a GNU triple
# (i686-linux-gnu: i386, arm-linux-gnueabihf: armhf), from the tables of
# dpkg (essential, so present) the way dpkg-architecture reads them: dpkg-dev
# may not be installed yet.
debian_arch() {
	awk -v gnucpu="${1%%-*}" -v abi="${1##*-linux-gnu}" '
		FNR == 1 { file++ }
		/^#/ || NF < 2 { next }
		file == 1 && $2 == gnucpu && cpu == "" { cpu = $1 }
		file == 2 {
			want = (abi == "" ? "base" : abi) "-gnu-linux-" cpu
			k = $1; v = $2; gsub(/<cpu>/, cpu, k); gsub(/<cpu>/, cpu, v)
			if (k == want) { print v; exit }
		}' /usr/share/dpkg/cputable /usr/share/dpkg/tupletable
}

# cross: "DEBIAN-ARCH TRIPLE PORT QEMU" for each toolchain of
# arch/machines.h (rows sharing one, ARM and Thumb-2, give it once) but
# this machine's own, which gcc, g++ and libc6-dev above serve.
cross=()
host_arch=$(dpkg --print-architecture)
while IFS=$'\t' read -r _ prefix _ _ port qemu _; do
	case " ${cross[*]} " in *" ${prefix%-} "*) continue ;; esac
	arch=$(debian_arch "${prefix%-}")
	[ -n "$arch" ] || { echo "deps: no Debian architecture for ${prefix%-} (arch/machines.h)" >&2; exit 1; }
	[ "$arch" = "$host_arch" ] || cross+=("$arch ${prefix%-} $port $qemu")
done < <(machine_rows)

# Each toolchain's Debian packages: gcc-TRIPLE (the triple's _ is - in a
# package name) and the libc; g++ where the machine has a runtime port,
# whose tests (t/95-rt-*) build C++ programs too.
cross_packages() {
	local arch triple port qemu
	for m in "${cross[@]}"; do
		read -r arch triple port qemu <<< "$m"
		echo "gcc-${triple//_/-}"
		[ "$port" = - ] || echo "g++-${triple//_/-}"
		echo "libc6-dev-$arch-cross"
	done
}
mapfile -t cross_pkgs < <(cross_packages)

packages=(
	make gcc g++ clang libclang-rt-dev lld perl python3 xz-utils e2fsprogs util-linux
	libelf-dev libdw-dev zlib1g-dev liblzma-dev libbz2-dev libc6-dev
	binutils valgrind strace time
	"${cross_pkgs[@]}"
	# the runtimes' tests run their machines' programs under qemu-QEMU (arch/machines.h)
	qemu-user
	linux-source-6.1
	dwarves hyperfine uftrace linux-perf
	flex bison bc
	# t/81-cc.t: ccache in front of and behind objpatch-cc
	ccache
	# t/06-man.t renders every man page
	groff-base man-db
	# t/76-perfetto.t: protoc --decode_raw reads the perfetto traces
	protobuf-compiler
	# make check-projects and bench/instrument.sh: real projects' build systems
	cmake meson ninja-build pkgconf ccache autoconf automake libtool
	# dpkg-source and bzip2: riscv64's libelf is built from Debian's sources (below)
	dpkg-dev bzip2
	# a machine's own toolchain in a root of another Debian release (scripts/toolchain-*.sh: sh4's)
	debootstrap bubblewrap
	# t/84-install.t builds against the installed objpatch.pc
	pkgconf
	# t/77-svg.t renders a flame graph in headless Chromium
	chromium
	# scripts/i386-system.sh boots Debian's kernels with an initramfs:
	# t/97-attach.t's i386 case on a kernel that runs no i386 program, and
	# make check-i386-system
	qemu-system-x86 cpio
)

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
	echo "deps: all ${#packages[@]} packages present"
else
	echo "deps: installing ${missing[*]}"
	# A mirror mid-sync fails some index (security's, say) but serves the rest.
	$sudo apt-get update -qq || echo "deps: apt-get update reported errors; installing from the indexes it got"
	$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
	echo "deps: done"
fi

# The runtimes for other machines (build/<qemu>/libobjpatch.so, run under
# qemu-user) link that machine's libelf, which Debian has no cross package
# for.  Installing libelf1:arm64 would bring libc6:arm64, a newer build than
# libc6-arm64-cross: `qemu-aarch64 -L /usr/aarch64-linux-gnu` then pairs the
# cross ld.so with the multiarch libc.so.6 and programs hang.  So the
# libraries are unpacked from the machine's packages into the cross
# sysroot's lib/, where the cross linker and qemu -L both look; dpkg does
# not own them.
foreign_libelf() {	# foreign_libelf DEBIAN-ARCH TRIPLE
	local arch=$1 lib=/usr/$2/lib tmp
	[ -d "$lib" ] || return 0
	[ -e "$lib/libelf.so" ] && [ -e "$lib/libelf.so.1" ] && [ -e "$lib/libz.so.1" ] && return 0
	echo "deps: unpacking the $arch libelf and zlib into $lib"
	dpkg --print-foreign-architectures | grep -qx "$arch" || $sudo dpkg --add-architecture "$arch"
	# A mirror mid-sync fails some index (security's, say) but serves the rest.
	apt-cache show "libelf1:$arch" >/dev/null 2>&1 || $sudo apt-get update -qq ||
		echo "deps: apt-get update reported errors; trying with the indexes it got"
	tmp=$(mktemp -d)
	(cd "$tmp" && apt-get download -qq -o APT::Sandbox::User=root "libelf1:$arch" "zlib1g:$arch" "libelf-dev:$arch")
	for deb in "$tmp"/*.deb; do
		dpkg-deb -x "$deb" "$tmp/root"
	done
	# bookworm's zlib is in /lib/<triple>, libelf in /usr/lib/<triple>
	find "$tmp/root" \( -name 'libelf*.so*' -o -name 'libz.so*' \) -exec $sudo cp -P {} "$lib/" \;
	rm -rf "$tmp"
}
# source_lists: the system's archives as deb-src lists (shared with the
# projects' source fetcher).
. "$(dirname "${BASH_SOURCE[0]}")/debian-source.sh"
host_source() {	# host_source PACKAGE: its source package=version, as installed
	dpkg-query -W -f='${source:Package}=${source:Version}' "$1"
}
# Debian 12 has no riscv64 packages (not a release architecture), so there
# is no libelf1:riscv64 to unpack: build libelf and zlib from Debian's own
# sources with the cross compiler instead.  apt reads private source lists
# (source_lists) and keeps its indexes in the temporary directory, so the
# system's configuration is untouched.  Only lib/ and libelf/ of elfutils are built (libdw, the
# tools and debuginfod would take far longer and need more libraries); the
# host's libelf.h, gelf.h and zlib.h serve (same versions, and the cross gcc
# searches /usr/include after its own include directory).
source_libelf() {	# source_libelf TRIPLE
	local triple=$1 lib=/usr/$1/lib tmp
	[ -d "$lib" ] || return 0
	[ -e "$lib/libelf.so" ] && [ -e "$lib/libelf.so.1" ] && [ -e "$lib/libz.so.1" ] && return 0
	command -v "$triple-gcc" >/dev/null || return 0
	echo "deps: building libelf and zlib for $triple from Debian's sources into $lib"
	tmp=$(mktemp -d)
	# One && chain: `set -e` does not apply inside a subshell whose status is tested.
	(
		apt=(apt-get -qq -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$tmp/parts"
			-o Dir::State::Lists="$tmp/lists" -o Dir::Cache="$tmp/cache" -o APT::Sandbox::User=root)
		cd "$tmp" && mkdir -p parts lists/partial cache/archives/partial &&
		{ source_lists parts || { echo "deps: apt is configured with no archive" >&2; false; }; } &&
		# One archive without sources (a third party's) must not stop the rest.
		{ "${apt[@]}" update || echo "deps: apt-get update reported errors; trying with the indexes it got"; } &&
		# The versions of the host's headers, which the build uses (and which
		# the main archive serves when a newer one is only in another).
		"${apt[@]}" source --download-only "$(host_source libelf-dev)" "$(host_source zlib1g-dev)" &&
		dpkg-source -q --no-check -x zlib_*.dsc zlib >/dev/null &&
		dpkg-source -q --no-check -x elfutils_*.dsc elfutils >/dev/null &&
		(cd zlib && CHOST=$triple ./configure --prefix="$tmp/inst" >/dev/null &&
			make -s -j"$(nproc)" shared >/dev/null && make -s install >/dev/null) &&
		# libelf needs zlib (compressed sections): the one just built;
		# bzip2, lzma and zstd only serve libdw and the tools: left out.
		(cd elfutils && ./configure -q --host="$triple" --prefix="$tmp/inst" \
			--disable-debuginfod --disable-libdebuginfod --without-bzlib --without-lzma \
			--without-zstd --disable-nls CPPFLAGS="-I$tmp/inst/include" LDFLAGS="-L$tmp/inst/lib" >/dev/null &&
			make -s -j"$(nproc)" -C lib >/dev/null && make -s -j"$(nproc)" -C libelf >/dev/null &&
			make -s -C libelf install >/dev/null)
	) || { echo "deps: building libelf for $triple failed (in $tmp)" >&2; return 1; }
	find "$tmp/inst/lib" \( -name 'libelf*.so*' -o -name 'libz.so*' \) -exec $sudo cp -P {} "$lib/" \;
	rm -rf "$tmp"
}
# archive_serves ARCH: whether the configured archives have ARCH's packages
# (their Release files list it); Debian 12's have none for riscv64, which is
# not one of its release architectures.
archive_serves() {
	compgen -G '/var/lib/apt/lists/*Release' >/dev/null || $sudo apt-get update -qq ||
		echo "deps: apt-get update reported errors; trying with the indexes it got"
	grep -qsE "^Architectures:.* $1( |\$)" /var/lib/apt/lists/*Release
}
# Each machine with a runtime (a qemu-user to run it): its libelf unpacked
# from the archive's packages, or built from source where there are none.
# A machine whose toolchain Debian 12 cannot give has a script that sets up
# its own, libelf included (scripts/toolchain-QEMU.sh: sh4's, in a root of
# Debian 13, which its tests skip without).
for m in "${cross[@]}"; do
	read -r arch triple port qemu <<< "$m"
	[ "$qemu" != - ] || continue
	if [ -e "$(dirname "${BASH_SOURCE[0]}")/toolchain-$qemu.sh" ]; then
		bash "$(dirname "${BASH_SOURCE[0]}")/toolchain-$qemu.sh" ||
			echo "deps: $qemu's own toolchain could not be set up: its tests will skip"
		continue
	fi
	lib=/usr/$triple/lib
	[ -d "$lib" ] || continue
	[ -e "$lib/libelf.so" ] && [ -e "$lib/libelf.so.1" ] && [ -e "$lib/libz.so.1" ] && continue
	if archive_serves "$arch"; then
		foreign_libelf "$arch" "$triple"
	else
		source_libelf "$triple"
	fi
done
