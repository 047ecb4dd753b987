// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Stress test for objpatch/lib/patch.c and arch/x86/rt_x86.c (x86_64 Linux): worker threads run
 * through call sites while the main thread toggles them between a NOP and
 * a call to a counting hook.  Prints "ok DESC" / "not ok DESC" / "# ..."
 * lines (t/80-patch.t numbers them) and exits 1 if a check failed.
 *
 * The sites are written in assembly so that they are exactly the forms
 * recordmcount --nop leaves behind, independent of compiler flags, and sit
 * in pages of their own (the mprotect fallback writer must not make the
 * patcher's own code non-executable).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sched.h>
#include <stdarg.h>
#include <stddef.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include "arch/patch.h"

#define NWORKERS 8
#define MANY 4096

/* Environment STRESS_toggles / STRESS_batch_reps shorten runs of the slow fallback writer. */
static int toggles = 10000, batch_reps = 20;
static double seconds;		/* STRESS_SECONDS: stop toggling after this long */

#define HIDDEN __attribute__((visibility("hidden")))

/* stress_fn5/6: sub $8,%rsp keeps the hook's stack ABI-aligned. */
asm(".text\n"
    ".p2align 12\n"
    ".globl stress_fn5, site5, stress_fn6, site6, many_fn, many_first\n"
    ".hidden stress_fn5, site5, stress_fn6, site6, many_fn, many_first\n"
    ".type stress_fn5, @function\n"
    "stress_fn5:\n"
    "	sub $8, %rsp\n"
    "site5:	.byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n"
    "	add $8, %rsp\n"
    "	ret\n"
    ".size stress_fn5, .-stress_fn5\n"
    ".type stress_fn6, @function\n"
    "stress_fn6:\n"
    "	sub $8, %rsp\n"
    "site6:	.byte 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00\n"
    "	add $8, %rsp\n"
    "	ret\n"
    ".size stress_fn6, .-stress_fn6\n"
    ".type many_fn, @function\n"
    "many_fn:\n"
    "	sub $8, %rsp\n"
    "many_first:\n"
    ".rept " "4096" "\n"
    "	.byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n"
    ".endr\n"
    "	add $8, %rsp\n"
    "	ret\n"
    ".size many_fn, .-many_fn\n"
    ".p2align 12\n");

HIDDEN void stress_fn5(void);
HIDDEN void stress_fn6(void);
HIDDEN void many_fn(void);
HIDDEN extern uint8_t site5[], site6[], many_first[];

static const uint8_t nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
static const uint8_t nop6[6] = { 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00 };

struct slot {
	atomic_ulong c5, h5, c6, h6, cm, hm;
	char pad[64];
};

static struct slot slots[NWORKERS];
static __thread struct slot *my;
static atomic_bool stop_workers, stop_maps;
static atomic_ulong many_hooks;
static int failures;

HIDDEN void hook5(void);
HIDDEN void hook6(void);
HIDDEN void hook_many(void);

__attribute__((noinline)) void hook5(void)
{
	if (my)
		atomic_fetch_add_explicit(&my->h5, 1, memory_order_relaxed);
}

__attribute__((noinline)) void hook6(void)
{
	if (my)
		atomic_fetch_add_explicit(&my->h6, 1, memory_order_relaxed);
}

__attribute__((noinline)) void hook_many(void)
{
	if (my)
		atomic_fetch_add_explicit(&my->hm, 1, memory_order_relaxed);
	else
		atomic_fetch_add_explicit(&many_hooks, 1, memory_order_relaxed);
}

/* `ff 15` loads its target from here, like a GOT entry. */
HIDDEN void (*volatile hook6_slot)(void) = hook6;

static void check(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void check(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s ", ok ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	failures += !ok;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void call5_bytes(uint8_t out[5], const uint8_t *site, void (*fn)(void))
{
	int32_t rel = (int32_t)((intptr_t)fn - (intptr_t)(site + 5));

	out[0] = 0xe8;
	memcpy(out + 1, &rel, 4);
}

static void call6_bytes(uint8_t out[6])
{
	int32_t disp = (int32_t)((intptr_t)&hook6_slot - (intptr_t)(site6 + 6));

	out[0] = 0xff;
	out[1] = 0x15;
	memcpy(out + 2, &disp, 4);
}

/* ---- /proc/self/maps watcher ---- */

static atomic_ulong maps_scans, maps_text_seen;
static char maps_bad[512];

static bool covers(unsigned long lo, unsigned long hi)
{
	uintptr_t a[] = { (uintptr_t)site5, (uintptr_t)site6, (uintptr_t)many_first };

	for (size_t i = 0; i < sizeof(a) / sizeof(a[0]); i++)
		if (a[i] >= lo && a[i] < hi)
			return true;
	return false;
}

static void scan_maps(void)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		char perms[5];

		if (sscanf(line, "%lx-%lx %4s", &lo, &hi, perms) != 3 || !covers(lo, hi))
			continue;
		atomic_fetch_add(&maps_text_seen, 1);
		if (perms[1] == 'w' && perms[2] == 'x' && !maps_bad[0])
			snprintf(maps_bad, sizeof(maps_bad), "%s", line);
	}
	fclose(f);
	atomic_fetch_add(&maps_scans, 1);
}

static void *maps_watcher(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop_maps))
		scan_maps();
	return NULL;
}

