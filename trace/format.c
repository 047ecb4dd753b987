// SPDX-License-Identifier: LGPL-2.1-or-later
#include <fcntl.h>
#include <gelf.h>
#include <float.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "arch/arch.h"
#include "arch/abi_args.h"
#include "trace/digits.h"
#include "trace/format.h"
#include "tables/tables.h"

void format_target_for_arch(const struct arch *a, bool big_endian, struct format_target *out)
{
	uint8_t reg = a->elfclass == ELFCLASS64 ? 8 : 4;

	*out = (struct format_target){
		.reg_bytes = reg,
		.big_endian = big_endian,
		.struct_regs = (uint8_t)(a->values.struct_regs * reg),
		.struct_fp = a->values.struct_fp,
		.char_unsigned = a->values.char_unsigned,
		.ldbl_host = false,
		.errno_max = a->values.errno_max,
	};
}

/*
 * The descriptor of the machine this program runs on, from its own ELF
 * header, which libelf translates in place: the formatting path allocates
 * nothing, even the first time.
 */
static const struct arch *native_arch(void)
{
	unsigned char raw[sizeof(Elf64_Ehdr)];
	Elf64_Ehdr e64;
	Elf32_Ehdr e32;
	GElf_Ehdr ehdr = { 0 };
	Elf_Data src = { .d_buf = raw, .d_type = ELF_T_EHDR, .d_version = EV_CURRENT };
	Elf_Data dst = { .d_type = ELF_T_EHDR, .d_version = EV_CURRENT };
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, raw, sizeof(raw));
	bool is64 = n > EI_CLASS && raw[EI_CLASS] == ELFCLASS64;

	if (fd >= 0)
		close(fd);
	if (n < (ssize_t)(is64 ? sizeof(e64) : sizeof(e32)) || memcmp(raw, ELFMAG, SELFMAG) ||
	    elf_version(EV_CURRENT) == EV_NONE)
		return NULL;
	src.d_size = is64 ? sizeof(e64) : sizeof(e32);
	dst.d_buf = is64 ? (void *)&e64 : (void *)&e32;
	dst.d_size = src.d_size;
	if (!(is64 ? elf64_xlatetom(&dst, &src, raw[EI_DATA]) : elf32_xlatetom(&dst, &src, raw[EI_DATA])))
		return NULL;
	memcpy(ehdr.e_ident, raw, EI_NIDENT);
	ehdr.e_machine = is64 ? e64.e_machine : e32.e_machine;
	ehdr.e_flags = is64 ? e64.e_flags : e32.e_flags;
	return arch_for_ehdr(&ehdr);
}

const struct format_target *format_target_native(void)
{
	static struct format_target t;
	static _Atomic int state;	/* 0: not looked up, 1: found, -1: not described */
	const struct arch *a;

	if (atomic_load(&state) == 0) {
		a = native_arch();
		if (a) {
			format_target_for_arch(a, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__, &t);
			t.ldbl_host = true;
		}
		atomic_store(&state, a ? 1 : -1);
	}
	return atomic_load(&state) > 0 ? &t : NULL;
}

/* Linux's generic numbering (asm-generic/errno-base.h, errno.h); 41 and 58 are aliases' slots. */
static const char *const errno_names[134] = {
	NULL, "EPERM", "ENOENT", "ESRCH", "EINTR", "EIO", "ENXIO", "E2BIG", "ENOEXEC", "EBADF",
	"ECHILD", "EAGAIN", "ENOMEM", "EACCES", "EFAULT", "ENOTBLK", "EBUSY", "EEXIST", "EXDEV",
	"ENODEV", "ENOTDIR", "EISDIR", "EINVAL", "ENFILE", "EMFILE", "ENOTTY", "ETXTBSY", "EFBIG",
	"ENOSPC", "ESPIPE", "EROFS", "EMLINK", "EPIPE", "EDOM", "ERANGE", "EDEADLK", "ENAMETOOLONG",
	"ENOLCK", "ENOSYS", "ENOTEMPTY", "ELOOP", NULL, "ENOMSG", "EIDRM", "ECHRNG", "EL2NSYNC",
	"EL3HLT", "EL3RST", "ELNRNG", "EUNATCH", "ENOCSI", "EL2HLT", "EBADE", "EBADR", "EXFULL",
	"ENOANO", "EBADRQC", "EBADSLT", NULL, "EBFONT", "ENOSTR", "ENODATA", "ETIME", "ENOSR",
	"ENONET", "ENOPKG", "EREMOTE", "ENOLINK", "EADV", "ESRMNT", "ECOMM", "EPROTO", "EMULTIHOP",
	"EDOTDOT", "EBADMSG", "EOVERFLOW", "ENOTUNIQ", "EBADFD", "EREMCHG", "ELIBACC", "ELIBBAD",
	"ELIBSCN", "ELIBMAX", "ELIBEXEC", "EILSEQ", "ERESTART", "ESTRPIPE", "EUSERS", "ENOTSOCK",
	"EDESTADDRREQ", "EMSGSIZE", "EPROTOTYPE", "ENOPROTOOPT", "EPROTONOSUPPORT",
	"ESOCKTNOSUPPORT", "EOPNOTSUPP", "EPFNOSUPPORT", "EAFNOSUPPORT", "EADDRINUSE",
	"EADDRNOTAVAIL", "ENETDOWN", "ENETUNREACH", "ENETRESET", "ECONNABORTED", "ECONNRESET",
	"ENOBUFS", "EISCONN", "ENOTCONN", "ESHUTDOWN", "ETOOMANYREFS", "ETIMEDOUT",
	"ECONNREFUSED", "EHOSTDOWN", "EHOSTUNREACH", "EALREADY", "EINPROGRESS", "ESTALE",
	"EUCLEAN", "ENOTNAM", "ENAVAIL", "EISNAM", "EREMOTEIO", "EDQUOT", "ENOMEDIUM",
	"EMEDIUMTYPE", "ECANCELED", "ENOKEY", "EKEYEXPIRED", "EKEYREVOKED", "EKEYREJECTED",
	"EOWNERDEAD", "ENOTRECOVERABLE", "ERFKILL", "EHWPOISON",
};

