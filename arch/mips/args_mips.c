// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Where the MIPS ABIs pass arguments.
 *
 * n64: eight 8-byte argument slots in registers, then 8-byte stack slots
 * from the caller's stack pointer.  The i-th slot is $a(i) for an integer
 * or pointer and $f(12+i) for a float or double (a float in the
 * register's low 4 bytes): one slot counter for both, so an FP argument
 * leaves its integer register unused and the other way round.  A 32-bit
 * integer is sign-extended in its register (unsigned too), which reading
 * its low 4 bytes does not need.  An aggregate takes as many slots as its
 * size needs (doubles in it may go in FP registers: not captured), and a
 * 16-byte-aligned value (long double, __int128, or an aggregate holding
 * one) starts at an even slot.  In a stack slot a float takes the first 4
 * bytes in either byte order, a narrower integer the last ones on
 * big-endian (mips64).
 *
 * o32: the arguments are laid out as a structure of 4-byte words, each
 * value aligned to its size (8 at most); the first 16 bytes of it go in
 * $a0-$a3 (an 8-byte value in an even pair, low word first on
 * little-endian, high word first on big-endian), the rest on the stack at the same offset from the
 * caller's stack pointer (the first 16 bytes there are home space for the
 * registers).  A float or double among the first two arguments goes in
 * $f12 or $f14 instead, as long as no argument before it was an integer
 * or aggregate; its words are skipped in $a0-$a3.  long double is double.
 */
#include "arch/abi_args.h"
#include "arch/mips/args_mips.h"

static const struct arg_abi n64_le = { .gprs = 8, .fprs = 8, .word = 8 };
static const struct arg_abi n64_be = { .gprs = 8, .fprs = 8, .word = 8, .big_endian = true };
static const struct arg_abi o32_le = { .gprs = 4, .fprs = 2, .word = 4 };
static const struct arg_abi o32_be = { .gprs = 4, .fprs = 2, .word = 4, .big_endian = true };

/*
 * An aggregate's alignment from its fields; 0 when they are not listed,
 * unless it is smaller than 8 bytes: then no placing rule can tell it from
 * 4-byte alignment.
 */
static uint32_t aggregate_align(const struct arg_type *t)
{
	uint32_t align = 1;

	if (t->size && t->size < 8 && (!t->fields || !t->nfields))
		return 4;
	if (!t->fields || !t->nfields || !t->size)
		return 0;
	for (size_t i = 0; i < t->nfields; i++)
		if (t->fields[i].size > align)
			align = t->fields[i].size;
	return align;
}

/*
 * How many 8-byte slots a parameter takes, and its alignment in slots: 1,
 * 2 (an even one), or 0 when it is not known (an aggregate of more than 8
 * bytes whose fields are not listed); false: not placeable.
 */
static bool n64_slots(const struct arg_type *t, unsigned *n, unsigned *align)
{
	uint32_t bytes = t->kind == ARG_AGGREGATE ? aggregate_align(t) : t->size;

	if (t->kind == ARG_UNKNOWN || !t->size)
		return false;
	*n = (t->size + 7) / 8;
	*align = t->size <= 8 ? 1 : !bytes ? 0 : bytes >= 16 ? 2 : 1;
	return true;
}

/*
 * A scalar of one slot: its register of that class, or its stack slot.  A
 * narrow value lies at the slot's start on little-endian; on big-endian an
 * integer lies at its end (padded downward) but a float at its start
 * (padded upward, as gcc's mips_pad_arg_upward() has it for n64).
 */
static void n64_scalar(struct arg_cursor *c, unsigned slot, const struct arg_type *t, struct arg_place *o)
{
	bool be = c->abi->big_endian;

	if (slot >= 8) {
		c->stack = (slot - 8) * 8;
		arg_take_stack(c, t->size, 8, o);
		if (be && t->kind == ARG_FLOAT && o->npieces == 1)
			o->piece[0].at -= (uint16_t)(8 - t->size);
		return;
	}
	if (t->kind == ARG_FLOAT) {
		c->fpr = slot;
		arg_take_fpr(c, t->size, (uint8_t)(be ? 8 - t->size : 0), o);
	} else {
		c->gpr = slot;
		arg_take_gprs(c, t->size, false, o);
	}
}

void arg_place_mips_n64(const struct arg_type *p, size_t n, bool big_endian, struct arg_place *out)
{
	struct arg_cursor c = { .abi = big_endian ? &n64_be : &n64_le };
	unsigned slot = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned take, align;

		out[i] = (struct arg_place){ 0 };
		if (c.lost || !n64_slots(&p[i], &take, &align) || (!align && (slot & 1))) {
			/* Unplaceable, or at an odd slot it may or may not skip. */
			arg_lose(&c);
			continue;
		}
		slot += align == 2 && (slot & 1);
		/* Scalars of up to 8 bytes are captured; long double, __int128 and aggregates print "?". */
		if (take == 1 && p[i].kind != ARG_AGGREGATE)
			n64_scalar(&c, slot, &p[i], &out[i]);
		slot += take;
	}
}

/* o32: a value's alignment in the argument structure; 0: not known. */
static uint32_t o32_align(const struct arg_type *t)
{
	uint32_t align = t->kind == ARG_AGGREGATE ? aggregate_align(t) : t->size;

	if (t->kind == ARG_UNKNOWN || !t->size || !align)
		return 0;
	return align < 4 ? 4 : align > 8 ? 8 : align;
}

/* A scalar at byte `off` of the argument structure, not in an FP register. */
static void o32_scalar(struct arg_cursor *c, uint32_t off, const struct arg_type *t, struct arg_place *o)
{
	if (off < 16) {
		c->gpr = off / 4;
		arg_take_gprs(c, t->size, true, o);
		return;
	}
	c->stack = off;
	arg_take_stack(c, t->size, t->size > 4 ? 8 : 4, o);
}

void arg_place_mips_o32(const struct arg_type *p, size_t n, bool big_endian, struct arg_place *out)
{
	struct arg_cursor c = { .abi = big_endian ? &o32_be : &o32_le };
	uint32_t off = 0;
	bool fp_first = true;	/* every argument so far went in an FP register */

	for (size_t i = 0; i < n; i++) {
		uint32_t align = o32_align(&p[i]);

		out[i] = (struct arg_place){ 0 };
		if (c.lost || !align) {
			arg_lose(&c);
			continue;
		}
		off = (off + align - 1) & ~(align - 1);
		if (p[i].kind == ARG_FLOAT && p[i].size <= 8 && fp_first && i < 2) {
			c.fpr = (unsigned)i;
			arg_take_fpr(&c, p[i].size, (uint8_t)(big_endian ? 8 - p[i].size : 0), &out[i]);
		} else {
			fp_first = false;
			if (p[i].kind != ARG_AGGREGATE && p[i].size <= 8)
				o32_scalar(&c, off, &p[i], &out[i]);
		}
		off += (p[i].size + 3) & ~3u;
	}
}


/* n64: an aggregate over 16 bytes comes back in memory, its address passed in $a0. */
int arg_ret_by_address_mips_n64(const struct arg_type *ret)
{
	switch (ret->kind) {
	case ARG_INT:
	case ARG_FLOAT:
		return 0;
	case ARG_AGGREGATE:
		return ret->size > 16;
	default:
		return -1;
	}
}
