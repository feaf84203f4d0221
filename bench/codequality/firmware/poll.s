! poll, by hand: the masks, the doorbell's address and the budget live in registers for
! the whole loop; delay slots carry the doorbell load, the increment and the next ISR
! read (plain reads without side effects; .Lbell undoes the early increment).
	.text
	.globl	pat_step
	.type	pat_step,@function
	.p2align	2
pat_step:                               ! %r6 = i
	mov	0x7, %r9
	and	%r6, %r9, %r9
	add	%r9, 0x8, %r9             ! budget = 8 + (i & 7)
	mov	0x80000000, %r12
	or	%r12, 0x3, %r12           ! ISR mask
	mov	0xdead0000, %r13
	or	%r13, 0x1, %r13           ! the doorbell value we wait for
	mov	0x8000, %r14              ! &DOORBELL
	mov	0x0, %rv                  ! spins
	ld	-4088[%r0], %r3           ! ISR
.Lloop:
	and.f	%r3, %r12, %r0
	bne	.Lisr
	ld	0[%r14], %r3              ! (delay slot) DOORBELL
	sub.f	%r3, %r13, %r0
	beq	.Lbell
	add	%rv, 0x1, %rv             ! (delay slot) spins++
	sub.f	%rv, %r9, %r0
	bult	.Lloop
	ld	-4088[%r0], %r3           ! (delay slot) the next ISR read
	ld	0[%sp], %pc               ! return spins
	add	%sp, 0x4, %sp
	nop
.Lisr:
	ld	0[%sp], %pc
	add	%sp, 0x4, %sp
	or	%rv, 0x10000, %rv
.Lbell:
	sub	%rv, 0x1, %rv
	ld	0[%sp], %pc
	add	%sp, 0x4, %sp
	or	%rv, 0x20000, %rv
	.size	pat_step, .-pat_step
