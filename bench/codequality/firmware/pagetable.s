! pagetable, by hand: the index and the page offset straight from i ((vaddr >> 12) &
! 0xFF is i & 0xFF), bit tests by `sh.f` (an `and` immediate would keep the high half),
! `and` with 0xFFFFF000 in one instruction (the immediate's other half is ones), the
! fault codes in the return's delay slots.
	.text
	.globl	pat_step
	.type	pat_step,@function
	.p2align	2
pat_step:                               ! %r6 = i
	sh	%r6, 0x18, %r3
	sh	%r3, -0x16, %r3           ! (i & 0xFF) * 4
	mov	0x8400, %r9
	ld	[%r3 add %r9], %r3        ! pte = PT[i & 0xFF]
	sh.f	%r3, 0x1f, %r0            ! present?
	beq	.Lnotpresent
	sh.f	%r6, 0x1f, %r0            ! (delay slot) a write (i odd)?
	beq	.Lok
	sh.f	%r3, 0x1e, %r0            ! (delay slot) N = writable
	bpl	.Lreadonly
.Lok:
	sh	%r6, 0x14, %rv            ! (delay slot on the write path)
	sh	%rv, -0x14, %rv           ! vaddr & 0xFFF = i & 0xFFF
	and	%r3, 0xfffff000, %r3      ! (an `and` immediate fills the high half with ones)
	ld	0[%sp], %pc
	add	%sp, 0x4, %sp
	or	%rv, %r3, %rv
.Lnotpresent:
	ld	0[%sp], %pc
	add	%sp, 0x4, %sp
	sub	%r0, 0x1, %rv             ! 0xFFFFFFFF
.Lreadonly:
	ld	0[%sp], %pc
	add	%sp, 0x4, %sp
	sub	%r0, 0x2, %rv             ! 0xFFFFFFFE
	.size	pat_step, .-pat_step
