// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The machines a recording can come from (those with a runtime port,
 * arch/machines.h), described by their descriptors.
 */
#include <elf.h>
#include <float.h>
#include "trace/machine.h"

bool trace_machine_for(uint16_t machine, uint8_t elfclass, bool big_endian, struct trace_machine *out)
{
	const struct arch *a = arch_for_runtime(machine, elfclass, big_endian ? ELFDATA2MSB : ELFDATA2LSB);

	if (!a)
		return false;
	out->arch = a;
	format_target_for_arch(a, big_endian, &out->values);
	/* Its long double is ours where both have the same format and byte order. */
	out->values.ldbl_host = a->values.ldbl_mant == LDBL_MANT_DIG &&
				big_endian == (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	return true;
}

void trace_machine_native(const struct arch *a, struct trace_machine *out)
{
	out->arch = a;
	format_target_for_arch(a, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__, &out->values);
	out->values.ldbl_host = true;
}
