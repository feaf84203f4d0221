! dispatch, by hand: a bounds check and a computed jump into arms of four words each
! (the arm's result in the return's delay slots).
	.text
	.globl	pat_step
	.type	pat_step,@function
	.p2align	2
pat_step:                               ! %r6 = i
	sh	%r6, -0x3, %r3
	add	%r6, %r3, %r3
	sh	%r3, 0x1c, %r3
	sh	%r3, -0x1c, %r3           ! op = (i + (i >> 3)) & 15
	sh	%r3, 0x2, %r9
	mov	0x8280, %r12
	ld	[%r9 add %r12], %r13
	add	%r13, 0x1, %r13
	st	%r13, [%r9 add %r12]      ! CNT[op] += 1
	sub.f	%r3, 0xa, %r0
	buge	.Ldefault
	sh	%r3, 0x4, %r3             ! (delay slot) 16 bytes per arm
	mov	hi(.Larms), %r12
	or	%r12, lo(.Larms), %r12
	add	%r12, %r3, %pc
	nop
.Larms:
	add	%r6, 0x1, %rv             ! 0: i + 1
	ld	0[%sp], %pc
	add	%sp, 0x4, %sp
	nop
	sh	%r6, 0x2, %rv             ! 1: i << 2
	ld	0[%sp], %pc
	add	%sp, 0x4, %sp
	nop
	xor	%r6, 0x55, %rv            ! 2: i ^ 0x55
	ld	0[%sp], %pc
	add	%sp, 0x4, %sp
	nop
	sh	%r6, -0x1, %rv            ! 3: i >> 1
	ld	0[%sp], %pc
	add	%sp, 0x4, %sp
	nop
	sub	%r0, %r6, %rv             ! 4: ~i = -i - 1
	ld	0[%sp], %pc
	add	%sp, 0x4, %sp
	sub	%rv, 0x1, %rv
	sh	%r6, 0x18, %rv            ! 5: i & 0xFF
	ld	0[%sp], %pc
	add	%sp, 0x4, %sp
	sh	%rv, -0x18, %rv
	or	%r6, 0x100, %rv           ! 6: i | 0x100
	ld	0[%sp], %pc
	add	%sp, 0x4, %sp
	nop
	sub	%r6, 0x3, %rv             ! 7: i - 3
	ld	0[%sp], %pc
	add	%sp, 0x4, %sp
	nop
	add	%r6, %r6, %rv             ! 8: i + i
	ld	0[%sp], %pc
	add	%sp, 0x4, %sp
	nop
	mov	0x1234, %rv               ! 9
	ld	0[%sp], %pc
	add	%sp, 0x4, %sp
	nop
.Ldefault:
	ld	0[%sp], %pc
	add	%sp, 0x4, %sp
	mov	0x0, %rv
	.size	pat_step, .-pat_step
