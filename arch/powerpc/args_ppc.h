/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef ARCH_POWERPC_ARGS_PPC_H
#define ARCH_POWERPC_ARGS_PPC_H

#include "arch/abi_args.h"

arg_placer arg_place_ppc;

#endif
