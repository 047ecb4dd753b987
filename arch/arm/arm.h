/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The recorder's ARM descriptor (arm.c) as the runtime port (rt_arm.c)
 * reads it: its call forms by name, so the port's reading of a site
 * follows the table whatever its order.
 */
#ifndef ARCH_ARM_ARM_H
#define ARCH_ARM_ARM_H

#include "arch/arch.h"

enum arm_call_form {
	ARM_FORM_BL,		/* `push {lr}; bl`, R_ARM_CALL */
	ARM_FORM_BL_PC24,	/* the same, R_ARM_PC24 (older assemblers) */
	ARM_FORM_THUMB_BL,	/* Thumb-2 `push {lr}; bl` */
	ARM_FORMS,
};

extern const struct arch arch_arm;

#endif
