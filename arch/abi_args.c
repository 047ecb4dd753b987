// SPDX-License-Identifier: LGPL-2.1-or-later
/* The helpers every ABI's placer (arch/<family>/args_*.c) builds on. */
#include "arch/abi_args.h"

static void piece(struct arg_place *out, enum arg_area area, uint8_t size, uint8_t sub, uint16_t at)
{
	if (!out || out->npieces >= ARG_MAX_PIECES)
		return;
	out->piece[out->npieces++] = (struct arg_piece){ area, size, sub, at };
}

bool arg_take_gprs(struct arg_cursor *c, uint32_t size, bool even_pair, struct arg_place *out)
{
	unsigned word = c->abi->word, n = (size + word - 1) / word, first = c->gpr;

	if (n > ARG_MAX_PIECES || c->lost)
		return false;
	if (n == 2 && even_pair)
		first += first & 1;
	if (first + n > c->abi->gprs)
		return false;
	c->gpr = first + n;
	if (!out)
		return true;
	out->npieces = 0;
	/* A value narrower than the register: its low-order bytes, which are the register's value. */
	for (unsigned i = 0; i < n; i++) {
		/* Pairs: the lower-numbered register holds the low half, unless big-endian. */
		unsigned reg = c->abi->big_endian && n == 2 ? first + n - 1 - i : first + i;

		piece(out, ARG_AREA_GPR, (uint8_t)(size < word ? size : word), 0, (uint16_t)reg);
	}
	return true;
}

bool arg_take_fpr(struct arg_cursor *c, uint32_t size, uint8_t sub, struct arg_place *out)
{
	if (c->lost || c->fpr >= c->abi->fprs)
		return false;
	if (out) {
		out->npieces = 0;
		piece(out, ARG_AREA_FPR, (uint8_t)size, sub, (uint16_t)c->fpr);
	}
	c->fpr++;
	return true;
}

void arg_take_stack(struct arg_cursor *c, uint32_t size, uint32_t align, struct arg_place *out)
{
	unsigned word = c->abi->word;
	uint32_t at, room;

	if (align < word)
		align = word;
	at = (c->stack + align - 1) & ~(align - 1);
	room = (size + word - 1) / word * word;
	c->stack = at + room;
	if (!out || c->lost || c->stack_lost)
		return;
	out->npieces = 0;
	if (size > 8 || (size > word && ARG_MAX_PIECES * word < size))
		return;		/* not a scalar the event can hold */
	if (size <= word) {
		uint32_t lead = c->abi->big_endian ? room - size : 0;

		piece(out, ARG_AREA_STACK, (uint8_t)size, 0, (uint16_t)(at + lead));
		return;
	}
	/* Two words in memory: the first is the low half on little-endian machines. */
	for (unsigned i = 0; i < 2; i++) {
		unsigned w = c->abi->big_endian ? 1 - i : i;

		piece(out, ARG_AREA_STACK, (uint8_t)word, 0, (uint16_t)(at + w * word));
	}
}

void arg_lose(struct arg_cursor *c)
{
	c->lost = true;
}

void arg_lose_stack(struct arg_cursor *c)
{
	c->stack_lost = true;
}

bool arg_homogeneous_float(const struct arg_type *t, unsigned max, unsigned *n, uint8_t *size)
{
	if (t->kind != ARG_AGGREGATE || !t->fields || !t->nfields || t->nfields > max)
		return false;
	for (size_t i = 0; i < t->nfields; i++)
		if (!t->fields[i].is_float || t->fields[i].size != t->fields[0].size)
			return false;
	/* Padding or a member the list left out would make it something else. */
	if (t->nfields * t->fields[0].size != t->size)
		return false;
	*n = (unsigned)t->nfields;
	*size = t->fields[0].size;
	return true;
}

void arg_fpr_at(const struct arg_cursor *c, unsigned n, uint32_t size, uint8_t sub, struct arg_place *out)
{
	if (!out || c->lost)
		return;
	out->npieces = 0;
	piece(out, ARG_AREA_FPR, (uint8_t)size, sub, (uint16_t)n);
}

int arg_ret_aggregates_by_address(const struct arg_type *ret)
{
	switch (ret->kind) {
	case ARG_INT:
	case ARG_FLOAT:
		return 0;
	case ARG_AGGREGATE:
		return 1;
	default:
		return -1;
	}
}
