// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Perfetto's native trace (trace/perfetto.h), encoded here: a Trace is a
 * run of `packet` fields, each a TracePacket.  One packet sequence per
 * process: its first packet clears the sequence's incremental state and
 * describes the process's track, each thread's track is described before
 * its first slice, and every event packet refers to names interned on the
 * sequence (each name sent once, in the packet that first uses it).
 *
 * The writer calls it at flush time, where allocating is fine: names,
 * tracks and the packet being built are on the heap.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "trace/arg_text.h"
#include "trace/event.h"
#include "trace/format.h"
#include "trace/exit_words.h"
#include "trace/machine.h"
#include "trace/perfetto.h"
#include "util/array.h"
#include "util/hash.h"
#include "util/hashtab.h"

/*
 * Field numbers, from Perfetto's protos (github.com/google/perfetto,
 * protos/perfetto/trace/...), and the protobuf wire types.
 */
enum { WIRE_VARINT = 0, WIRE_I64 = 1, WIRE_LEN = 2 };
/* trace.proto, message Trace */
enum { TRACE_PACKET = 1 };
/* trace_packet.proto, message TracePacket and its enum SequenceFlags */
enum {
	PACKET_TIMESTAMP = 8, PACKET_SEQUENCE_ID = 10 /* trusted_packet_sequence_id */, PACKET_TRACK_EVENT = 11,
	PACKET_INTERNED_DATA = 12, PACKET_SEQUENCE_FLAGS = 13, PACKET_TRACK_DESCRIPTOR = 60,
};
enum { SEQ_INCREMENTAL_STATE_CLEARED = 1, SEQ_NEEDS_INCREMENTAL_STATE = 2 };
/* interned_data/interned_data.proto, message InternedData */
enum { INTERNED_EVENT_NAMES = 2, INTERNED_ANNOTATION_NAMES = 3 };
/* track_event/track_event.proto EventName and debug_annotation.proto DebugAnnotationName: the same fields */
enum { INTERNED_IID = 1, INTERNED_NAME = 2 };
/* track_event/track_descriptor.proto, message TrackDescriptor */
enum { TRACK_UUID = 1, TRACK_PROCESS = 3, TRACK_THREAD = 4, TRACK_PARENT_UUID = 5 };
/* track_event/process_descriptor.proto, message ProcessDescriptor */
enum { PROCESS_PID = 1, PROCESS_NAME = 6 };
/* track_event/thread_descriptor.proto, message ThreadDescriptor */
enum { THREAD_PID = 1, THREAD_TID = 2, THREAD_NAME = 5 };
/* track_event/track_event.proto, message TrackEvent and its enum Type */
enum { EVENT_ANNOTATIONS = 4, EVENT_TYPE = 9, EVENT_NAME_IID = 10, EVENT_TRACK_UUID = 11, EVENT_NAME = 23 };
enum { TYPE_SLICE_BEGIN = 1, TYPE_SLICE_END = 2, TYPE_INSTANT = 3 };
/* track_event/debug_annotation.proto, message DebugAnnotation */
enum {
	ANN_NAME_IID = 1, ANN_BOOL = 2, ANN_UINT = 3, ANN_INT = 4, ANN_DOUBLE = 5, ANN_STRING = 6,
	ANN_POINTER = 7, ANN_NAME = 10,
};

/* ---- the encoder: one packet at a time, in a growing buffer ---- */

#define PB_DEPTH 6	/* Trace.packet, TracePacket.track_event, TrackEvent.debug_annotations... */
#define PB_LEN_ROOM 5	/* a nested message's length is written at its end, in at most 5 bytes */

struct pb {
	uint8_t *b;
	size_t len, cap;
	size_t open[PB_DEPTH];	/* where each open message's length goes */
	unsigned depth;
	bool oom;		/* the packet is lost */
};

static bool pb_room(struct pb *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 4096;
	uint8_t *nb;

	if (b->oom)
		return false;
	if (b->len + n <= b->cap)
		return true;
	while (cap < b->len + n)
		cap *= 2;
	nb = realloc(b->b, cap);
	if (!nb) {
		b->oom = true;
		return false;
	}
	b->b = nb;
	b->cap = cap;
	return true;
}

