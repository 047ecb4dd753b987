// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit test of trace/format.c, run by t/70-format.t.  Prints one line per
 * check, "ok - DESC" or "not ok - DESC" (the script numbers them), "# ..."
 * diagnostics, and "done" at the end.  Every expected string is written from
 * the C meaning of the bits in the registers, not taken from the formatter.
 */
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "trace/digits.h"
#include "arch/arch.h"
#include "trace/format.h"
#include "tables/tables.h"

static int failed;

static void tap(bool good, const char *desc)
{
	printf("%s - %s\n", good ? "ok" : "not ok", desc);
	failed += !good;
}

/* ---- Allocation counting: the formatting path must not allocate. ---- */
#ifdef __SANITIZE_ADDRESS__
#define counting_allocs() false
static void count_allocs(bool on) { (void)on; }
static volatile long allocs;
#else
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
static volatile bool counting;	/* volatile: gcc assumes malloc leaves globals alone */
static volatile long allocs;
void *malloc(size_t n);
void *calloc(size_t n, size_t k);
void *realloc(void *p, size_t n);
void *malloc(size_t n) { allocs += counting; return __libc_malloc(n); }
void *calloc(size_t n, size_t k) { allocs += counting; return __libc_calloc(n, k); }
void *realloc(void *p, size_t n) { allocs += counting; return __libc_realloc(p, n); }
#define counting_allocs() true
static void count_allocs(bool on) { counting = on; }
#endif

/* ---- A fake target memory: the formatter must only read through this. ---- */
#define MEM_BASE 0x7f0000001000ull
static unsigned char mem[1024];
static long mem_reads;

static size_t fake_read(void *ctx, uint64_t addr, void *buf, size_t n)
{
	(void)ctx;
	mem_reads++;
	if (addr < MEM_BASE || addr >= MEM_BASE + sizeof(mem))
		return 0;
	size_t avail = MEM_BASE + sizeof(mem) - addr;

	if (n > avail)
		n = avail;
	memcpy(buf, mem + (addr - MEM_BASE), n);
	return n;
}

/* Puts `len` bytes at offset `off` of the fake memory; returns their address. */
static uint64_t place(size_t off, const char *s, size_t len)
{
	memcpy(mem + off, s, len);
	return MEM_BASE + off;
}

/* ---- Targets: ABIs the formatter must handle, as the arch code would describe them. ---- */
static const struct format_target le64 = { 8, false, 16, false, true, 133, STRUCT_FP_EIGHTBYTES };	/* x86_64 */
static const struct format_target be64 = { 8, true, 16, false, true, 34, STRUCT_FP_UNKNOWN };	/* mips64 */
static const struct format_target le32 = { 4, false, 8, false, true, 133, STRUCT_FP_UNKNOWN };	/* sh4 */
static const struct format_target be32 = { 4, true, 0, true, true, 133, STRUCT_FP_UNKNOWN };	/* ppc32 */
static const struct format_target x86_32 = { 4, false, 0, false, true, 133, STRUCT_FP_UNKNOWN };	/* i386 */
static const struct format_target arm32 = { 4, false, 4, true, true, 133, STRUCT_FP_UNKNOWN };	/* armhf */
static const struct format_target a64 = { 8, false, 16, true, true, 133, STRUCT_FP_HFA };	/* aarch64 */
/* Long doubles are copied in the host's byte order; the raw form follows that order. */
#define HOST_BE (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
__attribute__((unused)) static const struct format_target host_ld = { 8, HOST_BE, 16, false, true, 133, 0 };
__attribute__((unused)) static const struct format_target foreign_ld = { 8, HOST_BE, 16, false, false, 133, 0 };

static struct format_opts opts_for(const struct format_target *t)
{
	/* Most checks read values as kernel code returns them: errno names on. */
	return (struct format_opts){ .read_mem = fake_read, .target = t, .errno_names = true };
}

static struct format_opts O;	/* the options of the current group of checks */

static struct signature sig(enum type_class c, uint64_t size)
{
	struct signature s = { .flags = PROTO_RELIABLE, .known = true };

	s.ret.cls = c;
	s.ret.size = size;
	return s;
}

static struct raw_value regs(uint64_t g0, uint64_t g1)
{
	return (struct raw_value){ .gpr = { g0, g1 } };
}

static void check_sig(const char *desc, const struct signature *s, struct raw_value v, const char *want)
{
	char buf[1024];
	size_t n;

	memset(buf, 'X', sizeof(buf));
	count_allocs(true);
	n = format_return(buf, sizeof(buf), s, &v, &O);
	count_allocs(false);
	bool good = strcmp(buf, want) == 0 && n == strlen(want);

	tap(good, desc);
	if (!good)
		printf("# got:      [%s] (%zu)\n# expected: [%s]\n", buf, n, want);
}

static void check(const char *desc, enum type_class c, uint64_t size, struct raw_value v, const char *want)
{
	struct signature s = sig(c, size);

	check_sig(desc, &s, v, want);
}

static void check_int(const char *desc, enum type_class c, uint64_t size, uint64_t g0, const char *want)
{
	check(desc, c, size, regs(g0, 0), want);
}

static void test_void(void)
{
	struct signature s = sig(TC_VOID, 0);
	char buf[16] = "junk";
	struct raw_value v = regs(42, 0);

	O = opts_for(&le64);
	tap(format_return(buf, sizeof(buf), &s, &v, &O) == 0 && buf[0] == 0, "void: empty string, length 0");
	s.flags = 0;
	tap(format_return(buf, sizeof(buf), &s, &v, &O) == 0 && buf[0] == 0,
	    "void, unreliable: still empty (a clone never invents a value)");
}

static void test_bool(void)
{
	O = opts_for(&le64);
	check_int("bool 0: false", TC_BOOL, 1, 0, "ret=false");
	check_int("bool 1: true", TC_BOOL, 1, 1, "ret=true");
	check_int("bool 2: any nonzero is true", TC_BOOL, 1, 2, "ret=true");
	check_int("bool size 1, bits above the byte ignored", TC_BOOL, 1, 0xffffff00, "ret=false");
	check_int("bool size 4, bits above 32 ignored", TC_BOOL, 4, 0x100000000ull, "ret=false");
	check_int("bool size 4, top bit", TC_BOOL, 4, 0x80000000ull, "ret=true");
}

