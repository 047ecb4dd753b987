// SPDX-License-Identifier: LGPL-2.1-or-later
#include <string.h>
#include "elf/lto.h"

bool lto_is_llvm_bitcode(const void *image, size_t size)
{
	static const unsigned char bare[4] = { 'B', 'C', 0xc0, 0xde };
	/* The wrapper (Darwin, -fembed-bitcode) starts with 0x0B17C0DE, little-endian. */
	static const unsigned char wrapper[4] = { 0xde, 0xc0, 0x17, 0x0b };

	return size >= 4 && (memcmp(image, bare, 4) == 0 || memcmp(image, wrapper, 4) == 0);
}

enum gcc_lto gcc_lto_kind(const struct elfobj *obj)
{
	bool ir = false;

	for (size_t i = 1; i < obj->nsec; i++)
		ir |= strncmp(obj->sec[i].name, ".gnu.lto_", 9) == 0;
	if (!ir)
		return GCC_LTO_NONE;
	/* gcc marks slim objects with this common symbol; fat ones have none. */
	for (size_t i = 1; i < obj->nsym; i++)
		if (strcmp(obj->sym[i].name, "__gnu_lto_slim") == 0)
			return GCC_LTO_SLIM;
	return GCC_LTO_FAT;
}