/* snprintf-style output: counts everything, stores what fits. */
struct out {
	char *buf;
	size_t len, n;
};

static void put(struct out *o, const char *s, size_t k)
{
	size_t room = o->n + 1 < o->len ? o->len - 1 - o->n : 0;

	if (room)
		memcpy(o->buf + o->n, s, k < room ? k : room);
	o->n += k;
}

static void put_str(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

static void put_ch(struct out *o, char c)
{
	put(o, &c, 1);
}

static void put_u64(struct out *o, uint64_t x)
{
	char tmp[DIGITS_MAX], *p = digits_dec(tmp + sizeof(tmp), x);

	put(o, p, (size_t)(tmp + sizeof(tmp) - p));
}

/* "0x" and at least `min` hex digits. */
static void put_x64(struct out *o, uint64_t x, unsigned min)
{
	char tmp[DIGITS_MAX + 2], *p = digits_hex(tmp + sizeof(tmp), x, min);

	*--p = 'x';
	*--p = '0';
	put(o, p, (size_t)(tmp + sizeof(tmp) - p));
}

/* Two hex digits, as %02x. */
static void put_byte(struct out *o, uint8_t b)
{
	char tmp[2] = { "0123456789abcdef"[b >> 4], "0123456789abcdef"[b & 15] };

	put(o, tmp, 2);
}

/* An integer of up to 16 bytes (__int128 in rax:rdx, long long in eax:edx). */
struct wide {
	uint64_t lo, hi;
};

static uint64_t mask_of(uint64_t bytes)
{
	return bytes >= 8 ? UINT64_MAX : (UINT64_C(1) << (8 * bytes)) - 1;
}

static unsigned reg_width(const struct format_target *t)
{
	return t->reg_bytes == 4 ? 4 : 8;
}

/*
 * A scalar of `size` bytes: in the low bits of gpr[0] when it fits a
 * register (the upper bits are unspecified on some ABIs, so they are
 * dropped), else split over both registers in memory order.
 */
static bool scalar(const struct raw_value *v, const struct format_target *t, uint64_t size,
		   struct wide *w)
{
	unsigned rb = reg_width(t);
	uint64_t r0 = v->gpr[0] & mask_of(rb), r1 = v->gpr[1] & mask_of(rb);
	uint64_t lo = t->big_endian ? r1 : r0, hi = t->big_endian ? r0 : r1;

	if (!size || (size & (size - 1)) || size > 2 * rb)
		return false;
	if (size <= rb)
		*w = (struct wide){ r0 & mask_of(size), 0 };
	else if (rb == 4)
		*w = (struct wide){ lo | hi << 32, 0 };
	else
		*w = (struct wide){ lo, hi };
	return true;
}

static struct wide sign_extend(struct wide w, uint64_t size)
{
	if (size >= 16)
		return w;
	if (size < 8 && (w.lo >> (8 * size - 1) & 1))
		w.lo |= ~mask_of(size);
	w.hi = w.lo >> 63 ? UINT64_MAX : 0;
	return w;
}

static bool is_negative(struct wide w)
{
	return w.hi >> 63;
}

static struct wide negate(struct wide w)
{
	w.lo = ~w.lo + 1;
	w.hi = ~w.hi + (w.lo == 0);
	return w;
}

/* Long division by 10 over 32-bit limbs: no __int128 needed on 32-bit hosts. */
static void put_udec(struct out *o, struct wide w)
{
	uint32_t limb[4] = { (uint32_t)(w.hi >> 32), (uint32_t)w.hi, (uint32_t)(w.lo >> 32), (uint32_t)w.lo };
	char digits[40];
	size_t n = 0;
	bool more;

	if (!w.hi) {
		put_u64(o, w.lo);
		return;
	}
	do {
		uint64_t rem = 0;

		more = false;
		for (int i = 0; i < 4; i++) {
			uint64_t cur = rem << 32 | limb[i];

			limb[i] = (uint32_t)(cur / 10);
			rem = cur % 10;
			more |= limb[i] != 0;
		}
		digits[n++] = (char)('0' + rem);
	} while (more);
	while (n)
		put_ch(o, digits[--n]);
}

static void put_hex(struct out *o, struct wide w)
{
	char tmp[2 * DIGITS_MAX], *p = tmp + sizeof(tmp);

	if (w.hi) {
		p = digits_hex(p, w.lo, 16);
		p = digits_hex(p, w.hi, 1);
	} else {
		p = digits_hex(p, w.lo, 1);
	}
	put(o, "0x", 2);
	put(o, p, (size_t)(tmp + sizeof(tmp) - p));
}

/* `w` holds the type's bits only; hex shows them as they are. */
static void put_int(struct out *o, struct wide w, uint64_t size, bool is_signed, bool hex)
{
	if (hex) {
		put_hex(o, w);
		return;
	}
	if (is_signed)
		w = sign_extend(w, size);
	if (is_signed && is_negative(w)) {
		put_ch(o, '-');
		w = negate(w);
	}
	put_udec(o, w);
}

static void put_errno(struct out *o, struct wide w, uint64_t size, const struct format_target *t,
		      const struct format_opts *op)
{
	struct wide s = sign_extend(w, size);
	uint64_t e = -s.lo;

	if (!op->errno_names)
		return;
	if ((size == 4 || size == 8) && is_negative(s) && s.lo != 0 && e <= t->errno_max &&
	    e < sizeof(errno_names) / sizeof(errno_names[0]) && errno_names[e]) {
		put(o, " (", 2);
		put_str(o, errno_names[e]);
		put_ch(o, ')');
	}
}

static const char *named_escape(unsigned char c)
{
	switch (c) {
	case '\a': return "\\a";
	case '\b': return "\\b";
	case '\t': return "\\t";
	case '\n': return "\\n";
	case '\v': return "\\v";
	case '\f': return "\\f";
	case '\r': return "\\r";
	default: return NULL;
	}
}

static bool is_print(unsigned char c)
{
	return c >= 0x20 && c < 0x7f;
}

/* `c` as it stands in a C literal quoted by `q`; octal escapes are always 3 digits. */
static void put_escaped(struct out *o, unsigned char c, char q)
{
	const char *e = named_escape(c);

	if (e)
		put_str(o, e);
	else if (c == (unsigned char)q || c == '\\')
		put(o, (const char[]){ '\\', (char)c }, 2);
	else if (is_print(c))
		put_ch(o, (char)c);
	else
		put(o, (const char[]){ '\\', (char)('0' + (c >> 6)), (char)('0' + (c >> 3 & 7)), (char)('0' + (c & 7)) }, 4);
}

static void put_char(struct out *o, struct wide w, const struct format_target *t, bool hex)
{
	unsigned char c = (unsigned char)w.lo;

	put_int(o, w, 1, !t->char_unsigned, hex);
	if (is_print(c) || named_escape(c)) {
		put_str(o, " '");
		put_escaped(o, c, '\'');
		put_ch(o, '\'');
	}
}

static bool put_enum(struct out *o, const struct sig_type *t, struct wide w, bool hex)
{
	struct wide s = sign_extend(w, t->size);
	bool has_negative = false;

	for (size_t i = 0; i < t->nenumerators; i++) {
		const struct enumerator *e = &t->enumerators[i];

		has_negative |= e->negative;
		if (e->negative ? is_negative(s) && s.lo == e->value : !w.hi && w.lo == e->value) {
			put_str(o, e->name);
			return true;
		}
	}
	/* C gives an enum without negative enumerators an unsigned type. */
	put_int(o, w, t->size, has_negative, hex);
	return true;
}

static void put_pointer(struct out *o, uint64_t p)
{
	if (p)
		put_x64(o, p, 1);
	else
		put_str(o, "NULL");
}

int utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	uint32_t cp;

	if (!n)
		return -1;
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (size_t i = 1; i < len; i++) {
		if (i == n)
			return -1;
		if ((s[i] & 0xc0) != 0x80)	/* stops at a NUL too */
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
		/* Overlong, surrogate or too large: known from the first continuation byte. */
		if (i == 1 && ((len == 3 && cp < 0x20) || (len == 3 && cp >= 0x360 && cp <= 0x37f) ||
			       (len == 4 && (cp < 0x10 || cp > 0x10f))))
			return 0;
	}
	return (int)len;
}