static size_t varint_to(uint8_t *out, uint64_t v)
{
	size_t n = 0;

	for (; v >= 0x80; v >>= 7)
		out[n++] = (uint8_t)(v | 0x80);
	out[n++] = (uint8_t)v;
	return n;
}

static void pb_varint(struct pb *b, uint64_t v)
{
	if (pb_room(b, 10))
		b->len += varint_to(b->b + b->len, v);
}

static void pb_tag(struct pb *b, unsigned field, unsigned wire)
{
	pb_varint(b, (uint64_t)field << 3 | wire);
}

/* uint32, uint64, bool and enum fields; int32 and int64 take a negative value as its 64-bit two's complement. */
static void pb_uint(struct pb *b, unsigned field, uint64_t v)
{
	pb_tag(b, field, WIRE_VARINT);
	pb_varint(b, v);
}

static void pb_double(struct pb *b, unsigned field, double d)
{
	uint64_t bits;

	memcpy(&bits, &d, sizeof(bits));
	pb_tag(b, field, WIRE_I64);
	if (pb_room(b, 8))
		for (unsigned i = 0; i < 8; i++)	/* little-endian, whatever the host */
			b->b[b->len++] = (uint8_t)(bits >> 8 * i);
}

/*
 * A string field.  Protobuf strings are UTF-8: a byte that does not start
 * a valid sequence (a name from a foreign locale) becomes U+FFFD, as in
 * the JSON format.
 */
static void pb_string(struct pb *b, unsigned field, const char *s)
{
	static const uint8_t replacement[3] = { 0xef, 0xbf, 0xbd };
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s), out = 0;
	int k;

	for (size_t i = 0; i < n; i += k > 0 ? (size_t)k : 1) {
		k = utf8_len(u + i, n - i);
		out += k > 0 ? (size_t)k : sizeof(replacement);
	}
	pb_tag(b, field, WIRE_LEN);
	pb_varint(b, out);
	if (!pb_room(b, out))
		return;
	for (size_t i = 0; i < n; i += k > 0 ? (size_t)k : 1) {
		k = utf8_len(u + i, n - i);
		memcpy(b->b + b->len, k > 0 ? u + i : replacement, k > 0 ? (size_t)k : sizeof(replacement));
		b->len += k > 0 ? (size_t)k : sizeof(replacement);
	}
}

/* A nested message: its length, known at pb_end(), goes before it. */
static void pb_begin(struct pb *b, unsigned field)
{
	pb_tag(b, field, WIRE_LEN);
	if (b->depth == PB_DEPTH)
		b->oom = true;	/* a bug: the packet is dropped, not written wrong */
	if (!pb_room(b, PB_LEN_ROOM))
		return;
	b->open[b->depth++] = b->len;
	b->len += PB_LEN_ROOM;
}

static void pb_end(struct pb *b)
{
	uint8_t len[10];
	size_t at, body, k;

	if (b->oom || !b->depth)
		return;
	at = b->open[--b->depth];
	body = b->len - at - PB_LEN_ROOM;
	k = varint_to(len, body);
	memmove(b->b + at + k, b->b + at + PB_LEN_ROOM, body);
	memcpy(b->b + at, len, k);
	b->len -= PB_LEN_ROOM - k;
}

/* ---- the writer's state ---- */

/* An event name, interned as its index + 1. */
struct interned {
	char *name;
	uint32_t hash;
};

struct perfetto_track {
	int tid;
	uint64_t uuid;
	const char *name;	/* the writer's, which may be filled later */
	char described[64];	/* the name the descriptor gave */
	struct perfetto_track *next;
};

