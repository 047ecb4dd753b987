/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Where a C function's arguments are when it is entered, by its ABI: each
 * architecture's descriptor places a list of parameter types (its
 * place_args).  The runtime copies what the places name into an entry's
 * event, and a reader places the same signature again to know which of
 * the event's words belong to which parameter, so the two always agree.
 */
#ifndef ARCH_ABI_ARGS_H
#define ARCH_ABI_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What placing needs of a parameter's type. */
enum arg_kind {
	ARG_INT,	/* integers, enums, bools, chars, pointers */
	ARG_FLOAT,	/* float, double, long double */
	ARG_AGGREGATE,	/* a struct or union passed by value */
	ARG_UNKNOWN,	/* no type: nothing after it can be placed either */
};

/* A scalar member of an aggregate, flattened (its offset and size in bytes). */
struct arg_field {
	uint32_t offset;
	uint8_t size;
	bool is_float;
};

struct arg_type {
	enum arg_kind kind;
	uint32_t size;
	const struct arg_field *fields;	/* aggregates: NULL when the table does not list them */
	size_t nfields;
	bool is_union;	/* an aggregate that is a union (RISC-V never flattens one into FP registers) */
};

enum arg_area {
	ARG_AREA_GPR,	/* an integer argument register, by its number among them */
	ARG_AREA_FPR,	/* a floating-point one (ARM: single-precision slot s0, s1, ...) */
	ARG_AREA_STACK,	/* `at` bytes into the caller's outgoing argument area */
};

/*
 * One machine word's worth of a value: `size` bytes, from byte `sub` of a
 * register as the entry trampoline saved it (FP registers: their first 8
 * bytes in memory) or from the stack.  The runtime records each piece as a
 * 64-bit word holding those bytes read as an integer of that size.
 */
struct arg_piece {
	uint8_t area;		/* enum arg_area */
	uint8_t size;		/* 1, 2, 4 or 8 */
	uint8_t sub;		/* registers: the first byte's offset */
	uint16_t at;		/* register number, or stack offset */
};

#define ARG_MAX_PIECES 2

/* What a hook may not see as the call left it (a port's, per site kind; an EV_ARGS event's flags). */
#define ARGS_NO_STACK	0x02	/* the caller's stack arguments */
#define ARGS_NO_REGS	0x04	/* the argument registers */

/*
 * Where one parameter is: its pieces, least significant first (a 64-bit
 * integer in two 32-bit registers).  npieces 0: not captured, printed as
 * "?" (a struct, long double or __int128 passed by value, or anything after
 * a parameter whose place depends on what the table does not say).
 */
struct arg_place {
	struct arg_piece piece[ARG_MAX_PIECES];
	uint8_t npieces;
};

/*
 * The places of the first n parameters of a function (its named ones, for
 * varargs), as an ABI puts them at the function's first instruction, on a
 * machine of that byte order.
 */
typedef void arg_placer(const struct arg_type *params, size_t n, bool big_endian, struct arg_place *out);

/*
 * Placing, one parameter after another, for the placers in each arch's
 * home: what registers and stack an ABI has, and how much is taken.
 */
struct arg_abi {
	uint8_t gprs, fprs;	/* argument registers of each kind */
	uint8_t word;		/* bytes per GPR and per stack slot */
	bool big_endian;	/* a value narrower than its slot lies at the slot's end */
};

struct arg_cursor {
	const struct arg_abi *abi;
	unsigned gpr, fpr;	/* the next free ones */
	uint32_t stack;		/* the next free stack byte */
	bool lost;		/* a parameter's place was not known: none after it is */
	bool stack_lost;	/* where the stack's next free byte is was not known: no later stack place is */
};

/*
 * Each takes room for a value of `size` bytes and, when `out` is not NULL,
 * describes it there; false when that kind of room is used up (the
 * registers), and nothing is taken then.
 */
bool arg_take_gprs(struct arg_cursor *c, uint32_t size, bool even_pair, struct arg_place *out);
bool arg_take_fpr(struct arg_cursor *c, uint32_t size, uint8_t sub, struct arg_place *out);
void arg_take_stack(struct arg_cursor *c, uint32_t size, uint32_t align, struct arg_place *out);
/* Nothing can be placed from here on. */
void arg_lose(struct arg_cursor *c);
/* Nothing on the stack can be placed from here on (registers still can). */
void arg_lose_stack(struct arg_cursor *c);

/* Whether every field of an aggregate is a float of one size (counted in *n): AArch64's and ARM's HFAs. */
bool arg_homogeneous_float(const struct arg_type *t, unsigned max, unsigned *n, uint8_t *size);

/*
 * Whether a function returning a value of type `ret` (not void) is passed
 * the address to return it at as a hidden parameter before its first one:
 * 1 or 0; -1 when its type does not say, and no parameter is placed.
 */
typedef int arg_ret_by_address(const struct arg_type *ret);
/*
 * For the ABIs that return every struct and union in memory whose address
 * the caller passes (i386, MIPS o32, 32-bit PowerPC, ppc64 ELFv1): 1 for an
 * aggregate, 0 for a scalar, -1 for a type that does not say.
 */
arg_ret_by_address arg_ret_aggregates_by_address;

/*
 * Describes FP register n (a single-precision slot on ARM), which the
 * placer chose itself (ARM's back-filling); the cursor's fpr is neither
 * used nor moved.
 */
void arg_fpr_at(const struct arg_cursor *c, unsigned n, uint32_t size, uint8_t sub, struct arg_place *out);

#endif