/*
 * What the string shows of the bytes at `s` (`got` of them, `done` shown
 * before, `max` at most): a valid UTF-8 sequence whole, else one byte
 * escaped.  Returns the bytes used, or 0 when a sequence continues past
 * `got` and `more` bytes can be read (read again from it).
 */
static size_t put_string_char(struct out *o, const unsigned char *s, size_t got, size_t done, size_t max,
			      bool more)
{
	int n = s[0] < 0x80 ? 1 : utf8_len(s, got);

	if (n < 0 && more)
		return 0;
	/* C1 controls (U+0080..U+009F) are valid but not printable. */
	if (n == 2 && s[0] == 0xc2 && s[1] < 0xa0)
		n = 0;
	if (n > 1 && done + (size_t)n <= max) {
		put(o, (const char *)s, (size_t)n);
		return (size_t)n;
	}
	put_escaped(o, s[0], '"');
	return 1;
}

/* Reads the string in chunks so no length limit needs a buffer of its size. */
static void put_string(struct out *o, uint64_t addr, const struct format_opts *op)
{
	size_t max = op->max_string ? op->max_string : FORMAT_MAX_STRING, done = 0;
	unsigned char chunk[64];

	if (max == SIZE_MAX)	/* one byte past the limit is read */
		max--;
	if (!addr) {
		put_str(o, "NULL");
		return;
	}
	for (;;) {
		size_t want = max + 1 - done < sizeof(chunk) ? max + 1 - done : sizeof(chunk);
		size_t got = op->read_mem ? op->read_mem(op->ctx, addr + done, chunk, want) : 0, i = 0, k = 1;

		if (got > want)
			got = want;
		if (!done && !got) {
			put_x64(o, addr, 1);
			put_str(o, " <unreadable>");
			return;
		}
		if (!done)
			put_ch(o, '"');
		/* A sequence cut by the chunk's end is read again at the next chunk's start. */
		for (; i < got && k; i += k, done += k) {
			if (!chunk[i]) {
				put_ch(o, '"');
				return;
			}
			if (done == max) {
				put_str(o, "\"...");
				return;
			}
			k = put_string_char(o, chunk + i, got - i, done, max, got == want && i);
		}
		if (k && got < want) {	/* the rest is unreadable */
			put_str(o, "\"...");
			return;
		}
	}
}

