! 32-bit division: __udivsi3, __umodsi3, __divsi3, __modsi3, and
! __lanaikit_udivmodsi4(n, d, &rem) (C ABI, used by div64.c for 32-bit operands).
!
! C semantics: quotients truncate toward zero; the remainder has the sign of the
! dividend. Division by zero (undefined in C and in the firmware language) gives
! quotient all ones (0xFFFFFFFF, for the signed helpers too: -1) and remainder the
! dividend, with no trap. INT_MIN / -1 wraps to INT_MIN, remainder 0.
!
! Hand-written because the cost is the number of steps. One shared core does unsigned
! n / d with early exits:
!   d == 0                -> all ones, remainder n
!   n < d                 -> 0, remainder n                 (a small dividend)
!   d a power of two      -> n >> log2(d), remainder n & (d - 1) (`trailz`)
!   otherwise restoring division, one step (4 instructions) per quotient bit, and only
!   clz(d) - clz(n) + 1 steps (`leadz`): the code jumps into a fully unrolled 32-step
!   sequence (Duff's device), so a quotient below 2^8 costs at most 8 steps.
! Each step is `sub.f n, d` (C = n >= d), `sel` (keep the difference when it fits),
! `addc q, q, q` (q = 2q + C) and `sh d, -1`.
!
! The core's private convention: in %r6 = n, %r7 = d (unsigned), its first instruction
! `sub.f %r7, 0, %r0` already executed (in the entry's delay slot); out %rv = quotient,
! %r6 = remainder; it returns to %r16 and uses only %r12-%r14 besides, so the signed
! entries keep their sign masks in %r17 (quotient) and %r20 (remainder) across it. On
! division by zero it clears %r17, so the signed quotient stays all ones.
! Every entry is a leaf without a frame: it returns through the address the caller's
! call sequence pushed at 0[%sp] and pops it, as a callee's epilogue does.

	.text
	! A symbol of its own (global only so that profiles and backtraces name it; it is
	! not callable from C) so the core's instructions are not counted to the function
	! laid out before it.
	.globl	__lanaikit_div32_core
	.type	__lanaikit_div32_core,@function
	.p2align	2
__lanaikit_div32_core:
.Lcore:
	beq	.Ldivzero
	sub.f	%r6, %r7, %r0             ! (delay slot) C = n >= d
	bult	.Lsmall
	sub	%r7, 0x1, %r13            ! (delay slot) d - 1
	and.f	%r7, %r13, %r0
	beq	.Lpow2                    ! d & (d - 1) == 0: a power of two
	leadz	%r7, %r12                 ! (delay slot)
	leadz	%r6, %r14
	sub	%r12, %r14, %r12          ! k = clz(d) - clz(n), 0..31 as n >= d
	sh	%r7, %r12, %r7            ! align d's top bit with n's
	sh	%r12, 0x4, %r12           ! 16 bytes (4 instructions) per step
	add	%pc, 0x1fc, %r13          ! .Llast: 3 + 31 * 4 instructions on (reading %pc gives
	                                  ! this instruction's address; a wrong offset fails
	                                  ! every test of the runtime, and `lanaikit build`'s
	                                  ! assembler cannot check it with .if/.error)
	sub	%r13, %r12, %pc           ! enter k steps before the last: k + 1 steps
	mov	0x0, %rv                  ! (delay slot) q = 0
	.rept	31
	sub.f	%r6, %r7, %r13            ! C = n >= d
	sel.uge	%r13, %r6, %r6            ! (uge = carry set) it fits: n -= d
	addc	%rv, %rv, %rv             ! q = 2q + C
	sh	%r7, -0x1, %r7
	.endr
.Llast:
	sub.f	%r6, %r7, %r13
	sel.uge	%r13, %r6, %r6
	bt	%r16
	addc	%rv, %rv, %rv             ! (delay slot)
.Lsmall:
	bt	%r16
	mov	0x0, %rv                  ! (delay slot) q = 0, remainder n
.Ldivzero:
	mov	0x0, %r17                 ! no sign fix-up of the quotient
	bt	%r16
	sub	%r0, 0x1, %rv             ! (delay slot) q = all ones, remainder n
.Lpow2:
	trailz	%r7, %r12
	sub	%r0, %r12, %r12
	sh	%r6, %r12, %rv            ! q = n >> log2(d)
	bt	%r16
	and	%r6, %r13, %r6            ! (delay slot) remainder = n & (d - 1)
	.size	__lanaikit_div32_core, .-__lanaikit_div32_core

	.globl	__udivsi3
	.type	__udivsi3,@function
	.p2align	2
__udivsi3:
	add	%pc, 0xc, %r16            ! the core returns 3 instructions on
	bt	.Lcore
	sub.f	%r7, 0x0, %r0             ! (delay slot) the core's first instruction
	ld	0[%sp], %pc
	add	%sp, 0x4, %sp
	nop
	.size	__udivsi3, .-__udivsi3

	.globl	__umodsi3
	.type	__umodsi3,@function
	.p2align	2
__umodsi3:
	add	%pc, 0xc, %r16
	bt	.Lcore
	sub.f	%r7, 0x0, %r0
	ld	0[%sp], %pc
	add	%sp, 0x4, %sp
	or	%r6, 0x0, %rv             ! the remainder
	.size	__umodsi3, .-__umodsi3

	.globl	__divsi3
	.type	__divsi3,@function
	.p2align	2
__divsi3:
	sha	%r6, -0x1f, %r12          ! a < 0 ? -1 : 0
	sha	%r7, -0x1f, %r13
	xor	%r6, %r12, %r6
	sub	%r6, %r12, %r6            ! |a|
	xor	%r7, %r13, %r7
	sub	%r7, %r13, %r7            ! |b|
	xor	%r12, %r13, %r17          ! -1 when the signs differ
	add	%pc, 0xc, %r16
	bt	.Lcore
	sub.f	%r7, 0x0, %r0
	xor	%rv, %r17, %rv
	ld	0[%sp], %pc
	sub	%rv, %r17, %rv            ! (delay slot) negate when the signs differ
	add	%sp, 0x4, %sp
	.size	__divsi3, .-__divsi3

	.globl	__modsi3
	.type	__modsi3,@function
	.p2align	2
__modsi3:
	sha	%r6, -0x1f, %r20          ! the remainder takes the dividend's sign
	sha	%r7, -0x1f, %r13
	xor	%r6, %r20, %r6
	sub	%r6, %r20, %r6
	xor	%r7, %r13, %r7
	sub	%r7, %r13, %r7
	add	%pc, 0xc, %r16
	bt	.Lcore
	sub.f	%r7, 0x0, %r0
	xor	%r6, %r20, %rv
	ld	0[%sp], %pc
	sub	%rv, %r20, %rv
	add	%sp, 0x4, %sp
	.size	__modsi3, .-__modsi3

	.globl	__lanaikit_udivmodsi4
	.type	__lanaikit_udivmodsi4,@function
	.p2align	2
__lanaikit_udivmodsi4:                   ! (n, d, su_int *rem): quotient, *rem = remainder
	add	%pc, 0xc, %r16
	bt	.Lcore
	sub.f	%r7, 0x0, %r0
	st	%r6, 0[%r18]
	ld	0[%sp], %pc
	add	%sp, 0x4, %sp
	nop
	.size	__lanaikit_udivmodsi4, .-__lanaikit_udivmodsi4
