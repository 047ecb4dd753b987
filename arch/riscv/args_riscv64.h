/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef ARCH_RISCV_ARGS_RISCV64_H
#define ARCH_RISCV_ARGS_RISCV64_H

#include "arch/abi_args.h"

arg_placer arg_place_riscv64;
arg_ret_by_address arg_ret_by_address_riscv64;

#endif