/*
 * Lays out the digits and exponent of a %e rendering like %g, but without
 * %g's switch to an exponent as soon as it exceeds the precision: 100 with one
 * significant digit is "100", not "1e+02".  Zeros are padded only where the
 * value is that integer (`int_exact`: all integers of its size are exact),
 * so 123456792.0f stays 1.2345679e+08.  Only digits are taken from printf:
 * the locale's decimal point never shows.
 */
static void put_decimal(struct out *o, const char *e, bool int_exact)
{
	char dig[64];
	int nd = 0, x;

	if (*e == '-')
		put_ch(o, *e++);
	for (; *e && *e != 'e'; e++)
		if (*e >= '0' && *e <= '9' && nd < (int)sizeof(dig))
			dig[nd++] = *e;
	x = *e ? atoi(e + 1) : 0;
	while (nd > 1 && dig[nd - 1] == '0')
		nd--;
	if (x < -4 || x >= 16 || (x >= nd && !int_exact)) {
		put_ch(o, dig[0]);
		if (nd > 1)
			put_ch(o, '.');
		put(o, dig + 1, (size_t)nd - 1);
		put(o, x < 0 ? "e-" : "e+", 2);
		if ((x < 0 ? -x : x) < 10)
			put_ch(o, '0');
		put_u64(o, (uint64_t)(x < 0 ? -x : x));
	} else if (x < 0) {
		put_str(o, "0.");
		for (int i = -1; i > x; i--)
			put_ch(o, '0');
		put(o, dig, (size_t)nd);
	} else {
		for (int i = 0; i <= x; i++)
			put_ch(o, i < nd ? dig[i] : '0');
		if (nd > x + 1) {
			put_ch(o, '.');
			put(o, dig + x + 1, (size_t)(nd - x - 1));
		}
	}
}

static bool put_special(struct out *o, bool nan, bool inf, bool neg)
{
	if (nan || inf)
		put_str(o, nan ? (neg ? "-nan" : "nan") : (neg ? "-inf" : "inf"));
	return nan || inf;
}

/* The fewest significant digits that read back as the same value. */
static void put_double(struct out *o, double d, bool single)
{
	char tmp[64];
	int max = single ? FLT_DECIMAL_DIG : DBL_DECIMAL_DIG;

	if (put_special(o, isnan(d), isinf(d), signbit(d)))
		return;
	for (int p = 1; p <= max; p++) {
		snprintf(tmp, sizeof(tmp), "%.*e", p - 1, d);
		if (single ? strtof(tmp, NULL) == (float)d : strtod(tmp, NULL) == d)
			break;
	}
	put_decimal(o, tmp, fabs(d) < (single ? 0x1p24 : 0x1p53));
}

static void put_long_double(struct out *o, long double d)
{
	char tmp[96];

	if (put_special(o, isnan(d), isinf(d), signbit(d)))
		return;
	for (int p = 1; p <= LDBL_DECIMAL_DIG; p++) {
		snprintf(tmp, sizeof(tmp), "%.*Le", p - 1, d);
		if (strtold(tmp, NULL) == d)
			break;
	}
	put_decimal(o, tmp, fabsl(d) < ldexpl(1, LDBL_MANT_DIG));
}

