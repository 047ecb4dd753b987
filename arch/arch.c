// SPDX-License-Identifier: LGPL-2.1-or-later
/* The registry of architecture descriptors and the instruction-pattern helpers. */
#include <string.h>
#include "arch/arch.h"

/* The descriptors of arch/machines.h's rows (some share one: ARM and Thumb-2 code). */
static const struct arch *const all_arches[] = {
#define MACHINE(name, prefix, clang, kflags, port, qemu, em, class, data, desc) &arch_##desc,
#include "arch/machines.h"
#undef MACHINE
};

const struct arch *arch_for_ehdr(const GElf_Ehdr *ehdr)
{
	for (size_t i = 0; i < ARRAY_SIZE(all_arches); i++) {
		const struct arch *a = all_arches[i];

		if (a->machine == ehdr->e_machine && a->elfclass == ehdr->e_ident[EI_CLASS] &&
		    (!a->match || a->match(ehdr)))
			return a;
	}
	return NULL;
}

const struct arch *arch_for_runtime(uint16_t machine, uint8_t elfclass, uint8_t data)
{
	static const struct runtime_machine {
		uint16_t machine;
		uint8_t elfclass, data;
		const char *port;
		const struct arch *arch;
	} machines[] = {
#define MACHINE(name, prefix, clang, kflags, port, qemu, em, class, data, desc) \
		{ em, class, data, #port, &arch_##desc },
#include "arch/machines.h"
#undef MACHINE
	};

	for (size_t i = 0; i < ARRAY_SIZE(machines); i++)
		if (machines[i].machine == machine && machines[i].elfclass == elfclass && machines[i].data == data &&
		    strcmp(machines[i].port, "-"))
			return machines[i].arch;
	return NULL;
}

unsigned arch_abs_width(const struct arch *arch, uint32_t type, bool is64)
{
	if (type == arch->reloc_abs)
		return is64 ? 8 : 4;
	if (type == arch->reloc_abs32)
		return 4;
	for (size_t i = 0; i < arch->nmore_abs; i++)
		if (arch->more_abs[i].type == type)
			return arch->more_abs[i].width;
	return 0;
}

size_t insn_len(const struct insn_pattern *p)
{
	size_t len = 0;

	for (unsigned i = 0; i < p->n; i++)
		len += p->u[i].width;
	return len;
}

uint32_t insn_load(const uint8_t *code, unsigned width, bool big_endian)
{
	uint32_t v = 0;

	for (unsigned i = 0; i < width; i++)
		v |= (uint32_t)code[big_endian ? i : width - 1 - i] << (8 * (width - 1 - i));
	return v;
}

void insn_store(uint8_t *code, unsigned width, uint32_t v, bool big_endian)
{
	for (unsigned i = 0; i < width; i++)
		code[big_endian ? width - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

bool insn_matches(const struct insn_pattern *p, const uint8_t *code, size_t avail, bool big_endian)
{
	size_t used = 0;

	for (unsigned i = 0; i < p->n; i++) {
		const struct insn_unit *u = &p->u[i];
		/* Bytes need no byte-order work: the common x86 patterns are all bytes. */
		uint32_t v;

		if (used + u->width > avail)
			return false;
		v = u->width == 1 ? code[used] : insn_load(code + used, u->width, big_endian);
		if ((v & u->mask) != u->value)
			return false;
		used += u->width;
	}
	return true;
}

void insn_write(const struct insn_pattern *p, uint8_t *code, bool big_endian)
{
	for (unsigned i = 0; i < p->n; i++) {
		insn_store(code, p->u[i].width, p->u[i].value, big_endian);
		code += p->u[i].width;
	}
}

int64_t insn_sext(uint64_t v, unsigned bits)
{
	unsigned shift = 64 - bits;

	return bits >= 64 ? (int64_t)v : (int64_t)(v << shift) >> shift;
}

size_t arch_recorded_prefix_len(const struct arch *a, const uint8_t *code, size_t avail, bool big_endian)
{
	return a->recorded_prefix && insn_matches(a->recorded_prefix, code, avail, big_endian) ?
	       insn_len(a->recorded_prefix) : 0;
}

size_t arch_landing_pad_len(const struct arch *a, const uint8_t *code, size_t avail, bool big_endian)
{
	for (size_t i = 0; i < a->nlanding_pads; i++)
		if (insn_matches(&a->landing_pads[i], code, avail, big_endian))
			return insn_len(&a->landing_pads[i]);
	return 0;
}