/* ---- workers ---- */

static void *worker(void *arg)
{
	my = arg;
	while (!atomic_load_explicit(&stop_workers, memory_order_relaxed)) {
		stress_fn5();
		atomic_fetch_add_explicit(&my->c5, 1, memory_order_relaxed);
		stress_fn6();
		atomic_fetch_add_explicit(&my->c6, 1, memory_order_relaxed);
	}
	return NULL;
}

static void *many_worker(void *arg)
{
	my = arg;
	while (!atomic_load_explicit(&stop_workers, memory_order_relaxed)) {
		many_fn();
		atomic_fetch_add_explicit(&my->cm, 1, memory_order_relaxed);
	}
	return NULL;
}

static void start(pthread_t *t, int n, void *(*fn)(void *))
{
	atomic_store(&stop_workers, false);
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, fn, &slots[i])) {
			perror("pthread_create");
			exit(2);
		}
}

static void stop(pthread_t *t, int n)
{
	atomic_store(&stop_workers, true);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
}

static unsigned long sum(size_t off)
{
	unsigned long s = 0;

	for (int i = 0; i < NWORKERS; i++)
		s += atomic_load((atomic_ulong *)((char *)&slots[i] + off));
	return s;
}

static int patch(void *addr, const uint8_t *expect, const uint8_t *repl, size_t len)
{
	char err[256];

	if (patch_text(addr, expect, repl, len, err, sizeof(err)) == 0)
		return 0;
	printf("# patch_text: %s\n", err);
	return -1;
}

/* ---- the checks ---- */

/* Waits until every worker made want[i] calls of stress_fn5: a fixed sleep
 * is not enough on a loaded machine.  False at the deadline. */
static bool wait_calls(const unsigned long *want, double deadline)
{
	for (int i = 0; i < NWORKERS; i++)
		while (atomic_load(&slots[i].c5) < want[i])
			if (now() > deadline)
				return false;
			else
				sched_yield();
	return true;
}

static void wait_hooks(double deadline)
{
	unsigned long h5 = sum(offsetof(struct slot, h5)), h6 = sum(offsetof(struct slot, h6));

	while ((sum(offsetof(struct slot, h5)) == h5 || sum(offsetof(struct slot, h6)) == h6) &&
	       now() < deadline)
		sched_yield();
}

