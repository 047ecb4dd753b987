/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef ARCH_POWERPC_ARGS_PPC64LE_H
#define ARCH_POWERPC_ARGS_PPC64LE_H

#include "arch/abi_args.h"

arg_placer arg_place_ppc64le;
arg_ret_by_address arg_ret_by_address_ppc64le;
/* ELFv1 (ppc64, big-endian): the same save area, no homogeneous aggregates. */
arg_placer arg_place_ppc64;

#endif
