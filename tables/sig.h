/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Signatures from __mcount_str (man/mcount-tables.5), parsed and rendered. */
#ifndef TABLES_SIG_H
#define TABLES_SIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum type_class {
	TC_UNKNOWN, TC_VOID, TC_BOOL, TC_INT, TC_UINT, TC_CHAR, TC_ENUM, TC_POINTER,
	TC_STRING, TC_FLOAT, TC_STRUCT, TC_UNION,
};

/* The classes whose value is an integer (a string's is its address): one integer register holds it. */
static inline bool sig_class_is_integer(enum type_class c)
{
	return c >= TC_BOOL && c <= TC_STRING;
}

struct enumerator {
	char *name;
	uint64_t value;		/* an int64_t when `negative`: unsigned enums reach 2^64-1 */
	bool negative;
};

/*
 * Structs and unions up to this size list their members (man/mcount-tables.5):
 * those ABIs return in registers, and those the runtime copies from the
 * memory they are returned in.
 */
#define SIG_MEMBERS_MAX_SIZE 128

/* A scalar member of a struct or union, flattened: "p.x", "a[1]". */
struct sig_member {
	char *name;
	uint64_t offset;	/* bytes from the start of the struct */
	enum type_class cls;	/* TC_BOOL .. TC_FLOAT, never a struct */
	uint64_t size;		/* 1 to 8 */
};

struct sig_type {
	enum type_class cls;
	uint64_t size;
	char *ctext;		/* with '@' where the name goes */
	char *enum_name;	/* enums only */
	struct enumerator *enumerators;
	size_t nenumerators;
	/* Structs and unions the table describes by member (version 2); else none. */
	struct sig_member *members;
	size_t nmembers;
};

struct sig_param {
	char *name;
	struct sig_type type;
};

struct signature {
	unsigned flags;		/* PROTO_RELIABLE, PROTO_VARARGS, PROTO_RET_ONLY... */
	bool known;		/* false: no DWARF described the function */
	struct sig_type ret;
	struct sig_param *params;
	size_t nparams;
};

/* Parse versions 1 and 2; -1 on a malformed string or another version. */
int sig_parse(const char *s, struct signature *out);
void sig_free(struct signature *sig);
const char *type_class_name(enum type_class c);
/* "int add(int a, int b)", "int add(?)" when only the return type is known; malloc'd. */
char *sig_prototype(const struct signature *sig, const char *name);

#endif
