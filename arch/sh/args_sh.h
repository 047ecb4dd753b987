/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef ARCH_SH_ARGS_SH_H
#define ARCH_SH_ARGS_SH_H

#include "arch/abi_args.h"

arg_placer arg_place_sh;
arg_ret_by_address arg_ret_by_address_sh;

#endif
