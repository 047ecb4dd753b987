/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef ARCH_MIPS_ARGS_MIPS_H
#define ARCH_MIPS_ARGS_MIPS_H

#include "arch/abi_args.h"

arg_placer arg_place_mips_o32;
arg_placer arg_place_mips_n64;
arg_ret_by_address arg_ret_by_address_mips_n64;

#endif
