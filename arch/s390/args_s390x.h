/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef ARCH_S390_ARGS_S390X_H
#define ARCH_S390_ARGS_S390X_H

#include "arch/abi_args.h"

arg_placer arg_place_s390x;
arg_ret_by_address arg_ret_by_address_s390x;

#endif