static void toggle_under_load(void)
{
	uint8_t call5[5], call6[6];
	pthread_t t[NWORKERS];
	int bad = 0;
	double t0, paused = 0;

	call5_bytes(call5, site5, hook5);
	call6_bytes(call6);
	start(t, NWORKERS, worker);
	while (sum(offsetof(struct slot, c6)) < 1000)
		sched_yield();
	t0 = now();
	for (int i = 0; i < toggles && !bad; i++) {
		bool on = !(i & 1);

		/* A time budget for the slow fallback writer on a busy machine;
		 * an even count always ends with the sites disabled. */
		if (on && seconds > 0 && now() - t0 > seconds) {
			toggles = i;
			break;
		}

		bad |= patch(site5, on ? nop5 : call5, on ? call5 : nop5, 5);
		bad |= patch(site6, on ? nop6 : call6, on ? call6 : nop6, 6);
		/* Now and then let the workers run into the enabled sites: with the
		 * mprotect writer they may otherwise sleep through every enabled spell. */
		if (on && i % 1000 == 0) {
			double t1 = now();

			wait_hooks(t1 + 10);
			paused += now() - t1;
		}
	}
	t0 = now() - t0 - paused;
	check(!bad, "%d toggles of a 5-byte and a 6-byte site with %d threads running them",
	      toggles, NWORKERS);
	printf("# under load: writer %s; %.2f us per patch_text (%d calls); %lu int3 traps emulated\n",
	       patch_method(), t0 * 1e6 / (2 * toggles), 2 * toggles, patch_trap_count());
	/* Shortened runs may, rarely, see no thread meet an int3: then only a note. */
	if (toggles >= 10000)
		check(patch_trap_count() > 0, "threads met the temporary int3 and were steered (%lu)",
		      patch_trap_count());
	check(sum(offsetof(struct slot, h5)) > 0 && sum(offsetof(struct slot, h6)) > 0,
	      "hooks ran while the sites were enabled (5-byte %lu, 6-byte %lu)",
	      sum(offsetof(struct slot, h5)), sum(offsetof(struct slot, h6)));
	check(!memcmp(site5, nop5, 5) && !memcmp(site6, nop6, 6), "sites end as NOPs");

	/* A thread may still be inside a hook it entered before the final
	 * disable: two more completed calls of its own prove it has left. */
	unsigned long c5[NWORKERS], c6[NWORKERS], h5[NWORKERS], h6[NWORKERS];
	bool waited = true, still = true, ran = true;
	double deadline = now() + 30;

	for (int i = 0; i < NWORKERS; i++) {
		c5[i] = atomic_load(&slots[i].c5);
		c6[i] = atomic_load(&slots[i].c6);
	}
	for (int i = 0; i < NWORKERS; i++) {
		while ((atomic_load(&slots[i].c5) < c5[i] + 2 || atomic_load(&slots[i].c6) < c6[i] + 2)
		       && (waited = now() < deadline))
			sched_yield();
		h5[i] = atomic_load(&slots[i].h5);
		h6[i] = atomic_load(&slots[i].h6);
		c5[i] = atomic_load(&slots[i].c5);
	}
	for (int i = 0; i < NWORKERS; i++)
		c5[i] += 1000;
	ran = wait_calls(c5, deadline);
	for (int i = 0; i < NWORKERS; i++)
		still &= atomic_load(&slots[i].h5) == h5[i] && atomic_load(&slots[i].h6) == h6[i];
	check(waited && ran && still, "no hook runs after the final disable (workers kept calling: %s)",
	      ran ? "yes" : "no");
	stop(t, NWORKERS);
	bool le = true;

	for (int i = 0; i < NWORKERS; i++)
		le &= atomic_load(&slots[i].h5) <= atomic_load(&slots[i].c5) &&
		      atomic_load(&slots[i].h6) <= atomic_load(&slots[i].c6);
	check(le, "never more hook runs than calls, per thread and site");
}

static void exact_counts(void)
{
	uint8_t call5[5], call6[6];
	pthread_t t[NWORKERS];
	unsigned long want[NWORKERS];
	bool eq = true;

	for (int i = 0; i < NWORKERS; i++)
		want[i] = 10000;

	call5_bytes(call5, site5, hook5);
	call6_bytes(call6);
	memset(slots, 0, sizeof(slots));
	if (patch(site5, nop5, call5, 5) || patch(site6, nop6, call6, 6)) {
		check(false, "enable both sites");
		return;
	}
	start(t, NWORKERS, worker);
	wait_calls(want, now() + 30);
	stop(t, NWORKERS);
	for (int i = 0; i < NWORKERS; i++)
		eq &= slots[i].h5 == slots[i].c5 && slots[i].h6 == slots[i].c6 && slots[i].c5 > 0;
	check(eq, "with both sites enabled every call runs its hook exactly once (%lu calls)",
	      sum(offsetof(struct slot, c5)) + sum(offsetof(struct slot, c6)));
	check(patch(site5, call5, nop5, 5) == 0 && patch(site6, call6, nop6, 6) == 0,
	      "disable both sites");
	memset(slots, 0, sizeof(slots));
	start(t, NWORKERS, worker);
	wait_calls(want, now() + 30);
	stop(t, NWORKERS);
	check(sum(offsetof(struct slot, h5)) + sum(offsetof(struct slot, h6)) == 0 &&
	      sum(offsetof(struct slot, c5)) > 0, "disabled sites run no hook (%lu calls)",
	      sum(offsetof(struct slot, c5)));
}

