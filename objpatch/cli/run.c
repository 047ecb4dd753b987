// SPDX-License-Identifier: GPL-2.0-only
/*
 * objpatch run: starts a program with the tracing runtime preloaded and
 * the settings in its environment (the runtime reads them at start-up, see
 * man/libobjpatch.3), and exits as the program did.
 *
 * A program for another machine than this one (its ELF header says so) is
 * run under qemu-user with that machine's runtime, built beside this binary
 * as <arch>/libobjpatch.so (make builds build/aarch64/libobjpatch.so when
 * the cross compiler is installed).  LD_PRELOAD then goes to the guest
 * only, through qemu's -E: in qemu's own environment the host's loader
 * would try to preload it into qemu.  The OBJPATCH_* variables need no
 * such care: qemu hands its environment to the guest.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "objpatch/cli/run.h"

static void run_usage(FILE *f)
{
	fprintf(f, "usage: objpatch run [--filter GLOB]... [--output FILE] [--format text|json|folded]\n"
		   "                    [--hex] [--errno-names] [--depth N] [--lib LIBOBJPATCH] -- PROGRAM [ARGS...]\n"
		   "       objpatch record [--filter GLOB]... [--output FILE] [--depth N] [--lib LIBOBJPATCH]\n"
		   "                    -- PROGRAM [ARGS...]\n"
		   "run: traces PROGRAM's functions (every one without --filter; '!GLOB' excludes).\n"
		   "record: the same, writing the events unformatted to FILE (default objpatch.data)\n"
		   "for objpatch report.\n");
}

/* Machines whose programs run under qemu-user when they are not this one's. */
struct foreign {
	uint16_t machine;
	uint8_t elfclass, data;
	const char *name;	/* qemu-NAME, NAME/libobjpatch.so; "-": no runtime */
	const char *prefix;	/* TRIPLE-: /usr/TRIPLE is Debian's cross libc, the guest's root */
};

static const struct foreign foreign_machines[] = {
#define MACHINE(name, prefix, clang, kflags, port, qemu, em, class, data, desc) { em, class, data, #qemu, #prefix },
#include "arch/machines.h"
#undef MACHINE
};

