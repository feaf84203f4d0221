! fields, by hand: one base register for the endpoint (every field within a 16-bit
! offset of it); seq and flags are adjacent halves of one word, updated with one load
! and one store (seq in the high half: adding 0x10000 wraps it in 16 bits).
	.text
	.globl	pat_step
	.type	pat_step,@function
	.p2align	2
pat_step:                               ! %r6 = i
	mov	0x8200, %r9               ! &EP
	ld	4[%r9], %r3
	add	%r3, 0x1, %r3
	st	%r3, 4[%r9]               ! sent += 1
	ld	8[%r9], %r12
	sh	%r6, 0x18, %r13
	sh	%r13, -0x18, %r13
	add	%r12, %r13, %r12
	add	%r12, 0x40, %r12
	st	%r12, 8[%r9]              ! bytes += 64 + (i & 0xFF)
	ld	12[%r9], %r12
	add	%r12, 0x10000, %r12       ! seq += 1 (high half)
	or	%r12, 0x100, %r12         ! flags |= 0x100 (low half)
	st	%r12, 12[%r9]
	st	%r6, 16[%r9]              ! last = i
	ld	20[%r9], %r13
	sub.f	%r13, 0x1, %r13           ! credits - 1; C clear when credits was 0
	bult	.Lrefill
	st	%r13, 20[%r9]             ! (delay slot; .Lrefill overwrites it)
	ld	0[%sp], %pc
	add	%sp, 0x4, %sp
	or	%r3, 0x0, %rv             ! return sent
.Lrefill:
	ld	0[%r9], %r12
	mov	0x8, %r13
	st	%r13, 20[%r9]             ! credits = 8
	add	%r12, 0x1, %r12
	ld	0[%sp], %pc
	st	%r12, 0[%r9]              ! state += 1
	or	%r3, 0x0, %rv
	.size	pat_step, .-pat_step
