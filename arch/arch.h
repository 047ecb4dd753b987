/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One descriptor per architecture: everything the recorder (and later the
 * checker and the runtime) needs to know about a target, as data.  Generic
 * code never tests e_machine; it asks the descriptor, and a capability an
 * architecture lacks is an empty table or a NULL member.
 */
#ifndef ARCH_ARCH_H
#define ARCH_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <gelf.h>
#include "arch/abi_args.h"

/*
 * An instruction pattern: a run of units (bytes, halfwords or words, read in
 * the object's byte order) that must equal `value` under `mask`.  Units keep
 * one table right for both endiannesses of MIPS, PowerPC, SH and ARM.
 */
struct insn_unit {
	uint8_t width;		/* 1, 2 or 4 bytes */
	uint32_t value;
	uint32_t mask;
};

#define INSN_MAX_UNITS 6

struct insn_pattern {
	uint8_t n;
	struct insn_unit u[INSN_MAX_UNITS];
};

/*
 * One way a compiler calls the profiling hook: a relocation type against the
 * hook symbol, and where the call instruction starts relative to r_offset.
 * `site` is checked against the bytes at r_offset + site_adjust when it is
 * non-empty, so a relocation that is not a call (an address taken, a data
 * word) is never recorded.
 */
struct call_form {
	uint32_t rtype;
	int8_t site_adjust;
	struct insn_pattern site;
	/*
	 * Replacing the call: `nop` is written at the site once the code there
	 * matches `nop_expect` (empty: the site pattern is enough).  MIPS needs
	 * the delay slot in the check; an empty `nop` means this form cannot be
	 * turned into NOPs.
	 */
	struct insn_pattern nop_expect;
	struct insn_pattern nop;
	/* Code just before the site that belongs to the call (ARM push {lr}). */
	struct insn_pattern prefix;
	struct insn_pattern prefix_nop;
	/*
	 * Only position-independent code calls the hook this way (through the
	 * GOT): no kernel does, so kernel mode warns that the object is a
	 * program's or a library's (-fPIE, -fPIC), whose link an absolute
	 * __mcount_loc breaks.
	 */
	bool pic;
};

/*
 * Reading a linked file's code (recordmcount --check): one form of call
 * instruction (or the first of a call sequence) and where it goes.
 * `target` computes the callee's address from the code at address `pc`;
 * NULL for a form whose target the code alone does not give (MIPS PIC loads
 * through $gp): the checker accepts it as a call it cannot verify.  `slot`:
 * the computed address is a pointer the call goes through (x86 GOT calls).
 * `jump`: an indirect jump, used only to follow a PLT entry to its slot.
 */
struct call_decoder {
	struct insn_pattern insn;
	bool (*target)(const uint8_t *code, size_t avail, bool big_endian, uint64_t pc, uint64_t *to);
	uint8_t len;	/* bytes of the call (or sequence): a search resumes after them */
	bool slot;
	bool jump;
	/*
	 * A direct jump (a tail call into the hook, hand-written code): never
	 * a call site, but a reference to the hook --check reports.
	 */
	bool ref;
	/*
	 * A sequence that loads the hook's address before calling through a
	 * register: whether a call through that register follows.  Without
	 * one the code only takes the address (MIPS's ftrace.c makes
	 * instructions of it): a reference, no call.  NULL: the form calls.
	 */
	bool (*calls_after)(const uint8_t *code, size_t avail, bool big_endian);
};

/*
 * Where a struct returned in registers keeps its floating-point members
 * (the table lists them; the runtime captured both integer and the first
 * two FP registers' low 8 bytes).
 */
enum struct_fp {
	STRUCT_FP_UNKNOWN,	/* not described: such structs print '?' */
	STRUCT_FP_EIGHTBYTES,	/* x86-64 psABI: an 8-byte part all of floats in the next xmm, else the next GPR */
	STRUCT_FP_HFA,		/* AAPCS64: 1-4 floats of one type, one per v register; others in x0, x1 */
};

