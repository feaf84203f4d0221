! header, by hand: one base register for the header, 32-bit constants in two
! instructions at most (one when a half is zero), the last store and the result in the
! return's delay slots.
	.text
	.globl	pat_step
	.type	pat_step,@function
	.p2align	2
pat_step:                               ! %r6 = i
	sh	%r6, 0x1d, %r9
	sh	%r9, -0x19, %r9           ! (i & 7) * 16
	mov	0x8100, %r12
	add	%r9, %r12, %r9            ! h = &HDR[i & 7]
	sh	%r6, 0x18, %r3
	sh	%r3, -0x18, %r3
	or	%r3, 0xe1a00000, %r3      ! w0 = 0xE1A00000 | (i & 0xFF)
	st	%r3, 0[%r9]
	mov	0x8000000, %r12
	or	%r12, 0x4500, %r12
	st	%r12, 4[%r9]              ! w1 = 0x08004500
	sh	%r6, 0x1a, %r12
	sh	%r12, -0xa, %r12          ! (i & 63) << 16
	add	%r12, 0x400000, %r12      ! + (64 << 16)
	or	%r12, 0xc0de, %r12
	st	%r12, 8[%r9]              ! w2
	xor	%r6, 0x5a5a0000, %r12
	xor	%r12, 0x5a5a, %r12        ! w3 = i ^ 0x5A5A5A5A
	ld	0[%sp], %pc
	st	%r12, 12[%r9]
	xor	%r3, %r12, %rv            ! w0 ^ w3
	add	%sp, 0x4, %sp
	.size	pat_step, .-pat_step
