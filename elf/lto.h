/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Objects compiled with -flto hold the compiler's intermediate code, not
 * machine code: clang's are LLVM bitcode (no ELF at all), gcc's are ELF
 * whose .gnu.lto_* sections hold GIMPLE, with machine code too only with
 * -ffat-lto-objects.  A tool that reads code must tell the user, not see
 * an object with nothing in it.
 */
#ifndef ELF_LTO_H
#define ELF_LTO_H

#include <stdbool.h>
#include <stddef.h>
#include "elf/elfobj.h"

enum gcc_lto {
	GCC_LTO_NONE,
	GCC_LTO_SLIM,	/* IR only: the code is compiled at link time */
	GCC_LTO_FAT,	/* IR and machine code (-ffat-lto-objects) */
};

/* The file starts with LLVM bitcode, bare or in its wrapper. */
bool lto_is_llvm_bitcode(const void *image, size_t size);
enum gcc_lto gcc_lto_kind(const struct elfobj *obj);

#endif
