/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef ARCH_ARM64_ARGS_ARM64_H
#define ARCH_ARM64_ARGS_ARM64_H

#include "arch/abi_args.h"

arg_placer arg_place_aarch64;

#endif