static uint64_t load(const uint8_t *p, unsigned n, bool big_endian)
{
	uint64_t x = 0;

	for (unsigned i = 0; i < n; i++)
		x |= (uint64_t)p[big_endian ? n - 1 - i : i] << (8 * i);
	return x;
}

/* Is a float of `size` bytes the host's long double, and how many bytes are significant? */
static size_t host_ldbl_bytes(uint64_t size)
{
#if LDBL_MANT_DIG == 64
	return size == 12 || size == 16 ? 10 : 0;	/* x87 extended, padded */
#else
	return size == sizeof(long double) && LDBL_MANT_DIG > DBL_MANT_DIG ? size : 0;
#endif
}

/* A long double the host cannot read: its bytes as one number, most significant first. */
static void put_raw_fp(struct out *o, const uint8_t *fpr, uint64_t size, bool big_endian)
{
	put_str(o, "0x");
	for (uint64_t i = 0; i < size; i++)
		put_byte(o, fpr[big_endian ? i : size - 1 - i]);
	put_ch(o, '?');
}

static bool put_float(struct out *o, uint64_t size, const struct raw_value *v,
		      const struct format_target *t)
{
	size_t ld = t->ldbl_host ? host_ldbl_bytes(size) : 0;

	if (!v->have_fpr || !(size == 4 || size == 8 || size == 12 || size == 16))
		return false;
	if (size == 4) {
		uint32_t bits = (uint32_t)load(v->fpr, 4, t->big_endian);
		float f;

		memcpy(&f, &bits, sizeof(f));
		put_double(o, f, true);
	} else if (size == 8) {
		uint64_t bits = load(v->fpr, 8, t->big_endian);
		double d;

		memcpy(&d, &bits, sizeof(d));
		put_double(o, d, false);
	} else if (ld) {
		long double d = 0;

		memcpy(&d, v->fpr, ld);
		put_long_double(o, d);
	} else {
		put_raw_fp(o, v->fpr, size, t->big_endian);
	}
	return true;
}

static bool put_scalar(struct out *o, const struct sig_type *t, const struct raw_value *v,
		       const struct format_opts *op, const struct format_target *tg);

/*
 * One member, from the struct's bytes: loaded as a register of its own
 * would hold it, then printed as a scalar of its class.  Members are not
 * read through (a char * member is a pointer) and get no errno names.
 */
static void put_member(struct out *o, const struct sig_member *m, const uint8_t *img,
		       const struct format_opts *op, const struct format_target *t)
{
	struct format_target one = *t;
	struct sig_type mt = { .cls = m->cls == TC_STRING ? TC_POINTER : m->cls, .size = m->size };
	struct raw_value mv = { .gpr = { load(img + m->offset, (unsigned)m->size, t->big_endian), 0 } };

	one.reg_bytes = 8;	/* a member of up to 8 bytes fits gpr[0] whole */
	one.errno_max = 0;
	put_str(o, m->name);
	put_ch(o, '=');
	if (m->cls == TC_FLOAT) {
		memcpy(mv.fpr, img + m->offset, m->size);
		mv.have_fpr = true;
		if (put_float(o, m->size, &mv, t))
			return;
	} else if (put_scalar(o, &mt, &mv, op, &one)) {
		return;
	}
	put_x64(o, mv.gpr[0], 1);
	put_ch(o, '?');
}

/*
 * x86-64: each 8-byte part of the struct comes back in the next xmm
 * register when only floats lie in it, else in the next integer register.
 */
static void eightbytes_image(const struct sig_type *st, const struct raw_value *v, uint8_t *img)
{
	const uint8_t *fpr[2] = { v->fpr, v->fpr1 };
	unsigned gi = 0, fi = 0;

	for (unsigned part = 0; part * 8 < st->size && part < 2; part++) {
		bool sse = false;

		for (size_t i = 0; i < st->nmembers; i++) {
			if (st->members[i].offset / 8 != part)
				continue;
			if (st->members[i].cls != TC_FLOAT) {
				sse = false;
				break;
			}
			sse = true;
		}
		if (sse)
			memcpy(img + 8 * part, fpr[fi++], 8);
		else
			for (unsigned b = 0; b < 8; b++)
				img[8 * part + b] = (uint8_t)(v->gpr[gi] >> 8 * b);
		gi += !sse;
	}
}

/*
 * AArch64: a struct of one to four floats of one size (an HFA, as
 * arg_homogeneous_float() tells it) comes back one member per v register,
 * of which the runtime keeps two; false for a longer one.  Any other
 * struct comes back in x0, x1, as `img` already holds it.
 */
static bool hfa_image(const struct sig_type *st, const struct raw_value *v, uint8_t *img)
{
	const uint8_t *fpr[2] = { v->fpr, v->fpr1 };
	struct arg_field fields[4];
	struct arg_type t = { .kind = ARG_AGGREGATE, .size = (uint32_t)st->size, .fields = fields,
			      .nfields = st->nmembers };
	unsigned n = 0;
	uint8_t esize = 0;

	if (st->nmembers > 4)
		return true;
	for (size_t i = 0; i < st->nmembers; i++)
		fields[i] = (struct arg_field){ (uint32_t)st->members[i].offset, (uint8_t)st->members[i].size,
						st->members[i].cls == TC_FLOAT };
	if (!arg_homogeneous_float(&t, 4, &n, &esize))
		return true;
	if (n > 2)
		return false;
	for (unsigned i = 0; i < n; i++)
		memcpy(img + i * esize, fpr[i], esize);
	return true;
}

