/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A traced function's arguments: where its signature's parameters are on
 * the recording machine (arch/args.h, by its descriptor's placer), which
 * words an entry's argument event holds for them, and their text.
 */
#ifndef TRACE_ARGS_H
#define TRACE_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "arch/arch.h"
#include "tables/sig.h"

/* Parameters shown per call; later ones print as "...". */
#define TRACE_MAX_ARGS 12

/*
 * The places of the first min(nparams, TRACE_MAX_ARGS) parameters of
 * `sig` on machine `a`; returns how many it placed.  Every place is empty
 * (printed "?") when the signature is not reliable (a clone's) or the
 * machine's ABI is not known.
 */
size_t trace_arg_places(const struct arch *a, const struct signature *sig, struct arg_place *out);

/* How many words an argument event holds for these places: one per piece. */
size_t trace_arg_words(const struct arg_place *p, size_t n);

#endif