struct arch {
	const char *name;
	uint16_t machine;
	uint8_t elfclass;
	/* Extra test for targets sharing e_machine and class; NULL = accept. */
	bool (*match)(const GElf_Ehdr *ehdr);

	/*
	 * Hook names, NULL-terminated; a leading '.' is ignored.  `hooks` are
	 * called once the function has set up its frame (mcount); `entry_hooks`
	 * as its very first instruction (__fentry__), where the traced
	 * function's own return address is still where its caller's call left
	 * it.  A runtime must know which, per site, so user mode keeps the two
	 * kinds in separate tables.  NULL: the arch has no entry hook.
	 */
	const char *const *hooks;
	const char *const *entry_hooks;
	const struct call_form *calls;
	size_t ncalls;
	/*
	 * Call sequences whose shape varies (MIPS: arch/mips/insn.h), which no
	 * fixed NOP pattern covers: the offset of the call word of the
	 * sequence recorded at `site` and, in *disabled, the 4-byte word that
	 * disables it; -1 if there is none, and then the relocation at the
	 * site is no call (an address load that looks like a sequence's start).  The recorder writes that word
	 * and `seq_nop` over the sequence's other relocated words (the loads
	 * of the hook's address).
	 */
	int64_t (*sequence_call)(const uint8_t *code, size_t size, uint64_t site, bool big_endian,
				 uint32_t *disabled);
	/*
	 * The sequence also says which relocations describe one call (MIPS
	 * %hi/%lo, %call16 + R_MIPS_JALR): every hook relocation from the
	 * site's first one up to the call word.  Without sequence_call every
	 * relocation is its own site.
	 */
	const struct insn_pattern *seq_nop;

	uint32_t reloc_abs;	/* pointer-sized absolute, for __mcount_loc */
	uint32_t reloc_abs32;	/* 32-bit absolute, for string offsets (as DWARF's strp) */
	/* Other absolute data relocations compilers put in DWARF (SPARC's unaligned ones). */
	const struct abs_reloc {
		uint32_t type;
		uint8_t width;
	} *more_abs;
	size_t nmore_abs;
	uint32_t reloc_rel32;	/* 32-bit PC-relative, for user-mode tables */
	uint32_t reloc_none;
	/*
	 * The dynamic relocation a PIE's absolute words get (base + addend);
	 * 0: not known.  lld leaves such words 0 in the file, so a linked
	 * file's absolute table is read from these addends.
	 */
	uint32_t reloc_relative;

	/* r_info layout, when it is not the ELF standard one (MIPS64). */
	void (*rinfo_decode)(uint64_t info, bool big_endian, uint32_t *sym, uint32_t *type);
	uint64_t (*rinfo_encode)(uint32_t sym, uint32_t type, bool big_endian);
	/*
	 * The bits of a relocation's type word that name it, when more ride
	 * above them (MIPS64's second and third types, SPARC64's OLO10 addend);
	 * 0: all of them.  The rest is kept, never compared.
	 */
	uint32_t reloc_id_mask;

	/* ARM: the symbols of Thumb functions have bit 0 set; their code starts below. */
	uint64_t func_symbol_mask;
	/*
	 * ppc64 ELFv1: function symbols name descriptors in this section, whose
	 * first word is relocated to the code.
	 */
	const char *func_descriptors;
	/* AArch64 code is little-endian even in big-endian objects. */
	bool code_always_le;
	/*
	 * The linker moves code after assembly (RISC-V relaxation) and adjusts
	 * symbols but not section-relative addends: each entry then needs a
	 * local symbol of its own at the call.
	 */
	bool site_symbols;
	/*
	 * RELA, but the linker takes the addend from the relocated word and
	 * ignores r_addend (BFD's SH backend; gas writes addends there too).
	 */
	bool addend_in_place;

