/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef ARCH_ARM_ARGS_ARM_H
#define ARCH_ARM_ARGS_ARM_H

#include "arch/abi_args.h"

/* AAPCS with the VFP variant (armhf), and the base standard variadic functions use. */
arg_placer arg_place_arm;
arg_placer arg_place_arm_variadic;
arg_ret_by_address arg_ret_by_address_arm;

#endif
