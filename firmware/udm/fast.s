! firmware/udm/fast.s -- UDM's fast paths (docs/udm.md, "The fast path"): trap tables whose
! message-available vector does not go through the generic C entry (traps.s).
!
! udm_fast_table: the user-level interrupt of the paper's Figure 2. The message-available
! vector saves the interrupted stream (EPC, ENPC, ENNPC, ESW) and UAC, sets UAC's
! interrupt-disable, dispose-pending and atomicity-extend, and returns into user mode at the
! application's upcall entry (udm_upcall_entry) with every register as interrupted. The
! handler extracts and disposes, then ENDATOM traps (atomicity-extend, vector 44) and the
! kernel resumes the interrupted code. Every other vector goes to udm_trap (traps.s).
!
! udm_kernel_table: kernel-level delivery: the message-available vector jumps straight to the
! handler named in the message (RECV[1]), in kernel mode; a kernel handler ends by jumping
! to udm_kernel_message_done.
!
! Handlers entered this way have every register of the interrupted code live: an assembly
! handler saves what it uses; udm_c_upcall is the upcall entry that runs C handlers (it saves
! and restores the registers a C function may clobber around the call).

	.text
	.globl	udm_fast_table
	.p2align	10
udm_fast_table:
	.rept	2                         ! the generic entry (traps.s)
	st	%r9, [udm_trap_frame+36]
	bt	udm_trap_common
	mov	hi(udm_trap_frame), %r9
	nop
	.endr
	st	%r9, [udm_up_save+24]          ! 2: message-available
	bt	udm_fast_message
	ld	-3960[%r0], %r9        ! delay slot: EPC
	nop
	.rept	41                         ! the generic entry (traps.s)
	st	%r9, [udm_trap_frame+36]
	bt	udm_trap_common
	mov	hi(udm_trap_frame), %r9
	nop
	.endr
	st	%r9, [udm_up_save+24]          ! 44: atomicity-extend
	bt	udm_fast_return
	ld	[udm_up_save+0], %r9      ! delay slot: the saved EPC
	nop
	.rept	19                         ! the generic entry (traps.s)
	st	%r9, [udm_trap_frame+36]
	bt	udm_trap_common
	mov	hi(udm_trap_frame), %r9
	nop
	.endr

	.globl	udm_kernel_table
	.p2align	10
udm_kernel_table:
	.rept	2                         ! the generic entry (traps.s)
	st	%r9, [udm_trap_frame+36]
	bt	udm_trap_common
	mov	hi(udm_trap_frame), %r9
	nop
	.endr
	st	%r9, [udm_up_save+24]          ! 2: message-available
	ld	-3708[%r0], %r9        ! RECV[1]: the handler
	bt	%r9                       ! kernel mode, the interrupted registers live
	nop
	.rept	61                         ! the generic entry (traps.s)
	st	%r9, [udm_trap_frame+36]
	bt	udm_trap_common
	mov	hi(udm_trap_frame), %r9
	nop
	.endr

udm_fast_message:                  ! kernel mode; r9 = EPC, the interrupted r9 saved
	st	%r9, [udm_up_save+0]
	ld	-3956[%r0], %r9
	st	%r9, [udm_up_save+4]
	ld	-3952[%r0], %r9
	st	%r9, [udm_up_save+8]
	ld	-3948[%r0], %r9
	st	%r9, [udm_up_save+12]
	ld	-3748[%r0], %r9          ! UAC as interrupted
	st	%r9, [udm_up_save+16]
	or	%r9, 0xd, %r9              ! + interrupt-disable, dispose-pending, atomicity-extend
	st	%r9, -3748[%r0]
	ld	[udm_upcall_entry], %r9
	st	%r9, -3960[%r0]
	add	%r9, 0x4, %r9
	st	%r9, -3956[%r0]
	add	%r9, 0x4, %r9
	st	%r9, -3952[%r0]
	ld	[udm_up_save+24], %r9
	st	%r0, -3924[%r0]     ! user mode (ESTATUS), at the upcall entry

