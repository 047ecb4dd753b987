// SPDX-License-Identifier: GPL-2.0-only
/*
 * recordmcount: record the calls to the profiling hook in relocatable
 * objects, in place, the way Kbuild runs it; or for ordinary programs
 * (--mode=user).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "elf/files.h"
#include "elf/lto.h"
#include "recordmcount/check.h"
#include "recordmcount/record.h"
#include "recordmcount/proto_tables.h"

#ifndef VERSION
#define VERSION "0.1"
#endif

struct options {
	bool warn;
	bool list;
	bool check;
	bool json;
	bool fix;
	enum proto_form protos;
	bool nop;
	bool strict;
	enum table_mode mode;
	const char *output;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: recordmcount [-w] [--mode=kernel|user] [-o OUTPUT] FILE.o...\n"
		"       recordmcount --list FILE...\n"
		"       recordmcount --check [--json] [--fix] FILE...\n"
		"Records the calls to mcount/__fentry__ of each object in a table, in place.\n"
		"  -w, --warn           report calls outside the traced sections\n"
		"      --mode=kernel    one __mcount_loc per object, as Kbuild expects (default)\n"
		"      --mode=user      per-section __mcount_rel/__fentry_rel tables for programs (C++, PIE, --gc-sections)\n"
		"  -o, --output=FILE    write the result to FILE (one input only)\n"
		"      --protos=FORM    the prototype table from DWARF: full (__mcount_proto, default),\n"
		"                       compact (__mcount_ret: return types only, for kernels) or none\n"
		"      --no-protos      --protos=none\n"
		"      --nop            replace the recorded calls by NOPs too (no hook needed to link)\n"
		"      --strict         fail on a reference to the hook that is not a call it knows,\n"
		"                       or on a call outside every function symbol\n"
		"      --list           print the recorded sites of objects or linked files\n"
		"      --check          check that the table holds exactly the calls to the hook\n"
		"                       (exit 0 clean, 1 findings, 2 could not check)\n"
		"      --json           --check: one JSON document\n"
		"      --fix            --check: sort a linked file's table and zero its stale entries\n"
		"  -h, --help           this text\n"
		"  -V, --version        the version\n");
}

static bool is_kbuild_skip(const char *path)
{
	size_t n = strlen(path);

	return strcmp(path, "ftrace.o") == 0 || (n >= 9 && strcmp(path + n - 9, "/ftrace.o") == 0);
}

/* The file to replace: a symlink argument updates its target and stays a link. */
static char *resolve_target(const char *path)
{
	char *target = file_follow_links(path);

	return target ? target : strdup(path);
}

/*
 * The relocations against the hook that are no call the recorder knows
 * (record.h): each one a function the tracer may never see, so never
 * silent.  A warning each once the object is written; with --strict the
 * object fails, one line naming the first, and is left as it was.
 */
static int refuse_strays(struct elfobj *obj, const struct recording *rec)
{
	const struct stray_ref *s = rec->strays;
	char buf[32];

	if (!rec->nstrays)
		return 0;
	return elfobj_error(obj, "%zu reference%s to the hook %s not a call recordmcount knows, first %s+0x%llx: "
			    "%s against %s (--strict: left unchanged; --check lists them)", rec->nstrays,
			    rec->nstrays == 1 ? "" : "s", rec->nstrays == 1 ? "is" : "are", obj->sec[s->sec].name,
			    (unsigned long long)s->off, stray_type(obj, s, buf, sizeof(buf)), s->sym), -1;
}

/*
 * Calls in traced sections that no function symbol holds (record.h): the
 * symbol table is damaged or was made by hand.  Never silent; with
 * --strict the object fails and is left as it was.
 */
static const char *outside_fate(const struct recording *rec)
{
	return rec->outside_kept ? "the compiler's entry kept (--check reports it stale)" :
				   "not recorded, replaced by a NOP where the arch has one";
}

static int refuse_outside(struct elfobj *obj, const struct recording *rec)
{
	const struct site *s = rec->outside;

	if (!rec->noutside)
		return 0;
	return elfobj_error(obj, "%zu call%s to the hook outside every function symbol (its st_size does not cover "
			    "the call), first %s+0x%llx (--strict: left unchanged)", rec->noutside,
			    rec->noutside == 1 ? "" : "s", obj->sec[s->sec].name, (unsigned long long)s->off), -1;
}

