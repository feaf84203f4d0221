! firmware/udm/traps.s -- the UDM kernel's trap table, entry and exit (docs/udm.md, "The
! kernel"; the CPU's interrupts and traps are lanaikit's extension, docs/vm.md).
!
! Every vector saves the interrupted registers into udm_trap_frame (r3..r31 at 4*n; r0,
! r1 and r2 have no state to save), switches to the kernel stack, calls the C function
! udm_trap(frame) and restores them; it returns with RETI, first moving the saved stream
! past the trapping instruction when the handler set frame[32] (a SYSCALL, an emulated
! DISPOSE): what RETI_SKIP does, done here so that one restore sequence serves both (the
! store to RETI must come after every register is restored). The frame is at a fixed
! address, reached with absolute stores (`st %r9, [sym]`), so the entry needs no free
! register. Traps are not nested: the kernel runs with interrupts off (IE clear) and must
! not trap itself.
!
! udm_enter_user(fn, sp) enters user mode at fn with %sp = sp: the way the kernel starts an
! application (and the only way into user mode: a return with ESTATUS's USER bit set).

	.text
	.globl	udm_trap_table
	.p2align	10
udm_trap_table:
	.rept	64
	st	%r9, [udm_trap_frame+36]   ! free r9 for the frame's address
	bt	udm_trap_common
	mov	hi(udm_trap_frame), %r9    ! delay slot
	nop
	.endr

	.globl	udm_trap_generic
udm_trap_generic:                  ! the generic entry from anywhere, registers as interrupted
	st	%r9, [udm_trap_frame+36]
	bt	udm_trap_common
	mov	hi(udm_trap_frame), %r9    ! delay slot

	.globl	udm_trap_common
udm_trap_common:
	or	%r9, lo(udm_trap_frame), %r9
	st	%r3, 12[%r9]
	st	%r4, 16[%r9]
	st	%r5, 20[%r9]
	st	%r6, 24[%r9]
	st	%r7, 28[%r9]
	st	%r8, 32[%r9]
	st	%r10, 40[%r9]
	st	%r11, 44[%r9]
	st	%r12, 48[%r9]
	st	%r13, 52[%r9]
	st	%r14, 56[%r9]
	st	%r15, 60[%r9]
	st	%r16, 64[%r9]
	st	%r17, 68[%r9]
	st	%r18, 72[%r9]
	st	%r19, 76[%r9]
	st	%r20, 80[%r9]
	st	%r21, 84[%r9]
	st	%r22, 88[%r9]
	st	%r23, 92[%r9]
	st	%r24, 96[%r9]
	st	%r25, 100[%r9]
	st	%r26, 104[%r9]
	st	%r27, 108[%r9]
	st	%r28, 112[%r9]
	st	%r29, 116[%r9]
	st	%r30, 120[%r9]
	st	%r31, 124[%r9]
	st	%r0, 128[%r9]              ! frame[32]: 0 = retry (RETI), set = skip (RETI_SKIP)
	mov	hi(udm_kernel_stack_top), %sp
	or	%sp, lo(udm_kernel_stack_top), %sp
	or	%r0, 0x0, %fp
	or	%r9, 0x0, %r6              ! udm_trap(frame)
	add	%pc, 0x10, %rca
	st	%rca, [--%sp]
	bt	udm_trap
	nop
	mov	hi(udm_trap_frame), %r9
	or	%r9, lo(udm_trap_frame), %r9
	ld	128[%r9], %r3
	sub.f	%r3, 0x0, %r0              ! the flags are the handler's: ESW restores the user's
	beq	.Lrestore
	nop
	ld	-3956[%r0], %r3            ! skip: EPC <- ENPC, ENPC <- ENNPC, ENNPC += 4
	st	%r3, -3960[%r0]
	ld	-3952[%r0], %r3
	st	%r3, -3956[%r0]
	add	%r3, 0x4, %r3
	st	%r3, -3952[%r0]
.Lrestore:
	ld	12[%r9], %r3
	ld	16[%r9], %r4
	ld	20[%r9], %r5
	ld	24[%r9], %r6
	ld	28[%r9], %r7
	ld	32[%r9], %r8
	ld	40[%r9], %r10
	ld	44[%r9], %r11
	ld	48[%r9], %r12
	ld	52[%r9], %r13
	ld	56[%r9], %r14
	ld	60[%r9], %r15
	ld	64[%r9], %r16
	ld	68[%r9], %r17
	ld	72[%r9], %r18
	ld	76[%r9], %r19
	ld	80[%r9], %r20
	ld	84[%r9], %r21
	ld	88[%r9], %r22
	ld	92[%r9], %r23
	ld	96[%r9], %r24
	ld	100[%r9], %r25
	ld	104[%r9], %r26
	ld	108[%r9], %r27
	ld	112[%r9], %r28
	ld	116[%r9], %r29
	ld	120[%r9], %r30
	ld	124[%r9], %r31
	ld	36[%r9], %r9
	st	%r0, -3924[%r0]            ! RETI (0xFFFFF0AC): nothing after it runs

	.globl	udm_enter_user
	.p2align	2
udm_enter_user:                    ! (fn in r6, sp in r7)
	st	%r6, -3960[%r0]            ! EPC   (0xFFFFF088)
	add	%r6, 0x4, %r3
	st	%r3, -3956[%r0]            ! ENPC  (0xFFFFF08C)
	add	%r6, 0x8, %r3
	st	%r3, -3952[%r0]            ! ENNPC (0xFFFFF090)
	or	%r0, 0x1, %r3
	st	%r3, -3964[%r0]            ! ESTATUS (0xFFFFF084) = USER
	or	%r7, 0x0, %sp
	or	%r0, 0x0, %fp
	st	%r0, -3924[%r0]            ! RETI: into user mode at fn

	.bss
	.globl	udm_trap_frame
	.p2align	3
udm_trap_frame:
	.space	136
	.p2align	3
udm_kernel_stack:
	.space	4096
udm_kernel_stack_top:
