// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The runtime's settings, read from the OBJPATCH_* variables at start-up
 * and checked there: a value the runtime cannot use stops the program
 * before main with one line naming the variable, its value and the valid
 * ones (status 2), since a trace taken with another setting than the one
 * asked for would mislead.  A variable objpatch does not know (a typo) is
 * named too, and the program runs.
 *
 * Loaded by objpatch attach, the runtime reads the settings objpatch put
 * in environ for the call that starts a session, which objpatch checked
 * before: a value it cannot use (a mismatched objpatch and runtime) is
 * the call's error, in runtime.err, and the process sees nothing.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "objpatch/lib/rt.h"
#include "util/array.h"

/* Every variable the runtime and its patcher (arch/patch.h) read. */
static const char *const known_vars[] = {
	"OBJPATCH_FILTER", "OBJPATCH_OUTPUT", "OBJPATCH_FORMAT", "OBJPATCH_HEX", "OBJPATCH_DEPTH",
	"OBJPATCH_STRLEN", "OBJPATCH_BUFFER_MB", "OBJPATCH_STATS", "OBJPATCH_PATCH_WRITE",
	"OBJPATCH_PATCH_SYNC", "OBJPATCH_ERRNO_NAMES", "OBJPATCH_STATUS", "OBJPATCH_POLICY", "OBJPATCH_FLUSH_MS", "OBJPATCH_SHARED_FD", "OBJPATCH_ARGS", RT_FIRST_PID_VAR,
};

static bool bad;	/* a value was refused: the program stops once all are read */

static void refuse(const char *name, const char *value, const char *valid)
{
	if (!rt_attached)
		fprintf(stderr, "objpatch: %s=%s: %s, or unset it\n", name, value, valid);
	else if (!bad)
		rt_error("%s=%s: %s", name, value, valid);
	bad = true;
}

const char *rt_attach_setting(const char *name)
{
	extern char **environ;
	size_t len = strlen(name);

	for (char **e = environ; e && *e; e++)
		if (!strncmp(*e, name, len) && (*e)[len] == '=')
			return *e + len + 1;
	return NULL;
}

/* A program's own getenv() may read another table (bash's): objpatch attach's are read in environ. */
static const char *setting(const char *name)
{
	return rt_attached ? rt_attach_setting(name) : getenv(name);
}

static size_t env_number(const char *name, size_t dflt, size_t lo, size_t hi)
{
	const char *s = setting(name);
	char *end;
	unsigned long long v;
	char valid[96];

	if (!s || !*s)
		return dflt;
	v = strtoull(s, &end, 10);
	if (*s < '0' || *s > '9' || *end || v < lo || v > hi) {
		snprintf(valid, sizeof(valid), "not a number in %zu..%zu: set one (default %zu)", lo, hi, dflt);
		refuse(name, s, valid);
		return dflt;
	}
	return (size_t)v;
}

/* Unset, empty or 0: false; 1: true; anything else is refused. */
static bool env_bool(const char *name)
{
	const char *s = setting(name);

	if (!s || !*s || strcmp(s, "0") == 0)
		return false;
	if (strcmp(s, "1") != 0)
		refuse(name, s, "not 0 or 1: set 0 (off) or 1 (on)");
	return true;
}

static int env_format(void)
{
	static const char *const names[] = { [FMT_TEXT] = "text", [FMT_JSON] = "json",
					     [FMT_FOLDED] = "folded", [FMT_RAW] = "raw", [FMT_SVG] = "svg",
					     [FMT_PERFETTO] = "perfetto" };
	const char *s = setting("OBJPATCH_FORMAT");

	if (!s || !*s)
		return FMT_TEXT;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(s, names[i]) == 0)
			return (int)i;
	refuse("OBJPATCH_FORMAT", s, "not a trace format: set text, json, folded, svg, perfetto or raw");
	return FMT_TEXT;
}

/* What a thread does when the buffers are full: wait for the writer (default) or lose the events. */
static bool env_drop(void)
{
	const char *s = setting("OBJPATCH_POLICY");

	if (!s || !*s || strcmp(s, "wait") == 0)
		return false;
	if (strcmp(s, "drop") != 0)
		refuse("OBJPATCH_POLICY", s, "not a policy: set wait (lossless) or drop (events lost and counted)");
	return true;
}

static bool known_var(const char *name, size_t len)
{
	/* objpatch run's OBJPATCH_ROOT_<qemu>: a foreign machine's root, which the guest inherits. */
	if (len > 14 && strncmp(name, "OBJPATCH_ROOT_", 14) == 0)
		return true;
	for (size_t i = 0; i < sizeof(known_vars) / sizeof(known_vars[0]); i++)
		if (strlen(known_vars[i]) == len && strncmp(known_vars[i], name, len) == 0)
			return true;
	return false;
}

/* A misspelt variable would be ignored without a word: name it. */
static void unknown_vars(void)
{
	extern char **environ;

	for (char **e = environ; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		size_t len = eq ? (size_t)(eq - *e) : strlen(*e);

		if (strncmp(*e, "OBJPATCH_", 9) == 0 && !known_var(*e, len))
			fprintf(stderr, "objpatch: %.*s: not a variable objpatch reads (ignored): use OBJPATCH_FILTER, "
				"_OUTPUT, _FORMAT, _ARGS, _HEX, _ERRNO_NAMES, _DEPTH, _STRLEN, _BUFFER_MB, _POLICY, _FLUSH_MS or _STATS (libobjpatch(3))\n",
				(int)len, *e);
	}
}

/*
 * The process that loads the runtime first writes OBJPATCH_OUTPUT itself;
 * every other one (forked, or a program it starts) writes a file of its
 * own (rt_output.c), told by the first one's pid, which the environment
 * carries to them.
 */