static void refusals(void)
{
	static const uint8_t mov[5] = { 0xb8, 0x01, 0x00, 0x00, 0x00 };
	uint8_t call5[5], wrong[5], before[6];
	char err[256], want[64];
	int rc;

	call5_bytes(call5, site5, hook5);
	call5_bytes(wrong, site5, hook6);
	memcpy(before, site5, 5);
	rc = patch_text(site5, wrong, nop5, 5, err, sizeof(err));
	snprintf(want, sizeof(want), "%#lx", (unsigned long)(uintptr_t)site5);
	check(rc == -1 && strstr(err, want) && strstr(err, "0f 1f 44 00 00"),
	      "wrong expect bytes refused, naming the address and the bytes found: %s", err);
	check(!memcmp(site5, before, 5), "a refused patch leaves the bytes as they were");
	rc = patch_text(site5, nop5, mov, 5, err, sizeof(err));
	check(rc == -1 && !memcmp(site5, nop5, 5), "a replacement the trap cannot emulate is refused: %s",
	      err);
	rc = patch_text(site6, nop6, call5, 5, err, sizeof(err));
	check(rc == -1 && !memcmp(site6, nop6, 6),
	      "a replacement shorter than the instruction it replaces is refused: %s", err);
	rc = patch_text(site5, nop5, call5, 9, err, sizeof(err));
	check(rc == -1 && !memcmp(site5, nop5, 5), "len > 8 is refused: %s", err);
	rc = patch_text((void *)8, nop5, call5, 5, err, sizeof(err));
	check(rc == -1, "an unmapped address is refused without a crash: %s", err);
}

static volatile sig_atomic_t foreign_traps;

static void on_foreign_trap(int sig)
{
	(void)sig;
	foreign_traps++;
}

/* Installed before the first patch, so patch.c must chain to it. */
static void install_foreign_trap_handler(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_foreign_trap;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTRAP, &sa, NULL);
}

static void foreign_traps_chain(void)
{
	asm volatile("int3");
	raise(SIGTRAP);
	check(foreign_traps == 2, "an int3 and a raise(SIGTRAP) that are not ours reach the "
	      "previous handler (%d of 2)", (int)foreign_traps);
}

/* The child's /proc/self/mem is its own: patching there leaves the parent alone. */
static void forked(void)
{
	uint8_t call5[5];
	pid_t pid;
	int status = -1;

	call5_bytes(call5, site5, hook5);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		my = NULL;
		_exit(patch(site5, nop5, call5, 5) || memcmp(site5, call5, 5) ? 1 : 0);
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
	check(status == 0 && !memcmp(site5, nop5, 5),
	      "a forked child patches its own text, not its parent's (child status %d)", status);
}

/* A stray write to text near a site is the program's bug: it must still crash, not hang. */
static void stray_write(void)
{
	pid_t pid;
	int status = -1;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		/* A sanitizer's SEGV report (then exit 1) is a crash too: keep it quiet. */
		if (null >= 0)
			dup2(null, 2);
		alarm(10);
		((volatile uint8_t *)site5)[1] = 0x1f;
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
	check((WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV) ||
	      (WIFEXITED(status) && WEXITSTATUS(status) != 0),
	      "a stray write to patched text still crashes, not hangs (status %#x)", status);
}

static struct patch_site *many_sites(bool on, const uint8_t (*calls)[5])
{
	struct patch_site *s = calloc(MANY, sizeof(*s));

	for (int i = 0; i < MANY; i++) {
		s[i].addr = many_first + 5 * i;
		s[i].expect = on ? nop5 : calls[i];
		s[i].repl = on ? calls[i] : nop5;
		s[i].len = 5;
	}
	return s;
}

static bool many_all(const uint8_t (*calls)[5], bool on)
{
	for (int i = 0; i < MANY; i++)
		if (memcmp(many_first + 5 * i, on ? calls[i] : nop5, 5))
			return false;
	return true;
}