static void warn_outside(const struct elfobj *obj, const struct recording *rec)
{
	for (size_t i = 0; i < rec->noutside; i++)
		fprintf(stderr, "recordmcount: %s: warning: %s+0x%llx: call to the hook outside every function symbol "
			"(its st_size does not cover the call): %s\n", obj->path, obj->sec[rec->outside[i].sec].name,
			(unsigned long long)rec->outside[i].off, outside_fate(rec));
}

static void warn_strays(const struct elfobj *obj, const struct recording *rec)
{
	char buf[32];

	for (size_t i = 0; i < rec->nstrays; i++) {
		const struct stray_ref *s = &rec->strays[i];

		fprintf(stderr, "recordmcount: %s: warning: %s+0x%llx: %s against %s is not a call to the hook "
			"recordmcount knows: not recorded\n", obj->path, obj->sec[s->sec].name,
			(unsigned long long)s->off, stray_type(obj, s, buf, sizeof(buf)), s->sym);
	}
}

/*
 * User mode: a program's values print by the prototypes, which come from
 * DWARF; without -g every one prints as raw hex.  Once per object.  Kernel
 * mode stays silent: Kbuild records kernels built without debug info.
 */
static void warn_no_dwarf(const struct elfobj *obj, const struct options *opt, const struct recording *rec)
{
	if (opt->mode != MODE_USER || !opt->protos || !rec->nsites || object_has_dwarf(obj))
		return;
	fprintf(stderr, "recordmcount: %s: warning: no DWARF (compile with -g): its functions' return values "
		"will print untyped\n", obj->path);
}

/*
 * -ffat-lto-objects: the machine code is recorded, but a link that reads
 * the LTO IR (gcc's default when an object has it) compiles the code again
 * and drops the table with the fat code.
 */
static void warn_fat_lto(const struct elfobj *obj)
{
	if (gcc_lto_kind(obj) == GCC_LTO_FAT)
		fprintf(stderr, "recordmcount: %s: warning: GCC LTO object with fat code (-ffat-lto-objects): "
			"recorded, but an LTO link drops the table: link with -fno-lto\n", obj->path);
}

/*
 * Kernel mode (the default) on a program's object: its absolute
 * __mcount_loc needs text relocations in a PIE or a library, which the
 * link only warns about.  The calls through the GOT say the object is
 * position-independent; no kernel object has them.
 */
static void warn_pic(const struct elfobj *obj, const struct options *opt, const struct recording *rec)
{
	if (opt->mode != MODE_KERNEL || !rec->pic_calls)
		return;
	fprintf(stderr, "recordmcount: %s: warning: position-independent code (-fPIE or -fPIC: the hook is called "
		"through the GOT) recorded in kernel mode: its absolute " KERNEL_TABLE " needs text relocations; "
		"record programs and libraries with --mode=user\n", obj->path);
}

static int record_file(struct elfobj *obj, const struct options *opt, const char *target, mode_t mode)
{
	struct recording rec = { 0 };
	const char *out = opt->output ? opt->output : target;
	int rc = -1;

	if (obj->ehdr.e_type != ET_REL)
		return elfobj_error(obj, "not a relocatable object (ELF type %u)", obj->ehdr.e_type), -1;
	if (refuse_slim_lto(obj) < 0)
		return -1;
	if (record_object(obj, &rec, &(struct record_options){ opt->mode, opt->nop, opt->protos,
							      opt->warn ? stderr : NULL }) < 0 ||
	    (opt->strict && (refuse_strays(obj, &rec) < 0 || refuse_outside(obj, &rec) < 0)))
		goto out;	/* the sites found before the error are freed too */
	if (obj->modified)
		rc = elfobj_write(obj, out, mode);
	else if (opt->output)
		rc = elfobj_copy(obj, out, mode);
	else
		rc = (file_remove_stale_temps(target), 0);	/* a killed run's, though nothing is written */
	if (rc == 0) {
		warn_strays(obj, &rec);
		warn_outside(obj, &rec);
		warn_fat_lto(obj);
		warn_pic(obj, opt, &rec);
		warn_no_dwarf(obj, opt, &rec);
	}
out:
	recording_free(&rec);
	return rc;
}

