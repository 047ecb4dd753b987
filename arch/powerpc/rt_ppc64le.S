/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ppc64le (ELFv2): the trampolines both 64-bit ABIs share, _CALL_ELF choosing. */
#include "arch/powerpc/rt_ppc64.S"