static void test_widths(void)
{
	O = opts_for(&le64);
	check_int("int8 0xff: -1 (no errno name below int)", TC_INT, 1, 0xff, "ret=-1");
	check_int("int8 0x1ff80 trimmed: -128", TC_INT, 1, 0x1ff80, "ret=-128");
	check_int("int8 0x7f: 127", TC_INT, 1, 0xffffff7f, "ret=127");
	check_int("uint8 0xff: 255", TC_UINT, 1, 0xff, "ret=255");
	check_int("uint8 0x1234 trimmed: 52", TC_UINT, 1, 0x1234, "ret=52");
	check_int("int16 0xffff8000: -32768", TC_INT, 2, 0xffff8000, "ret=-32768");
	check_int("int16 0x7fff: 32767", TC_INT, 2, 0x12347fff, "ret=32767");
	check_int("uint16 0xabcd1234: 4660", TC_UINT, 2, 0xabcd1234, "ret=4660");
	check_int("uint16 0xffff: 65535", TC_UINT, 2, 0xffffffffffffffffull, "ret=65535");
	check_int("int32 0xffffffff00000005: 5", TC_INT, 4, 0xffffffff00000005ull, "ret=5");
	check_int("int32 0x00000000ffffffff: -1 (EPERM)", TC_INT, 4, 0xffffffffull, "ret=-1 (EPERM)");
	check_int("int32 0x80000000: INT_MIN", TC_INT, 4, 0x80000000ull, "ret=-2147483648");
	check_int("int32 0x7fffffff: INT_MAX", TC_INT, 4, 0xffffffff7fffffffull, "ret=2147483647");
	check_int("uint32 0xffffffff00000005: 5", TC_UINT, 4, 0xffffffff00000005ull, "ret=5");
	check_int("uint32 0xfffffffe: no sign, no errno", TC_UINT, 4, 0xfffffffeull, "ret=4294967294");
	check_int("int64 -22: EINVAL", TC_INT, 8, (uint64_t)-22, "ret=-22 (EINVAL)");
	check_int("int64 0xffffffea is positive", TC_INT, 8, 0xffffffeaull, "ret=4294967274");
	check_int("int64 INT64_MIN", TC_INT, 8, 0x8000000000000000ull, "ret=-9223372036854775808");
	check_int("int64 INT64_MAX", TC_INT, 8, 0x7fffffffffffffffull, "ret=9223372036854775807");
	check_int("uint64 UINT64_MAX", TC_UINT, 8, UINT64_MAX, "ret=18446744073709551615");
	check_int("int32 0", TC_INT, 4, 0xffffffff00000000ull, "ret=0");

	check("int128 -1 (rax:rdx)", TC_INT, 16, regs(UINT64_MAX, UINT64_MAX), "ret=-1");
	check("int128 2^64", TC_INT, 16, regs(0, 1), "ret=18446744073709551616");
	check("int128 min", TC_INT, 16, regs(0, 0x8000000000000000ull),
	      "ret=-170141183460469231731687303715884105728");
	check("uint128 max", TC_UINT, 16, regs(UINT64_MAX, UINT64_MAX),
	      "ret=340282366920938463463374607431768211455");
	check("uint128 10^20", TC_UINT, 16, regs(0x6bc75e2d63100000ull, 5), "ret=100000000000000000000");
	check_int("int of 3 bytes: raw", TC_INT, 3, 0x123456, "ret=0x123456?");
	check("int of 32 bytes: raw", TC_INT, 32, regs(7, 0), "ret=0x7?");

	O.hex = true;
	check_int("hex int32 -1", TC_INT, 4, 0xffffffffffffffffull, "ret=0xffffffff (EPERM)");
	check_int("hex int8 -1", TC_INT, 1, 0xffffffffffffffffull, "ret=0xff");
	check_int("hex uint16", TC_UINT, 2, 0xabcd1234, "ret=0x1234");
	check_int("hex uint64", TC_UINT, 8, 0xdeadbeefcafef00dull, "ret=0xdeadbeefcafef00d");
	check_int("hex int64 0", TC_INT, 8, 0, "ret=0x0");
	check("hex uint128 2^64", TC_UINT, 16, regs(0, 1), "ret=0x10000000000000000");
}

static void test_32bit(void)
{
	O = opts_for(&x86_32);
	check_int("i386 int32 -22", TC_INT, 4, 0xffffffea, "ret=-22 (EINVAL)");
	check_int("i386 int32 junk above eax ignored", TC_INT, 4, 0x12345678fffffffeull, "ret=-2 (ENOENT)");
	check("i386 long long: eax low, edx high", TC_INT, 8, regs(0xfffffffe, 0xffffffff), "ret=-2 (ENOENT)");
	check("i386 unsigned long long 2^32+1, junk above each register", TC_UINT, 8,
	      regs(0xdead000000000001ull, 0xbeef000000000001ull), "ret=4294967297");
	check("i386 long long INT64_MIN", TC_INT, 8, regs(0, 0x80000000), "ret=-9223372036854775808");
	check("i386 16-byte int: raw eax", TC_INT, 16, regs(0x1234567800000042ull, 0), "ret=0x42?");
	check("i386 pointer junk above: trimmed", TC_POINTER, 4, regs(0xdeadbeef00001000ull, 0), "ret=0x1000");
	check("i386 pointer 0 in the low half: NULL", TC_POINTER, 4, regs(0xffffffff00000000ull, 0), "ret=NULL");
	check("i386 8-byte pointer: raw", TC_POINTER, 8, regs(1, 2), "ret=0x1?");

	O = opts_for(&be32);
	check("ppc32 long long: r3 high, r4 low", TC_UINT, 8, regs(2, 1), "ret=8589934593");
	check("ppc32 long long -5", TC_INT, 8, regs(0xffffffff, 0xfffffffb), "ret=-5 (EIO)");
	check("ppc32 int32 in r3", TC_INT, 4, regs(7, 9), "ret=7");

	O = opts_for(&le64);
	struct signature s = sig(TC_INT, 4);

	s.flags = 0;
	O.target = &x86_32;
	check_sig("i386 unreliable: eax only", &s, regs(0x1234567800000042ull, 5), "ret=0x42?");
}

struct errno_name {
	int value;
	const char *name;
};

#define E(x) { x, #x }
/* The numbers come from this system's <errno.h>, independent of the formatter's table. */
static const struct errno_name errnos[] = {
	E(EPERM), E(ENOENT), E(ESRCH), E(EINTR), E(EIO), E(ENXIO), E(E2BIG), E(ENOEXEC), E(EBADF),
	E(ECHILD), E(EAGAIN), E(ENOMEM), E(EACCES), E(EFAULT), E(ENOTBLK), E(EBUSY), E(EEXIST),
	E(EXDEV), E(ENODEV), E(ENOTDIR), E(EISDIR), E(EINVAL), E(ENFILE), E(EMFILE), E(ENOTTY),
	E(ETXTBSY), E(EFBIG), E(ENOSPC), E(ESPIPE), E(EROFS), E(EMLINK), E(EPIPE), E(EDOM),
	E(ERANGE), E(EDEADLK), E(ENAMETOOLONG), E(ENOLCK), E(ENOSYS), E(ENOTEMPTY), E(ELOOP),
	E(ENOMSG), E(EIDRM), E(ECHRNG), E(EL2NSYNC), E(EL3HLT), E(EL3RST), E(ELNRNG), E(EUNATCH),
	E(ENOCSI), E(EL2HLT), E(EBADE), E(EBADR), E(EXFULL), E(ENOANO), E(EBADRQC), E(EBADSLT),
	E(EBFONT), E(ENOSTR), E(ENODATA), E(ETIME), E(ENOSR), E(ENONET), E(ENOPKG), E(EREMOTE),
	E(ENOLINK), E(EADV), E(ESRMNT), E(ECOMM), E(EPROTO), E(EMULTIHOP), E(EDOTDOT), E(EBADMSG),
	E(EOVERFLOW), E(ENOTUNIQ), E(EBADFD), E(EREMCHG), E(ELIBACC), E(ELIBBAD), E(ELIBSCN),
	E(ELIBMAX), E(ELIBEXEC), E(EILSEQ), E(ERESTART), E(ESTRPIPE), E(EUSERS), E(ENOTSOCK),
	E(EDESTADDRREQ), E(EMSGSIZE), E(EPROTOTYPE), E(ENOPROTOOPT), E(EPROTONOSUPPORT),
	E(ESOCKTNOSUPPORT), E(EOPNOTSUPP), E(EPFNOSUPPORT), E(EAFNOSUPPORT), E(EADDRINUSE),
	E(EADDRNOTAVAIL), E(ENETDOWN), E(ENETUNREACH), E(ENETRESET), E(ECONNABORTED),
	E(ECONNRESET), E(ENOBUFS), E(EISCONN), E(ENOTCONN), E(ESHUTDOWN), E(ETOOMANYREFS),
	E(ETIMEDOUT), E(ECONNREFUSED), E(EHOSTDOWN), E(EHOSTUNREACH), E(EALREADY), E(EINPROGRESS),
	E(ESTALE), E(EUCLEAN), E(ENOTNAM), E(ENAVAIL), E(EISNAM), E(EREMOTEIO), E(EDQUOT),
	E(ENOMEDIUM), E(EMEDIUMTYPE), E(ECANCELED), E(ENOKEY), E(EKEYEXPIRED), E(EKEYREVOKED),
	E(EKEYREJECTED), E(EOWNERDEAD), E(ENOTRECOVERABLE), E(ERFKILL), E(EHWPOISON),
};