	/* Decoding linked code (recordmcount --check); NULL/0: not known. */
	const struct call_decoder *decoders;
	size_t ndecoders;
	/*
	 * Where compilers put the hook call: within the first `hook_window`
	 * bytes of a function (0: anywhere in it), at addresses that are
	 * multiples of `insn_align`.  Only used to find functions that
	 * call the hook without a table entry, so a window too small misses a
	 * call and never invents one.
	 */
	uint16_t hook_window;
	uint8_t insn_align;

	/*
	 * -fpatchable-function-entry pads (recordmcount --check): the NOPs
	 * compilers pad with, one instruction each (the unit N and M count);
	 * what a runtime or the kernel writes over a pad's first instruction
	 * besides a call (AArch64's `mov x9, x30`); and the landing pads a pad
	 * follows under branch protection (endbr64, bti).  x86 counts bytes and
	 * has multi-byte NOPs: `pad_nop_len` decodes one, its length or 0.
	 */
	const struct insn_pattern *pad_nops;
	size_t npad_nops;
	const struct insn_pattern *pad_patched;
	size_t npad_patched;
	const struct insn_pattern *landing_pads;
	size_t nlanding_pads;
	size_t (*pad_nop_len)(const uint8_t *code, size_t avail);
	/* gcc's backend puts all N NOPs before the function, whatever M (MIPS). */
	bool pad_all_before;
	/*
	 * Linkers turn instructions at functions' starts into NOPs (ppc64's TOC
	 * pointer loads): in linked files a pad cannot be told from them.
	 */
	bool linker_nops_at_entry;
	/*
	 * What a compiler's own table may name instead of the call: the start
	 * of the sequence the call belongs to (s390: gcc -pg -mrecord-mcount
	 * records the `stg %r14,8(%r15)` before the `brasl`).  Readers take
	 * the call after it.  NULL: tables name the call.
	 */
	const struct insn_pattern *recorded_prefix;

	/*
	 * Where the C ABI returns a value, by its type: what the formatter
	 * (trace/format.c) and the runtime's captures need of the machine.
	 */
	struct arch_values {
		/* Structs and unions of up to this many registers come back in them; 0: in memory. */
		uint8_t struct_regs;
		bool char_unsigned;	/* plain char */
		/*
		 * Negative int/long results -1..-errno_max get the Linux errno
		 * name: 133 where the generic numbering holds, 34 on MIPS and
		 * SPARC (their numbers differ above).
		 */
		uint16_t errno_max;
		/* long double's mantissa bits: 64 x87, 113 binary128, 106 IBM double-double, 53 a double. */
		uint8_t ldbl_mant;
		/* A float comes back as a binary64 (i386's st(0), ppc64's f1). */
		bool float_as_double;
		/*
		 * A float comes back in the low 32 bits of the 64-bit FP
		 * register the runtime saves (MIPS's $f0): its last 4 bytes on
		 * big-endian.  0: in the first 4 bytes (s390x's left half; the
		 * low half on little-endian).
		 */
		bool float_low_half;
		/*
		 * A float comes back in the high 32 bits of that register
		 * (SH-4's fr0, the high word of dr0, which the runtime saves
		 * as a double's 8 bytes).
		 */
		bool float_high_half;
		/* A long double comes back as the first FP register's 16 bytes (AArch64's q0). */
		bool wide_in_fpr0;
		/* Where the FP parts of a struct returned in registers lie (enum struct_fp). */
		uint8_t struct_fp;
		/*
		 * The runtime captures a struct returned in memory from its
		 * address: in the first integer register at the return (x86),
		 * or, where nothing holds it then (ppc32), the hidden pointer
		 * the port's CAPTURE_MEMORY trampolines gave rt_enter_mem.
		 */
		bool memory_address_returned;
		/*
		 * The caller passes the address for a value returned in memory
		 * in a register of its own, not as a hidden first argument
		 * (SH-4's r2): ret_by_address says which values, and the
		 * arguments are placed as if there were none.
		 */
		bool ret_address_apart;
	} values;
	/* Where its C ABI passes a function's arguments (arch/abi_args.h); NULL: not known. */
	arg_placer *place_args;
	/* A variadic function's named parameters, where the ABI passes them otherwise (armhf); NULL: the same. */
	arg_placer *place_args_variadic;
	/*
	 * Whether a function's value comes back in memory whose address the
	 * caller passes before the arguments, as a hidden first parameter
	 * (arch/abi_args.h).  NULL: never in an argument's place.
	 */
	arg_ret_by_address *ret_by_address;
	/*
	 * The runtime's sites, which a tool reading its recordings must know
	 * too (arch/<family>/rt_*): -fpatchable-function-entry pads are traced
	 * as a site of pad_site_len bytes at pad_site_offset from the
	 * function's entry (0: not traced); the hook's return address lies
	 * up to ra_span bytes past a recorded site (0: RT_MAX_SITE).
	 */
	uint8_t pad_site_len, pad_site_offset, ra_span;
	/*
	 * objpatch-cc's instrumentation (objpatch/cc): the compiler flags,
	 * space-separated, that make the sites the runtime traces here with
	 * return values, the cheapest when NOP'd (bench/) first; per
	 * compiler.  NULL: no form (the machine's runtime has no port).
	 */
	struct arch_cc_form {
		const char *gcc, *clang;
	} cc;
};

