/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef ARCH_ARM_RT_ARM_FRAME_H
#define ARCH_ARM_RT_ARM_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * How many bytes the prologue of gcc's that runs from `func` up to `end`
 * (the `push {lr}` before its hook call) pushed and reserved; false when
 * it holds anything else than such pushes and reservations, or does not
 * end exactly there.
 */
bool arm_prologue_size(uintptr_t func, uintptr_t end, bool thumb, uint32_t *size);

#endif