/* Does a member list hold a float (the struct may come back partly in FP registers)? */
static bool has_float_member(const struct sig_type *st)
{
	for (size_t i = 0; i < st->nmembers; i++)
		if (st->members[i].cls == TC_FLOAT)
			return true;
	return false;
}

/*
 * The struct's bytes in memory order, from the registers it came back in
 * (its floats where the target's rule puts them) or from the copy of the
 * memory it was returned in; false when they are not known.
 */
static bool struct_image(const struct sig_type *st, const struct raw_value *v, const struct format_opts *op,
			 const struct format_target *t, uint8_t *img)
{
	unsigned rb = reg_width(t);

	if (v->in_memory)
		return op->read_mem && st->size <= SIG_MEMBERS_MAX_SIZE &&
		       op->read_mem(op->ctx, v->gpr[0], img, st->size) == st->size;
	if (st->size > t->struct_regs || st->size > 2 * rb)
		return false;
	for (unsigned r = 0; r < 2; r++)
		for (unsigned i = 0; i < rb; i++)
			img[r * rb + i] = (uint8_t)(v->gpr[r] >> 8 * (t->big_endian ? rb - 1 - i : i));
	if (!has_float_member(st))
		return true;
	switch (t->struct_fp) {
	case STRUCT_FP_EIGHTBYTES:
		eightbytes_image(st, v, img);
		return true;
	case STRUCT_FP_HFA:
		return hfa_image(st, v, img);
	default:
		return false;
	}
}

/* How many members from i on are a plain char array's elements, NAME[0], NAME[1], ...; 0: none. */
static size_t char_array_run(const struct sig_type *st, size_t i)
{
	const struct sig_member *m = &st->members[i];
	size_t base = strlen(m->name), n = 1;

	if (m->cls != TC_CHAR || m->size != 1 || base < 3 || strcmp(m->name + base - 3, "[0]") != 0)
		return 0;
	base -= 3;
	for (; i + n < st->nmembers; n++) {
		const struct sig_member *x = &st->members[i + n];
		char idx[24];

		snprintf(idx, sizeof(idx), "[%zu]", n);
		if (x->cls != TC_CHAR || x->size != 1 || x->offset != m->offset + n ||
		    strncmp(x->name, m->name, base) != 0 || strcmp(x->name + base, idx) != 0)
			break;
	}
	return n;
}

/* A char array member as the text it holds, up to its NUL: name="hello". */
static void put_char_array(struct out *o, const struct sig_member *m, const uint8_t *img, size_t n)
{
	const uint8_t *s = img + m->offset;

	put(o, m->name, strlen(m->name) - 3);
	put_str(o, "=\"");
	for (size_t i = 0; i < n && s[i];)
		i += put_string_char(o, s + i, n - i, i, n, false);
	put_ch(o, '"');
}

/*
 * By member when the table lists them ({x=1, name="ab"}), else as bytes;
 * '?' when they are not known.
 */
static bool put_struct(struct out *o, const struct sig_type *st, const struct raw_value *v,
		       const struct format_opts *op, const struct format_target *t)
{
	uint8_t img[SIG_MEMBERS_MAX_SIZE];

	if (!struct_image(st, v, op, t, img)) {
		put_ch(o, '?');
		return true;
	}
	put_ch(o, '{');
	for (size_t i = 0, run; i < st->nmembers; i++) {
		if (i)
			put_str(o, ", ");
		if ((run = char_array_run(st, i)) > 0) {
			put_char_array(o, &st->members[i], img, run);
			i += run - 1;
			continue;
		}
		put_member(o, &st->members[i], img, op, t);
	}
	for (uint64_t i = 0; !st->nmembers && i < st->size; i++) {
		if (i)
			put_ch(o, ' ');
		put_byte(o, img[i]);
	}
	put_ch(o, '}');
	return true;
}

static bool put_scalar(struct out *o, const struct sig_type *t, const struct raw_value *v,
		       const struct format_opts *op, const struct format_target *tg)
{
	struct wide w;

	if (!scalar(v, tg, t->size, &w))
		return false;
	switch (t->cls) {
	case TC_BOOL:
		put_str(o, w.lo || w.hi ? "true" : "false");
		return true;
	case TC_INT:
		put_int(o, w, t->size, true, op->hex);
		put_errno(o, w, t->size, tg, op);
		return true;
	case TC_UINT:
		put_int(o, w, t->size, false, op->hex);
		return true;
	case TC_CHAR:
		if (t->size != 1)
			return false;
		put_char(o, w, tg, op->hex);
		return true;
	case TC_ENUM:
		return put_enum(o, t, w, op->hex);
	case TC_POINTER:
	case TC_STRING:
		if (t->size > reg_width(tg))
			return false;
		if (t->cls == TC_POINTER)
			put_pointer(o, w.lo);
		else
			put_string(o, w.lo, op);
		return true;
	default:
		return false;
	}
}

