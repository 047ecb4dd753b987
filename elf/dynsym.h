/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A linked file's dynamic symbols: what another process resolves in it
 * (objpatch attach finds dlopen and environ in a running program's libc).
 */
#ifndef ELF_DYNSYM_H
#define ELF_DYNSYM_H

#include <stdbool.h>
#include "elf/elfobj.h"

/*
 * The definition of `name` in obj's .dynsym: the default version's when
 * several versions define it (dlopen@@GLIBC_2.34 over dlopen@GLIBC_2.2.5),
 * as the dynamic linker binds an unversioned reference.  False when the
 * file defines no such symbol.
 */
bool dynsym_lookup(struct elfobj *obj, const char *name, GElf_Sym *out);

/* Whether obj's .dynsym has an undefined reference to `name`: a symbol another module provides. */
bool dynsym_imports(struct elfobj *obj, const char *name);

/*
 * The address the first loadable segment gives the file's offset 0: the
 * process maps that offset there plus the load bias.
 */
bool dynsym_first_load(struct elfobj *obj, uint64_t *vaddr);

#endif
