/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The event words the runtime records (objpatch/lib/rt_record.c) and the
 * trace writer reads (trace/writer.c), in its buffers or from a recording.
 */
#ifndef TRACE_EVENT_H
#define TRACE_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "arch/port.h"
#include "tables/sig.h"

/*
 * EV_LOST is never recorded: trace/filter.c gives it to its readers when
 * frames it keeps lost their exits (the buffers were full) and the event
 * that says so is not shown: the frames at its depth and deeper close at
 * its time, as "lost".  A header alone.
 */
enum ev_type { EV_ENTRY = 1, EV_EXIT, EV_UNWOUND, EV_LOST, EV_ARGS };

/*
 * EV_ARGS (objpatch --args) follows its entry right away, at the entry's
 * depth: the pieces of the places trace_arg_places() gives the function's
 * signature, each piece's bytes as an integer, in the words
 * trace_arg_pack() says.  Its capture field holds these flags.
 */
#define ARGS_UNPLACED	0x01	/* the site's places were not known: no words, every argument "?" */
#define ARGS_PACKED	0x08	/* the words as trace_arg_pack() says (always, since it exists) */
/* ARGS_NO_STACK, ARGS_NO_REGS (arch/abi_args.h): those pieces' words are 0, their arguments print "?" */

/*
 * Events are runs of 64-bit words: {timestamp, word}.  An entry's word is
 * the hook's return address (which names the site; user-space code lies
 * below 2^48) | depth << 48 | 1 << 63.  Any other event's word is a header,
 * bit 63 clear: type | depth << 8 | capture << 32 | nwords << 48, and an
 * exit's header is followed by the words exit_words_from_regs() chose
 * (trace/exit_words.c; ev_capture_words() of them) and, for CAPTURE_STRING, the characters,
 * for CAPTURE_MEMORY the struct's bytes.
 */
#define EV_HEADER_WORDS 2
#define EV_ENTRY_WORDS 2
#define EV_ENTRY_BIT	(1ull << 63)
#define EV_RA_MASK	((1ull << 48) - 1)
#define EV_DEPTH_MAX	0x7fff		/* an entry's depth field */
#define STRING_WORDS 16	/* captured characters: up to 127 and a length byte */
#define EV_MAX_WORDS (EV_HEADER_WORDS + CAPTURE_MAX_WORDS + STRING_WORDS)
_Static_assert(EV_HEADER_WORDS + 1 + (1 + SIG_MEMBERS_MAX_SIZE + 7) / 8 <= EV_MAX_WORDS,
	       "an exit holds the largest struct a table describes");
#define ARGS_MAX_PIECES 24	/* words an EV_ARGS event holds at most */
#define EV_ARGS_MAX_WORDS (EV_HEADER_WORDS + ARGS_MAX_PIECES)
#define EV_HEADER(type, depth, capture, words) \
	((uint64_t)(type) | (uint64_t)(depth) << 8 | (uint64_t)(capture) << 32 | (uint64_t)(words) << 48)
#define EV_ENTRY_WORD(ra, depth) (((uint64_t)(ra) & EV_RA_MASK) | (uint64_t)(depth) << 48 | EV_ENTRY_BIT)

static inline unsigned ev_type(uint64_t w)
{
	return w & EV_ENTRY_BIT ? EV_ENTRY : (unsigned)(w & 0xff);
}

static inline unsigned ev_depth(uint64_t w)
{
	return w & EV_ENTRY_BIT ? (unsigned)((w >> 48) & EV_DEPTH_MAX) : (unsigned)((w >> 8) & 0xffffff);
}

static inline unsigned ev_words(uint64_t w)
{
	return w & EV_ENTRY_BIT ? EV_ENTRY_WORDS : (unsigned)((w >> 48) & 0x7fff);
}

static inline enum capture ev_capture(uint64_t w)
{
	return w & EV_ENTRY_BIT ? CAPTURE_GPR : (enum capture)((w >> 32) & 0xff);
}

static inline uint64_t ev_ra(uint64_t w)
{
	return w & EV_RA_MASK;
}

/* Whether bytes follow the registers (a length byte, then the bytes): a string's, a struct's. */
static inline bool ev_capture_has_bytes(enum capture c)
{
	return c == CAPTURE_STRING || c == CAPTURE_MEMORY;
}

/* How many words of an exit event after its header keep the registers `c` needs. */
static inline size_t ev_capture_words(enum capture c)
{
	static const uint8_t words[CAPTURES] = {
		[CAPTURE_GPR] = 1, [CAPTURE_NONE] = 0, [CAPTURE_FP] = 1, [CAPTURE_WIDE_FP] = 2,
		[CAPTURE_STRING] = 1, [CAPTURE_ALL] = 4, [CAPTURE_MEMORY] = 1,
	};

	return (unsigned)c < CAPTURES ? words[c] : 0;
}

#endif