/* Debug annotation names, interned as their index + 1. */
enum { ANN_RET, ANN_ERRNO, ANN_UNWOUND, ANN_LOST, ANN_UNFINISHED, NANNOTATIONS };
static const char *const annotation_names[NANNOTATIONS] = {
	[ANN_RET] = "ret", [ANN_ERRNO] = "errno", [ANN_UNWOUND] = "unwound", [ANN_LOST] = "lost",
	[ANN_UNFINISHED] = "unfinished",
};

struct perfetto {
	const struct trace_settings *s;
	perfetto_sink sink;
	void *ctx;
	struct pb pb;
	uint32_t sequence;
	uint64_t process_uuid;
	struct interned *names;	/* in the order they were interned */
	size_t nnames, cap_names;
	struct hashtab by_name;	/* of names, by content */
	unsigned annotations_sent;	/* bit i: annotation_names[i] interned */
	struct perfetto_track *tracks;
	uint64_t last_ns;
	uint64_t dropped;	/* packets lost for want of memory */
};

struct perfetto *perfetto_new(const struct trace_settings *s, perfetto_sink sink, void *ctx)
{
	struct perfetto *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->s = s;
	p->sink = sink;
	p->ctx = ctx;
	/*
	 * A sequence and uuids of the pid's own: the traces of a program's
	 * processes (t.perfetto-trace, t.PID.perfetto-trace) can be
	 * concatenated into one (cat), which Perfetto reads as one trace.
	 * Sequence id 0 is invalid; uuid 0 is the global track.
	 */
	p->sequence = (uint32_t)s->pid + 1;
	p->process_uuid = (uint64_t)(uint32_t)s->pid << 32;
	return p;
}

void perfetto_free(struct perfetto *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nnames; i++)
		free(p->names[i].name);
	free(p->names);
	hashtab_free(&p->by_name);
	while (p->tracks) {
		struct perfetto_track *t = p->tracks;

		p->tracks = t->next;
		free(t);
	}
	free(p->pb.b);
	free(p);
}

/* A packet starts: `timed` events have a timestamp, descriptors do not. */
static void packet_begin(struct perfetto *p, bool timed, uint64_t ns, unsigned flags)
{
	p->pb.len = 0;
	p->pb.depth = 0;
	p->pb.oom = false;
	pb_begin(&p->pb, TRACE_PACKET);
	if (timed)
		pb_uint(&p->pb, PACKET_TIMESTAMP, ns);
	if (timed && ns > p->last_ns)
		p->last_ns = ns;
	pb_uint(&p->pb, PACKET_SEQUENCE_ID, p->sequence);
	if (flags)
		pb_uint(&p->pb, PACKET_SEQUENCE_FLAGS, flags);
}

static void packet_end(struct perfetto *p)
{
	pb_end(&p->pb);
	if (p->pb.oom)
		p->dropped++;
	else
		p->sink(p->ctx, p->pb.b, p->pb.len);
}

/* ---- interning ---- */

static size_t name_hash(const void *ctx, uint32_t item)
{
	const struct perfetto *p = ctx;

	return p->names[item].hash;
}

/* What a probe looks for. */
struct probe {
	const struct interned *names;
	const char *name;
	uint32_t hash;
};

static bool same_name(const void *ctx, uint32_t item)
{
	const struct probe *q = ctx;

	return q->names[item].hash == q->hash && strcmp(q->names[item].name, q->name) == 0;
}

/*
 * The iid of an event name, *fresh when it is new (the packet must carry
 * it); 0 when out of memory, and the event is named in full.  By content:
 * the writer's names need not stay where they are.
 */
static uint64_t intern(struct perfetto *p, const char *name, bool *fresh)
{
	size_t len;
	uint32_t h = hash_fnv1a32(name, &len);
	uint32_t *slot;
	char *copy;

	*fresh = false;
	if (!hashtab_room(&p->by_name, name_hash, p))
		return 0;
	slot = hashtab_slot(&p->by_name, h, same_name, &(struct probe){ p->names, name, h });
	if (*slot)
		return (uint64_t)(*slot - 1) + 1;	/* the name's index + 1 */
	if (!grow_array(&p->names, p->nnames, &p->cap_names, sizeof(*p->names)) || !(copy = malloc(len + 1)))
		return 0;
	memcpy(copy, name, len + 1);
	p->names[p->nnames] = (struct interned){ copy, h };
	hashtab_put(&p->by_name, slot, (uint32_t)p->nnames);
	*fresh = true;
	return ++p->nnames;
}

