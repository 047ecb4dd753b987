/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* x86_64: the int3 protocol (patch.c), and its raw system calls. */
#define PATCH_PROTOCOL PATCH_INT3
#define CONTEXT_IP(uc) ((uintptr_t)(uc)->uc_mcontext.gregs[REG_RIP])
#define PATCHER_TEXT_ARCH

static inline __attribute__((always_inline)) long raw_syscall4(long n, long a, long b, long c, long d)
{
	register long r10 __asm__("r10") = d;
	long ret;

	__asm__ volatile("syscall" : "=a"(ret) : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10)
			 : "rcx", "r11", "memory");
	return ret;
}

/* The mprotect fallback's writes: the int3 protocol orders them, so plain bytes do. */
static inline __attribute__((always_inline)) void store_text(uintptr_t at, const uint8_t *b, size_t n)
{
	for (size_t k = 0; k < n; k++)
		((volatile uint8_t *)at)[k] = b[k];
}
