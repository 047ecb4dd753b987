// SPDX-License-Identifier: GPL-2.0-only
/*
 * Functions described from DWARF.  The object's debug sections are relocated
 * into a small image of their own (debugimage.c), where every allocated
 * section has an address, so DW_AT_low_pc and DW_AT_ranges map back to
 * (section, offset): the key the recorder uses for its sites.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dwarf/debugimage.h"
#include "dwarf/producer.h"
#include "dwarf/prototypes.h"
#include "tables/sig.h"
#include "util/array.h"
#include "util/strbuf.h"
#include "util/u64map.h"

/* ---- text ---- */

/* Names come from the file: a control character would split the table's fields. */
static bool is_control(char c)
{
	return (unsigned char)c < 0x20 || c == 0x7f;
}

/* Text, each control character as '?'; the separators go through strbuf_put. */
static void put_printable(struct strbuf *b, const char *s)
{
	while (*s) {
		size_t n = 0;

		while (s[n] && !is_control(s[n]))
			n++;
		strbuf_put(b, s, n);
		s += n;
		if (*s) {
			strbuf_put(b, "?", 1);
			s++;
		}
	}
}

/* ---- type classification ---- */

/* Deep enough for any real declaration; a cycle in bad DWARF stops here. */
#define TYPE_DEPTH_MAX 32

static bool die_type(Dwarf_Die *die, Dwarf_Die *type)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(die, DW_AT_type, &a) && dwarf_formref_die(&a, type);
}

/* Strip typedefs and qualifiers: what the value really is. */
static bool resolve_type(Dwarf_Die *type, Dwarf_Die *out)
{
	Dwarf_Die cur = *type;

	for (int depth = 0; depth < TYPE_DEPTH_MAX; depth++) {
		switch (dwarf_tag(&cur)) {
		case DW_TAG_typedef:
		case DW_TAG_const_type:
		case DW_TAG_volatile_type:
		case DW_TAG_restrict_type:
		case DW_TAG_atomic_type:
		case DW_TAG_immutable_type:
			if (!die_type(&cur, &cur))
				return false;	/* const void */
			continue;
		default:
			*out = cur;
			return true;
		}
	}
	return false;
}

static uint64_t die_size(Dwarf_Die *die, unsigned addr_size)
{
	Dwarf_Word size;

	if (dwarf_aggregate_size(die, &size) == 0)
		return size;
	switch (dwarf_tag(die)) {
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		return addr_size;
	default:
		return 0;
	}
}

static bool is_plain_char(Dwarf_Die *type)
{
	Dwarf_Die t;
	Dwarf_Word enc;
	Dwarf_Attribute a;

	if (!resolve_type(type, &t) || dwarf_tag(&t) != DW_TAG_base_type)
		return false;
	if (!dwarf_attr(&t, DW_AT_encoding, &a) || dwarf_formudata(&a, &enc) != 0)
		return false;
	return (enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char) &&
	       dwarf_diename(&t) && strcmp(dwarf_diename(&t), "char") == 0;
}

static const char *base_class(Dwarf_Die *t, uint64_t size)
{
	Dwarf_Attribute a;
	Dwarf_Word enc;
	const char *name = dwarf_diename(t);

	if (!dwarf_attr(t, DW_AT_encoding, &a) || dwarf_formudata(&a, &enc) != 0)
		return "unknown";
	switch (enc) {
	case DW_ATE_boolean:
		return "bool";
	case DW_ATE_signed_char:
	case DW_ATE_unsigned_char:
		if (name && strcmp(name, "char") == 0)
			return "char";
		return enc == DW_ATE_signed_char ? "int" : "uint";
	case DW_ATE_signed:
		return "int";
	case DW_ATE_unsigned:
	case DW_ATE_UTF:
		return "uint";
	case DW_ATE_float:
		/* 12: the x87 extended long double as i386 stores it */
		return size == 4 || size == 8 || size == 12 || size == 16 ? "float" : "unknown";
	default:
		return "unknown";
	}
}

/*
 * Does a struct or union hold a floating-point value anywhere (members,
 * nested aggregates, arrays)?  ABIs return such aggregates partly or wholly
 * in FP registers (x86_64's SSE class, AArch64's HFAs): readers place the
 * listed members by the machine's rule (trace/format.c), and never print
 * them as the integer registers' bytes where they know none.
 */
static bool holds_float(Dwarf_Die *type, int depth)
{
	Dwarf_Die r, child, mt;
	Dwarf_Attribute a;
	Dwarf_Word enc;

	if (depth > TYPE_DEPTH_MAX || !resolve_type(type, &r))
		return false;
	switch (dwarf_tag(&r)) {
	case DW_TAG_base_type:
		return dwarf_attr(&r, DW_AT_encoding, &a) && dwarf_formudata(&a, &enc) == 0 &&
		       (enc == DW_ATE_float || enc == DW_ATE_complex_float);
	case DW_TAG_array_type:
		return die_type(&r, &mt) && holds_float(&mt, depth + 1);
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
		if (dwarf_child(&r, &child) != 0)
			return false;
		do {
			if (dwarf_tag(&child) == DW_TAG_member && die_type(&child, &mt) &&
			    holds_float(&mt, depth + 1))
				return true;
		} while (dwarf_siblingof(&child, &child) == 0);
		return false;
	default:
		return false;
	}
}

/*
 * Whether a member function is one the Itanium C++ ABI counts against
 * passing its class in registers: a destructor, copy or move constructor
 * the user declared (not implicit, not "= default" in the class, not
 * deleted).  The first parameter after `this` of a copy or move
 * constructor is a reference to the class itself.
 */
static bool nontrivial_special(Dwarf_Die *fn, Dwarf_Die *cls)
{
	const char *name = dwarf_diename(fn), *cname = dwarf_diename(cls);
	Dwarf_Attribute a;
	Dwarf_Word dflt = 0;
	Dwarf_Die p, ref, target;
	bool self_ref = false;

	if (!name || !cname || dwarf_hasattr(fn, DW_AT_artificial) || dwarf_hasattr(fn, DW_AT_deleted) ||
	    (dwarf_attr(fn, DW_AT_defaulted, &a) && dwarf_formudata(&a, &dflt) == 0 && dflt == DW_DEFAULTED_in_class))
		return false;
	if (name[0] == '~')
		return true;
	if (strcmp(name, cname) != 0 || dwarf_child(fn, &p) != 0)
		return false;
	do {
		if (dwarf_tag(&p) != DW_TAG_formal_parameter || dwarf_hasattr(&p, DW_AT_artificial))
			continue;
		/* The first declared parameter decides; another makes it no copy constructor. */
		if (self_ref)
			return false;
		if (!die_type(&p, &ref) ||
		    (dwarf_tag(&ref) != DW_TAG_reference_type && dwarf_tag(&ref) != DW_TAG_rvalue_reference_type) ||
		    !die_type(&ref, &target) || !resolve_type(&target, &target) ||
		    dwarf_dieoffset(&target) != dwarf_dieoffset(cls))
			return false;
		self_ref = true;
	} while (dwarf_siblingof(&p, &p) == 0);
	return self_ref;
}

