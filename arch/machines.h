/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Every machine the project builds for, once: the Makefile (which runtimes
 * to cross-build, whose relocation names the tools print), scripts/deps.sh
 * (which cross toolchains to install), the tests and benchmarks
 * (scripts/machines.sh: what to compile for) and the C code (objpatch run: which
 * qemu-user and root serve a foreign program) all read this table, and
 * t/08-machine-lists.t fails on a list of machines written elsewhere.  A
 * row is a compiler target; two rows may share a machine (arm in Thumb-2
 * and in ARM code).
 *
 *   name         the target's name in tests and benchmarks
 *   prefix       the Debian cross toolchain's prefix (the triple and '-'):
 *                /usr/TRIPLE is its libc, the root qemu-user runs in
 *   clang        clang's --target, or - where the tests use gcc only
 *   kflags       what Kbuild passes that changes the call sequence (no
 *                PIC, MIPS without abicalls), so the kernel's tool sees
 *                what it expects
 *   port         the runtime's port (arch/<family>/rt_PORT.[cS]), or -
 *   qemu         qemu-QEMU runs its programs, build/QEMU/ holds its
 *                runtime; - for none
 *   em, class, data   its programs' ELF header
 *   desc         the recorder's descriptor of its objects (arch_DESC)
 *
 * Tokens only (no commas or parentheses in a field): C stringizes them,
 * shell and make split the row at its commas.
 */
/*      name      prefix                    clang                    kflags                        port     qemu      em          class       data         desc */
MACHINE(x86_64,   x86_64-linux-gnu-,        x86_64-linux-gnu,        -fno-pic,                     x86_64,  x86_64,   EM_X86_64,  ELFCLASS64, ELFDATA2LSB, x86_64)
MACHINE(i386,     i686-linux-gnu-,          i686-linux-gnu,          -fno-pic,                     i386,    i386,     EM_386,     ELFCLASS32, ELFDATA2LSB, i386)
MACHINE(arm,      arm-linux-gnueabihf-,     arm-linux-gnueabihf,     -fno-pic,                     arm,     arm,      EM_ARM,     ELFCLASS32, ELFDATA2LSB, arm)
MACHINE(arm-arm,  arm-linux-gnueabihf-,     -,                       -fno-pic -marm,               -,       -,        EM_ARM,     ELFCLASS32, ELFDATA2LSB, arm)
MACHINE(aarch64,  aarch64-linux-gnu-,       aarch64-linux-gnu,       -fno-pic,                     aarch64, aarch64,  EM_AARCH64, ELFCLASS64, ELFDATA2LSB, aarch64)
MACHINE(mips,     mips-linux-gnu-,          mips-linux-gnu,          -fno-pic -mno-abicalls -G0,   mips,    mips,     EM_MIPS,    ELFCLASS32, ELFDATA2MSB, mips32)
MACHINE(mipsel,   mipsel-linux-gnu-,        mipsel-linux-gnu,        -fno-pic -mno-abicalls -G0,   mips,    mipsel,   EM_MIPS,    ELFCLASS32, ELFDATA2LSB, mips32)
MACHINE(mips64,   mips64-linux-gnuabi64-,   mips64-linux-gnuabi64,   -fno-pic -mno-abicalls -G0,   mips,    mips64,   EM_MIPS,    ELFCLASS64, ELFDATA2MSB, mips64)
MACHINE(mips64el, mips64el-linux-gnuabi64-, mips64el-linux-gnuabi64, -fno-pic -mno-abicalls -G0,   mips,    mips64el, EM_MIPS,    ELFCLASS64, ELFDATA2LSB, mips64)
MACHINE(ppc,      powerpc-linux-gnu-,       powerpc-linux-gnu,       -fno-pic,                     ppc,     ppc,      EM_PPC,     ELFCLASS32, ELFDATA2MSB, ppc32)
MACHINE(ppc64,    powerpc64-linux-gnu-,     powerpc64-linux-gnu,     -fno-pic,                     ppc64,   ppc64,    EM_PPC64,   ELFCLASS64, ELFDATA2MSB, ppc64)
MACHINE(ppc64le,  powerpc64le-linux-gnu-,   powerpc64le-linux-gnu,   -fno-pic,                     ppc64le, ppc64le,  EM_PPC64,   ELFCLASS64, ELFDATA2LSB, ppc64le)
MACHINE(s390x,    s390x-linux-gnu-,         s390x-linux-gnu,         -fno-pic,                     s390x,   s390x,    EM_S390,    ELFCLASS64, ELFDATA2MSB, s390x)
MACHINE(sh4,      sh4-linux-gnu-,           -,                       -fno-pic,                     sh4,     sh4,      EM_SH,      ELFCLASS32, ELFDATA2LSB, sh)
MACHINE(sparc64,  sparc64-linux-gnu-,       sparc64-linux-gnu,       -fno-pic,                     sparc64, sparc64,  EM_SPARCV9, ELFCLASS64, ELFDATA2MSB, sparc64)
MACHINE(riscv64,  riscv64-linux-gnu-,       riscv64-linux-gnu,       -fno-pic,                     riscv64, riscv64,  EM_RISCV,   ELFCLASS64, ELFDATA2LSB, riscv64)
