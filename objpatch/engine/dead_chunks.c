// SPDX-License-Identifier: GPL-2.0-only
/*
 * objpatch record's guard against a traced process's death: its threads'
 * chunks live in a memfd this process made and maps again once the
 * program is gone (trace/slots.h).  A process that died by SIGKILL,
 * SIGSEGV, abort() or _exit() never wrote what was in them; it is
 * appended to its recording here, which then ends where the process did.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "objpatch/engine/dead_chunks.h"
#include "trace/raw.h"
#include "trace/slots.h"

#define SHARED_BYTES ((size_t)SLOTS_HEADER + (size_t)SLOTS_MAX * SLOT_BYTES)

int salvage_prepare(const char *cmd)
{
	int fd = memfd_create("objpatch-chunks", 0);	/* inherited: no MFD_CLOEXEC */
	char num[16];

	if (fd < 0 || ftruncate(fd, (off_t)SHARED_BYTES) < 0) {
		fprintf(stderr, "%s: memfd_create: %s: events of a process that dies may be lost\n", cmd,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	snprintf(num, sizeof(num), "%d", fd);
	setenv("OBJPATCH_SHARED_FD", num, 1);
	return fd;
}

static uint32_t u32(const uint8_t *p, bool swap)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return swap ? __builtin_bswap32(v) : v;
}

/* The recording of process `pid`: output.PID (the extension last, as the runtime names it), else output. */
static char *recording_of(const char *output, int pid)
{
	const char *base = strrchr(output, '/'), *dot;
	char *path;
	int ext;

	base = base ? base + 1 : output;
	dot = strrchr(base, '.');
	ext = dot && dot > base ? (int)(dot - output) : (int)strlen(output);
	if (asprintf(&path, "%.*s.%d%s", ext, output, pid, output + ext) < 0)
		return NULL;
	if (access(path, F_OK) == 0)
		return path;
	free(path);
	return strdup(output);
}

/* The recording's pid and byte order; its end cut back to its last whole record. */
static FILE *open_recording(const char *path, int pid, struct raw_reader *r)
{
	/* only a file can be appended to: a FIFO's reads would wait for a writer that is gone */
	int fd = open(path, O_RDWR | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct raw_record rec;
	bool finished = false;
	struct stat st;
	FILE *f;
	off_t end;
	int rc;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || !(f = fdopen(fd, "r+b"))) {
		close(fd);
		return NULL;
	}
	memset(r, 0, sizeof(*r));
	rc = raw_read_header(r, f);
	if (rc < 0 || r->h.pid != pid) {
		fclose(f);
		return NULL;
	}
	end = ftello(f);
	while ((rc = raw_read_record(r, &rec)) == 1) {
		end = ftello(f);
		finished = rec.type == RAW_COUNTS;
	}
	/*
	 * A recording that ends with its counts was finished by the process's
	 * exit: what its threads left in their chunks came after the exit
	 * instant, which ends the trace.
	 */
	if (finished || (rc < 0 && ftruncate(fileno(f), end) < 0)) {
		raw_reader_free(r);
		fclose(f);
		return NULL;
	}
	fseeko(f, end, SEEK_SET);
	return f;
}

/* Appends one RAW_EVENTS record in the recording's byte order; the events' words are the slot's. */
static bool append_events(FILE *f, const struct raw_reader *r, int tid, const uint8_t *words, uint32_t n)
{
	struct raw_record rec = { RAW_EVENTS, (n + 1) * 8 };
	uint64_t t = (uint64_t)tid;

	if (r->swap) {
		rec.type = __builtin_bswap32(rec.type);
		rec.bytes = __builtin_bswap32(rec.bytes);
		t = __builtin_bswap64(t);
	}
	return fwrite(&rec, sizeof(rec), 1, f) == 1 && fwrite(&t, sizeof(t), 1, f) == 1 &&
	       fwrite(words, 8, n, f) == n;
}

/* One slot: its process gone and words unwritten; how many words were appended. */
static size_t salvage_slot(const uint8_t *slot, const char *output, bool swap)
{
	int pid = (int)u32(slot + SLOT_PID, swap), tid = (int)u32(slot + SLOT_TID, swap);
	const uint8_t *c = slot + SLOT_CHUNK;
	uint32_t count = u32(c + CHUNK_COUNT, swap), consumed = u32(c + CHUNK_CONSUMED, swap);
	uint32_t cap = (SLOT_BYTES - SLOT_CHUNK - CHUNK_WORDS) / 8;
	struct raw_reader r;
	char *path;
	FILE *f;
	bool ok;

	if (pid <= 0 || count <= consumed || count > cap || (kill(pid, 0) == 0 || errno != ESRCH))
		return 0;
	if (!(path = recording_of(output, pid)))
		return 0;
	f = open_recording(path, pid, &r);
	free(path);
	if (!f)
		return 0;
	ok = append_events(f, &r, tid, c + CHUNK_WORDS + (size_t)consumed * 8, count - consumed);
	ok = fclose(f) == 0 && ok;
	raw_reader_free(&r);
	return ok ? count - consumed : 0;
}

size_t salvage_slots(const char *cmd, int fd, const char *output, bool swap)
{
	uint8_t *p = mmap(NULL, SHARED_BYTES, PROT_READ, MAP_SHARED, fd, 0);
	size_t words = 0;
	uint32_t used;

	if (p == MAP_FAILED)
		return 0;
	used = u32(p, swap);
	for (uint32_t i = 0; i < used && i < SLOTS_MAX; i++)
		words += salvage_slot(p + SLOTS_HEADER + (size_t)i * SLOT_BYTES, output, swap);
	if (words)
		fprintf(stderr, "%s: %zu words of events the traced process had not written when it died, "
			"appended to its recording\n", cmd, words);
	munmap(p, SHARED_BYTES);
	return words;
}