static void test_errno(void)
{
	char want[64], desc[64];
	int bad = 0;

	O = opts_for(&le64);
	check_int("errno low end: -1 EPERM", TC_INT, 4, (uint32_t)-1, "ret=-1 (EPERM)");
	check_int("errno high end: -133 EHWPOISON", TC_INT, 4, (uint32_t)-133, "ret=-133 (EHWPOISON)");
	check_int("errno -134: no name", TC_INT, 4, (uint32_t)-134, "ret=-134");
	check_int("errno -4095: no name", TC_INT, 8, (uint64_t)-4095, "ret=-4095");
	check_int("errno -4096: no name", TC_INT, 8, (uint64_t)-4096, "ret=-4096");
	check_int("errno -41 (EWOULDBLOCK's old slot): no name", TC_INT, 4, (uint32_t)-41, "ret=-41");
	check_int("errno -58 (EDEADLOCK's slot): no name", TC_INT, 4, (uint32_t)-58, "ret=-58");
	check_int("errno -11 is EAGAIN, not EWOULDBLOCK", TC_INT, 4, (uint32_t)-11, "ret=-11 (EAGAIN)");
	check_int("errno -95 is EOPNOTSUPP, not ENOTSUP", TC_INT, 4, (uint32_t)-95, "ret=-95 (EOPNOTSUPP)");
	check_int("errno: positive 22 has no name", TC_INT, 4, 22, "ret=22");
	check_int("errno: unsigned -22 has no name", TC_UINT, 8, (uint64_t)-22, "ret=18446744073709551594");
	check_int("errno: int16 -22 has no name", TC_INT, 2, (uint16_t)-22, "ret=-22");
	O.target = &be64;	/* MIPS numbers differ above 34 */
	check_int("errno_max 34: -34 ERANGE", TC_INT, 4, (uint32_t)-34, "ret=-34 (ERANGE)");
	check_int("errno_max 34: -35 unnamed", TC_INT, 4, (uint32_t)-35, "ret=-35");
	O.target = &le64;
	/* User programs return -1 and set errno: no names unless asked for. */
	O.errno_names = false;
	check_int("errno names off: -1 has no name", TC_INT, 4, (uint32_t)-1, "ret=-1");
	check_int("errno names off: int64 -22 has no name", TC_INT, 8, (uint64_t)-22, "ret=-22");
	O.hex = true;
	check_int("errno names off, hex: -1 has no name", TC_INT, 4, (uint32_t)-1, "ret=0xffffffff");
	O = opts_for(&le64);

	for (size_t i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++) {
		char buf[64];
		struct signature s = sig(TC_INT, 8);
		struct raw_value v = regs((uint64_t)-(int64_t)errnos[i].value, 0);

		snprintf(want, sizeof(want), "ret=-%d (%s)", errnos[i].value, errnos[i].name);
		format_return(buf, sizeof(buf), &s, &v, &O);
		if (strcmp(buf, want) != 0) {
			printf("# got %s, <errno.h> says %s\n", buf, want);
			bad++;
		}
	}
	snprintf(desc, sizeof(desc), "all %zu errno names agree with <errno.h>",
		 sizeof(errnos) / sizeof(errnos[0]));
	tap(bad == 0 && sizeof(errnos) / sizeof(errnos[0]) == 131, desc);
}

static void test_char(void)
{
	O = opts_for(&le64);
	check_int("char 'a'", TC_CHAR, 1, 0x61, "ret=97 'a'");
	check_int("char 'a' with junk above", TC_CHAR, 1, 0xabcdef61, "ret=97 'a'");
	check_int("char quote", TC_CHAR, 1, '\'', "ret=39 '\\''");
	check_int("char backslash", TC_CHAR, 1, '\\', "ret=92 '\\\\'");
	check_int("char double quote unescaped", TC_CHAR, 1, '"', "ret=34 '\"'");
	check_int("char newline", TC_CHAR, 1, '\n', "ret=10 '\\n'");
	check_int("char space", TC_CHAR, 1, ' ', "ret=32 ' '");
	check_int("char NUL: number only", TC_CHAR, 1, 0, "ret=0");
	check_int("char DEL: number only", TC_CHAR, 1, 0x7f, "ret=127");
	check_int("signed char 0xe9: -23", TC_CHAR, 1, 0xe9, "ret=-23");
	check_int("char of 2 bytes: raw", TC_CHAR, 2, 0x61, "ret=0x61?");
	O.target = &arm32;
	check_int("unsigned plain char 0xe9: 233", TC_CHAR, 1, 0xe9, "ret=233");
	O.hex = true;
	check_int("hex char 'a'", TC_CHAR, 1, 0x61, "ret=0x61 'a'");
}

#define NAME(s) ((char *)(s))

static void test_enum(void)
{
	struct enumerator colors[] = { { NAME("RED"), 0, false }, { NAME("GREEN"), 1, false },
				       { NAME("BLUE"), 2, false } };
	struct enumerator signs[] = { { NAME("NEG"), (uint64_t)-1, true }, { NAME("ZERO"), 0, false },
				      { NAME("BIG"), 100, false } };
	struct enumerator small[] = { { NAME("LOW"), (uint64_t)-128, true }, { NAME("HIGH"), 127, false } };
	struct enumerator ubig[] = { { NAME("ALL"), 0xffffffffull, false } };
	struct enumerator u64[] = { { NAME("TOP"), UINT64_MAX, false } };
	struct enumerator s64[] = { { NAME("MINUS_ONE"), (uint64_t)-1, true } };
	struct signature s = sig(TC_ENUM, 4);

	O = opts_for(&le64);
	s.ret.enumerators = colors;
	s.ret.nenumerators = 3;
	check_sig("enum match", &s, regs(1, 0), "ret=GREEN");
	check_sig("enum match after trimming", &s, regs(0xffffffff00000002ull, 0), "ret=BLUE");
	check_sig("enum no match: number", &s, regs(7, 0), "ret=7");
	check_sig("enum without negatives is unsigned", &s, regs(0xffffffff, 0), "ret=4294967295");
	s.ret.enumerators = signs;
	check_sig("enum negative enumerator", &s, regs(0xffffffff, 0), "ret=NEG");
	check_sig("enum with negatives: unknown value signed", &s, regs(0xfffffffe, 0), "ret=-2");
	check_sig("enum with negatives: positive match", &s, regs(100, 0), "ret=BIG");
	s.ret.size = 8;
	check_sig("8-byte enum -1 sign-checked", &s, regs(0xffffffff, 0), "ret=4294967295");
	s.ret.size = 1;
	s.ret.enumerators = small;
	s.ret.nenumerators = 2;
	check_sig("1-byte enum -128", &s, regs(0x180, 0), "ret=LOW");
	check_sig("1-byte enum 127", &s, regs(0x7f, 0), "ret=HIGH");
	s.ret.size = 4;
	s.ret.enumerators = ubig;
	s.ret.nenumerators = 1;
	check_sig("unsigned enum 0xffffffff", &s, regs(0xffffffffffffffffull, 0), "ret=ALL");
	s.ret.size = 8;
	s.ret.enumerators = u64;
	check_sig("8-byte enum UINT64_MAX", &s, regs(UINT64_MAX, 0), "ret=TOP");
	s.ret.enumerators = s64;
	check_sig("8-byte enum -1", &s, regs(UINT64_MAX, 0), "ret=MINUS_ONE");
	s.ret.nenumerators = 0;
	check_sig("enum without enumerators", &s, regs(3, 0), "ret=3");
	O.hex = true;
	s.ret.size = 4;
	s.ret.enumerators = signs;
	s.ret.nenumerators = 3;
	check_sig("hex: enum name still", &s, regs(100, 0), "ret=BIG");
	check_sig("hex: unknown enum value", &s, regs(0xfffffffe, 0), "ret=0xfffffffe");

	/* Through the real parser: the "negative" flag as sig.c sets it. */
	struct signature p;

	O = opts_for(&le64);
	if (sig_parse("1" PROTO_US "1" PROTO_RS "enum" PROTO_US "4" PROTO_US "enum e @" PROTO_US "e"
		      PROTO_US "A=-5,B=3,C=4294967290", &p) == 0) {
		check_sig("parsed enum -5", &p, regs(0xfffffffb, 0), "ret=A");
		check_sig("parsed enum 3", &p, regs(3, 0), "ret=B");
		sig_free(&p);
	} else {
		tap(false, "sig_parse of an enum signature");
	}
}