/* The runtime beside this binary (the build tree) or in ../lib (an installation); sub: "" or "NAME/". */
static int find_runtime(char *out, size_t len, const char *sub)
{
	char self[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	static const char *const where[] = { "/", "/../lib/" };

	if (n <= 0)
		return -1;
	self[n] = 0;
	slash = strrchr(self, '/');
	if (!slash)
		return -1;
	*slash = 0;
	for (size_t i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
		if ((size_t)snprintf(out, len, "%s%s%slibobjpatch.so", self, where[i], sub) >= len)
			continue;
		if (access(out, R_OK) == 0)
			return 0;
	}
	return -1;
}

/* e_ident's class and byte order and e_machine of an ELF file; false if it is not one (a script...). */
static bool elf_machine(const char *path, uint8_t *elfclass, uint8_t *data, uint16_t *machine)
{
	unsigned char h[20];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool ok;

	if (fd < 0)
		return false;
	ok = read(fd, h, sizeof(h)) == (ssize_t)sizeof(h) && memcmp(h, ELFMAG, SELFMAG) == 0;
	close(fd);
	if (!ok)
		return false;
	*elfclass = h[EI_CLASS];
	*data = h[EI_DATA];
	*machine = h[EI_DATA] == ELFDATA2MSB ? (uint16_t)(h[18] << 8 | h[19]) : (uint16_t)(h[19] << 8 | h[18]);
	return true;
}

/* The file execvp() would run for `name`, or NULL. */
static char *program_path(const char *name)
{
	const char *path = getenv("PATH");
	char *dirs, *save = NULL, *found = NULL;

	if (strchr(name, '/'))
		return strdup(name);
	dirs = strdup(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
	for (char *d = dirs ? strtok_r(dirs, ":", &save) : NULL; d && !found; d = strtok_r(NULL, ":", &save)) {
		if (asprintf(&found, "%s/%s", *d ? d : ".", name) < 0)
			found = NULL;
		else if (access(found, X_OK) != 0) {
			free(found);
			found = NULL;
		}
	}
	free(dirs);
	return found;
}

/*
 * The foreign machine `prog` is for: NULL when this machine runs it (or it
 * is no ELF file: a script, say); *unknown set when no runtime exists for it.
 */
static const struct foreign *foreign_for(const char *prog, bool *unknown)
{
	uint8_t pc, sc, pd, sd;
	uint16_t pm, sm;
	char *path = program_path(prog);
	bool elf = path && elf_machine(path, &pc, &pd, &pm);

	free(path);
	*unknown = false;
	if (!elf || !elf_machine("/proc/self/exe", &sc, &sd, &sm) || (pm == sm && pc == sc && pd == sd))
		return NULL;
	for (size_t i = 0; i < sizeof(foreign_machines) / sizeof(foreign_machines[0]); i++)
		if (foreign_machines[i].machine == pm && foreign_machines[i].elfclass == pc &&
		    foreign_machines[i].data == pd && strcmp(foreign_machines[i].name, "-"))
			return &foreign_machines[i];
	*unknown = true;
	return NULL;
}

static int append_env(const char *name, const char *value, const char *sep)
{
	const char *old = getenv(name);
	char *v;
	int rc;

	if (!old || !*old)
		return setenv(name, value, 1);
	if (asprintf(&v, "%s%s%s", value, sep, old) < 0)
		return -1;
	rc = setenv(name, v, 1);
	free(v);
	return rc;
}

struct run_opts {
	char *filter;
	const char *output, *format, *lib, *depth;
	bool hex, record, errno_names;
};

static int add_filter(struct run_opts *o, const char *glob)
{
	char *f;

	if (strchr(glob, ',')) {
		fprintf(stderr, "objpatch run: --filter %s: a pattern cannot hold ','\n", glob);
		return -1;
	}
	if (asprintf(&f, "%s%s%s", o->filter ? o->filter : "", o->filter ? "," : "", glob) < 0)
		return -1;
	free(o->filter);
	o->filter = f;
	return 0;
}

/* Returns the index of PROGRAM in argv, or -1 after a message. */
static int parse(int argc, char **argv, struct run_opts *o)
{
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--"))
			return i + 1 < argc ? i + 1 : -1;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			run_usage(stdout);
			exit(0);
		}
		if (!strcmp(a, "--hex")) {
			o->hex = true;
			continue;
		}
		if (!strcmp(a, "--errno-names")) {
			o->errno_names = true;
			continue;
		}
		if (a[0] != '-')
			return i;
		if (!v) {
			fprintf(stderr, "objpatch run: %s needs a value\n", a);
			return -1;
		}
		i++;
		if (!strcmp(a, "--filter")) {
			if (add_filter(o, v) < 0)
				return -1;
		} else if (!strcmp(a, "--output")) {
			o->output = v;
		} else if (!strcmp(a, "--format") && !o->record) {
			if (strcmp(v, "text") && strcmp(v, "json") && strcmp(v, "folded")) {
				fprintf(stderr, "objpatch run: --format %s: not text, json or folded\n", v);
				return -1;
			}
			o->format = v;
		} else if (!strcmp(a, "--lib")) {
			o->lib = v;
		} else if (!strcmp(a, "--depth")) {
			o->depth = v;
		} else {
			fprintf(stderr, "objpatch run: unknown option %s\n", a);
			return -1;
		}
	}
	return -1;
}

/* Sets the environment; `lib` gets the runtime's path (for a foreign program's LD_PRELOAD). */
static int set_environment(const struct run_opts *o, const struct foreign *f, char *lib)
{
	char out[PATH_MAX], sub[64] = "";

	if (f)
		snprintf(sub, sizeof(sub), "%s/", f->name);
	if (o->lib) {
		if (!realpath(o->lib, lib)) {
			fprintf(stderr, "objpatch run: %s: %s\n", o->lib, strerror(errno));
			return -1;
		}
	} else if (find_runtime(lib, PATH_MAX, sub) < 0) {
		fprintf(stderr, "objpatch run: %slibobjpatch.so not found beside objpatch; use --lib\n", sub);
		return -1;
	}
	/* The program may change directory: the output's path must not depend on it. */
	if (o->output && o->output[0] != '/') {
		if (!getcwd(out, sizeof(out)) || strlen(out) + strlen(o->output) + 2 > sizeof(out))
			return -1;
		strcat(out, "/");
		strcat(out, o->output);
	} else if (o->output) {
		snprintf(out, sizeof(out), "%s", o->output);
	}
	if ((!f && append_env("LD_PRELOAD", lib, ":")) ||
	    setenv("OBJPATCH_FILTER", o->filter ? o->filter : "*", 1) ||
	    (o->output && setenv("OBJPATCH_OUTPUT", out, 1)) ||
	    (o->format && setenv("OBJPATCH_FORMAT", o->format, 1)) || (o->hex && setenv("OBJPATCH_HEX", "1", 1)) ||
	    (o->errno_names && setenv("OBJPATCH_ERRNO_NAMES", "1", 1)) ||
	    (o->depth && setenv("OBJPATCH_DEPTH", o->depth, 1))) {
		perror("objpatch run: setenv");
		return -1;
	}
	return 0;
}

