/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A traced function's arguments: where its signature's parameters are on
 * the recording machine (arch/abi_args.h, by its descriptor's placer), which
 * words an entry's argument event holds for them, and their text.
 */
#ifndef TRACE_ARG_TEXT_H
#define TRACE_ARG_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "arch/arch.h"
#include "tables/sig.h"
#include "trace/format.h"

/* Parameters shown per call; later ones print as "...". */
#define TRACE_MAX_ARGS 12

/*
 * The places of the first min(nparams, TRACE_MAX_ARGS) parameters of
 * `sig` on machine `a`; returns how many it placed.  Every place is empty
 * (printed "?") when the signature is not reliable (a clone's) or the
 * machine's ABI is not known.
 */
/*
 * What a placer (and ret_by_address) needs of a type; an aggregate's
 * members go to fields[*used] on, while TRACE_ARG_FIELDS last.
 */
#define TRACE_ARG_FIELDS 64
struct arg_type trace_arg_type(const struct sig_type *t, struct arg_field *fields, size_t *used);
size_t trace_arg_places(const struct arch *a, bool big_endian, const struct signature *sig, struct arg_place *out);

/* Where a piece's value is in an argument event: its word, and its bit offset there (0 or 32). */
struct arg_word_pos {
	uint8_t word, shift;
};

/*
 * How many words an argument event holds for these places, and where each
 * piece is (pos: one per piece, in order; NULL: only count).  Each piece
 * of at most 4 bytes takes the high half of the word the previous such
 * piece began, or else a new word's low half; an 8-byte piece takes a word
 * of its own: a function of ints records half as many words as pieces.
 */
size_t trace_arg_pack(const struct arg_place *p, size_t n, struct arg_word_pos *pos);

/*
 * Calls fn with each parameter's name ("" when the table has none), its
 * value's text by the rules of trace_args_text(), and its type and value as
 * format_value() read them (v NULL: not captured, the text is "?",
 * `type` is the one printed: a string without read_mem is a pointer);
 * returns -1 when the
 * parameters are not known (nothing is called), else 1 when more follow
 * than were shown (varargs, or beyond TRACE_MAX_ARGS), 0 when none do.
 */
typedef void trace_arg_fn(void *ctx, const char *name, const char *value, const struct sig_type *type,
			  const struct raw_value *v);
int trace_args_each(const struct arch *a, const struct signature *sig, const uint64_t *ev,
		    const struct format_opts *o, trace_arg_fn *fn, void *ctx);

/*
 * "x=3, s=\"abc\"" for the arguments the EV_ARGS event `ev` (its header,
 * then its words) holds, recorded on machine `a` (o->target: its byte
 * order and register width), of a function whose
 * signature is `sig` (NULL: not known, "?"); values by the rules of
 * format_value(), strings read through o->read_mem (none: their address).
 * A clone whose parameters differ from the source's prints "?".  Like
 * snprintf.
 */
size_t trace_args_text(char *buf, size_t len, const struct arch *a, const struct signature *sig,
		       const uint64_t *ev, const struct format_opts *o);

#endif