/*
 * No site: a program or library without a table is a build step left out,
 * said in one line.  An object may lack one rightly: Kbuild records objects
 * whose calls all lie in sections it does not trace (and mutated or foreign
 * objects name a hook their relocations do not call), so it lists nothing.
 */
static int no_sites(struct elfobj *obj)
{
	if (obj->ehdr.e_type != ET_REL)
		return elfobj_error(obj, "no call-site table: run recordmcount (--mode=user for programs) on "
				    "its objects before they are linked"), -1;
	return 0;
}

static int list_file(struct elfobj *obj)
{
	struct table_entry *e;
	size_t n;

	if (tables_read(obj, &e, &n) < 0)
		return -1;
	if (!n) {
		free(e);
		return no_sites(obj);
	}
	for (size_t i = 0; i < n; i++) {
		const char *sec = e[i].sec ? obj->sec[e[i].sec].name : "?";

		if (obj->ehdr.e_type == ET_REL)
			printf("%s+0x%llx\n", sec, (unsigned long long)e[i].off);
		else
			printf("0x%llx %s+0x%llx\n", (unsigned long long)e[i].addr, sec,
			       (unsigned long long)e[i].off);
	}
	free(e);
	return 0;
}

/*
 * Objects are mapped (elfobj.h): another process truncating one while it is
 * processed makes its pages vanish, and the next access raises SIGBUS.
 * That file is then left to the other process, said in one line, and the
 * run goes on with the next; what the interrupted work had allocated is
 * not freed (the libraries' state is not known at that instant), only the
 * file's descriptor is closed.  A SIGBUS
 * anywhere else is a bug, and kills as it would have.
 */
static sigjmp_buf file_shrank;
static volatile sig_atomic_t guarding;
static volatile int guarded_fd = -1;	/* closed after a jump: a run of many files must not run out */

static void on_sigbus(int sig, siginfo_t *si, void *ucontext)
{
	(void)ucontext;
	if (guarding && elfobj_mapping_shrank(si->si_addr))
		siglongjmp(file_shrank, 1);
	signal(sig, SIG_DFL);	/* the access is made again, and kills */
}

static void guard_mappings(void)
{
	struct sigaction sa = { .sa_sigaction = on_sigbus, .sa_flags = SA_SIGINFO };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
}

static int process_guarded(const char *path, const char *target, const struct options *opt, struct check_run *run);

static int process(const char *path, const struct options *opt, struct check_run *run)
{
	char *volatile target;	/* freed after a jump too */
	int rc;

	if (!opt->list && !opt->check && !opt->output && is_kbuild_skip(path))
		return 0;
	target = resolve_target(path);
	if (sigsetjmp(file_shrank, 1)) {
		guarding = 0;
		fprintf(stderr, "recordmcount: %s: changed by another process while being read\n", path);
		if (guarded_fd >= 0)
			close(guarded_fd);
		guarded_fd = -1;
		if (run)
			run->failed++;
		free(target);
		return -1;
	}
	guarding = 1;
	rc = process_guarded(path, target, opt, run);
	guarding = 0;
	free(target);
	return rc;
}

static int process_guarded(const char *path, const char *target, const struct options *opt, struct check_run *run)
{
	struct elfobj obj;
	struct stat st;
	const char *why;
	int fd, rc;

	if (opt->check)
		return check_file(run, path, target);
	if ((why = file_open_input(target, false, &fd, &st))) {
		fprintf(stderr, "recordmcount: %s: %s\n", path, why);
		return -1;
	}
	guarded_fd = fd;
	rc = elfobj_load(&obj, path, fd);
	obj.src_fd = fd;	/* elfobj_write copies from it */
	if (rc == 0)
		rc = opt->list ? list_file(&obj) : record_file(&obj, opt, target, st.st_mode);
	if (rc < 0)
		fprintf(stderr, "recordmcount: %s: %s\n", path, obj.err);
	elfobj_free(&obj);
	guarded_fd = -1;
	close(fd);
	return rc;
}

