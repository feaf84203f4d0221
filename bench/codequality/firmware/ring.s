! ring, by hand: one base register for the control block and the slots, head and tail
! loaded once and kept in registers, the pop's result in the return's delay slots.
	.text
	.globl	pat_step
	.type	pat_step,@function
	.p2align	2
pat_step:                               ! %r6 = i
	mov	0x8300, %r9               ! &RC; the slots start 16 bytes on
	ld	0[%r9], %r12              ! head
	ld	4[%r9], %r13              ! tail
	sub	%r13, %r12, %r3
	sub.f	%r3, 0x10, %r0
	buge	.Lpop                     ! full
	sh	%r13, 0x1c, %r14          ! (delay slot)
	sh	%r14, -0x19, %r14         ! (tail & 15) * 8
	add	%r9, %r14, %r14
	st	%r6, 16[%r14]             ! addr = i
	xor	%r6, 0xabcd0000, %r3
	st	%r3, 20[%r14]             ! len = i ^ 0xABCD0000
	add	%r13, 0x1, %r13
	st	%r13, 4[%r9]              ! tail += 1
.Lpop:
	sh.f	%r6, 0x1e, %r0            ! i & 3
	beq	.Lnone
	sub.f	%r12, %r13, %r0           ! (delay slot) head == tail?
	beq	.Lnone
	sh	%r12, 0x1c, %r14          ! (delay slot)
	sh	%r14, -0x19, %r14         ! (head & 15) * 8
	add	%r9, %r14, %r14
	ld	16[%r14], %r3
	ld	20[%r14], %rv
	add	%r12, 0x1, %r12
	st	%r12, 0[%r9]              ! head += 1
	ld	0[%sp], %pc
	add	%sp, 0x4, %sp
	add	%rv, %r3, %rv             ! addr + len
.Lnone:
	ld	0[%sp], %pc
	add	%sp, 0x4, %sp
	mov	0x0, %rv
	.size	pat_step, .-pat_step
