/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef ARCH_X86_ARGS_X86_H
#define ARCH_X86_ARGS_X86_H

#include "arch/abi_args.h"

arg_placer arg_place_x86_64, arg_place_i386;
arg_ret_by_address arg_ret_by_address_x86_64;

#endif