/*
 * Does the C++ ABI return this type through a hidden address whatever its
 * size: a class that is not trivially copyable, because of its own special
 * members or those of a base or member (clang says so itself, in
 * DW_AT_calling_convention)?
 */
static bool passed_by_reference(Dwarf_Die *type, int depth)
{
	Dwarf_Die r, child, mt;
	Dwarf_Attribute a;
	Dwarf_Word cc;

	if (depth > TYPE_DEPTH_MAX || !resolve_type(type, &r))
		return false;
	if (dwarf_tag(&r) == DW_TAG_array_type)
		return die_type(&r, &mt) && passed_by_reference(&mt, depth + 1);
	if (dwarf_tag(&r) != DW_TAG_structure_type && dwarf_tag(&r) != DW_TAG_class_type &&
	    dwarf_tag(&r) != DW_TAG_union_type)
		return false;
	if (dwarf_attr(&r, DW_AT_calling_convention, &a) && dwarf_formudata(&a, &cc) == 0)
		return cc == DW_CC_pass_by_reference;
	if (dwarf_child(&r, &child) != 0)
		return false;
	do {
		switch (dwarf_tag(&child)) {
		case DW_TAG_subprogram:
			if (nontrivial_special(&child, &r))
				return true;
			break;
		case DW_TAG_inheritance:
		case DW_TAG_member:
			if (!dwarf_hasattr(&child, DW_AT_declaration) && die_type(&child, &mt) &&
			    passed_by_reference(&mt, depth + 1))
				return true;
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/*
 * Whether an enum's values are unsigned: DW_FORM_dataN carry no sign, the
 * enum's underlying type (DW_AT_type, or gcc's DW_AT_encoding on the enum)
 * says.  Without either, only DW_FORM_udata is taken as unsigned.
 */
static bool enum_is_unsigned(Dwarf_Die *t)
{
	Dwarf_Die under, r;
	Dwarf_Attribute a;
	Dwarf_Word enc;

	if (die_type(t, &under) && resolve_type(&under, &r) &&
	    dwarf_attr(&r, DW_AT_encoding, &a) && dwarf_formudata(&a, &enc) == 0)
		return enc == DW_ATE_unsigned || enc == DW_ATE_unsigned_char || enc == DW_ATE_boolean;
	if (dwarf_attr(t, DW_AT_encoding, &a) && dwarf_formudata(&a, &enc) == 0)
		return enc == DW_ATE_unsigned || enc == DW_ATE_unsigned_char;
	return false;
}

/* An enumerator's name: ',' and '=' delimit the list (man/mcount-tables.5). */
static void put_enumerator_name(struct strbuf *b, const char *name)
{
	for (; *name; name++)
		strbuf_put(b, is_control(*name) || *name == ',' || *name == '=' ? "?" : name, 1);
}

static void put_enumerators(struct strbuf *b, Dwarf_Die *t)
{
	Dwarf_Die child;
	bool first = true, is_unsigned = enum_is_unsigned(t);

	if (dwarf_child(t, &child) != 0)
		return;
	do {
		Dwarf_Attribute a;
		const char *name = dwarf_diename(&child);

		if (dwarf_tag(&child) != DW_TAG_enumerator || !name ||
		    !dwarf_attr(&child, DW_AT_const_value, &a))
			continue;
		if (!first)
			put_printable(b, ",");
		first = false;
		put_enumerator_name(b, name);
		if (is_unsigned || dwarf_whatform(&a) == DW_FORM_udata) {
			Dwarf_Word u = 0;

			dwarf_formudata(&a, &u);
			strbuf_printf(b, "=%llu", (unsigned long long)u);
		} else {
			Dwarf_Sword s = 0;

			dwarf_formsdata(&a, &s);
			strbuf_printf(b, "=%lld", (long long)s);
		}
	} while (dwarf_siblingof(&child, &child) == 0);
}

/* ---- the members of structs and unions ---- */

/* Structs and unions up to this size list their members (tables/sig.h says why). */
#define MEMBERS_MAX_SIZE SIG_MEMBERS_MAX_SIZE
/* A longer list would not fit a trace line (a char array is one member per element). */
#define MEMBERS_MAX_COUNT 48

struct member_walk {
	struct strbuf out;
	unsigned addr_size;
	uint64_t agg_size;	/* the outer struct's: a member past it is a broken description */
	bool ok;	/* false: a member the table cannot describe (bitfield, big or unknown scalar) */
	unsigned count;
};

static void walk_value(struct member_walk *w, Dwarf_Die *type, const char *name, uint64_t off, int depth);

/* A member's name in the list: ',' and ':' delimit it (man/mcount-tables.5). */
static void put_member_name(struct strbuf *b, const char *name)
{
	for (; *name; name++)
		strbuf_put(b, is_control(*name) || *name == ',' || *name == ':' ? "?" : name, 1);
}

/* The class a scalar member prints by, or NULL for one the list does not describe. */
static const char *member_class(Dwarf_Die *r, uint64_t size)
{
	switch (dwarf_tag(r)) {
	case DW_TAG_base_type: {
		const char *cls = base_class(r, size);

		return strcmp(cls, "unknown") == 0 ? NULL : cls;
	}
	case DW_TAG_enumeration_type:
		return "enum";
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		return "pointer";	/* char * too: a member is not read through */
	default:
		return NULL;
	}
}

static void walk_scalar(struct member_walk *w, Dwarf_Die *r, const char *name, uint64_t off)
{
	uint64_t size = die_size(r, w->addr_size);
	const char *cls = member_class(r, size);

	if (!cls || !size || size > 8 || off > w->agg_size || size > w->agg_size - off || !*name ||
	    ++w->count > MEMBERS_MAX_COUNT) {
		w->ok = false;
		return;
	}
	if (w->out.len)
		strbuf_put(&w->out, ",", 1);
	put_member_name(&w->out, name);
	strbuf_printf(&w->out, ":%llu:%s:%llu", (unsigned long long)off, cls, (unsigned long long)size);
}

/* Each element as NAME[i]; an array without a count is not described. */
static void walk_array(struct member_walk *w, Dwarf_Die *r, const char *name, uint64_t off, int depth)
{
	Dwarf_Die elem, sub, er;
	Dwarf_Attribute a;
	Dwarf_Word count = 0, esize;

	if (!die_type(r, &elem) || !resolve_type(&elem, &er) || dwarf_child(r, &sub) != 0 ||
	    dwarf_tag(&sub) != DW_TAG_subrange_type) {
		w->ok = false;
		return;
	}
	if (!(dwarf_attr(&sub, DW_AT_count, &a) && dwarf_formudata(&a, &count) == 0)) {
		if (dwarf_attr(&sub, DW_AT_upper_bound, &a) && dwarf_formudata(&a, &count) == 0)
			count++;
		else
			w->ok = false;
	}
	esize = die_size(&er, w->addr_size);
	if (!esize || count > MEMBERS_MAX_SIZE || dwarf_siblingof(&sub, &sub) == 0)
		w->ok = false;	/* multi-dimensional arrays: not described */
	for (Dwarf_Word i = 0; w->ok && i < count; i++) {
		char *n = NULL;

		if (asprintf(&n, "%s[%llu]", name, (unsigned long long)i) < 0) {
			w->out.oom = true;
			return;
		}
		walk_value(w, &elem, n, off + i * esize, depth + 1);
		free(n);
	}
}

/* The members of a struct or union at `off`, their names after `prefix` and a dot. */
static void walk_members(struct member_walk *w, Dwarf_Die *agg, const char *prefix, uint64_t off, int depth)
{
	Dwarf_Die child, mt;

	if (dwarf_child(agg, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);
		Dwarf_Attribute a;
		Dwarf_Word loc = 0;
		const char *mn = tag == DW_TAG_member ? dwarf_diename(&child) : NULL;
		char *n = NULL;

		if ((tag != DW_TAG_member && tag != DW_TAG_inheritance) ||
		    dwarf_hasattr(&child, DW_AT_declaration))	/* C++ static members */
			continue;
		if (dwarf_hasattr(&child, DW_AT_bit_size) || dwarf_hasattr(&child, DW_AT_data_bit_offset) ||
		    !die_type(&child, &mt) ||
		    (dwarf_attr(&child, DW_AT_data_member_location, &a) && dwarf_formudata(&a, &loc) != 0)) {
			w->ok = false;	/* bitfields; locations as expressions (DWARF 2) */
			return;
		}
		/* Anonymous members and base classes: their members are the parent's. */
		if (asprintf(&n, "%s%s%s", prefix, *prefix && mn ? "." : "", mn ? mn : "") < 0) {
			w->out.oom = true;
			return;
		}
		walk_value(w, &mt, n, off + loc, depth + 1);
		free(n);
	} while (w->ok && dwarf_siblingof(&child, &child) == 0);
}

static void walk_value(struct member_walk *w, Dwarf_Die *type, const char *name, uint64_t off, int depth)
{
	Dwarf_Die r;

	if (depth > TYPE_DEPTH_MAX || !resolve_type(type, &r)) {
		w->ok = false;
		return;
	}
	switch (dwarf_tag(&r)) {
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
		walk_members(w, &r, name, off, depth);
		return;
	case DW_TAG_array_type:
		walk_array(w, &r, name, off, depth);
		return;
	default:
		walk_scalar(w, &r, name, off);
		return;
	}
}

/*
 * US MEMBERS for a struct or union of at most MEMBERS_MAX_SIZE bytes whose
 * members, flattened ("p.x", "a[1]"), are all scalars of up to 8 bytes,
 * MEMBERS_MAX_COUNT at most:
 * NAME:OFFSET:CLASS:SIZE, separated by commas (man/mcount-tables.5).
 * Nothing for others: they print as bytes.
 */
static void put_members(struct strbuf *b, Dwarf_Die *agg, uint64_t size, unsigned addr_size)
{
	struct member_walk w = { .addr_size = addr_size, .agg_size = size, .ok = true };

	if (size > MEMBERS_MAX_SIZE || !size)
		return;
	walk_members(&w, agg, "", 0, 0);
	if (w.out.oom)
		b->oom = true;
	if (w.ok && w.out.len) {
		strbuf_put(b, PROTO_US, 1);
		strbuf_put(b, w.out.s, w.out.len);
	}
	free(w.out.s);
}

/* ---- C declarations: text around the declared name, '@' marking its place ---- */

struct decl {
	struct strbuf pre, post;
};

static void decl_type(Dwarf_Die *type, bool have_type, struct decl *d, int depth);

static void put_params(struct strbuf *b, Dwarf_Die *fn, int depth)
{
	Dwarf_Die child;
	bool first = true;

	put_printable(b, "(");
	if (dwarf_child(fn, &child) == 0) {
		do {
			int tag = dwarf_tag(&child);

			if (tag != DW_TAG_formal_parameter && tag != DW_TAG_unspecified_parameters)
				continue;
			if (!first)
				put_printable(b, ", ");
			first = false;
			if (tag == DW_TAG_unspecified_parameters) {
				put_printable(b, "...");
				continue;
			}
			Dwarf_Die t;
			struct decl d = { 0 };

			decl_type(&t, die_type(&child, &t), &d, depth + 1);
			/* A parameter of a function type has no name: drop the marker. */
			char *at = d.pre.s ? strchr(d.pre.s, '@') : NULL;

			if (at) {
				size_t keep = (size_t)(at - d.pre.s);

				if (keep && d.pre.s[keep - 1] == ' ')
					keep--;
				strbuf_put(b, d.pre.s, keep);
				put_printable(b, at + 1);
			} else {
				put_printable(b, d.pre.s ? d.pre.s : "");
			}
			put_printable(b, d.post.s ? d.post.s : "");
			free(d.pre.s);
			free(d.post.s);
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	if (first && dwarf_hasattr(fn, DW_AT_prototyped))
		put_printable(b, "void");
	put_printable(b, ")");
}

static void scope_name(struct strbuf *b, Dwarf_Die *t)
{
	const char *kw = "";
	const char *name = dwarf_diename(t);

	switch (dwarf_tag(t)) {
	case DW_TAG_structure_type:
		kw = "struct ";
		break;
	case DW_TAG_class_type:
		kw = "class ";
		break;
	case DW_TAG_union_type:
		kw = "union ";
		break;
	case DW_TAG_enumeration_type:
		kw = "enum ";
		break;
	default:
		break;
	}
	put_printable(b, kw);
	put_printable(b, name ? name : "<anonymous>");
}

/* Prepend `s` to d->pre. */
static void pre_prepend(struct decl *d, const char *s)
{
	struct strbuf n = { 0 };

	put_printable(&n, s);
	put_printable(&n, d->pre.s ? d->pre.s : "");
	free(d->pre.s);
	d->pre = n;
}

static void decl_type(Dwarf_Die *type, bool have_type, struct decl *d, int depth)
{
	Dwarf_Die inner;
	bool have_inner;

	if (depth > TYPE_DEPTH_MAX) {
		put_printable(&d->pre, "? @");
		return;
	}
	if (!have_type) {
		put_printable(&d->pre, "void @");
		return;
	}
	have_inner = die_type(type, &inner);
	switch (dwarf_tag(type)) {
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type: {
		const char *op = dwarf_tag(type) == DW_TAG_pointer_type ? "*" :
				 dwarf_tag(type) == DW_TAG_reference_type ? "&" : "&&";
		Dwarf_Die r;
		bool wrap = have_inner && resolve_type(&inner, &r) &&
			    (dwarf_tag(&r) == DW_TAG_subroutine_type || dwarf_tag(&r) == DW_TAG_array_type);

		/* The pointee's text with '@' replaced by "*@" or "(*@)". */
		struct decl sub = { 0 };

		decl_type(&inner, have_inner, &sub, depth + 1);
		char *at = sub.pre.s ? strchr(sub.pre.s, '@') : NULL;

		if (!at) {
			put_printable(&d->pre, sub.pre.s ? sub.pre.s : "");
		} else {
			strbuf_put(&d->pre, sub.pre.s, (size_t)(at - sub.pre.s));
			if (wrap)
				put_printable(&d->pre, "(");
			put_printable(&d->pre, op);
			put_printable(&d->pre, "@");
			if (wrap)
				put_printable(&d->pre, ")");
			put_printable(&d->pre, at + 1);
		}
		put_printable(&d->post, sub.post.s ? sub.post.s : "");
		free(sub.pre.s);
		free(sub.post.s);
		return;
	}
	case DW_TAG_const_type:
	case DW_TAG_volatile_type: {
		const char *q = dwarf_tag(type) == DW_TAG_const_type ? "const" : "volatile";
		Dwarf_Die r;

		decl_type(&inner, have_inner, d, depth + 1);
		if (have_inner && resolve_type(&inner, &r) && dwarf_tag(&r) == DW_TAG_pointer_type &&
		    dwarf_tag(&inner) == DW_TAG_pointer_type) {
			/* char *const p: the qualifier goes after the star */
			char *at = strrchr(d->pre.s, '@');
			struct strbuf n = { 0 };

			strbuf_put(&n, d->pre.s, (size_t)(at - d->pre.s));
			put_printable(&n, q);
			put_printable(&n, " @");
			put_printable(&n, at + 1);
			free(d->pre.s);
			d->pre = n;
		} else {
			char tmp[16];

			snprintf(tmp, sizeof(tmp), "%s ", q);
			pre_prepend(d, tmp);
		}
		return;
	}
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type:
		decl_type(&inner, have_inner, d, depth + 1);
		return;
	case DW_TAG_array_type: {
		decl_type(&inner, have_inner, d, depth + 1);
		struct strbuf n = { 0 };
		Dwarf_Die sub;
		Dwarf_Word count = 0;

		if (dwarf_child(type, &sub) == 0 && dwarf_tag(&sub) == DW_TAG_subrange_type) {
			Dwarf_Attribute a;

			if (dwarf_attr(&sub, DW_AT_count, &a) && dwarf_formudata(&a, &count) == 0)
				strbuf_printf(&n, "[%llu]", (unsigned long long)count);
			else if (dwarf_attr(&sub, DW_AT_upper_bound, &a) && dwarf_formudata(&a, &count) == 0)
				strbuf_printf(&n, "[%llu]", (unsigned long long)count + 1);
			else
				put_printable(&n, "[]");
		} else {
			put_printable(&n, "[]");
		}
		put_printable(&n, d->post.s ? d->post.s : "");
		free(d->post.s);
		d->post = n;
		return;
	}
	case DW_TAG_subroutine_type: {
		decl_type(&inner, have_inner, d, depth + 1);
		struct strbuf n = { 0 };

		put_params(&n, type, depth);
		put_printable(&n, d->post.s ? d->post.s : "");
		free(d->post.s);
		d->post = n;
		return;
	}
	case DW_TAG_base_type:
	case DW_TAG_typedef:
	case DW_TAG_unspecified_type: {
		const char *name = dwarf_diename(type);

		put_printable(&d->pre, name ? name : "?");
		put_printable(&d->pre, " @");
		return;
	}
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type:
		scope_name(&d->pre, type);
		put_printable(&d->pre, " @");
		return;
	default:
		put_printable(&d->pre, "? @");
		return;
	}
}

/* "T *@" reads better as "T *@" but "int @" keeps its space: nothing to do. */
static char *decl_text(Dwarf_Die *type, bool have_type)
{
	struct decl d = { 0 };
	struct strbuf out = { 0 };

	decl_type(type, have_type, &d, 0);
	put_printable(&out, d.pre.s ? d.pre.s : "");
	put_printable(&out, d.post.s ? d.post.s : "");
	free(d.pre.s);
	free(d.post.s);
	return strbuf_take(&out);
}

/*
 * The descriptor of a type: CLASS US SIZE US CTEXT, and for enums
 * US NAME US ENUMERATORS (man/mcount-tables.5).
 */
static char *describe_type(Dwarf_Die *type, bool have_type, unsigned addr_size)
{
	struct strbuf b = { 0 };
	Dwarf_Die r;
	const char *cls = "unknown";
	uint64_t size = 0;
	char *ctext;

	if (!have_type) {
		cls = "void";
	} else if (resolve_type(type, &r)) {
		size = die_size(&r, addr_size);
		switch (dwarf_tag(&r)) {
		case DW_TAG_base_type:
			cls = base_class(&r, size);
			break;
		case DW_TAG_enumeration_type:
			cls = "enum";
			break;
		case DW_TAG_pointer_type: {
			Dwarf_Die pointee;

			cls = die_type(&r, &pointee) && is_plain_char(&pointee) ? "string" : "pointer";
			break;
		}
		case DW_TAG_reference_type:
		case DW_TAG_rvalue_reference_type:
		case DW_TAG_ptr_to_member_type:
			cls = "pointer";
			break;
		case DW_TAG_structure_type:
		case DW_TAG_class_type:
			cls = "struct";
			break;
		case DW_TAG_union_type:
			cls = "union";
			break;
		default:
			break;
		}
	} else {
		cls = "void";	/* const void and the like */
	}
	ctext = decl_text(type, have_type);
	strbuf_printf(&b, "%s" PROTO_US "%llu" PROTO_US, cls, (unsigned long long)size);
	put_printable(&b, ctext ? ctext : "?");
	free(ctext);
	if (strcmp(cls, "enum") == 0) {
		const char *name = dwarf_diename(&r);

		strbuf_put(&b, PROTO_US, 1);
		put_printable(&b, name ? name : "");
		strbuf_put(&b, PROTO_US, 1);
		put_enumerators(&b, &r);
	} else if (strcmp(cls, "struct") == 0 || strcmp(cls, "union") == 0) {
		put_members(&b, &r, size, addr_size);
	}
	return strbuf_take(&b);
}

/*
 * Types repeat across a file's functions: describe each type DIE once.
 * The DIE's offset + 1 (0, "void", is no DIE's) indexes the descriptors,
 * which stay owned by the cache.
 */
struct type_cache {
	struct u64map index;
	char **desc;
	size_t n, cap;
};

static void type_cache_free(struct type_cache *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->desc[i]);
	free(c->desc);
	u64map_free(&c->index);
	memset(c, 0, sizeof(*c));
}

/* A copy of the type's descriptor. */
static char *describe_type_cached(struct type_cache *c, Dwarf_Die *type, bool have_type, unsigned asz)
{
	uint64_t key = (have_type ? dwarf_dieoffset(type) : 0) + 1;
	struct u64map_entry *e = u64map_find(&c->index, key);
	char *desc;

	if (!e)
		return NULL;
	if (e->key)
		return strdup(c->desc[e->value]);
	if (!grow_array(&c->desc, c->n, &c->cap, sizeof(*c->desc)) || !(desc = describe_type(type, have_type, asz)))
		return NULL;
	u64map_add(&c->index, e, key, (uint32_t)c->n);
	c->desc[c->n++] = desc;
	return strdup(desc);
}

/* ---- attributes ---- */

/*
 * The attributes a function or parameter description needs, found in one
 * pass over the DIE (each dwarf_attr_integrate is a pass, and follows
 * abstract origins on a miss): what is missing is then looked up once in
 * the origin or specification.
 */
struct die_attrs {
	Dwarf_Attribute type, name, cc, linkage, origin, spec;
	bool has_type, has_name, has_cc, has_linkage, has_origin, has_spec;
	/* Whether a pass saw them: index_codeless reads them after one DIE's pass. */
	bool has_low_pc, has_ranges, has_declaration;
};

static int collect_attr(Dwarf_Attribute *a, void *arg)
{
	struct die_attrs *da = arg;

	switch (dwarf_whatattr(a)) {
#define TAKE(attr, field) case attr: if (!da->has_##field) { da->field = *a; da->has_##field = true; } break
	TAKE(DW_AT_type, type);
	TAKE(DW_AT_name, name);
	TAKE(DW_AT_calling_convention, cc);
	TAKE(DW_AT_linkage_name, linkage);
	TAKE(DW_AT_MIPS_linkage_name, linkage);
	TAKE(DW_AT_abstract_origin, origin);
	TAKE(DW_AT_specification, spec);
#undef TAKE
	case DW_AT_low_pc:
		da->has_low_pc = true;
		break;
	case DW_AT_ranges:
		da->has_ranges = true;
		break;
	case DW_AT_declaration:
		da->has_declaration = true;
		break;
	default:
		break;
	}
	return DWARF_CB_OK;
}

/* Collect from the DIE, then fill gaps from its origin and specification chain. */
static void die_attrs(Dwarf_Die *die, struct die_attrs *da)
{
	Dwarf_Die cur = *die;

	memset(da, 0, sizeof(*da));
	dwarf_getattrs(&cur, collect_attr, da, 0);
	for (int depth = 0; depth < 4; depth++) {
		Dwarf_Attribute link;

		if (da->has_type && da->has_name && da->has_cc && da->has_linkage)
			return;
		if (da->has_spec && depth == 0)
			link = da->spec;
		else if (da->has_origin)
			link = da->origin;
		else if (da->has_spec)
			link = da->spec;
		else
			return;
		if (!dwarf_formref_die(&link, &cur))
			return;
		/* the next hop must come from the DIE just reached */
		da->has_origin = da->has_spec = false;
		dwarf_getattrs(&cur, collect_attr, da, 0);
	}
}

/* The name a symbol of the DIE has: its linkage name (C++), else its name (C). */
static const char *attrs_key(struct die_attrs *da)
{
	if (da->has_linkage)
		return dwarf_formstring(&da->linkage);
	return da->has_name ? dwarf_formstring(&da->name) : NULL;
}

static const char *named_key(Dwarf_Die *die)
{
	struct die_attrs da;

	die_attrs(die, &da);
	return attrs_key(&da);
}

/* ---- subprograms by address ---- */

struct die_at {
	uint32_t sec;
	uint64_t off;
	Dwarf_Die die;
	unsigned addr_size;
};

/*
 * A subprogram with no code range of its own that names a function: an
 * abstract instance (DW_AT_inline) whose out-of-line copy got no concrete
 * DIE, or a function gcc folded into an identical one (-fipa-icf) and
 * described without DW_AT_low_pc.  Found by the name its symbol has.
 */
struct die_named {
	const char *key;	/* its linkage name, else its DW_AT_name (libdw's string) */
	Dwarf_Off cu;		/* its unit's DIE offset */
	Dwarf_Die die;
	unsigned addr_size;
};

/* The code of one unit: [from, to) of section `sec`. */
struct cu_span {
	uint32_t sec;
	uint64_t from, to;
	Dwarf_Off cu;
};

struct die_index {
	struct die_at *v;
	size_t n, cap;
	struct die_named *named;
	size_t nnamed, capnamed;
	bool named_sorted;	/* by key, then DIE offset: named_first sorts them once */
	struct cu_span *spans;
	size_t nspans, capspans;
	size_t untyped_units;	/* built at -g1: no types */
	bool oom;
};

struct index_ctx {
	const struct debug_image *img;
	const struct elfobj *obj;
};

static void index_add(struct die_index *ix, const struct index_ctx *cx, Dwarf_Addr addr, Dwarf_Die *die,
		      unsigned addr_size)
{
	uint32_t shndx;

	if (!debug_image_locate(cx->img, cx->obj, addr, &shndx, &addr))
		return;
	if (!grow_array(&ix->v, ix->n, &ix->cap, sizeof(*ix->v))) {
		ix->oom = true;
		return;
	}
	ix->v[ix->n++] = (struct die_at){ shndx, addr, *die, addr_size };
}

/* A definition without code: kept by name (`key`), for the symbols no range covers. */
static void index_named_as(struct die_index *ix, Dwarf_Die *die, unsigned asz, const char *key)
{
	Dwarf_Die cu;

	if (!key || !dwarf_diecu(die, &cu, NULL, NULL))
		return;
	if (!grow_array(&ix->named, ix->nnamed, &ix->capnamed, sizeof(*ix->named))) {
		ix->oom = true;
		return;
	}
	ix->named[ix->nnamed++] = (struct die_named){ key, dwarf_dieoffset(&cu), *die, asz };
}

static void index_named(struct die_index *ix, Dwarf_Die *die, unsigned asz)
{
	if (!dwarf_hasattr(die, DW_AT_declaration))
		index_named_as(ix, die, asz, named_key(die));
}

/*
 * Most subprograms at the top of a unit have no code: declarations of the
 * functions the headers name, abstract instances of inline functions.  One
 * pass over the DIE's attributes tells them: without DW_AT_low_pc,
 * DW_AT_ranges, and an origin or specification to follow, dwarf_lowpc and
 * dwarf_ranges find nothing, and the name and declaration flag are the
 * DIE's own.  Returns false for a DIE the general path must read.
 */
static bool index_codeless(struct die_index *ix, Dwarf_Die *die, unsigned asz)
{
	struct die_attrs da;

	memset(&da, 0, sizeof(da));
	if (dwarf_getattrs(die, collect_attr, &da, 0) != 1 || da.has_low_pc || da.has_ranges ||
	    da.has_origin || da.has_spec)
		return false;
	if (!da.has_declaration)
		index_named_as(ix, die, asz, attrs_key(&da));
	return true;
}

static void index_subprogram(struct die_index *ix, const struct index_ctx *mod, Dwarf_Die *die,
			     unsigned asz)
{
	Dwarf_Addr low, base, start, end;
	ptrdiff_t off = 0;
	bool any = false;

	if (index_codeless(ix, die, asz))
		return;
	if (dwarf_lowpc(die, &low) == 0) {
		index_add(ix, mod, low, die, asz);
		return;
	}
	/* Hot/cold split functions: the entry is where a range starts. */
	while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0) {
		index_add(ix, mod, start, die, asz);
		any = true;
	}
	if (!any)
		index_named(ix, die, asz);
}

/* Where a unit's code lies, to tell which unit a symbol without a DIE belongs to. */
static void index_unit_spans(struct die_index *ix, const struct index_ctx *cx, Dwarf_Die *cudie)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;
	uint32_t sec;
	uint64_t from;

	while ((off = dwarf_ranges(cudie, off, &base, &start, &end)) > 0) {
		if (end <= start || !debug_image_locate(cx->img, cx->obj, start, &sec, &from))
			continue;
		if (!grow_array(&ix->spans, ix->nspans, &ix->capspans, sizeof(*ix->spans))) {
			ix->oom = true;
			return;
		}
		ix->spans[ix->nspans++] = (struct cu_span){ sec, from, from + (end - start),
							    dwarf_dieoffset(cudie) };
	}
}

static void index_scope(struct die_index *ix, const struct index_ctx *mod, Dwarf_Die *parent, unsigned asz,
			int depth)
{
	Dwarf_Die child;

	if (depth > TYPE_DEPTH_MAX || dwarf_child(parent, &child) != 0)
		return;
	do {
		/*
		 * Code lives in subprograms at unit or namespace level; C++
		 * members are declared in classes but defined outside them.
		 * Not descending into functions (only GNU C nested functions
		 * hide there; they stay unknown) keeps this walk to the top.
		 */
		switch (dwarf_tag(&child)) {
		case DW_TAG_subprogram:
			index_subprogram(ix, mod, &child, asz);
			break;
		case DW_TAG_namespace:
			index_scope(ix, mod, &child, asz, depth + 1);
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
}

static int cmp_die_at(const void *a, const void *b)
{
	const struct die_at *x = a, *y = b;

	if (x->sec != y->sec)
		return x->sec < y->sec ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* The subprogram at the query's address, else the first one inside its symbol. */
static const struct die_at *index_find(const struct die_index *ix, const struct func_query *q)
{
	size_t lo = 0, hi = ix->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct die_at *d = &ix->v[mid];

		if (d->sec < q->sec || (d->sec == q->sec && d->off < q->off))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == ix->n || ix->v[lo].sec != q->sec)
		return NULL;
	if (ix->v[lo].off == q->off || ix->v[lo].off - q->off < q->size)
		return &ix->v[lo];
	return NULL;
}

/* ---- one function ---- */

/*
 * Where the suffix gcc gives a copy of a function starts in its symbol
 * ("foo.isra.0", "_ZL3barv.constprop.0.isra.0"), or NULL for none.
 */
static const char *clone_suffix(const char *sym)
{
	static const char *const clone_marks[] = { ".isra.", ".constprop.", ".part.", ".cold", ".specialized." };
	const char *first = NULL;

	for (size_t i = 0; i < sizeof(clone_marks) / sizeof(clone_marks[0]); i++) {
		const char *at = strstr(sym, clone_marks[i]);

		if (at && (!first || at < first))
			first = at;
	}
	return first;
}

static bool is_clone_symbol(const char *sym)
{
	return clone_suffix(sym) != NULL;
}

static void qualified_name(struct strbuf *b, Dwarf_Die *die)
{
	Dwarf_Die *scopes = NULL;
	int n = dwarf_getscopes_die(die, &scopes);
	const char *name = dwarf_diename(die);

	/* scopes[0] is the DIE itself, the last one the CU. */
	for (int i = n - 2; i >= 1; i--) {
		int tag = dwarf_tag(&scopes[i]);
		const char *sn = dwarf_diename(&scopes[i]);

		/* c++filt's words for an anonymous namespace: the symbol's _GLOBAL__N_1 read */
		if (tag == DW_TAG_namespace && !sn)
			sn = "(anonymous namespace)";
		if ((tag == DW_TAG_namespace || tag == DW_TAG_structure_type ||
		     tag == DW_TAG_class_type || tag == DW_TAG_union_type) && sn) {
			put_printable(b, sn);
			put_printable(b, "::");
		}
	}
	free(scopes);
	put_printable(b, name ? name : "?");
}

/* Is the DIE's unit C++ (whose symbols are mangled)? */
static bool is_cplusplus(Dwarf_Die *die)
{
	Dwarf_Die cu;

	if (!dwarf_diecu(die, &cu, NULL, NULL))
		return false;
	switch (dwarf_srclang(&cu)) {
	case DW_LANG_C_plus_plus:
	case DW_LANG_C_plus_plus_03:
	case DW_LANG_C_plus_plus_11:
	case DW_LANG_C_plus_plus_14:
	case DW_LANG_ObjC_plus_plus:
		return true;
	default:
		return false;
	}
}

static int describe_param(struct type_cache *tc, Dwarf_Die *param, unsigned asz, struct proto_param *p)
{
	struct die_attrs da;
	Dwarf_Die t;
	const char *pn;

	die_attrs(param, &da);
	p->type = describe_type_cached(tc, &t, da.has_type && dwarf_formref_die(&da.type, &t), asz);
	pn = da.has_name ? dwarf_formstring(&da.name) : NULL;
	p->name = strdup(pn ? pn : "");
	for (char *c = p->name; c && *c; c++)
		if (is_control(*c))
			*c = '?';
	return p->type && p->name ? 0 : -1;
}

static int describe_function(struct type_cache *tc, const struct die_at *at, const struct func_query *q,
			     struct func_proto *fp)
{
	Dwarf_Die die = at->die, t, child, origin, *params_of = &die;
	Dwarf_Attribute a;
	struct die_attrs da;
	struct strbuf name = { 0 };
	size_t cap = 0;

	memset(fp, 0, sizeof(*fp));
	fp->sec = q->sec;
	fp->off = q->off;
	fp->flags = PROTO_RELIABLE;
	die_attrs(&die, &da);
	if (is_clone_symbol(q->symbol))
		fp->flags &= (uint8_t)~PROTO_RELIABLE;
	if (da.has_cc) {
		Dwarf_Word cc;

		if (dwarf_formudata(&da.cc, &cc) == 0 && cc == DW_CC_nocall)
			fp->flags &= (uint8_t)~PROTO_RELIABLE;
	}
	/*
	 * One rule for every name: C++ names read qualified, as DWARF spells
	 * them, never mangled (functions of internal linkage have no linkage
	 * name but a mangled symbol); C keeps its symbol's name.  A gcc copy
	 * keeps the suffix its symbol has (".isra.0"), in C++ as in C.
	 */
	if (da.has_linkage || is_cplusplus(&die)) {
		Dwarf_Die *decl = &die;

		if (dwarf_attr(&die, DW_AT_abstract_origin, &a) && dwarf_formref_die(&a, &origin))
			decl = &origin;
		if (dwarf_attr(decl, DW_AT_specification, &a) && dwarf_formref_die(&a, &origin))
			decl = &origin;
		qualified_name(&name, decl);
		put_printable(&name, clone_suffix(q->symbol) ? clone_suffix(q->symbol) : "");
	} else {
		put_printable(&name, q->symbol);
	}
	fp->name = strbuf_take(&name);
	fp->ret = describe_type_cached(tc, &t, da.has_type && dwarf_formref_die(&da.type, &t), at->addr_size);
	if (!fp->name || !fp->ret)
		return -1;
	if (da.has_type && dwarf_formref_die(&da.type, &t) && resolve_type(&t, &origin) &&
	    dwarf_tag(&origin) != DW_TAG_base_type && holds_float(&t, 0))
		fp->flags |= PROTO_RET_FP;
	if (da.has_type && dwarf_formref_die(&da.type, &t) && passed_by_reference(&t, 0))
		fp->flags |= PROTO_RET_MEM;

	/*
	 * Parameters: the concrete instance's, or the abstract origin's.  Its
	 * first child, when it has one, is not looked for twice: dwarf_child
	 * reads past every attribute of the DIE.
	 */
	if (dwarf_child(&die, &child) != 0) {
		if (dwarf_attr(&die, DW_AT_abstract_origin, &a) && dwarf_formref_die(&a, &origin))
			params_of = &origin;
		if (dwarf_child(params_of, &child) != 0)
			return 0;
	}
	do {
		int tag = dwarf_tag(&child);

		if (tag == DW_TAG_unspecified_parameters) {
			fp->flags |= PROTO_VARARGS;
			continue;
		}
		if (tag != DW_TAG_formal_parameter)
			continue;
		if (!grow_array(&fp->params, fp->nparams, &cap, sizeof(*fp->params)))
			return -1;
		if (describe_param(tc, &child, at->addr_size, &fp->params[fp->nparams++]) < 0)
			return -1;
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

static void func_proto_free(struct func_proto *fp)
{
	for (size_t i = 0; i < fp->nparams; i++) {
		free(fp->params[i].name);
		free(fp->params[i].type);
	}
	free(fp->params);
	free(fp->name);
	free(fp->ret);
}

void protos_free(struct proto_set *set)
{
	for (size_t i = 0; i < set->n; i++)
		func_proto_free(&set->v[i]);
	for (size_t i = 0; i < set->nwarnings; i++)
		free(set->warnings[i]);
	free(set->warnings);
	free(set->v);
	memset(set, 0, sizeof(*set));
}

static int cmp_die_named(const void *a, const void *b)
{
	const struct die_named *x = a, *y = b;
	int c = strcmp(x->key, y->key);
	Dwarf_Off xo = dwarf_dieoffset((Dwarf_Die *)&x->die), yo = dwarf_dieoffset((Dwarf_Die *)&y->die);

	if (c)
		return c;
	return xo < yo ? -1 : xo > yo;
}

/* At -g1 (-ggdb1) a function's DIE has no types: every function would read as void f(void). */
static int debug_level(Dwarf_Die *cudie)
{
	Dwarf_Attribute a;

	return producer_debug_level(dwarf_formstring(dwarf_attr(cudie, DW_AT_producer, &a)));
}

static int build_index(const struct index_ctx *mod, Dwarf *dw, struct die_index *ix)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie, subdie;
	uint8_t unit_type;

	while (dwarf_get_units(dw, cu, &cu, NULL, &unit_type, &cudie, &subdie) == 0) {
		Dwarf_Die *top = unit_type == DW_UT_skeleton ? &subdie : &cudie;
		uint8_t asz = 0;

		if (unit_type == DW_UT_type || unit_type == DW_UT_split_type)
			continue;
		if (!cudie.cu)
			continue;	/* a unit libdw could not read (unknown type) */
		if (unit_type == DW_UT_skeleton && !dwarf_tag(&subdie))
			continue;	/* the .dwo is not there */
		dwarf_diecu(&cudie, &cudie, &asz, NULL);
		if (debug_level(&cudie) < 2) {
			ix->untyped_units++;	/* its functions stay unknown, as without DWARF */
			index_unit_spans(ix, mod, &cudie);
			continue;
		}
		index_scope(ix, mod, top, asz ? asz : 8, 0);
		index_unit_spans(ix, mod, &cudie);
		if (ix->oom)
			return -1;
	}
	if (ix->n)	/* v is NULL when DWARF describes no function */
		qsort(ix->v, ix->n, sizeof(*ix->v), cmp_die_at);
	return 0;
}

/* ---- functions no code range covers ---- */

#define NO_UNIT ((Dwarf_Off)-1)

/* The unit whose code holds the query's entry, or NO_UNIT. */
static Dwarf_Off unit_of(const struct die_index *ix, const struct func_query *q)
{
	for (size_t i = 0; i < ix->nspans; i++) {
		const struct cu_span *s = &ix->spans[i];

		if (s->sec == q->sec && q->off >= s->from && q->off < s->to)
			return s->cu;
	}
	return NO_UNIT;
}

/*
 * The first of the named DIEs whose key is `key` (ix->nnamed if none).  They
 * are sorted here, at the first query no code range covers: most objects
 * have none.
 */
static size_t named_first(struct die_index *ix, const char *key)
{
	size_t lo = 0, hi = ix->nnamed;

	if (!ix->named_sorted && ix->nnamed)
		qsort(ix->named, ix->nnamed, sizeof(*ix->named), cmp_die_named);
	ix->named_sorted = true;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(ix->named[mid].key, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Do two descriptions give the code the same types? (Parameter names aside.) */
static bool same_types(const struct func_proto *a, const struct func_proto *b)
{
	if (strcmp(a->ret, b->ret) != 0 || a->nparams != b->nparams ||
	    (a->flags & PROTO_VARARGS) != (b->flags & PROTO_VARARGS))
		return false;
	for (size_t i = 0; i < a->nparams; i++)
		if (strcmp(a->params[i].type, b->params[i].type) != 0)
			return false;
	return true;
}

static int add_warning(struct proto_set *set, char *w)
{
	size_t cap = set->nwarnings;

	if (!w || !grow_array(&set->warnings, set->nwarnings, &cap, sizeof(*set->warnings))) {
		free(w);
		return -1;
	}
	set->warnings[set->nwarnings++] = w;
	return 0;
}

static int warn_disagree(struct proto_set *set, const char *symbol, const struct die_named *a,
			 const struct die_named *b)
{
	char *w = NULL;

	if (asprintf(&w, "%s: two DWARF descriptions without code disagree (DIEs 0x%llx and 0x%llx): "
		     "the first is kept as unreliable, its values print raw; build with -fno-ipa-icf "
		     "for one description per function", symbol,
		     (unsigned long long)dwarf_dieoffset((Dwarf_Die *)&a->die),
		     (unsigned long long)dwarf_dieoffset((Dwarf_Die *)&b->die)) < 0)
		return -1;
	return add_warning(set, w);
}

/*
 * A function no subprogram's code covers, described by the DIEs without
 * code that name its symbol (a clone's without its suffix) in its unit.
 * Returns 1 when one did, 0 when none, -1 when out of memory.
 */
static int describe_named(struct type_cache *tc, struct die_index *ix, const struct func_query *q,
			  struct func_proto *fp, struct proto_set *set)
{
	const char *suffix = clone_suffix(q->symbol);
	char *key = suffix ? strndup(q->symbol, (size_t)(suffix - q->symbol)) : strdup(q->symbol);
	Dwarf_Off unit = unit_of(ix, q);
	const struct die_named *first = NULL;
	int rc = 0;

	if (!key)
		return -1;
	for (size_t i = named_first(ix, key); i < ix->nnamed && strcmp(ix->named[i].key, key) == 0; i++) {
		const struct die_named *c = &ix->named[i];
		struct die_at at = { q->sec, q->off, c->die, c->addr_size };
		struct func_proto other;

		if (unit != NO_UNIT && c->cu != unit)
			continue;
		if (!first) {
			first = c;
			rc = describe_function(tc, &at, q, fp) < 0 ? -1 : 1;
			if (rc < 0)
				break;
			continue;
		}
		if (describe_function(tc, &at, q, &other) < 0) {
			func_proto_free(&other);
			rc = -1;
			break;
		}
		if (!same_types(fp, &other) && (fp->flags & PROTO_RELIABLE)) {
			fp->flags &= (uint8_t)~PROTO_RELIABLE;
			if (warn_disagree(set, q->symbol, first, c) < 0)
				rc = -1;
		}
		func_proto_free(&other);
		if (rc < 0)
			break;
	}
	free(key);
	return rc;
}

int protos_from_dwarf(struct elfobj *obj, const struct func_query *q, size_t nq, struct proto_set *out)
{
	struct debug_image img;
	struct die_index ix = { 0 };
	struct index_ctx cx = { &img, obj };
	struct type_cache tc = { 0 };
	int rc = -1, opened;

	memset(out, 0, sizeof(*out));
	opened = debug_image_open(obj, &img);
	if (opened <= 0)
		return opened;	/* 0: no DWARF, every function stays unknown */
	out->has_dwarf = true;
	if (build_index(&cx, img.dwarf, &ix) < 0) {
		elfobj_error(obj, "out of memory");
		goto done;
	}
	out->v = calloc(nq ? nq : 1, sizeof(*out->v));
	if (!out->v) {
		elfobj_error(obj, "out of memory");
		goto done;
	}
	if (ix.untyped_units && nq &&
	    add_warning(out, strdup("DWARF built at -g1 (no types): its functions get no prototype and their "
				    "return values print untyped: compile with -g")) < 0) {
		elfobj_error(obj, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < nq; i++) {
		const struct die_at *at = index_find(&ix, &q[i]);
		int found = 1;

		if (at)
			found = describe_function(&tc, at, &q[i], &out->v[out->n]) < 0 ? -1 : 1;
		else
			found = describe_named(&tc, &ix, &q[i], &out->v[out->n], out);
		if (!found)
			continue;
		if (found < 0) {
			func_proto_free(&out->v[out->n]);
			elfobj_error(obj, "out of memory");
			goto done;
		}
		out->n++;
	}
	rc = 0;
done:
	if (rc < 0)
		protos_free(out);
	free(ix.v);
	free(ix.named);
	free(ix.spans);
	type_cache_free(&tc);
	debug_image_close(&img);
	return rc;
}