static void batches(void)
{
	static uint8_t calls[MANY][5];
	struct patch_site *on, *off;
	pthread_t t[NWORKERS];
	char err[256];
	double t0, el;
	int rc, bad = 0;

	for (int i = 0; i < MANY; i++)
		call5_bytes(calls[i], many_first + 5 * i, hook_many);
	on = many_sites(true, (const uint8_t (*)[5])calls);
	off = many_sites(false, (const uint8_t (*)[5])calls);

	/* One wrong site refuses the whole batch. */
	on[MANY / 2].expect = calls[0];
	rc = patch_text_batch(on, MANY, err, sizeof(err));
	check(rc == -1 && many_all((const uint8_t (*)[5])calls, false),
	      "a batch with one wrong site is refused whole: %s", err);
	on[MANY / 2].expect = nop5;

	rc = patch_text_batch(on, MANY, err, sizeof(err));
	atomic_store(&many_hooks, 0);
	many_fn();
	check(rc == 0 && atomic_load(&many_hooks) == MANY, "batch of %d sites enabled: %lu hooks per call",
	      MANY, atomic_load(&many_hooks));
	rc = patch_text_batch(off, MANY, err, sizeof(err));
	atomic_store(&many_hooks, 0);
	many_fn();
	check(rc == 0 && atomic_load(&many_hooks) == 0 && many_all((const uint8_t (*)[5])calls, false),
	      "batch disabled: no hook runs");

	memset(slots, 0, sizeof(slots));
	start(t, 4, many_worker);
	t0 = now();
	for (int r = 0; r < batch_reps && !bad; r++) {
		bad |= patch_text_batch(on, MANY, err, sizeof(err));
		bad |= patch_text_batch(off, MANY, err, sizeof(err));
	}
	el = now() - t0;
	stop(t, 4);
	check(!bad, "%d batch toggles of %d sites with 4 threads running them%s%s", 2 * batch_reps,
	      MANY, bad ? ": " : "", bad ? err : "");
	check(sum(offsetof(struct slot, hm)) > 0 && many_all((const uint8_t (*)[5])calls, false),
	      "hooks ran during the batch toggles (%lu) and the sites end as NOPs",
	      sum(offsetof(struct slot, hm)));
	printf("# under load: %.3f us per site in batches of %d (%.2f ms per batch)\n",
	       el * 1e6 / (2.0 * batch_reps * MANY), MANY, el * 1e3 / (2 * batch_reps));
	free(on);
	free(off);
}

/* Cost without contention: no thread runs the sites, nobody reads /proc/self/maps. */
static void idle_timing(void)
{
	static uint8_t calls[MANY][5];
	struct patch_site *on, *off;
	uint8_t call5[5];
	double t0, single, batch;
	int bad = 0, n = 1000, reps = 5;

	call5_bytes(call5, site5, hook5);
	t0 = now();
	for (int i = 0; i < n; i++)
		bad |= patch(site5, i & 1 ? call5 : nop5, i & 1 ? nop5 : call5, 5);
	single = now() - t0;
	for (int i = 0; i < MANY; i++)
		call5_bytes(calls[i], many_first + 5 * i, hook_many);
	on = many_sites(true, (const uint8_t (*)[5])calls);
	off = many_sites(false, (const uint8_t (*)[5])calls);
	t0 = now();
	for (int r = 0; r < reps; r++) {
		bad |= patch_text_batch(on, MANY, NULL, 0);
		bad |= patch_text_batch(off, MANY, NULL, 0);
	}
	batch = now() - t0;
	free(on);
	free(off);
	check(!bad, "idle timing runs (writer %s)", patch_method());
	printf("# idle: %.2f us per patch_text, %.3f us per site in batches of %d (%.2f ms per batch)\n",
	       single * 1e6 / n, batch * 1e6 / (2.0 * reps * MANY), MANY, batch * 1e3 / (2 * reps));
}

int main(void)
{
	pthread_t mw;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (getenv("STRESS_TOGGLES"))
		toggles = atoi(getenv("STRESS_TOGGLES")) & ~1;
	if (getenv("STRESS_BATCH_REPS"))
		batch_reps = atoi(getenv("STRESS_BATCH_REPS"));
	if (getenv("STRESS_SECONDS"))
		seconds = atof(getenv("STRESS_SECONDS"));
	install_foreign_trap_handler();
	idle_timing();
	if (pthread_create(&mw, NULL, maps_watcher, NULL)) {
		perror("pthread_create");
		return 2;
	}
	toggle_under_load();
	exact_counts();
	refusals();
	forked();
	stray_write();
	foreign_traps_chain();
	batches();
	atomic_store(&stop_maps, true);
	pthread_join(mw, NULL);
	check(maps_scans > 0 && maps_text_seen > 0 && !maps_bad[0],
	      "the text was never mapped writable and executable (%lu scans of /proc/self/maps)%s%s",
	      atomic_load(&maps_scans), maps_bad[0] ? ": " : "", maps_bad);
	return failures ? 1 : 0;
}