/* Every descriptor, arch_DESC of arch/machines.h's rows. */
#define MACHINE(name, prefix, clang, kflags, port, qemu, em, class, data, desc) extern const struct arch arch_##desc;
#include "arch/machines.h"
#undef MACHINE

const struct arch *arch_for_ehdr(const GElf_Ehdr *ehdr);
/*
 * The descriptor of a machine the runtime has a port for (arch/machines.h),
 * by its programs' e_machine, class and byte order (which a recording's
 * header gives); NULL for another.
 */
const struct arch *arch_for_runtime(uint16_t machine, uint8_t elfclass, uint8_t data);
/* The relocation type's name in <elf.h> (R_MIPS_GOT16), NULL if unknown (arch/reloc_names.c). */
const char *arch_reloc_name(const struct arch *arch, uint32_t type);
/* The width of an absolute data relocation, 0 if `type` is not one. */
unsigned arch_abs_width(const struct arch *arch, uint32_t type, bool is64);

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

size_t insn_len(const struct insn_pattern *p);
/* A compiler-recorded entry at `code` names the call this many bytes further (recorded_prefix). */
size_t arch_recorded_prefix_len(const struct arch *a, const uint8_t *code, size_t avail, bool big_endian);
/* The landing pad (endbr64, bti) at `code` a patchable pad may follow: its length, or 0. */
size_t arch_landing_pad_len(const struct arch *a, const uint8_t *code, size_t avail, bool big_endian);
/* Does the code at `code` (with `avail` bytes left) match? Empty matches. */
bool insn_matches(const struct insn_pattern *p, const uint8_t *code, size_t avail, bool big_endian);
/* Write the pattern's values (its NOP encoding) at `code`. */
void insn_write(const struct insn_pattern *p, uint8_t *code, bool big_endian);
/* One unit of code (1, 2 or 4 bytes) in the given byte order. */
uint32_t insn_load(const uint8_t *code, unsigned width, bool big_endian);
void insn_store(uint8_t *code, unsigned width, uint32_t v, bool big_endian);
/*
 * A little-endian unit's bytes, for the byte arrays a runtime port hands
 * out as a site's form (code is little-endian on those machines, whatever
 * the data's byte order).
 */
#define LE16_BYTES(v)	(uint8_t)(v), (uint8_t)((v) >> 8)
#define LE32_BYTES(v)	LE16_BYTES(v), LE16_BYTES((v) >> 16)
/* The low `bits` bits of `v`, sign-extended. */
int64_t insn_sext(uint64_t v, unsigned bits);

#endif
