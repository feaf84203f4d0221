! __mulsi3: 32-bit multiply, low 32 bits of the product (Lanai has no multiplier;
! clang calls this for every non-constant `*` of 32 bits or less). Signed and unsigned
! products agree modulo 2^32, so one helper serves both.
!
! Hand-written because the cost is dominated by the number of steps: Horner's rule
! over the bits of the smaller operand (unsigned), most significant first, 4
! instructions a bit, and only as many steps as that operand has significant bits.
! `leadz` counts the leading zeros n; the operand is shifted left by n so its top bit
! comes out first, and the code jumps into a fully unrolled 32-step sequence at step n
! (Duff's device: no loop counter, no loop branch). A multiply by an operand below 2^8
! costs at most 8 steps, below 2^16 at most 16; a zero operand jumps straight to the
! return. Total: 11 + 4 * bits(min(a, b)) instructions, plus the caller's 4 (14 for
! a zero operand).
!
! In: %r6 = a, %r7 = b. Out: %rv. Uses %r9, %r12-%r14 (scratch in the ABI). Leaf: no
! frame; returns through the address the caller's call sequence pushed at 0[%sp].

	.text
	.globl	__mulsi3
	.type	__mulsi3,@function
	.p2align	2
__mulsi3:
	sub.f	%r6, %r7, %r0
	sel.ult	%r6, %r7, %r9             ! y = min(a, b), the operand whose bits we walk
	sel.ult	%r7, %r6, %r12            ! x = max(a, b)
	leadz	%r9, %r13                 ! n = 32 - significant bits of y (32 for y = 0)
	sh.f	%r9, %r13, %r9            ! y's top significant bit to bit 31 (C = 0 if y = 0)
	sh	%r13, 0x4, %r13           ! 16 bytes (4 instructions) per step
	add	%pc, 0xc, %r14            ! .Lsteps, 3 instructions on (reading %pc gives this
	                                  ! instruction's address)
	add	%r14, %r13, %pc           ! enter at step n (32 for y = 0: see below)
	mov	0x0, %rv                  ! (delay slot) r = 0
.Lsteps:
	.rept	31
	add.f	%r9, %r9, %r9             ! C = next bit of y
	add	%rv, %rv, %rv             ! r = 2r
	add	%rv, %r12, %r13
	sel.uge	%r13, %rv, %rv            ! (uge = carry set) bit set: r = 2r + x
	.endr
	add.f	%r9, %r9, %r9             ! step 31, the last: its `sel` and the pop of the return
	add	%rv, %rv, %rv             ! address go in the return's two delay slots
	add	%rv, %r12, %r13
	ld	0[%sp], %pc               ! return
	sel.uge	%r13, %rv, %rv            ! (delay slot) <- "step 32", y = 0 enters here: C = 0
	add	%sp, 0x4, %sp             ! (delay slot) pop the return address, as an epilogue does
	ld	-4[%sp], %pc              ! y = 0 only (r = 0): the return address, just popped
	nop
	nop
	.size	__mulsi3, .-__mulsi3
