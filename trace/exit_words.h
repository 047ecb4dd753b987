/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* An exit event's words: written from the registers, read back as a value (trace/exit_words.c). */
#ifndef TRACE_EXIT_WORDS_H
#define TRACE_EXIT_WORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "arch/port.h"
#include "trace/machine.h"

/*
 * The words an exit event keeps of the registers for `c` (ev_capture_words()
 * of them); wide_in_fpr0: the port's wide FP value is its first FP register
 * (the descriptor's values.wide_in_fpr0).  Returns how many.
 */
size_t exit_words_from_regs(const struct ret_regs *r, enum capture c, bool wide_in_fpr0, uint64_t *w);

/*
 * A function's return value from the words an exit event keeps for
 * `capture` (in the reader's byte order), as format_return() reads it:
 * `ret` is the function's return type (TC_UNKNOWN when not known).
 */
void trace_value(const struct trace_machine *m, const uint64_t *w, enum capture c, const struct sig_type *ret,
		 struct raw_value *v);

/* The characters an exit event captured for a string, where format_opts' read_mem finds them. */
struct trace_captured {
	uint64_t addr;		/* the string's address in the traced process */
	const uint8_t *bytes;
	size_t n;
};

/* A read_mem_fn over a struct trace_captured: the captured bytes, nothing else. */
size_t trace_read_captured(void *ctx, uint64_t addr, void *buf, size_t n);

/*
 * The value of the exit event `ev` (its header word, then its words) for
 * return type `ret` (NULL: not known), and in *cap its captured string's
 * characters, if it has them.
 */
void trace_exit_value(const struct trace_machine *m, const uint64_t *ev, const struct sig_type *ret,
		      struct raw_value *v, struct trace_captured *cap);

#endif