static void test_pointer(void)
{
	O = opts_for(&le64);
	check_int("pointer NULL", TC_POINTER, 8, 0, "ret=NULL");
	check_int("pointer", TC_POINTER, 8, 0x7ffd12345678ull, "ret=0x7ffd12345678");
	check_int("pointer high bits", TC_POINTER, 8, 0xffff800000001000ull, "ret=0xffff800000001000");
	O.hex = true;
	check_int("pointer in hex mode alike", TC_POINTER, 8, 0x1000, "ret=0x1000");
}

/* Valid UTF-8 prints as it is; invalid or unprintable bytes are escaped, octal as before. */
static void test_utf8_strings(void)
{
	uint64_t cafe = place(600, "caf\303\251", 6);
	uint64_t mixed = place(610, "\342\202\254 \360\237\230\200!", 10);
	uint64_t bad = place(630, "a\303(b\355\240\200\300\257\302\205\364\220\200\200", 16);
	uint64_t cut = place(660, "\303", 2);
	uint64_t e3 = place(670, "ab\303\251", 5);
	char big[80];
	uint64_t across;

	/* A 2-byte sequence that straddles the reader's 64-byte chunks. */
	memset(big, 'y', sizeof(big));
	memcpy(big + 63, "\303\251", 2);
	big[70] = 0;
	across = place(700, big, 71);

	O = opts_for(&le64);
	check_int("UTF-8 string as it is", TC_STRING, 8, cafe, "ret=\"caf\303\251\"");
	check_int("UTF-8 3- and 4-byte sequences as they are", TC_STRING, 8, mixed,
		  "ret=\"\342\202\254 \360\237\230\200!\"");
	check_int("invalid UTF-8 (lone lead, surrogate, overlong, C1 control, > U+10FFFF) escaped",
		  TC_STRING, 8, bad,
		  "ret=\"a\\303(b\\355\\240\\200\\300\\257\\302\\205\\364\\220\\200\\200\"");
	check_int("UTF-8 lead byte before the NUL escaped", TC_STRING, 8, cut, "ret=\"\\303\"");
	{
		char want[100] = "ret=\"";

		memset(want + 5, 'y', 63);
		strcpy(want + 68, "\303\251yyyyy\"");
		O.max_string = 100;
		check_int("UTF-8 sequence across two reads kept whole", TC_STRING, 8, across, want);
	}
	O.max_string = 3;
	check_int("limit inside a sequence: it is cut, escaped", TC_STRING, 8, e3, "ret=\"ab\\303\"...");
	O.max_string = 4;
	check_int("limit at a sequence's end: whole", TC_STRING, 8, e3, "ret=\"ab\303\251\"");
	tap(utf8_len((const unsigned char *)"\303", 1) == -1 && utf8_len((const unsigned char *)"\303\251", 2) == 2 &&
	    utf8_len((const unsigned char *)"\377", 1) == 0, "utf8_len: needs more, whole, never valid");
}