/* InternedData for a fresh event name (iid != 0) and the annotation names in `anns` not sent yet. */
static void interned_data(struct perfetto *p, uint64_t iid, const char *name, unsigned anns)
{
	unsigned fresh = anns & ~p->annotations_sent;

	if (!iid && !fresh)
		return;
	pb_begin(&p->pb, PACKET_INTERNED_DATA);
	if (iid) {
		pb_begin(&p->pb, INTERNED_EVENT_NAMES);
		pb_uint(&p->pb, INTERNED_IID, iid);
		pb_string(&p->pb, INTERNED_NAME, name);
		pb_end(&p->pb);
	}
	for (unsigned i = 0; i < NANNOTATIONS; i++) {
		if (!(fresh & 1u << i))
			continue;
		pb_begin(&p->pb, INTERNED_ANNOTATION_NAMES);
		pb_uint(&p->pb, INTERNED_IID, i + 1);
		pb_string(&p->pb, INTERNED_NAME, annotation_names[i]);
		pb_end(&p->pb);
	}
	pb_end(&p->pb);
	p->annotations_sent |= fresh;
}

/* ---- tracks ---- */

void perfetto_start(struct perfetto *p, const char *note)
{
	packet_begin(p, false, 0, SEQ_INCREMENTAL_STATE_CLEARED);
	pb_begin(&p->pb, PACKET_TRACK_DESCRIPTOR);
	pb_uint(&p->pb, TRACK_UUID, p->process_uuid);
	pb_begin(&p->pb, TRACK_PROCESS);
	pb_uint(&p->pb, PROCESS_PID, (uint64_t)(int64_t)p->s->pid);
	if (p->s->process_name && *p->s->process_name)
		pb_string(&p->pb, PROCESS_NAME, p->s->process_name);
	pb_end(&p->pb);
	pb_end(&p->pb);
	packet_end(p);
	if (!note)
		return;
	packet_begin(p, true, 0, 0);
	pb_begin(&p->pb, PACKET_TRACK_EVENT);
	pb_uint(&p->pb, EVENT_TYPE, TYPE_INSTANT);
	pb_uint(&p->pb, EVENT_TRACK_UUID, p->process_uuid);
	pb_string(&p->pb, EVENT_NAME, note);
	pb_end(&p->pb);
	packet_end(p);
}

static void describe_thread(struct perfetto *p, struct perfetto_track *t)
{
	snprintf(t->described, sizeof(t->described), "%s", t->name);
	packet_begin(p, false, 0, 0);
	pb_begin(&p->pb, PACKET_TRACK_DESCRIPTOR);
	pb_uint(&p->pb, TRACK_UUID, t->uuid);
	pb_uint(&p->pb, TRACK_PARENT_UUID, p->process_uuid);
	pb_begin(&p->pb, TRACK_THREAD);
	pb_uint(&p->pb, THREAD_PID, (uint64_t)(int64_t)p->s->pid);
	pb_uint(&p->pb, THREAD_TID, (uint64_t)(int64_t)t->tid);
	if (t->described[0])
		pb_string(&p->pb, THREAD_NAME, t->described);
	pb_end(&p->pb);
	pb_end(&p->pb);
	packet_end(p);
}

struct perfetto_track *perfetto_thread(struct perfetto *p, int tid, const char *name)
{
	struct perfetto_track *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->tid = tid;
	t->uuid = p->process_uuid | (uint32_t)tid;
	t->name = name;
	t->next = p->tracks;
	p->tracks = t;
	describe_thread(p, t);
	return t;
}

/* ---- slices ---- */

