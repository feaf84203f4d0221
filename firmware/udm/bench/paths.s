! Assembly pieces of UDM's Tables 4 and 5 benchmarks (table4.c, table5.c): code
! whose every instruction the measurement names, so the counts are those of the paths
! themselves, not of what clang makes of a loop.

	.text
	.globl	bench_idle
	.p2align	2
bench_idle:                        ! the interrupted code: spins
	bt	bench_idle
	nop
	.globl	bench_idle_end
bench_idle_end:

	.globl	bench_send_null
	.p2align	2
bench_send_null:                   ! (dest r6, handler r7): describe two words, launch
	st	%r6, -3840[%r0]
	st	%r7, -3836[%r0]
	or	%r0, 0x2, %r3
	st	%r3, -3768[%r0]
	.globl	bench_send_null_end
bench_send_null_end:
	ld	0[%sp], %pc                ! return (a leaf: pop the return address)
	add	%sp, 0x4, %sp
	nop

	.globl	bench_send_arg
	.p2align	2
bench_send_arg:                    ! the same with one argument word (r18)
	st	%r6, -3840[%r0]
	st	%r7, -3836[%r0]
	st	%r18, -3832[%r0]
	or	%r0, 0x3, %r3
	st	%r3, -3768[%r0]
	.globl	bench_send_arg_end
bench_send_arg_end:
	ld	0[%sp], %pc                ! return (a leaf: pop the return address)
	add	%sp, 0x4, %sp
	nop

	.globl	bench_poll
	.p2align	2
bench_poll:                        ! (handler r6): receive messages for handler r6 forever
	ld	-3764[%r0], %r3
	sub.f	%r3, 0x0, %r0
	beq	bench_poll
	nop
	.globl	bench_poll_receive
bench_poll_receive:                ! a message: this type? then dispose
	ld	-3708[%r0], %r3
	sub.f	%r3, %r6, %r0
	bne	bench_poll
	nop
	bt	bench_poll
	st	%r0, -3760[%r0]      ! delay slot
	.globl	bench_poll_end
bench_poll_end:

	.globl	bench_arg_handler
	.p2align	2
bench_arg_handler:                 ! user level, one argument: read it, dispose, end
	st	%r9, [bench_arg_save]
	ld	-3704[%r0], %r9
	st	%r9, [bench_arg_sum]
	ld	[bench_arg_save], %r9
	st	%r0, -3760[%r0]
	st	%r1, -3752[%r0]

	.globl	bench_base_arg_handler
	.p2align	2
bench_base_arg_handler:            ! the same through the base-register convention (udm.h)
	st	%r9, [bench_arg_save]
	ld	-3568[%r0], %r9            ! MSG[2]
	st	%r9, [bench_arg_sum]
	ld	[bench_arg_save], %r9
	st	%r0, -3760[%r0]
	st	%r1, -3752[%r0]
	.globl	bench_base_arg_handler_end
bench_base_arg_handler_end:

	.bss
	.globl	bench_arg_sum
	.p2align	2
bench_arg_save:
	.space	4
bench_arg_sum:
	.space	4