static void test_string(void)
{
	static const char special[] = "a\"b\\c\n\t\001\177\351'z";
	char longer[200];
	uint64_t hello = place(0, "hello", 6);
	uint64_t sp = place(16, special, sizeof(special));
	uint64_t empty = place(40, "", 1);
	uint64_t abc = place(48, "abcdefgh", 9);
	uint64_t tail = place(sizeof(mem) - 3, "xyz", 3);	/* no NUL before the end */

	memset(longer, 'x', sizeof(longer));
	uint64_t l64 = place(100, longer, 64);
	place(164, "", 1);
	uint64_t l65 = place(200, longer, 65);
	place(265, "", 1);
	uint64_t l200 = place(300, longer, 200);
	place(500, "", 1);

	O = opts_for(&le64);
	check_int("string", TC_STRING, 8, hello, "ret=\"hello\"");
	check_int("string with quotes, backslash, newline, tab, control, DEL, high byte", TC_STRING, 8, sp,
		  "ret=\"a\\\"b\\\\c\\n\\t\\001\\177\\351'z\"");
	check_int("empty string", TC_STRING, 8, empty, "ret=\"\"");
	check_int("NULL string", TC_STRING, 8, 0, "ret=NULL");
	check_int("unreadable string", TC_STRING, 8, 0xdead0000ull, "ret=0xdead0000 <unreadable>");
	check_int("string into unreadable memory", TC_STRING, 8, tail, "ret=\"xyz\"...");
	check_int("default limit 64: 64 chars whole", TC_STRING, 8, l64,
		  "ret=\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"");
	check_int("default limit 64: 65 chars cut", TC_STRING, 8, l65,
		  "ret=\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"...");
	O.max_string = 5;
	check_int("limit 5: cut", TC_STRING, 8, abc, "ret=\"abcde\"...");
	O.max_string = 8;
	check_int("limit 8: exactly 8 whole", TC_STRING, 8, abc, "ret=\"abcdefgh\"");
	O.max_string = 7;
	check_int("limit 7: 8 chars cut", TC_STRING, 8, abc, "ret=\"abcdefg\"...");
	O.max_string = 3;
	check_int("limit counts characters, not escapes", TC_STRING, 8, sp, "ret=\"a\\\"b\"...");
	O.max_string = 150;
	{
		char want[200] = "ret=\"";

		memset(want + 5, 'x', 150);
		strcpy(want + 155, "\"...");
		check_int("limit 150 over several reads", TC_STRING, 8, l200, want);
	}
	O.max_string = 1000;
	check_int("limit beyond the readable end", TC_STRING, 8, tail, "ret=\"xyz\"...");
	O.max_string = SIZE_MAX;
	check_int("limit SIZE_MAX", TC_STRING, 8, hello, "ret=\"hello\"");
	test_utf8_strings();
	O = opts_for(&le64);
	O.read_mem = NULL;
	check_int("no read_mem: unreadable", TC_STRING, 8, hello, "ret=0x7f0000001000 <unreadable>");
	O = opts_for(&x86_32);
	check("i386 string pointer trimmed to 32 bits", TC_STRING, 4, regs(0xffffffff00000000ull, 0), "ret=NULL");
}

static struct raw_value fp_bits(uint64_t bits, unsigned size, bool big_endian)
{
	struct raw_value v = { .gpr = { 0x1234, 0 }, .have_fpr = true };

	for (unsigned i = 0; i < size; i++)
		v.fpr[big_endian ? size - 1 - i : i] = (uint8_t)(bits >> (8 * i));
	return v;
}

static struct raw_value fp32(float f, bool big_endian)
{
	uint32_t bits;

	memcpy(&bits, &f, 4);
	return fp_bits(bits, 4, big_endian);
}

static struct raw_value fp64(double d, bool big_endian)
{
	uint64_t bits;

	memcpy(&bits, &d, 8);
	return fp_bits(bits, 8, big_endian);
}

__attribute__((unused)) static struct raw_value fpld(long double d)
{
	struct raw_value v = { .gpr = { 0x1234, 0 }, .have_fpr = true };

	memcpy(v.fpr, &d, sizeof(d) < 16 ? sizeof(d) : 16);
#if LDBL_MANT_DIG == 64
	memset(v.fpr + 10, 0, 6);	/* x87 padding is not part of the value */
#endif
	return v;
}

static void test_float(void)
{
	O = opts_for(&le64);
	check("float 0.5", TC_FLOAT, 4, fp32(0.5f, false), "ret=0.5");
	check("float 0.1", TC_FLOAT, 4, fp32(0.1f, false), "ret=0.1");
	check("float 1e30", TC_FLOAT, 4, fp32(1e30f, false), "ret=1e+30");
	check("float -0.0", TC_FLOAT, 4, fp32(-0.0f, false), "ret=-0");
	check("float NaN", TC_FLOAT, 4, fp32(NAN, false), "ret=nan");
	check("float -NaN", TC_FLOAT, 4, fp32(-NAN, false), "ret=-nan");
	check("float inf", TC_FLOAT, 4, fp32(INFINITY, false), "ret=inf");
	check("float -inf", TC_FLOAT, 4, fp32(-INFINITY, false), "ret=-inf");
	check("float 1/3: 8 digits", TC_FLOAT, 4, fp32(1.0f / 3, false), "ret=0.33333334");
	check("float FLT_MAX", TC_FLOAT, 4, fp32(FLT_MAX, false), "ret=3.4028235e+38");
	check("float smallest denormal", TC_FLOAT, 4, fp32(0x1p-149f, false), "ret=1e-45");
	check("float 16777216", TC_FLOAT, 4, fp32(16777216.0f, false), "ret=16777216");
	check("double 0.5", TC_FLOAT, 8, fp64(0.5, false), "ret=0.5");
	check("double 0.1", TC_FLOAT, 8, fp64(0.1, false), "ret=0.1");
	check("double 1e30", TC_FLOAT, 8, fp64(1e30, false), "ret=1e+30");
	check("double -0.0", TC_FLOAT, 8, fp64(-0.0, false), "ret=-0");
	check("double NaN", TC_FLOAT, 8, fp64(NAN, false), "ret=nan");
	check("double inf", TC_FLOAT, 8, fp64(INFINITY, false), "ret=inf");
	check("double -inf", TC_FLOAT, 8, fp64(-INFINITY, false), "ret=-inf");
	check("double pi: 16 digits", TC_FLOAT, 8, fp64(3.141592653589793, false), "ret=3.141592653589793");
	check("double 1/3", TC_FLOAT, 8, fp64(1.0 / 3, false), "ret=0.3333333333333333");
	check("double 0.1+0.2: 17 digits", TC_FLOAT, 8, fp64(0.1 + 0.2, false), "ret=0.30000000000000004");
	check("double DBL_MAX", TC_FLOAT, 8, fp64(DBL_MAX, false), "ret=1.7976931348623157e+308");
	check("double smallest denormal", TC_FLOAT, 8, fp64(0x1p-1074, false), "ret=5e-324");
	check("double 100", TC_FLOAT, 8, fp64(100.0, false), "ret=100");
	check("double -2.5", TC_FLOAT, 8, fp64(-2.5, false), "ret=-2.5");
	check("double 1e15: plain", TC_FLOAT, 8, fp64(1e15, false), "ret=1000000000000000");
	check("double 1e16: exponent", TC_FLOAT, 8, fp64(1e16, false), "ret=1e+16");
	check("double 12345678901234568: 17 digits, exponent", TC_FLOAT, 8, fp64(12345678901234568.0, false),
	      "ret=1.2345678901234568e+16");
	check("double 1234567890123456.8: plain", TC_FLOAT, 8, fp64(1234567890123456.8, false),
	      "ret=1234567890123456.8");
	check("double 123456.789", TC_FLOAT, 8, fp64(123456.789, false), "ret=123456.789");
	check("double 0.0001: plain", TC_FLOAT, 8, fp64(0.0001, false), "ret=0.0001");
	check("double 1.5e-5: exponent", TC_FLOAT, 8, fp64(1.5e-5, false), "ret=1.5e-05");
	check("double -1e-300", TC_FLOAT, 8, fp64(-1e-300, false), "ret=-1e-300");
	check("double 2^60: 19 digits needed, exponent", TC_FLOAT, 8, fp64(0x1p60, false),
	      "ret=1.152921504606847e+18");
	check("float 1e7: exact integer, plain", TC_FLOAT, 4, fp32(1e7f, false), "ret=10000000");
	check("float 123456789 is 123456792: no padded zeros", TC_FLOAT, 4, fp32(123456789.0f, false),
	      "ret=1.2345679e+08");
	check("float 1e15 is not 10^15: exponent", TC_FLOAT, 4, fp32(1e15f, false), "ret=1e+15");
	check("float 1.5", TC_FLOAT, 4, fp32(1.5f, false), "ret=1.5");
	check("double bits, not the integer register", TC_FLOAT, 8, fp_bits(0x4000000000000000ull, 8, false),
	      "ret=2");
	check("float without fpr: raw gpr", TC_FLOAT, 4, regs(0x3f000000, 0), "ret=0x3f000000?");
	check("float of 2 bytes: raw", TC_FLOAT, 2, fp32(0.5f, false), "ret=0x1234?");
	O.target = &be64;
	check("big-endian float 0.5 (3f 00 00 00)", TC_FLOAT, 4, fp_bits(0x3f000000, 4, true), "ret=0.5");
	check("big-endian double 0.5 (3f e0 ...)", TC_FLOAT, 8, fp_bits(0x3fe0000000000000ull, 8, true),
	      "ret=0.5");
	O.target = &le64;
	O.hex = true;
	check("hex does not apply to double", TC_FLOAT, 8, fp64(0.5, false), "ret=0.5");
}

static void test_long_double(void)
{
	O = opts_for(&host_ld);
#if (defined(__x86_64__) || defined(__i386__)) && LDBL_MANT_DIG == 64
	const uint64_t sizes[] = { 12, 16 };	/* i386's and x86_64's padding of the same 10 bytes */

	for (int i = 0; i < 2; i++) {
		char d[80];

#define LD(desc, value, want) \
		(snprintf(d, sizeof(d), "x87 long double (size %d) " desc, (int)sizes[i]), \
		 check(d, TC_FLOAT, sizes[i], fpld(value), want))
		LD("0.5", 0.5L, "ret=0.5");
		LD("0.1", 0.1L, "ret=0.1");
		LD("1e4000, beyond double", 1e4000L, "ret=1e+4000");
		LD("1 + 2^-63: 20 digits", 1.0L + 0x1p-63L, "ret=1.0000000000000000001");
		LD("-0.0", -0.0L, "ret=-0");
		LD("NaN", (long double)NAN, "ret=nan");
		LD("-inf", -(long double)INFINITY, "ret=-inf");
#undef LD
	}
	O.target = &foreign_ld;
	check("long double not the host's: raw bytes", TC_FLOAT, 16, fpld(0.5L),
	      "ret=0x0000000000003ffe8000000000000000?");
#elif LDBL_MANT_DIG == 113
	check("binary128 long double 0.5", TC_FLOAT, 16, fpld(0.5L), "ret=0.5");
	check("binary128 long double 0.1", TC_FLOAT, 16, fpld(0.1L), "ret=0.1");
	check("binary128 long double 1e4000", TC_FLOAT, 16, fpld(1e4000L), "ret=1e+4000");
	check("binary128 long double -0.0", TC_FLOAT, 16, fpld(-0.0L), "ret=-0");
	check("binary128 long double 1 + 2^-63: 35 digits", TC_FLOAT, 16, fpld(1.0L + 0x1p-63L),
	      "ret=1.0000000000000000001084202172485504");
	check("12-byte float on a binary128 host: raw", TC_FLOAT, 12, fpld(0.5L),
	      HOST_BE ? "ret=0x3ffe00000000000000000000?" : "ret=0x000000000000000000000000?");
	O.target = &foreign_ld;
	check("long double not the host's: raw bytes", TC_FLOAT, 16, fpld(0.5L),
	      "ret=0x3ffe0000000000000000000000000000?");
#else
	printf("# no long double checks for this host's long double\n");
#endif
}

static void test_struct(void)
{
	O = opts_for(&le64);
	check("struct {int 1, 2} in rax", TC_STRUCT, 8, regs(0x0000000200000001ull, 0xffff),
	      "ret={01 00 00 00 02 00 00 00}");
	check("struct of 12 bytes in rax:rdx", TC_STRUCT, 12, regs(0x0000000200000001ull, 0xffffffff00000003ull),
	      "ret={01 00 00 00 02 00 00 00 03 00 00 00}");
	check("struct of 16 bytes", TC_STRUCT, 16, regs(0x8877665544332211ull, 0x00ffeeddccbbaa99ull),
	      "ret={11 22 33 44 55 66 77 88 99 aa bb cc dd ee ff 00}");
	check("struct of 3 bytes", TC_STRUCT, 3, regs(0xffffffffff030201ull, 0), "ret={01 02 03}");
	check("union of 4 bytes", TC_UNION, 4, regs(0x11223344, 0), "ret={44 33 22 11}");
	check("struct of 24 bytes: in memory", TC_STRUCT, 24, regs(0x7ffd0000, 0), "ret=?");
	check("empty struct", TC_STRUCT, 0, regs(1, 2), "ret={}");
	O.target = &be64;
	check("mips64 struct {short} left-justified", TC_STRUCT, 2, regs(0x1122000000000000ull, 0), "ret={11 22}");
	check("mips64 struct of 12 bytes", TC_STRUCT, 12, regs(0x0000000100000002ull, 0x0000000300000000ull),
	      "ret={00 00 00 01 00 00 00 02 00 00 00 03}");
	O.target = &le32;
	check("sh4 struct of 8 bytes in r0:r1", TC_STRUCT, 8, regs(0xffffffff04030201ull, 0x08070605),
	      "ret={01 02 03 04 05 06 07 08}");
	check("sh4 struct of 12 bytes: in memory", TC_STRUCT, 12, regs(1, 2), "ret=?");
	O.target = &x86_32;
	check("i386 struct of 4 bytes: in memory", TC_STRUCT, 4, regs(1, 2), "ret=?");
	O.target = &arm32;
	check("arm struct of 4 bytes in r0", TC_STRUCT, 4, regs(0x04030201, 0), "ret={01 02 03 04}");
	check("arm struct of 8 bytes: in memory", TC_STRUCT, 8, regs(1, 2), "ret=?");
	O.hex = true;
	check("hex does not change struct bytes", TC_STRUCT, 4, regs(0x04030201, 0), "ret={01 02 03 04}");
}

/* A struct or union signature of version 2 with its flags and member list, through the real parser. */
static bool parse_members_flags(const char *flags, const char *cls, const char *size, const char *members,
				struct signature *out)
{
	char text[1024];

	snprintf(text, sizeof(text), "2" PROTO_US "%s" PROTO_RS "%s" PROTO_US "%s" PROTO_US "struct s @" PROTO_US "%s",
		 flags, cls, size, members);
	return sig_parse(text, out) == 0;
}

static bool parse_members(const char *cls, const char *size, const char *members, struct signature *out)
{
	return parse_members_flags("1", cls, size, members, out);
}

/* check_members_flags DESC FLAGS CLASS SIZE MEMBERS REGS WANT: parsed, then formatted */
static void check_members_flags(const char *desc, const char *flags, const char *cls, const char *size,
				const char *members, struct raw_value v, const char *want)
{
	struct signature p;

	if (!parse_members_flags(flags, cls, size, members, &p)) {
		tap(false, desc);
		printf("# sig_parse refused the member list [%s]\n", members);
		return;
	}
	check_sig(desc, &p, v, want);
	sig_free(&p);
}

/* `n` bytes of x, little-endian: the targets these checks use, whatever the host. */
static void put_le(uint8_t *p, uint64_t x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(x >> 8 * i);
}

static uint64_t bits_of_double(double d)
{
	uint64_t b;

	memcpy(&b, &d, sizeof(b));
	return b;
}

static uint64_t bits_of_float(float f)
{
	uint32_t b;

	memcpy(&b, &f, sizeof(b));
	return b;
}

/* A raw_value whose FP registers hold these bits, n bytes of each, as a little-endian target's memory. */
static struct raw_value fp_regs(uint64_t g0, uint64_t g1, uint64_t f0, uint64_t f1, size_t n)
{
	struct raw_value v = regs(g0, g1);

	put_le(v.fpr, f0, n);
	put_le(v.fpr1, f1, n);
	return v;
}

/*
 * Structs holding floats (flag 4) by the target's rule, and structs
 * returned in memory (in_memory: gpr[0] is where their bytes are).
 */
static void test_struct_places(void)
{
	uint64_t d15 = bits_of_double(1.5), d225 = bits_of_double(2.25), d05 = bits_of_double(0.5),
		 d4 = bits_of_double(4), f1 = bits_of_float(1), f2 = bits_of_float(2);
	struct raw_value v;
	uint8_t three[24];

	put_le(three, 1, 8);
	put_le(three + 8, 2, 8);
	put_le(three + 16, (uint64_t)-3, 8);
	O = opts_for(&le64);
	check_members_flags("x86_64 {double, long}: xmm0, then rax", "5", "struct", "16", "d:0:float:8,l:8:int:8",
			    fp_regs((uint64_t)-7, 99, d15, d225, 8), "ret={d=1.5, l=-7}");
	check_members_flags("x86_64 {long, double}: rax, then xmm0", "5", "struct", "16", "l:0:int:8,d:8:float:8",
			    fp_regs((uint64_t)-8, 99, d225, d15, 8), "ret={l=-8, d=2.25}");
	check_members_flags("x86_64 {double, double}: xmm0, xmm1", "5", "struct", "16", "a:0:float:8,b:8:float:8",
			    fp_regs(98, 99, d05, d4, 8), "ret={a=0.5, b=4}");
	check_members_flags("x86_64 jq's jv: a pointer and a double in one union stay in rdx", "5", "struct", "16",
			    "k:0:uint:1,u.p:8:pointer:8,u.d:8:float:8",
			    fp_regs(4, 0x3ff8000000000000ull, d4, d4, 8),
			    "ret={k=4, u.p=0x3ff8000000000000, u.d=1.5}");
	check_members_flags("a C++ class returned in memory but captured as registers: raw", "9", "struct", "4",
			    "n:0:int:4", regs(0x7ffd1000, 0), "ret=0x7ffd1000?");
	v = regs(place(64, (const char *)three, sizeof(three)), 0);
	v.in_memory = true;
	check_members_flags("x86_64 struct of 24 bytes from the memory rax points to", "1", "struct", "24",
			    "a:0:int:8,b:8:int:8,c:16:int:8", v, "ret={a=1, b=2, c=-3}");
	check_members_flags("a C++ class from the memory rax points to", "9", "struct", "8",
			    "a:0:int:8", v, "ret={a=1}");
	v = regs(place(128, "\x07\0\0\0hi\0z", 8), 0);
	v.in_memory = true;
	check_members_flags("a char array member as text, up to its NUL", "1", "struct", "8",
			    "id:0:int:4,name[0]:4:char:1,name[1]:5:char:1,name[2]:6:char:1,name[3]:7:char:1",
			    v, "ret={id=7, name=\"hi\"}");
	v = regs(0x10, 0);
	v.in_memory = true;
	check_members_flags("a struct whose memory cannot be read: ?", "1", "struct", "24", "a:0:int:8", v, "ret=?");
	O.target = &a64;
	check_members_flags("aarch64 HFA of two floats: s0, s1", "5", "struct", "8", "x:0:float:4,y:4:float:4",
			    fp_regs(98, 99, f1, f2, 4), "ret={x=1, y=2}");
	check_members_flags("aarch64 HFA of three floats: v2 is not kept, ?", "5", "struct", "12",
			    "x:0:float:4,y:4:float:4,z:8:float:4", fp_regs(98, 99, f1, f2, 4), "ret=?");
	check_members_flags("aarch64 {double, long} is no HFA: x0, x1", "5", "struct", "16", "d:0:float:8,l:8:int:8",
			    fp_regs(0x3ff8000000000000ull, (uint64_t)-7, d4, d4, 8), "ret={d=1.5, l=-7}");
	O.target = &be64;
	check_members_flags("a machine without a rule for struct floats: raw", "5", "struct", "16",
			    "a:0:float:8,b:8:float:8", fp_regs(0x1234, 0, d05, d4, 8), "ret=0x1234?");
}

/* check_members DESC CLASS SIZE MEMBERS REGS WANT: parsed, then formatted */
static void check_members(const char *desc, const char *cls, const char *size, const char *members,
			  struct raw_value v, const char *want)
{
	struct signature p;

	if (!parse_members(cls, size, members, &p)) {
		tap(false, desc);
		printf("# sig_parse refused the member list [%s]\n", members);
		return;
	}
	check_sig(desc, &p, v, want);
	sig_free(&p);
}

static void test_struct_members(void)
{
	static const char *const bad[] = {
		"a:0:int:9",		/* over 8 bytes */
		"a:6:int:4",		/* past the struct's 8 */
		"a:0:struct:4",		/* not a scalar */
		"a:0:int",		/* a field missing */
		"a:0:int:4:5",		/* one too many */
		":0:int:4",		/* no name */
		"a:x:int:4",
		"",
	};
	struct signature p;
	float f15 = 1.5f;
	uint32_t f15_bits;

	memcpy(&f15_bits, &f15, sizeof(f15_bits));
	O = opts_for(&le64);
	check_members("x86_64 struct pair by member", "struct", "8", "a:0:int:4,b:4:int:4",
		      regs(0xfffffffe00000001ull, 0xffff), "ret={a=1, b=-2}");
	check_members("x86_64 nested struct, array, bool, char, pointer in rax:rdx", "struct", "16",
		      "p.x:0:int:2,p.y:2:int:2,tag[0]:4:uint:1,ok:5:bool:1,c:6:char:1,q:8:pointer:8",
		      regs(0x007a0105fffc0003ull, 0), "ret={p.x=3, p.y=-4, tag[0]=5, ok=true, c=122 'z', q=NULL}");
	check_members("a float member in an integer register", "struct", "8", "f:0:float:4,i:4:int:4",
		      regs((uint64_t)7 << 32 | f15_bits, 0), "ret={f=1.5, i=7}");
	check_members("members get no errno names", "struct", "8", "a:0:int:4,b:4:int:4",
		      regs(0x00000000ffffffffull, 0), "ret={a=-1, b=0}");
	check_members("an enum member without enumerators: its number", "struct", "16",
		      "col:0:enum:4,name:8:pointer:8", regs(1, 0x1000), "ret={col=1, name=0x1000}");
	check_members("a char * member is not read through", "struct", "8", "name:0:string:8",
		      regs(place(0, "hello", 6), 0), "ret={name=0x7f0000001000}");
	check_members("x86_64 struct of 24 bytes: in memory, members or not", "struct", "24", "a:0:int:4",
		      regs(1, 2), "ret=?");
	O.hex = true;
	check_members("hex: members in hex", "struct", "8", "a:0:int:4,b:4:int:4",
		      regs(0xfffffffe00000001ull, 0), "ret={a=0x1, b=0xfffffffe}");
	O.hex = false;
	O.target = &be64;
	check_members("mips64 struct {short, short} left-justified", "struct", "4", "x:0:int:2,y:2:int:2",
		      regs(0x0001fffe00000000ull, 0), "ret={x=1, y=-2}");
	O.target = &le32;
	check_members("sh4 unsigned long long member over r0:r1", "struct", "8", "v:0:uint:8",
		      regs(0xffffffff04030201ull, 0x08070605), "ret={v=578437695752307201}");
	O.target = &arm32;
	check_members("arm union by member in r0", "union", "4", "i:0:int:4,b[0]:0:uint:1,b[3]:3:uint:1",
		      regs(0x11223344, 0), "ret={i=287454020, b[0]=68, b[3]=17}");
	O.target = &x86_32;
	check_members("i386 struct: in memory", "struct", "4", "i:0:int:4", regs(1, 2), "ret=?");

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		bool parsed = parse_members("struct", "8", bad[i], &p);
		char desc[96];

		snprintf(desc, sizeof(desc), "member list [%s] is refused", bad[i]);
		tap(!parsed, desc);
		if (parsed)
			sig_free(&p);
	}
	tap(sig_parse("1" PROTO_US "1" PROTO_RS "struct" PROTO_US "8" PROTO_US "struct s @" PROTO_US "a:0:int:4",
		      &p) < 0, "version 1 has no member lists");
	tap(sig_parse("3" PROTO_US "1" PROTO_RS "int" PROTO_US "4" PROTO_US "int @", &p) < 0,
	    "version 3 is refused");
	O = opts_for(&le64);
	if (sig_parse("1" PROTO_US "1" PROTO_RS "struct" PROTO_US "8" PROTO_US "struct s @", &p) == 0) {
		check_sig("a version 1 struct: its bytes, as before", &p, regs(0x0000000200000001ull, 0),
			  "ret={01 00 00 00 02 00 00 00}");
		sig_free(&p);
	} else {
		tap(false, "version 1 signatures are still read");
	}
}

static void test_unknown(void)
{
	struct signature s = sig(TC_INT, 4);

	O = opts_for(&le64);
	check_int("unknown class: raw", TC_UNKNOWN, 8, 0x2a, "ret=0x2a?");
	check_int("unknown class of size 0: raw", TC_UNKNOWN, 0, 0xffffffffffffffffull, "ret=0xffffffffffffffff?");
	check_int("out-of-range class: raw", (enum type_class)99, 4, 0x2a, "ret=0x2a?");
	s.flags = 0;
	check_sig("unreliable int: raw", &s, regs(0x2a, 0), "ret=0x2a?");
	check_sig("unreliable int -22: raw 64 bits, no errno", &s, regs((uint64_t)-22, 0), "ret=0xffffffffffffffea?");
	s.flags = PROTO_VARARGS;
	check_sig("varargs without reliable: raw", &s, regs(5, 0), "ret=0x5?");
	s.flags = PROTO_RELIABLE | PROTO_VARARGS;
	check_sig("reliable varargs: typed", &s, regs(5, 0), "ret=5");
	s = sig(TC_FLOAT, 8);
	s.flags = 0;
	check_sig("unreliable double: raw gpr", &s, fp64(0.5, false), "ret=0x1234?");
	s = sig(TC_STRING, 8);
	s.flags = 0;
	mem_reads = 0;
	check_sig("unreliable string: raw, memory untouched", &s, regs(MEM_BASE, 0), "ret=0x7f0000001000?");
	tap(mem_reads == 0, "unreliable string: no read_mem call");

	char buf[32];
	struct raw_value v = regs(0x2a, 0);

	tap(format_return(buf, sizeof(buf), NULL, &v, &O) == 9 && strcmp(buf, "ret=0x2a?") == 0,
	    "no signature: raw");
}

static void test_buffer(void)
{
	struct signature s = sig(TC_INT, 4);
	struct raw_value v = regs(12345, 0);
	char *buf = malloc(6);	/* exact size, so ASan sees any overflow */
	size_t n;

	O = opts_for(&le64);
	n = format_return(buf, 6, &s, &v, &O);
	tap(n == 9 && strcmp(buf, "ret=1") == 0, "short buffer: truncated, NUL-terminated, full length returned");
	free(buf);
	tap(format_return(NULL, 0, &s, &v, &O) == 9, "no buffer: length only");
	buf = malloc(1);
	tap(format_return(buf, 1, &s, &v, &O) == 9 && buf[0] == 0, "1-byte buffer: empty string");
	free(buf);

	/* A string at the limit, in a buffer of FORMAT_RET_SIZE: every byte escaped. */
	uint64_t p = place(600, "\001\002\003\004\005\006\016\017\020\021", 11);
	size_t size = FORMAT_RET_SIZE(10);
	struct signature ss = sig(TC_STRING, 8);

	buf = malloc(size);
	v = regs(p, 0);
	O.max_string = 10;
	n = format_return(buf, size, &ss, &v, &O);
	tap(n < size && n == strlen(buf) && n == 4 + 2 + 40, "FORMAT_RET_SIZE holds a fully escaped string");
	free(buf);
}

static void test_defaults(void)
{
	struct signature s = sig(TC_INT, 4);
	struct raw_value v = regs((uint32_t)-22, 0);
	char buf[64];

	format_return(buf, sizeof(buf), &s, &v, NULL);
	tap(strcmp(buf, "ret=-22") == 0, "NULL options: host target, decimal, no errno name");
	s = sig(TC_STRING, sizeof(void *));
	v = regs(MEM_BASE, 0);
	format_return(buf, sizeof(buf), &s, &v, NULL);
	tap(strncmp(buf, "ret=0x", 6) == 0 && strstr(buf, " <unreadable>"),
	    "NULL options: strings unreadable (never dereferenced)");

	const struct format_target *h = format_target_native();

	tap(h != NULL, "this machine's descriptor, from its own ELF header");
	if (!h)
		return;

	tap(h->reg_bytes == sizeof(void *), "host register width is the pointer size");
	tap(h->char_unsigned == (CHAR_MIN == 0), "host char signedness");
	tap(h->big_endian == (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__), "host byte order");
	tap(h->ldbl_host && h->errno_max == 133, "host long double and errno numbering");
#if defined(__x86_64__) || defined(__aarch64__)
	tap(h->struct_regs == 16, "host structs up to 16 bytes in registers");
#elif defined(__i386__) || defined(__s390x__)
	tap(h->struct_regs == 0, "host structs in memory");
#elif defined(__arm__)
	tap(h->struct_regs == 4, "host structs up to 4 bytes in r0");
#endif
}

/* ---- trace/digits.h: what the writer prints instead of printf, checked against printf ---- */

static bool dec_is(uint64_t x)
{
	char buf[DIGITS_MAX + 1], want[32], *p;

	buf[DIGITS_MAX] = 0;
	p = digits_dec(buf + DIGITS_MAX, x);
	snprintf(want, sizeof(want), "%llu", (unsigned long long)x);
	if (strcmp(p, want))
		printf("# digits_dec(%s): \"%s\"\n", want, p);
	if (digits_dec_len(x) != strlen(want))
		printf("# digits_dec_len(%s): %u\n", want, digits_dec_len(x));
	return !strcmp(p, want) && digits_dec_len(x) == strlen(want);
}

static bool hex_is(uint64_t x, unsigned min)
{
	char buf[DIGITS_MAX + 1], want[32], *p;

	buf[DIGITS_MAX] = 0;
	p = digits_hex(buf + DIGITS_MAX, x, min);
	snprintf(want, sizeof(want), "%0*llx", (int)min, (unsigned long long)x);
	if (strcmp(p, want))
		printf("# digits_hex(%s, %u): \"%s\"\n", want, min, p);
	if (min == 1 && digits_hex_len(x) != strlen(want))
		printf("# digits_hex_len(%s): %u\n", want, digits_hex_len(x));
	return !strcmp(p, want) && (min != 1 || digits_hex_len(x) == strlen(want));
}

/* %.3f of x, from digits_thousandths(), as the writer prints it; false if it declined. */
static bool fixed3_is(double x)
{
	char got[48], want[400];
	uint64_t q;

	snprintf(want, sizeof(want), "%.3f", x);
	if (!digits_thousandths(x, &q))
		return false;
	snprintf(got, sizeof(got), "%llu.%03u", (unsigned long long)(q / 1000), (unsigned)(q % 1000));
	if (strcmp(got, want))
		printf("# digits_thousandths(%a): %s, printf %s\n", x, got, want);
	return !strcmp(got, want);
}

static void test_digits(void)
{
	bool dec = true, hex = true, fix = true;
	uint64_t x = 1, r = 0x9e3779b97f4a7c15ull;
	double ns_per_tick[] = { 1.0, 0.3846153846153846, 2.5e-1, 1.0000000001, 0.41666666666666669 };

	for (int i = 0; i < 20; i++, x *= 10)
		dec &= dec_is(x - 1) && dec_is(x) && dec_is(x + 1);
	dec &= dec_is(0) && dec_is(UINT64_MAX) && dec_is(99) && dec_is(100);
	tap(dec, "digits_dec and digits_dec_len: 0, 99, 100, powers of 10 and their neighbours, UINT64_MAX, as %llu");
	for (unsigned min = 1; min <= 16; min++)
		hex &= hex_is(0, min) && hex_is(0xf, min) && hex_is(0x10, min) && hex_is(UINT64_MAX, min) &&
		       hex_is(0x123456789abcull, min);
	/* Every length, odd and even (it writes a byte's two digits at a time). */
	for (int k = 0; k < 64; k++)
		hex &= hex_is(1ull << k, 1) && hex_is((1ull << k) - 1, 1) && hex_is(r >> k, 1);
	tap(hex, "digits_hex and digits_hex_len: with 1 to 16 digits at least, every length, as %0*llx");
	/* Ties: k/16 thousandths and a half are exact binary values (0.0625 is 62.5 thousandths). */
	for (int k = 0; k < 4096; k++)
		fix &= fixed3_is(k / 16.0) && fixed3_is(k / 16.0 + 1024) && fixed3_is(k * 0.0005);
	/* Timestamps as the writer makes them: ticks times a rate, over 1000, at every magnitude. */
	for (int i = 0; i < 200000; i++) {
		r = r * 6364136223846793005ull + 1442695040888963407ull;
		fix &= fixed3_is((double)(r >> (r & 63)) * ns_per_tick[i % 5] / 1000.0);
	}
	fix &= fixed3_is(0.0) && fixed3_is(DBL_TRUE_MIN) && fixed3_is(0.0005) && fixed3_is(0.0015) &&
	       fixed3_is(9007199254740.991) && fixed3_is(0x1p53 / 1000);
	tap(fix, "digits_thousandths: exact ties, random times and extremes round as %.3f");
	tap(!digits_thousandths(-1.0, &x) && !digits_thousandths(INFINITY, &x) && !digits_thousandths(NAN, &x) &&
	    !digits_thousandths(0x1p80, &x), "digits_thousandths declines negatives, inf, NaN and 2^80 (printf does them)");
}

int main(void)
{
	if (counting_allocs()) {	/* the allocation check below must be able to fail */
		count_allocs(true);
		void *volatile p = malloc(1);	/* volatile: gcc drops free(malloc(1)) */

		free(p);
		count_allocs(false);
		tap(allocs == 1, "the allocation counter counts");
		allocs = 0;
	}
	test_void();
	test_bool();
	test_widths();
	test_32bit();
	test_errno();
	test_char();
	test_enum();
	test_pointer();
	test_string();
	test_float();
	test_long_double();
	test_struct();
	test_struct_members();
	test_struct_places();
	test_unknown();
	test_buffer();
	test_defaults();
	test_digits();
	if (counting_allocs())
		tap(allocs == 0, "no allocation while formatting");
	printf("done\n");
	return failed != 0;
}