/* The exit event's value, typed; `text` holds format_return()'s text where it is VALUE_TEXT. */
static void exit_value(const struct perfetto *p, const uint64_t *ev, const struct signature *sig,
		       struct typed_value *tv, char *text, size_t len)
{
	struct raw_value v;
	struct trace_captured cap;
	struct format_opts o = { .hex = p->s->hex, .max_string = p->s->strlen_max, .read_mem = trace_read_captured,
				 .ctx = &cap, .target = &p->s->machine->values, .errno_names = p->s->errno_names };

	trace_exit_value(p->s->machine, ev, sig ? &sig->ret : NULL, &v, &cap);
	format_return_typed(sig, &v, &o, tv);
	text[0] = 0;
	if (tv->kind == VALUE_TEXT)
		format_return(text, len, sig, &v, &o);
}

/* The value of a DebugAnnotation, in the field of its type. */
static void annotation_value(struct pb *b, const struct typed_value *tv, const char *text)
{
	switch (tv->kind) {
	case VALUE_INT:
		pb_uint(b, ANN_INT, (uint64_t)tv->i);
		break;
	case VALUE_UINT:
		pb_uint(b, ANN_UINT, tv->u);
		break;
	case VALUE_BOOL:
		pb_uint(b, ANN_BOOL, tv->u);
		break;
	case VALUE_POINTER:
		pb_uint(b, ANN_POINTER, tv->u);
		break;
	case VALUE_DOUBLE:
		pb_double(b, ANN_DOUBLE, tv->d);
		break;
	case VALUE_NAME:
		pb_string(b, ANN_STRING, tv->name);
		break;
	default:
		/* format_return()'s text after "ret=": quotes, escapes and members as the text trace shows them */
		pb_string(b, ANN_STRING, strncmp(text, "ret=", 4) == 0 ? text + 4 : text);
		break;
	}
}

/* One argument as a debug annotation named for its parameter, typed as a return value of its type would be. */
static void arg_annotation(void *ctx, const char *name, const char *value, const struct sig_type *type,
			   const struct raw_value *v)
{
	struct perfetto *p = ctx;
	struct signature one = { .flags = PROTO_RELIABLE, .known = true, .ret = *type };
	struct format_opts o = { .hex = p->s->hex, .max_string = p->s->strlen_max, .read_mem = p->s->read_args,
				 .target = &p->s->machine->values };
	struct typed_value tv = { .kind = VALUE_TEXT };

	if (v)
		format_return_typed(&one, v, &o, &tv);
	pb_begin(&p->pb, EVENT_ANNOTATIONS);
	pb_string(&p->pb, ANN_NAME, *name ? name : "arg");
	annotation_value(&p->pb, &tv, value);
	pb_end(&p->pb);
}

void perfetto_begin(struct perfetto *p, struct perfetto_track *t, uint64_t ns, const char *name,
		    const uint64_t *args, const struct signature *sig)
{
	bool fresh;
	uint64_t iid;

	if (!t)
		return;
	iid = intern(p, name, &fresh);
	packet_begin(p, true, ns, SEQ_NEEDS_INCREMENTAL_STATE);
	interned_data(p, fresh ? iid : 0, name, 0);
	pb_begin(&p->pb, PACKET_TRACK_EVENT);
	pb_uint(&p->pb, EVENT_TYPE, TYPE_SLICE_BEGIN);
	pb_uint(&p->pb, EVENT_TRACK_UUID, t->uuid);
	if (iid)
		pb_uint(&p->pb, EVENT_NAME_IID, iid);
	else
		pb_string(&p->pb, EVENT_NAME, name);
	if (args) {
		/* As JSON's args: "args": "?" when the parameters are not known, "more": "..." after the last shown. */
		struct format_opts o = { .hex = p->s->hex, .max_string = p->s->strlen_max, .read_mem = p->s->read_args,
					 .target = &p->s->machine->values };
		static const struct sig_type unknown = { .cls = TC_UNKNOWN };
		int more = trace_args_each(p->s->machine->arch, sig, args, &o, arg_annotation, p);

		if (more)
			arg_annotation(p, more < 0 ? "args" : "more", more < 0 ? "?" : "...", &unknown, NULL);
	}
	pb_end(&p->pb);
	packet_end(p);
}

