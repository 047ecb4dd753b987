/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kernel/test: a vmlinux's prototype table where the series' linker script
 * puts it: the records of one form (full: __mcount_proto, compact:
 * __mcount_ret; the other one's file is empty) and the strings.
 */
	.data
	.balign 8
	.globl __start_mcount_proto, __stop_mcount_proto, __start_mcount_ret, __stop_mcount_ret
	.globl __start_fgraph_str, __stop_fgraph_str
__start_mcount_proto:
	.incbin "proto.bin"
__stop_mcount_proto:
	.balign 8
__start_mcount_ret:
	.incbin "ret.bin"
__stop_mcount_ret:
__start_fgraph_str:
	.incbin "str.bin"
__stop_fgraph_str:
	.section .note.GNU-stack, "", %progbits