/* Nothing is written when it returns false. */
static bool put_typed(struct out *o, const struct sig_type *t, const struct raw_value *v,
		      const struct format_opts *op, const struct format_target *tg)
{
	switch (t->cls) {
	case TC_FLOAT:
		return put_float(o, t->size, v, tg);
	case TC_STRUCT:
	case TC_UNION:
		return put_struct(o, t, v, op, tg);
	default:
		return sig_class_is_integer(t->cls) && put_scalar(o, t, v, op, tg);
	}
}

/*
 * The values most functions return, an integer, pointer or bool in one
 * register shown without errno names, by the general path's rules but
 * without its calls: a trace's cost is mostly this.  False, nothing
 * written: another value (the general path shows it).
 */
/*
 * The common value's text at `p` (room for 22 bytes): its length, or 0 for
 * another value.  The digits are written where they go, their count known
 * first (digits_dec_len): no copy from a scratch buffer.
 */
static size_t common_at(char *p, const struct sig_type *t, uint64_t gpr0, const struct format_opts *op,
			const struct format_target *tg)
{
	uint64_t size = t->size, x = gpr0 & mask_of(size);
	bool hex = op->hex;
	size_t pre = 0, n;

	if (!size || (size & (size - 1)) || size > reg_width(tg))
		return 0;
	switch (t->cls) {
	case TC_INT:
		if (op->errno_names)
			return 0;
		/* Hex shows the type's bits as they are. */
		if (!hex) {
			int64_t sx = size < 8 && (x >> (8 * size - 1) & 1) ? (int64_t)(x | ~mask_of(size)) : (int64_t)x;

			x = sx < 0 ? -(uint64_t)sx : (uint64_t)sx;
			if (sx < 0)
				p[pre++] = '-';
		}
		break;
	case TC_UINT:
		break;
	case TC_POINTER:
		if (!x)
			return memcpy(p, "NULL", 4), 4;
		hex = true;
		break;
	case TC_BOOL:
		return x ? (memcpy(p, "true", 4), 4) : (memcpy(p, "false", 5), 5);
	default:
		return 0;
	}
	if (hex) {
		memcpy(p + pre, "0x", 2);
		pre += 2;
		n = digits_hex_len(x);
		digits_hex(p + pre + n, x, 1);
	} else {
		n = digits_dec_len(x);
		digits_dec(p + pre + n, x);
	}
	return pre + n;
}

static bool put_common(struct out *o, const struct sig_type *t, const struct raw_value *v,
		       const struct format_opts *op, const struct format_target *tg)
{
	char tmp[24];
	size_t n = common_at(tmp, t, v->gpr[0], op, tg);

	if (n)
		put(o, tmp, n);
	return n != 0;
}

/* A machine no descriptor describes: pointer-sized registers, no errno names. */
static const struct format_target unknown_target = { .reg_bytes = sizeof(void *) };

static const struct format_target *target_of(const struct format_opts *op)
{
	const struct format_target *t = op->target ? op->target : format_target_native();

	return t ? t : &unknown_target;
}

size_t format_value(char *buf, size_t len, const struct sig_type *type, const struct raw_value *v,
		    const struct format_opts *op)
{
	static const struct format_opts defaults;
	struct out o = { buf, len, 0 };
	const struct format_target *t;

	if (!op)
		op = &defaults;
	t = target_of(op);
	if (!(put_common(&o, type, v, op, t) || put_typed(&o, type, v, op, t))) {
		put_x64(&o, v->gpr[0] & mask_of(reg_width(t)), 1);
		put_ch(&o, '?');
	}
	if (len)
		buf[o.n < len ? o.n : len - 1] = 0;
	return o.n;
}

/*
 * Whether the value is where the reader looks: a struct the ABI returns in
 * memory needs the copy made at the return (a C++ class that is not
 * trivially copyable always is); one holding floats comes back partly in FP
 * registers, placed by the target's rule from its members.
 */
static bool ret_layout_known(const struct signature *sig, const struct raw_value *v, const struct format_target *t)
{
	if (v->in_memory)
		return sig->ret.cls == TC_STRUCT || sig->ret.cls == TC_UNION;
	if (sig->flags & PROTO_RET_MEM)
		return false;
	return !(sig->flags & PROTO_RET_FP) || (sig->ret.nmembers && t->struct_fp != STRUCT_FP_UNKNOWN);
}