static int annotation_of(const char *why)
{
	for (int i = 0; i < NANNOTATIONS; i++)
		if (strcmp(annotation_names[i], why) == 0)
			return i;
	return -1;
}

void perfetto_end(struct perfetto *p, struct perfetto_track *t, uint64_t ns, const uint64_t *ev,
		  const struct signature *sig, const char *why)
{
	struct typed_value tv = { .kind = VALUE_VOID };
	char text[FORMAT_RET_SIZE(128) + 64];
	int reason = why ? annotation_of(why) : -1;
	unsigned anns = 0;

	if (!t)
		return;
	if (ev && !why)
		exit_value(p, ev, sig, &tv, text, sizeof(text));
	if (tv.kind != VALUE_VOID)
		anns |= 1u << ANN_RET | (tv.errno_name ? 1u << ANN_ERRNO : 0);
	if (reason >= 0)
		anns |= 1u << reason;
	packet_begin(p, true, ns, SEQ_NEEDS_INCREMENTAL_STATE);
	interned_data(p, 0, NULL, anns);
	pb_begin(&p->pb, PACKET_TRACK_EVENT);
	pb_uint(&p->pb, EVENT_TYPE, TYPE_SLICE_END);
	pb_uint(&p->pb, EVENT_TRACK_UUID, t->uuid);
	if (why) {
		/* Why it closed, as JSON's {"unwound": true} */
		pb_begin(&p->pb, EVENT_ANNOTATIONS);
		if (reason >= 0)
			pb_uint(&p->pb, ANN_NAME_IID, (uint64_t)reason + 1);
		else
			pb_string(&p->pb, ANN_NAME, why);
		pb_uint(&p->pb, ANN_BOOL, 1);
		pb_end(&p->pb);
	} else if (tv.kind != VALUE_VOID) {
		pb_begin(&p->pb, EVENT_ANNOTATIONS);
		pb_uint(&p->pb, ANN_NAME_IID, ANN_RET + 1);
		annotation_value(&p->pb, &tv, text);
		pb_end(&p->pb);
	}
	if (tv.errno_name) {
		pb_begin(&p->pb, EVENT_ANNOTATIONS);
		pb_uint(&p->pb, ANN_NAME_IID, ANN_ERRNO + 1);
		pb_string(&p->pb, ANN_STRING, tv.errno_name);
		pb_end(&p->pb);
	}
	pb_end(&p->pb);
	packet_end(p);
}

/* ---- the end ---- */

static void count_annotation(struct pb *b, const char *name, uint64_t n)
{
	pb_begin(b, EVENT_ANNOTATIONS);
	pb_string(b, ANN_NAME, name);
	pb_uint(b, ANN_UINT, n);
	pb_end(b);
}

void perfetto_end_trace(struct perfetto *p, const struct trace_counts *c)
{
	for (struct perfetto_track *t = p->tracks; t; t = t->next)
		if (strncmp(t->described, t->name, sizeof(t->described) - 1) != 0)
			describe_thread(p, t);
	if (c->missed_depth || c->missed_busy || c->lost) {
		/* The names JSON's otherData gives them. */
		packet_begin(p, true, p->last_ns, 0);
		pb_begin(&p->pb, PACKET_TRACK_EVENT);
		pb_uint(&p->pb, EVENT_TYPE, TYPE_INSTANT);
		pb_uint(&p->pb, EVENT_TRACK_UUID, p->process_uuid);
		pb_string(&p->pb, EVENT_NAME, "objpatch: calls not traced");
		count_annotation(&p->pb, "missed_depth", c->missed_depth);
		count_annotation(&p->pb, "missed_reentry", c->missed_busy);
		count_annotation(&p->pb, "lost", c->lost);
		pb_end(&p->pb);
		packet_end(p);
	}
	if (p->dropped)
		fprintf(stderr, "objpatch: %llu perfetto packets not written (out of memory)\n",
			(unsigned long long)p->dropped);
}
