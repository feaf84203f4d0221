! firmware/udm/apps/delay.s -- Figure 10's instrument: the buffer-insert handler made
! slower by a fixed number of cycles ("we artificially added latency to the buffer handler").
!
! udm_delayed_table is buffered.s's table with vector 1 (mismatch-available, the insert)
! first stalling udm_insert_delay_iterations x 2 cycles; every other vector is buffered.s's,
! word for word, so with no delay the two tables cost the same. An insert that falls to the
! generic entry has paid its delay here; experiment.c pays it for inserts that reach C by
! another table (the fast case's, while another application runs).

	.text
	.globl	udm_delayed_table
	.p2align	10
udm_delayed_table:
	st	%r9, [udm_trap_frame+36]   ! 0: the generic entry (traps.s)
	bt	udm_trap_common
	mov	hi(udm_trap_frame), %r9
	nop
	st	%r9, [udm_bsave+0]         ! 1: mismatch-available, delayed
	bt	udm_delayed_insert
	st	%r10, [udm_bsave+4]
	nop
	.rept	39
	st	%r9, [udm_trap_frame+36]
	bt	udm_trap_common
	mov	hi(udm_trap_frame), %r9
	nop
	.endr
	st	%r9, [udm_bsave+0]         ! 41: dispose-extend
	bt	udm_buf_dispose
	st	%r10, [udm_bsave+4]
	nop
	.rept	2
	st	%r9, [udm_trap_frame+36]
	bt	udm_trap_common
	mov	hi(udm_trap_frame), %r9
	nop
	.endr
	st	%r9, [udm_bsave+0]         ! 44: atomicity-extend
	bt	udm_buf_return
	st	%r10, [udm_bsave+4]
	nop
	.rept	19
	st	%r9, [udm_trap_frame+36]
	bt	udm_trap_common
	mov	hi(udm_trap_frame), %r9
	nop
	.endr

udm_delayed_insert:                ! r9, r10 saved, as buffered.s's insert expects
	ld	[udm_insert_delay_iterations], %r9
	sub.f	%r9, 0x0, %r0
1:
	bne	1b
	sub.f	%r9, 0x1, %r9              ! (delay) two cycles an iteration
	bt	udm_buf_insert
	nop

	.globl	udm_delay_stall
udm_delay_stall:                   ! udm_delay_stall(n): the same stall, from C
	sub.f	%r6, 0x0, %r0
2:
	bne	2b
	sub.f	%r6, 0x1, %r6
	ld	0[%sp], %pc                ! return (a leaf: pop the return address)
	add	%sp, 0x4, %sp
	nop

	.data
	.globl	udm_insert_delay_iterations
	.p2align	2
udm_insert_delay_iterations:
	.long	0