/*
 * qemu-NAME -L ROOT -E LD_PRELOAD=LIB PROGRAM ARGS...: ROOT is
 * $QEMU_LD_PREFIX when set (qemu's own variable), else Debian's cross libc.
 */
static void free_argv(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* qemu-ARCH -L ROOT -E LD_PRELOAD=LIB PROGRAM ARGS...: every string owned, for free_argv(). */
static char **qemu_argv(const struct foreign *f, const char *lib, char **args, int nargs)
{
	char **v = calloc((size_t)nargs + 9, sizeof(*v));
	const char *root = getenv("QEMU_LD_PREFIX"), *path = getenv("LD_LIBRARY_PATH");
	int n = 0;
	bool ok;

	if (!v)
		return NULL;
	ok = asprintf(&v[n++], "qemu-%s", f->name) >= 0 && (v[n++] = strdup("-L")) &&
	     (root && *root ? (v[n++] = strdup(root)) != NULL : asprintf(&v[n++], "/usr/%.*s", (int)strlen(f->prefix) - 1, f->prefix) >= 0) &&
	     (v[n++] = strdup("-E")) && asprintf(&v[n++], "LD_PRELOAD=%s", lib) >= 0 &&
	     /*
	      * The guest's loader reads the host's /etc/ld.so.cache, which may
	      * name the host's multilib copy of the guest's libc (i386's
	      * /lib32): another build than the cross ld.so's, and mixing them
	      * hangs the first pthread_create.  The root's lib/ goes first.
	      */
	     (v[n++] = strdup("-E")) &&
	     asprintf(&v[n++], "LD_LIBRARY_PATH=%s/lib%s%s", v[2], path && *path ? ":" : "",
		      path && *path ? path : "") >= 0 &&
	     /* qemu does not search PATH for the program. */
	     (v[n++] = program_path(args[0]));
	for (int i = 1; ok && i < nargs; i++)
		ok = (v[n++] = strdup(args[i])) != NULL;
	if (!ok) {
		/* asprintf leaves its pointer undefined on failure: never free it. */
		v[n - 1] = NULL;
		free_argv(v);
		return NULL;
	}
	return v;
}

int run_main(int argc, char **argv)
{
	struct run_opts o = { .record = strcmp(argv[1], "record") == 0 };
	int prog = parse(argc, argv, &o), status;
	const struct foreign *f;
	char lib[PATH_MAX], **args;
	bool unknown;
	pid_t pid;

	if (prog < 0) {
		run_usage(stderr);
		free(o.filter);
		return 2;
	}
	f = foreign_for(argv[prog], &unknown);
	if (unknown) {
		fprintf(stderr, "objpatch run: %s: a program for another machine, and no runtime for it\n",
			argv[prog]);
		free(o.filter);
		return 2;
	}
	/* record: the same run, writing the events as they are for objpatch report. */
	if (o.record) {
		o.format = "raw";
		if (!o.output)
			o.output = "objpatch.data";
	}
	if (set_environment(&o, f, lib) < 0) {
		free(o.filter);
		return 2;
	}
	free(o.filter);
	args = f ? qemu_argv(f, lib, argv + prog, argc - prog) : argv + prog;
	if (!args) {
		perror("objpatch run");
		return 2;
	}
	pid = fork();
	if (pid < 0) {
		perror("objpatch run: fork");
		return 2;
	}
	if (pid == 0) {
		execvp(args[0], args);
		fprintf(stderr, "objpatch run: %s: %s\n", args[0], strerror(errno));
		_exit(127);
	}
	if (f)
		free_argv(args);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			perror("objpatch run: waitpid");
			return 2;
		}
	if (WIFSIGNALED(status)) {
		fprintf(stderr, "objpatch run: %s: killed by signal %d\n", argv[prog], WTERMSIG(status));
		return 128 + WTERMSIG(status);
	}
	return WEXITSTATUS(status);
}
