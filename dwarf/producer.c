// SPDX-License-Identifier: GPL-2.0-only
#include <dwarf.h>
#include <string.h>
#include "dwarf/debugimage.h"
#include "dwarf/producer.h"

/* The next place, from `from` on, where a word of the producer string starts with `opt`: what follows it, or NULL. */
static const char *next_option(const char *producer, const char *from, const char *opt)
{
	size_t len = strlen(opt);

	for (const char *p = from; p && (p = strstr(p, opt)); p += len)
		if (p == producer || p[-1] == ' ')
			return p + len;
	return NULL;
}

/* `opt` as a word of the producer string: what follows its first occurrence, or NULL. */
static const char *option_value(const char *producer, const char *opt)
{
	return next_option(producer, producer, opt);
}

int producer_debug_level(const char *producer)
{
	int level = 2;

	/* Each -g option sets the level again: the last one counts, as for gcc. */
	for (const char *v = next_option(producer, producer, "-g"); v; v = next_option(producer, v, "-g")) {
		size_t n = strcspn(v, " ");

		if (n >= 3 && !strncmp(v, "gdb", 3)) {
			v += 3;
			n -= 3;
		}
		if (n == 0)
			level = 2;
		else if (n == 1 && *v >= '0' && *v <= '3')
			level = *v - '0';
	}
	return level;
}

static int option_in(Dwarf *dw, const char *opt, char *val, size_t size)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	uint8_t unit_type;
	int found = 0;

	while (dwarf_get_units(dw, cu, &cu, NULL, &unit_type, &cudie, NULL) == 0) {
		Dwarf_Attribute a;
		const char *v = option_value(dwarf_formstring(dwarf_attr(&cudie, DW_AT_producer, &a)), opt);
		size_t n;

		if (!v)
			continue;
		n = strcspn(v, " ");
		if (n >= size)
			return 0;
		if (found && (strncmp(val, v, n) != 0 || val[n]))
			return 0;	/* units built with different values */
		memcpy(val, v, n);
		val[n] = 0;
		found = 1;
	}
	return found;
}

int producer_option(struct elfobj *obj, const char *opt, char *val, size_t size)
{
	struct debug_image img;
	Dwarf *dw;
	int rc;

	/* An object's string offsets are relocations: read it through its relocated image. */
	if (obj->ehdr.e_type == ET_REL) {
		rc = debug_image_open(obj, &img);
		if (rc <= 0)
			return rc;
		rc = option_in(img.dwarf, opt, val, size);
		debug_image_close(&img);
		return rc;
	}
	dw = dwarf_begin_elf(obj->elf, DWARF_C_READ, NULL);
	if (!dw)
		return 0;
	rc = option_in(dw, opt, val, size);
	dwarf_end(dw);
	return rc;
}
