# SPDX-License-Identifier: GPL-2.0-only
# The architecture matrix the tests and benchmarks compile for.
# One line per target:
#   name  gcc-prefix  clang-target(- for none)  kernel-style flags
# Kernel-style flags are what Kbuild uses that changes the call sequence
# (no PIC, MIPS without abicalls), so the kernel's tool sees what it expects.
ARCHES='
x86_64    x86_64-linux-gnu-        x86_64-linux-gnu       -fno-pic
i386      i686-linux-gnu-          i686-linux-gnu         -fno-pic
arm       arm-linux-gnueabihf-     arm-linux-gnueabihf    -fno-pic
arm-arm   arm-linux-gnueabihf-     -                      -fno-pic_-marm
aarch64   aarch64-linux-gnu-       aarch64-linux-gnu      -fno-pic
mips      mips-linux-gnu-          mips-linux-gnu         -fno-pic_-mno-abicalls_-G0
mipsel    mipsel-linux-gnu-        mipsel-linux-gnu       -fno-pic_-mno-abicalls_-G0
mips64    mips64-linux-gnuabi64-   mips64-linux-gnuabi64  -fno-pic_-mno-abicalls_-G0
mips64el  mips64el-linux-gnuabi64- mips64el-linux-gnuabi64 -fno-pic_-mno-abicalls_-G0
ppc       powerpc-linux-gnu-       powerpc-linux-gnu      -fno-pic
ppc64     powerpc64-linux-gnu-     powerpc64-linux-gnu    -fno-pic
ppc64le   powerpc64le-linux-gnu-   powerpc64le-linux-gnu  -fno-pic
s390x     s390x-linux-gnu-         s390x-linux-gnu        -fno-pic
sh4       sh4-linux-gnu-           -                      -fno-pic
sparc64   sparc64-linux-gnu-       sparc64-linux-gnu      -fno-pic
riscv64   riscv64-linux-gnu-       riscv64-linux-gnu      -fno-pic
'

# for_each_arch FUNC: calls FUNC name gcc_prefix clang_target kflags (flags space-separated)
for_each_arch() {
	local fn=$1 name prefix ctarget kflags
	while read -r name prefix ctarget kflags; do
		[ -n "$name" ] || continue
		"$fn" "$name" "$prefix" "$ctarget" "${kflags//_/ }"
	done <<< "$ARCHES"
}
