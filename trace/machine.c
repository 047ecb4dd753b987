// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The machines a recording can come from (those with a runtime port,
 * arch/<family>/rt_<machine>.c), and a return value back from the words an
 * exit event kept of the registers.
 */
#include <elf.h>
#include <float.h>
#include <string.h>
#include "trace/machine.h"

#ifndef EM_RISCV
#define EM_RISCV 243
#endif

/*
 * What each port's struct rt_arch says about its captures and sites, and
 * the mantissa of its long double (LDBL_MANT_DIG: 64 x87, 113 binary128,
 * 106 IBM double-double, 53 when it is a double), which a reader formats
 * as its own only when the two are the same.
 */
static const struct port_conv {
	uint16_t machine;
	uint8_t elfclass;
	uint32_t e_flags;	/* the ABI, where e_machine names several (ppc64: ELFv2) */
	bool float_as_double;
	uint8_t pad_site_len, pad_site_offset;
	uint8_t ra_span;	/* 0: RT_MAX_SITE */
	uint8_t ldbl_mant;
} ports[] = {
	{ EM_X86_64, ELFCLASS64, 0, false, 5, 0, 0, 64 },
	{ EM_386, ELFCLASS32, 0, true, 5, 0, 0, 64 },
	{ EM_AARCH64, ELFCLASS64, 0, false, 4, 4, 0, 113 },
	{ EM_ARM, ELFCLASS32, 0, false, 0, 0, 0, 53 },
	{ EM_RISCV, ELFCLASS64, 0, false, 0, 0, 0, 113 },
	{ EM_PPC64, ELFCLASS64, 2, true, 0, 0, 0, 106 },
	{ EM_S390, ELFCLASS64, 0, false, 0, 0, 0, 113 },
	{ EM_MIPS, ELFCLASS32, 0, false, 0, 0, 24, 53 },	/* o32 */
	{ EM_MIPS, ELFCLASS64, 0, false, 0, 0, 24, 113 },	/* n64 */
};

bool trace_machine_for(uint16_t machine, uint8_t elfclass, bool big_endian, struct trace_machine *out)
{
	for (size_t i = 0; i < sizeof(ports) / sizeof(ports[0]); i++) {
		const struct port_conv *p = &ports[i];

		if (p->machine != machine || p->elfclass != elfclass)
			continue;
		*out = (struct trace_machine){
			.machine = machine,
			.elfclass = elfclass,
			.float_as_double = p->float_as_double,
			.pad_site_len = p->pad_site_len,
			.pad_site_offset = p->pad_site_offset,
			.ra_span = p->ra_span ? p->ra_span : RT_MAX_SITE,
		};
		if (!format_target_for_machine(machine, elfclass == ELFCLASS64, big_endian, p->e_flags, &out->values))
			return false;
		out->values.ldbl_host = p->ldbl_mant == LDBL_MANT_DIG &&
					big_endian == (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
		return true;
	}
	return false;
}

/* The low `n` bytes of `x` as they lay in the recording machine's memory. */
static void put_bytes(uint8_t *p, uint64_t x, unsigned n, bool big_endian)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(x >> 8 * (big_endian ? n - 1 - i : i));
}

/*
 * The words are numbers in the reader's byte order; an FP register's bytes
 * go back to the recording machine's order, which format_return() reads.
 * On the recording machine itself this is the memcpy it was.
 */
void trace_value(const struct trace_machine *m, const uint64_t *w, enum capture c, const struct sig_type *ret,
		 struct raw_value *v)
{
	bool be = m->values.big_endian;

	memset(v, 0, sizeof(*v));
	switch (c) {
	case CAPTURE_GPR:
	case CAPTURE_STRING:
		v->gpr[0] = w[0];
		break;
	case CAPTURE_FP:
		put_bytes(v->fpr, w[0], 8, be);
		v->have_fpr = true;
		if (m->float_as_double && ret && ret->size == 4) {
			double d;
			float f;
			uint32_t bits;

			memcpy(&d, &w[0], sizeof(d));
			f = (float)d;	/* exact: the register held a float's value */
			memcpy(&bits, &f, sizeof(bits));
			memset(v->fpr, 0, sizeof(v->fpr));
			put_bytes(v->fpr, bits, 4, be);
		}
		break;
	case CAPTURE_WIDE_FP:
		put_bytes(v->fpr, w[0], 8, be);
		put_bytes(v->fpr + 8, w[1], 8, be);
		v->have_fpr = true;
		break;
	case CAPTURE_ALL:
		v->gpr[0] = w[0];
		v->gpr[1] = w[1];
		/* Structs holding floats are flagged and printed raw (format.c): fpr is for FP types. */
		put_bytes(v->fpr, w[2], 8, be);
		v->have_fpr = ret->cls == TC_FLOAT;
		break;
	default:
		break;
	}
}