static int parse_proto_form(const char *arg, enum proto_form *form)
{
	static const char *const names[] = { [PROTOS_NONE] = "none", [PROTOS_FULL] = "full",
					     [PROTOS_COMPACT] = "compact" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(arg, names[i]) == 0)
			return *form = (enum proto_form)i, 0;
	fprintf(stderr, "recordmcount: unknown prototype table '%s' (full, compact or none)\n", arg);
	return -1;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "warn", no_argument, NULL, 'w' },
		{ "mode", required_argument, NULL, 'm' },
		{ "output", required_argument, NULL, 'o' },
		{ "list", no_argument, NULL, 'l' },
		{ "check", no_argument, NULL, 'C' },
		{ "json", no_argument, NULL, 'J' },
		{ "fix", no_argument, NULL, 'F' },
		{ "no-protos", no_argument, NULL, 'P' },
		{ "protos", required_argument, NULL, 'p' },
		{ "nop", no_argument, NULL, 'N' },
		{ "strict", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct options opt = { .mode = MODE_KERNEL, .protos = PROTOS_FULL };
	int c, failed = 0;

	opterr = 0;	/* one line of ours, not getopt's and the whole usage */
	while ((c = getopt_long(argc, argv, ":wo:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'w':
			opt.warn = true;
			break;
		case 'm':
			if (strcmp(optarg, "kernel") == 0)
				opt.mode = MODE_KERNEL;
			else if (strcmp(optarg, "user") == 0)
				opt.mode = MODE_USER;
			else {
				fprintf(stderr, "recordmcount: unknown mode '%s' (kernel or user)\n", optarg);
				return 2;
			}
			break;
		case 'o':
			opt.output = optarg;
			break;
		case 'l':
			opt.list = true;
			break;
		case 'C':
			opt.check = true;
			break;
		case 'J':
			opt.json = true;
			break;
		case 'F':
			opt.fix = true;
			break;
		case 'P':
			opt.protos = PROTOS_NONE;
			break;
		case 'p':
			if (parse_proto_form(optarg, &opt.protos) < 0)
				return 2;
			break;
		case 'N':
			opt.nop = true;
			break;
		case 'S':
			opt.strict = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("recordmcount %s\n", VERSION);
			return 0;
		case ':':
			fprintf(stderr, "recordmcount: %s needs a value: recordmcount --help lists the options\n",
				argv[optind - 1]);
			return 2;
		default:
			fprintf(stderr, "recordmcount: unknown option %s: recordmcount --help lists the options\n",
				argv[optind - 1]);
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "recordmcount: no input file: give the objects (FILE.o...) or linked files to work on "
				"(recordmcount --help)\n");
		return 2;
	}
	if ((opt.json || opt.fix) && !opt.check) {
		fprintf(stderr, "recordmcount: --json and --fix go with --check\n");
		return 2;
	}
	if (opt.check && (opt.list || opt.output || opt.nop)) {
		fprintf(stderr, "recordmcount: --check does not combine with --list, -o or --nop\n");
		return 2;
	}
	if (opt.protos == PROTOS_COMPACT && opt.mode != MODE_KERNEL) {
		fprintf(stderr, "recordmcount: --protos=compact is for kernels (--mode=kernel): objpatch reads "
				"parameters from the full table\n");
		return 2;
	}
	if (opt.output && argc - optind != 1) {
		fprintf(stderr, "recordmcount: -o takes exactly one input file\n");
		return 2;
	}
	if (elf_version(EV_CURRENT) == EV_NONE) {
		fprintf(stderr, "recordmcount: libelf is out of date\n");
		return 2;
	}
	guard_mappings();
	if (opt.check) {
		struct check_run run = { .json = opt.json, .fix = opt.fix };

		check_start(&run);
		for (int i = optind; i < argc; i++)
			process(argv[i], &opt, &run);
		return check_finish(&run);
	}
	for (int i = optind; i < argc; i++)
		if (process(argv[i], &opt, NULL) < 0)
			failed = 1;
	return failed;
}
