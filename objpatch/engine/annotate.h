/* SPDX-License-Identifier: GPL-2.0-only */
/* objpatch annotate (objpatch/engine/annotate.c). */
#ifndef OBJPATCH_ENGINE_ANNOTATE_H
#define OBJPATCH_ENGINE_ANNOTATE_H

int annotate_main(int argc, char **argv);

#endif