udm_fast_return:                   ! the handler's ENDATOM; r9 = the saved EPC
	st	%r9, -3960[%r0]
	ld	[udm_up_save+4], %r9
	st	%r9, -3956[%r0]
	ld	[udm_up_save+8], %r9
	st	%r9, -3952[%r0]
	ld	[udm_up_save+12], %r9
	st	%r9, -3948[%r0]
	ld	[udm_up_save+16], %r9
	st	%r9, -3748[%r0]          ! UAC as interrupted (the kernel bits cleared)
	ld	[udm_up_save+24], %r9
	st	%r0, -3924[%r0]     ! the interrupted code, as it was

	.globl	udm_kernel_message_done
udm_kernel_message_done:           ! a kernel handler's end
	ld	[udm_up_save+24], %r9
	st	%r0, -3924[%r0]

	.globl	udm_null_kernel_handler
udm_null_kernel_handler:           ! kernel level: dispose, done
	bt	udm_kernel_message_done
	st	%r0, -3760[%r0]      ! delay slot

	.globl	udm_null_handler
udm_null_handler:                  ! user level, used as the upcall entry: dispose, end
	st	%r0, -3760[%r0]
	st	%r1, -3752[%r0]      ! traps (atomicity-extend): back to the interrupted code

	.globl	udm_c_upcall
udm_c_upcall:                      ! user level: call the C handler named in word 1
	sub	%sp, 120, %sp              ! 112 for the registers, and the red zone: the 8 bytes
	                                   !   below the interrupted %sp may still be live (a Lanai
	                                   !   epilogue frees its frame, %sp <- %fp, in the delay
	                                   !   slot before it reloads %fp from -8[%fp])
	st	%r3, 0[%sp]
	st	%r5, 4[%sp]
	st	%r6, 8[%sp]
	st	%r7, 12[%sp]
	st	%r8, 16[%sp]
	st	%r9, 20[%sp]
	st	%r10, 24[%sp]
	st	%r11, 28[%sp]
	st	%r12, 32[%sp]
	st	%r13, 36[%sp]
	st	%r14, 40[%sp]
	st	%r15, 44[%sp]
	st	%r16, 48[%sp]
	st	%r17, 52[%sp]
	st	%r18, 56[%sp]
	st	%r19, 60[%sp]
	st	%r20, 64[%sp]
	st	%r21, 68[%sp]
	st	%r22, 72[%sp]
	st	%r23, 76[%sp]
	st	%r24, 80[%sp]
	st	%r25, 84[%sp]
	st	%r26, 88[%sp]
	st	%r27, 92[%sp]
	st	%r28, 96[%sp]
	st	%r29, 100[%sp]
	st	%r30, 104[%sp]
	st	%r31, 108[%sp]
	ld	-3572[%r0], %r3            ! MSG[1]: the handler, word 1 of the message at the base
	                                   !   (the window, or the buffered copy: udm.h)
	add	%pc, 0x10, %rca
	st	%rca, [--%sp]
	bt	%r3
	nop
	ld	0[%sp], %r3
	ld	4[%sp], %r5
	ld	8[%sp], %r6
	ld	12[%sp], %r7
	ld	16[%sp], %r8
	ld	20[%sp], %r9
	ld	24[%sp], %r10
	ld	28[%sp], %r11
	ld	32[%sp], %r12
	ld	36[%sp], %r13
	ld	40[%sp], %r14
	ld	44[%sp], %r15
	ld	48[%sp], %r16
	ld	52[%sp], %r17
	ld	56[%sp], %r18
	ld	60[%sp], %r19
	ld	64[%sp], %r20
	ld	68[%sp], %r21
	ld	72[%sp], %r22
	ld	76[%sp], %r23
	ld	80[%sp], %r24
	ld	84[%sp], %r25
	ld	88[%sp], %r26
	ld	92[%sp], %r27
	ld	96[%sp], %r28
	ld	100[%sp], %r29
	ld	104[%sp], %r30
	ld	108[%sp], %r31
	add	%sp, 120, %sp
	st	%r1, -3752[%r0]      ! traps (atomicity-extend): back to the interrupted code
	.globl	udm_fast_end
udm_fast_end:                      ! (the end of the fast paths' code: profiles measure up to it)

	.bss
	.globl	udm_upcall_entry
	.p2align	2
udm_upcall_entry:                  ! the running application's upcall entry (user code)
	.space	4
	.globl	udm_up_save
udm_up_save:                       ! EPC, ENPC, ENNPC, ESW, UAC, -, r9
	.space	28
