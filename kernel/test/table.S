/* SPDX-License-Identifier: GPL-2.0-only */
/* kernel/test: a vmlinux's prototype table where the series' linker script puts it. */
	.data
	.balign 8
	.globl __start_mcount_proto, __stop_mcount_proto, __start_fgraph_str, __stop_fgraph_str
__start_mcount_proto:
	.incbin "proto.bin"
__stop_mcount_proto:
__start_fgraph_str:
	.incbin "str.bin"
__stop_fgraph_str:
	.section .note.GNU-stack, "", %progbits
