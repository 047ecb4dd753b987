/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef ARCH_SPARC_ARGS_SPARC64_H
#define ARCH_SPARC_ARGS_SPARC64_H

#include "arch/abi_args.h"

arg_placer arg_place_sparc64;
arg_ret_by_address arg_ret_by_address_sparc64;

#endif
