// SPDX-License-Identifier: GPL-2.0-only
/* Finding the tracing runtime to preload or inject: objpatch run, record and attach. */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "objpatch/engine/runtime_path.h"

/*
 * Where the runtime may be, in order: beside this binary (the build tree);
 * in LIBDIR as make install put it, first relative to this binary (a tree
 * moved as a whole), then where it was installed.  An installed host runtime
 * is the SONAME's file; another machine's is LIBDIR/objpatch/NAME/.
 * OBJPATCH_LIBDIR_REL, OBJPATCH_LIBDIR and OBJPATCH_SONAME come from the
 * header make writes from BINDIR and LIBDIR (Makefile, INSTALL_DIRS_H).
 */
struct runtime_place {
	const char *dir;	/* relative to this binary's directory, or absolute */
	bool installed;
};

static const struct runtime_place runtime_places[] = {
	{ "", false },
	{ OBJPATCH_LIBDIR_REL, true },
	{ OBJPATCH_LIBDIR, true },
};

/* The runtime's path at `p`; sub: "" or "NAME/". */
static bool runtime_at(char *out, size_t len, const char *self, const struct runtime_place *p, const char *sub)
{
	char dir[PATH_MAX];
	int n;

	if (p->dir[0] == '/')
		n = snprintf(dir, sizeof(dir), "%s", p->dir);
	else
		n = snprintf(dir, sizeof(dir), "%s%s%s", self, p->dir[0] ? "/" : "", p->dir);
	if (n < 0 || (size_t)n >= sizeof(dir))
		return false;
	if (!p->installed)
		n = snprintf(out, len, "%s/%slibobjpatch.so", dir, sub);
	else if (!sub[0])
		n = snprintf(out, len, "%s/%s", dir, OBJPATCH_SONAME);
	else
		n = snprintf(out, len, "%s/objpatch/%slibobjpatch.so", dir, sub);
	return n > 0 && (size_t)n < len && access(out, R_OK) == 0;
}

int find_runtime(char *out, size_t len, const char *sub)
{
	char self[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return -1;
	self[n] = 0;
	slash = strrchr(self, '/');
	if (!slash)
		return -1;
	*slash = 0;
	for (size_t i = 0; i < sizeof(runtime_places) / sizeof(runtime_places[0]); i++)
		if (runtime_at(out, len, self, &runtime_places[i], sub))
			return 0;
	return -1;
}

const char *runtime_install_dir(void)
{
	return OBJPATCH_LIBDIR;
}
