/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Return values as text, by the return type of a function's signature
 * (tables/sig.h).  Shared by the tracing runtime and the CLI, so the
 * formatting path allocates nothing, never dereferences target memory itself
 * (strings go through a callback) and writes into the caller's buffer.
 */
#ifndef TRACE_FORMAT_H
#define TRACE_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "tables/sig.h"

/* What the runtime captured at a function's return. */
struct raw_value {
	/*
	 * The integer return registers in ABI order (rax, rdx; eax, edx;
	 * x0, x1; r3, r4; ...), each zero-extended to 64 bits.  A value twice
	 * the register width spans both, in the target's memory order: on
	 * i386 gpr[0] holds the low half, on 32-bit PowerPC or MIPS the high.
	 */
	uint64_t gpr[2];
	/*
	 * A floating-point return value in its type's own format (binary32,
	 * binary64, long double: x87's 10 bytes, binary128 ...) in the
	 * target's byte order, from fpr[0].  Putting it there is the capturing
	 * side's job: it may come from one FP register (xmm0, v0, st(0)), a
	 * pair, or integer registers on soft-float ABIs.
	 */
	uint8_t fpr[16];
	bool have_fpr;		/* false: FP types print as raw gpr[0] with '?' */
	/* The second FP register's first 8 bytes (structs with floats: xmm1, v1), as fpr. */
	uint8_t fpr1[8];
	/*
	 * A struct returned in memory (CAPTURE_MEMORY): gpr[0] is its address,
	 * and the format_opts' read_mem reads its bytes as they were copied at
	 * the return.
	 */
	bool in_memory;
};

/*
 * The target's return conventions: a machine's (arch.h's values), for the
 * runtime its own, for a tool the machine whose trace it reads.
 */
struct format_target {
	uint8_t reg_bytes;	/* 4 or 8 */
	bool big_endian;
	/* Structs and unions up to this size come back in gpr[]; 0: all in memory. */
	uint8_t struct_regs;
	bool char_unsigned;	/* plain char (ARM, AArch64, PowerPC, s390, RISC-V) */
	/* 12- and 16-byte floats are this host's long double (else printed raw). */
	bool ldbl_host;
	/*
	 * Negative int/long results -1..-errno_max get the Linux errno name:
	 * 133 where the generic numbering holds, 34 on MIPS, SPARC, Alpha and
	 * PA-RISC (their numbers differ above), 0 for none.
	 */
	uint16_t errno_max;
	uint8_t struct_fp;	/* enum struct_fp (arch/arch.h): where a struct's floats come back */
};

struct arch;

/*
 * The conventions of the machine `a` describes, in the given byte order.
 * Its long double is never read as the host's (ldbl_host false).
 */
void format_target_for_arch(const struct arch *a, bool big_endian, struct format_target *out);
/*
 * This machine's, long double included, from the program's own ELF header
 * (the guest's under qemu-user); NULL where no descriptor describes it.
 */
const struct format_target *format_target_native(void);

/*
 * Reads `n` bytes of target memory at `addr` without faulting; returns how
 * many it read (fewer than `n` when the rest is unreadable).
 */
typedef size_t (*read_mem_fn)(void *ctx, uint64_t addr, void *buf, size_t n);

#define FORMAT_MAX_STRING 64

struct format_opts {
	bool hex;			/* integers in hex (two's complement of the type's width) */
	size_t max_string;		/* characters shown; 0: FORMAT_MAX_STRING */
	read_mem_fn read_mem;		/* NULL: every string is unreadable */
	void *ctx;
	const struct format_target *target;	/* NULL: format_target_native() */
	/*
	 * Negative int/long results in the target's errno range get their
	 * name, "ret=-22 (EINVAL)": the kernel's convention, so annotate sets
	 * it; user programs return -1 and set errno, where a name misleads
	 * (objpatch --errno-names, OBJPATCH_ERRNO_NAMES=1 ask for it).
	 */
	bool errno_names;
};

/*
 * The length of the valid UTF-8 sequence (shortest form, no surrogates, at
 * most U+10FFFF) that starts `s`, of which `n` bytes are there: 1..4; 0 if
 * it is not one; -1 if its first `n` bytes begin one and more are needed.
 * Text traces print such sequences as they are, JSON keeps them.
 */
int utf8_len(const unsigned char *s, size_t n);

/*
 * A buffer this large holds any result for strings cut at `max_string`,
 * except that an enumerator's name adds its own length, and a struct's
 * members their names' and values' (a longer text is cut, like snprintf).
 */
#define FORMAT_RET_SIZE(max_string) (4 * (size_t)(max_string) + 80)

/*
 * "ret=VALUE" for the return type of `sig` (NULL: no signature known), or ""
 * for void.  Like snprintf: writes at most `len` bytes including the NUL and
 * returns the length the whole text needs.  `o` may be NULL for defaults.
 */
size_t format_return(char *buf, size_t len, const struct signature *sig,
		     const struct raw_value *v, const struct format_opts *o);

/*
 * format_return() of the commonest exit, a value in one integer register
 * only (the event's CAPTURE_GPR word: `v` would hold it in gpr[0] and
 * nothing else), when it is an integer, pointer or bool shown without
 * errno names: the same text, without a raw_value filled and examined,
 * since a trace is mostly these.  0: another value, or `len` below 27
 * (call format_return(); `buf` may have been written).  `op` is not NULL.
 */
size_t format_return_word(char *buf, size_t len, const struct signature *sig, uint64_t gpr0,
			  const struct format_opts *op);

/*
 * A value of type `t` by the same rules, without "ret=": the raw register
 * in hex and '?' when the type cannot be shown (an argument's, objpatch
 * --args).  Like snprintf.
 */
size_t format_value(char *buf, size_t len, const struct sig_type *t, const struct raw_value *v,
		    const struct format_opts *o);

/* A return value by kind, for outputs that type their values (Perfetto's debug annotations). */
enum value_kind {
	VALUE_VOID,	/* the function returns void */
	VALUE_INT,	/* .i */
	VALUE_UINT,	/* .u */
	VALUE_BOOL,	/* .u: 0 or 1 */
	VALUE_POINTER,	/* .u: an address, 0 for NULL */
	VALUE_DOUBLE,	/* .d: a float or a double */
	VALUE_NAME,	/* .name: an enumerator's */
	VALUE_TEXT,	/* any other: format_return()'s text, after "ret=", is the value */
};

struct typed_value {
	enum value_kind kind;
	int64_t i;
	uint64_t u;
	double d;
	const char *name;	/* VALUE_NAME: in the signature */
	const char *errno_name;	/* VALUE_INT with errno_names: the name format_return() shows, or NULL */
};

/*
 * The value format_return() shows, as a number or a name where it shows
 * one (integers that fit 64 bits, bools, pointers, floats and doubles,
 * enumerators); chars, strings, structs, long doubles and values of
 * unknown type are VALUE_TEXT.  `o` may be NULL for defaults; its hex is
 * not used.
 */
void format_return_typed(const struct signature *sig, const struct raw_value *v, const struct format_opts *o,
			 struct typed_value *out);

#endif