static pid_t first_process(void)
{
	const char *s = getenv(RT_FIRST_PID_VAR);
	char buf[24];
	long pid = s ? strtol(s, NULL, 10) : 0;

	if (pid > 0)
		return (pid_t)pid;
	snprintf(buf, sizeof(buf), "%d", (int)getpid());
	setenv(RT_FIRST_PID_VAR, buf, 1);
	return getpid();
}

static bool add_start_filter(const char *glob, bool on)
{
	static size_t cap;

	if (!grow_array(&runtime.start_filters, runtime.nstart_filters, &cap, sizeof(*runtime.start_filters)))
		return false;
	runtime.start_filters[runtime.nstart_filters++] = (struct rt_filter){ glob, on };
	return true;
}

/* A pattern without the spaces around it (users write "fib, area"). */
static char *trim(char *s)
{
	char *end = s + strlen(s);

	while (isspace((unsigned char)*s))
		s++;
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = 0;
	return s;
}

/*
 * OBJPATCH_FILTER="a*, !b*, c": in order, enable or (with '!') disable.
 * A list that starts with an exclusion starts from every function, as
 * uftrace's -N does: "!fib" is everything but fib.
 */
static void read_filter(void)
{
	const char *f = setting("OBJPATCH_FILTER");
	char *copy, *save = NULL, valid[160];

	if (!f || !*f || !(copy = strdup(f)))
		return;
	for (char *g = strtok_r(copy, ",", &save); g; g = strtok_r(NULL, ",", &save)) {
		bool on = *(g = trim(g)) != '!';
		const char *why;

		if (!*g)
			continue;	/* "a,,b" or a trailing comma: nothing meant */
		if (!on)
			g = trim(g + 1);
		if ((why = rt_pattern_error(g))) {
			snprintf(valid, sizeof(valid), "pattern \"%s\": %s: fix it", g, why);
			refuse("OBJPATCH_FILTER", f, valid);
			continue;
		}
		if (!runtime.nstart_filters && !on)
			add_start_filter("*", true);
		add_start_filter(g, on);
	}
	/* copy stays: the patterns point into it */
}

void rt_read_settings(void)
{
	const char *outp = setting("OBJPATCH_OUTPUT");

	unknown_vars();
	runtime.depth = (unsigned)env_number("OBJPATCH_DEPTH", 256, 1, EV_DEPTH_MAX);
	runtime.strlen_max = env_number("OBJPATCH_STRLEN", 64, 1, STRING_WORDS * 8 - 2);
	runtime.buffer_mb = env_number("OBJPATCH_BUFFER_MB", 32, 1, 1 << 20);
	runtime.flush_ms = (unsigned)env_number("OBJPATCH_FLUSH_MS", 50, 0, 60000);
	runtime.drop = env_drop();
	runtime.hex = env_bool("OBJPATCH_HEX");
	runtime.stats = env_bool("OBJPATCH_STATS");
	runtime.errno_names = env_bool("OBJPATCH_ERRNO_NAMES");
	runtime.args = env_bool("OBJPATCH_ARGS");
	/* Asked for where the port cannot: said once, not an empty "()" on every call. */
	if (runtime.args && !rt_args_supported())
		fprintf(stderr, "objpatch: OBJPATCH_ARGS (--args): the %s runtime does not capture arguments yet; "
			"calls are traced without them\n", rt_arch_host.desc->name);
	runtime.format = env_format();
	/* Binary, into the program's own messages: never what was meant. */
	if (runtime.format == FMT_PERFETTO && !(outp && *outp))
		refuse("OBJPATCH_FORMAT", "perfetto", "a binary trace, and standard error is the default output: "
			"set OBJPATCH_OUTPUT to a file too");
	read_filter();
	rt_raw_filter_read();
	if (bad)
		_exit(2);	/* before main: nothing of the program's has run */
	runtime.output = outp && *outp ? strdup(outp) : NULL;
	/* Not a terminal's kind of output. */
	if (runtime.format == FMT_RAW && !runtime.output)
		runtime.output = strdup("objpatch.data");
	if (runtime.format == FMT_SVG && !runtime.output)
		runtime.output = strdup("objpatch.svg");
	runtime.output_pid = first_process();
}

/*
 * A session's settings.  The depth and the buffer budget are the first
 * session's for good: the threads' shadow stacks were made that deep.
 * The recording is raw, to the socket objpatch named (rt_attach.c).
 */
int rt_read_attach_settings(void)
{
	static bool first = true;

	bad = false;
	runtime.err[0] = 0;
	runtime.nstart_filters = 0;
	if (first) {
		runtime.depth = (unsigned)env_number("OBJPATCH_DEPTH", 256, 1, EV_DEPTH_MAX);
		runtime.buffer_mb = env_number("OBJPATCH_BUFFER_MB", 32, 1, 1 << 20);
	}
	runtime.strlen_max = env_number("OBJPATCH_STRLEN", 64, 1, STRING_WORDS * 8 - 2);
	runtime.flush_ms = (unsigned)env_number("OBJPATCH_FLUSH_MS", 50, 1, 60000);
	runtime.drop = env_drop();
	runtime.errno_names = env_bool("OBJPATCH_ERRNO_NAMES");
	runtime.args = env_bool("OBJPATCH_ARGS") && rt_args_supported();
	runtime.format = env_format();
	if (runtime.format != FMT_RAW)
		refuse("OBJPATCH_FORMAT", setting("OBJPATCH_FORMAT"), "objpatch attach streams raw recordings only");
	read_filter();
	rt_raw_filter_read();
	if (bad)
		return -1;
	first = false;
	runtime.output_pid = getpid();
	return 0;
}
