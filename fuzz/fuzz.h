/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the libFuzzer harnesses share: inputs loaded the way the tools load
 * files (through a descriptor, copied or mapped), a scratch directory on
 * tmpfs for the atomic writes, and the checks libFuzzer does not make
 * itself (a descriptor or a temporary file left behind by an iteration).
 */
#ifndef FUZZ_FUZZ_H
#define FUZZ_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "elf/elfobj.h"

/* Byte of e_ident that no reader looks at (EI_PAD's last): harness options. */
#define FUZZ_OPTION_BYTE 15

int LLVMFuzzerInitialize(int *argc, char ***argv);

/* From LLVMFuzzerInitialize: libelf, the input descriptor, the scratch directory. */
void fuzz_init(void);

/*
 * Start of an iteration (counts the open descriptors for
 * fuzz_check_leftovers): returns the input's options byte, 0 when it is
 * shorter.
 */
unsigned fuzz_begin(const uint8_t *data, size_t size);

/*
 * Load `data` as elfobj_load (copy) or elfobj_load_mapped (mapping) load a
 * file: 0, or -1 with obj->err set.  elfobj_free() it in both cases.
 */
int fuzz_load(struct elfobj *obj, const uint8_t *data, size_t size, bool mapped);

/* `name` in the scratch directory; the string lives until the next call. */
const char *fuzz_scratch_path(const char *name);

/*
 * End of an iteration, after the harness removed its own files: abort when
 * a descriptor is open that was not open after fuzz_init, or when anything
 * (a temporary file of an atomic write) is left in the scratch directory.
 */
void fuzz_check_leftovers(void);

/* Write `data` to `path` (in the scratch directory), for code that reads files. */
void fuzz_write_file(const char *path, const uint8_t *data, size_t size);

/*
 * Silence standard output and standard error of code that prints to them
 * (true), and give them back (false).  Sanitizer reports always reach the
 * real standard error.
 */
void fuzz_mute(bool mute);

/* Abort with a message: the input broke an invariant the sanitizers cannot see. */
void fuzz_fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

/* An error message must be one line: the tools print it as `tool: FILE: reason`. */
void fuzz_check_error(const struct elfobj *obj);
/* A prototype table of the input's own, which the reader may well refuse: recordmcount adds none beside it. */
bool fuzz_has_proto_table(const struct elfobj *obj);

#endif