size_t format_return(char *buf, size_t len, const struct signature *sig,
		     const struct raw_value *v, const struct format_opts *op)
{
	static const struct format_opts defaults;
	struct out o = { buf, len, 0 };
	const struct format_target *t;

	if (!op)
		op = &defaults;
	t = target_of(op);
	/* A clone may drop a return value but never invent one: void stays void. */
	if (!sig || sig->ret.cls != TC_VOID) {
		put(&o, "ret=", 4);
		if (!sig || !(sig->flags & PROTO_RELIABLE) || !ret_layout_known(sig, v, t) ||
		    !(put_common(&o, &sig->ret, v, op, t) || put_typed(&o, &sig->ret, v, op, t))) {
			put_x64(&o, v->gpr[0] & mask_of(reg_width(t)), 1);
			put_ch(&o, '?');
		}
	}
	if (len)
		buf[o.n < len ? o.n : len - 1] = 0;
	return o.n;
}

size_t format_return_word(char *buf, size_t len, const struct signature *sig, uint64_t gpr0,
			  const struct format_opts *op)
{
	size_t n;

	/* The conditions under which format_return() reaches put_common() for a value in a register. */
	if (len < 4 + 22 + 1 || !sig || !(sig->flags & PROTO_RELIABLE) || (sig->flags & (PROTO_RET_MEM | PROTO_RET_FP)))
		return 0;
	memcpy(buf, "ret=", 4);
	if (!(n = common_at(buf + 4, &sig->ret, gpr0, op, target_of(op))))
		return 0;
	buf[4 + n] = 0;
	return 4 + n;
}

/*
 * The value as format_return() reads it, kept as a number where the output
 * has a type for it (Perfetto's debug annotations): its checks are made in
 * the same order, so a value is typed exactly when the text shows that
 * number.  Characters, strings, structs and long doubles stay text: their
 * text (quotes, escapes, members) is the value a reader wants.
 */
static bool typed_scalar(const struct sig_type *st, const struct raw_value *v, const struct format_opts *op,
			 const struct format_target *t, struct typed_value *out)
{
	struct wide w, s;
	bool has_negative = false;

	if (!scalar(v, t, st->size, &w))
		return false;
	s = sign_extend(w, st->size);
	switch (st->cls) {
	case TC_BOOL:
		*out = (struct typed_value){ .kind = VALUE_BOOL, .u = w.lo || w.hi };
		return true;
	case TC_ENUM:
		/* The enumerator put_enum() names, else its number as put_enum() signs it. */
		for (size_t i = 0; i < st->nenumerators; i++) {
			const struct enumerator *e = &st->enumerators[i];

			has_negative |= e->negative;
			if (e->negative ? is_negative(s) && s.lo == e->value : !w.hi && w.lo == e->value) {
				*out = (struct typed_value){ .kind = VALUE_NAME, .name = e->name };
				return true;
			}
		}
		if (!has_negative)
			break;
		/* fall through */
	case TC_INT:
		if (s.hi != (s.lo >> 63 ? UINT64_MAX : 0))
			return false;	/* beyond 64 bits */
		*out = (struct typed_value){ .kind = VALUE_INT, .i = (int64_t)s.lo };
		if (st->cls == TC_INT && op->errno_names && (st->size == 4 || st->size == 8) && is_negative(s) &&
		    -s.lo <= t->errno_max && -s.lo < sizeof(errno_names) / sizeof(errno_names[0]))
			out->errno_name = errno_names[-s.lo];	/* as put_errno() */
		return true;
	case TC_UINT:
		break;
	case TC_POINTER:
		if (st->size > reg_width(t))
			return false;
		*out = (struct typed_value){ .kind = VALUE_POINTER, .u = w.lo };
		return true;
	default:
		return false;
	}
	if (w.hi)
		return false;
	*out = (struct typed_value){ .kind = VALUE_UINT, .u = w.lo };
	return true;
}

static bool typed_float(uint64_t size, const struct raw_value *v, const struct format_target *t,
			struct typed_value *out)
{
	if (!v->have_fpr || (size != 4 && size != 8))
		return false;
	*out = (struct typed_value){ .kind = VALUE_DOUBLE };
	if (size == 4) {
		uint32_t bits = (uint32_t)load(v->fpr, 4, t->big_endian);
		float f;

		memcpy(&f, &bits, sizeof(f));
		out->d = f;
	} else {
		uint64_t bits = load(v->fpr, 8, t->big_endian);

		memcpy(&out->d, &bits, sizeof(out->d));
	}
	return true;
}

void format_return_typed(const struct signature *sig, const struct raw_value *v, const struct format_opts *op,
			 struct typed_value *out)
{
	static const struct format_opts defaults;
	const struct format_target *t;
	const struct sig_type *st = sig ? &sig->ret : NULL;

	if (!op)
		op = &defaults;
	t = op->target ? op->target : format_target_native();
	if (!t)
		t = &unknown_target;
	*out = (struct typed_value){ .kind = sig && sig->ret.cls == TC_VOID ? VALUE_VOID : VALUE_TEXT };
	if (out->kind == VALUE_VOID || !sig || !(sig->flags & PROTO_RELIABLE) || !ret_layout_known(sig, v, t))
		return;
	if (st->cls == TC_FLOAT ? !typed_float(st->size, v, t, out) : !typed_scalar(st, v, op, t, out))
		*out = (struct typed_value){ .kind = VALUE_TEXT };
}
