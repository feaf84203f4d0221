! firmware/udm/buffered.s -- the buffered path's common cases in assembly (docs/udm.md,
! "Two-case delivery"): the trap table of an application in buffered mode.
!
! buffer.c is the whole path in C, reached through the generic entry (traps.s), which saves
! and restores all 29 registers (the Lanai ABI has no callee-saved ones) and so costs about
! 130 cycles a trap by itself. The three events a buffered message always meets have their
! common case here, in four registers saved at fixed addresses:
!   vector 1, mismatch-available: the buffer-insert handler, when the message is the running
!     application's, fits on its buffer's last page, and no upcall is due now (a handler is
!     running, or an atomic section: atomicity-extend is set so that it calls back);
!   vector 41, dispose-extend: the emulated dispose, when the next record is on the same page;
!   vector 44, atomicity-extend: a buffered handler's end when another buffered message is
!     waiting and the interrupted code was not atomic: the next handler is upcalled at once
!     (the saved stream stays in udm_up_save, as buffer.c's return-then-upcall leaves it).
! Everything else (a page to allocate or free, an empty buffer, the switch back to the fast
! case, another GID, a kernel message, a bad dispose) goes to the generic entry with every
! register as interrupted, and buffer.c does it. The field offsets of struct udm_app are
! checked against udm.h in buffer.c.

! The table, once for buffered mode and once with the insert delayed (Figure 10's
! instrument, below): the same vectors but the insert's.
	.macro	udm_buffered_vectors insert
	st	%r9, [udm_trap_frame+36]   ! 0: the generic entry (traps.s)
	bt	udm_trap_common
	mov	hi(udm_trap_frame), %r9
	nop
	st	%r9, [udm_bsave+0]         ! 1: mismatch-available
	bt	\insert
	st	%r10, [udm_bsave+4]        ! delay slot
	nop
	.rept	39
	st	%r9, [udm_trap_frame+36]
	bt	udm_trap_common
	mov	hi(udm_trap_frame), %r9
	nop
	.endr
	st	%r9, [udm_bsave+0]         ! 41: dispose-extend
	bt	udm_buf_dispose
	st	%r10, [udm_bsave+4]
	nop
	.rept	2
	st	%r9, [udm_trap_frame+36]
	bt	udm_trap_common
	mov	hi(udm_trap_frame), %r9
	nop
	.endr
	st	%r9, [udm_bsave+0]         ! 44: atomicity-extend
	bt	udm_buf_return
	st	%r10, [udm_bsave+4]
	nop
	.rept	19
	st	%r9, [udm_trap_frame+36]
	bt	udm_trap_common
	mov	hi(udm_trap_frame), %r9
	nop
	.endr
	.endm

	.text
	.globl	udm_buffered_table
	.p2align	10
udm_buffered_table:
	udm_buffered_vectors udm_buf_insert

! udm_delayed_table: the buffer-insert handler made slower by a fixed number of cycles
! ("we artificially added latency to the buffer handler", the paper's Figure 10): vector 1
! first stalls udm_insert_delay_iterations x 2 cycles. An insert that falls to the generic
! entry has paid its delay here; the experiments' kernel (apps/experiment.c) pays it for
! inserts that reach C through another table (the fast case's, while another application
! runs). Nothing uses it unless the kernel installs it as udm_buffered_tbr.
	.globl	udm_delayed_table
	.p2align	10
udm_delayed_table:
	udm_buffered_vectors udm_delayed_insert

udm_delayed_insert:                ! r9, r10 saved, as the insert expects
	ld	[udm_insert_delay_iterations], %r9
	sub.f	%r9, 0x0, %r0
1:
	bne	1b
	sub.f	%r9, 0x1, %r9              ! (delay) two cycles an iteration
	bt	udm_buf_insert
	nop

	.globl	udm_delay_stall
udm_delay_stall:                   ! udm_delay_stall(n): the same stall, from C
	sub.f	%r6, 0x0, %r0
2:
	bne	2b
	sub.f	%r6, 0x1, %r6
	ld	0[%sp], %pc                ! return (a leaf: pop the return address)
	add	%sp, 0x4, %sp
	nop

udm_buf_insert:                    ! r9, r10 saved
	st	%r11, [udm_bsave+8]
	st	%r12, [udm_bsave+12]
	ld	[udm_current], %r10
	ld	-3632[%r0], %r9            ! HEAD: bit 0 a message, bit 1 kernel, bits 15..8 GID
	ld	0[%r10], %r11              ! the running application's GID
	sh	%r11, 0x8, %r11
	or	%r11, 0x1, %r11            ! one of its messages: GID << 8 | 1
	sub.f	%r9, %r11, %r0
	bne	.Lins_slow
	ld	28[%r10], %r11             ! (delay) tail
	sub.f	%r11, 0x0, %r0
	beq	.Lins_slow                 ! no page yet
	ld	-3720[%r0], %r9            ! (delay) RECV_LEN
	sh	%r9, 0x2, %r9
	add	%r9, 0xc, %r9              ! the record (8 + 4 len) and a word for UDM_NEXT_PAGE
	add	%r11, %r9, %r9
	ld	32[%r10], %r12             ! tail_end
	sub.f	%r9, %r12, %r0
	bugt	.Lins_slow                 ! the last page is full: allocate (buffer.c)
	ld	24[%r10], %r12             ! (delay) head
	sub.f	%r12, 0x0, %r0
	beq	.Lins_slow                 ! the buffer was empty: the base, maybe an upcall
	ld	16[%r10], %r12             ! (delay) upcall_active
	sub.f	%r12, 0x0, %r0
	bne	.Lins_go                   ! a handler runs: its end delivers the next
	ld	-3748[%r0], %r12           ! (delay) UAC
	and.f	%r12, 0xffff0001, %r0      ! interrupt-disable (UAC has only bits 3..0)
	beq	.Lins_slow                 ! clear: an upcall now (buffer.c)
	or	%r12, 0x8, %r12            ! (delay) atomicity-extend: the section's end calls back
	st	%r12, -3748[%r0]
.Lins_go:
	st	%r11, -3616[%r0]           ! DISPOSE_TO the tail: the DMA copies the record
	sub	%r9, 0x4, %r9
	st	%r9, 28[%r10]              ! the new tail
	ld	48[%r10], %r9
	add	%r9, 0x1, %r9
	st	%r9, 48[%r10]              ! messages held
	ld	52[%r10], %r9
	add	%r9, 0x1, %r9
	st	%r9, 52[%r10]              ! inserted
	ld	[udm_bsave+12], %r12
	ld	[udm_bsave+8], %r11
	ld	[udm_bsave+4], %r10
	ld	[udm_bsave+0], %r9
	st	%r0, -3924[%r0]            ! RETI
.Lins_slow:
	ld	[udm_bsave+12], %r12
	ld	[udm_bsave+8], %r11
	ld	[udm_bsave+4], %r10
	bt	udm_trap_generic
	ld	[udm_bsave+0], %r9         ! (delay)

udm_buf_dispose:                   ! r9, r10 saved
	st	%r11, [udm_bsave+8]
	ld	[udm_current], %r10
	ld	24[%r10], %r9              ! head
	sub.f	%r9, 0x0, %r0
	beq	.Ldisp_slow                ! nothing buffered: a bad dispose (buffer.c)
	ld	0[%r9], %r11               ! (delay) its length
	sh	%r11, 0x2, %r11
	add	%r11, 0x8, %r11
	add	%r9, %r11, %r9             ! the next record
	ld	28[%r10], %r11             ! tail
	sub.f	%r9, %r11, %r0
	beq	.Ldisp_slow                ! drained: the page back, the fast case again
	ld	0[%r9], %r11               ! (delay) the next record's length word
	add.f	%r11, 0x1, %r0             ! UDM_NEXT_PAGE (all ones)?
	beq	.Ldisp_slow                ! on the next page: this one back to the pool
	nop
	st	%r9, 24[%r10]              ! head
	st	%r9, -3612[%r0]            ! MSGBASE: user code reads it next (udm.h)
	ld	48[%r10], %r9
	sub	%r9, 0x1, %r9
	st	%r9, 48[%r10]              ! messages held
	ld	60[%r10], %r9
	add	%r9, 0x1, %r9
	st	%r9, 60[%r10]              ! emulated disposes
	ld	-3748[%r0], %r9
	and	%r9, 0xfffffffb, %r9
	st	%r9, -3748[%r0]            ! UAC: dispose-pending cleared, as DISPOSE does
	ld	[udm_bsave+8], %r11
	ld	[udm_bsave+4], %r10
	ld	[udm_bsave+0], %r9
	st	%r0, -3916[%r0]            ! RETI_SKIP: return past the DISPOSE
.Ldisp_slow:
	ld	[udm_bsave+8], %r11
	ld	[udm_bsave+4], %r10
	bt	udm_trap_generic
	ld	[udm_bsave+0], %r9         ! (delay)

udm_buf_return:                    ! r9, r10 saved
	st	%r11, [udm_bsave+8]
	ld	[udm_current], %r10
	ld	16[%r10], %r9              ! upcall_active
	sub.f	%r9, 0x0, %r0
	beq	.Lret_slow                 ! an atomic section's end: buffer.c emulates ENDATOM
	ld	24[%r10], %r9              ! (delay) head
	sub.f	%r9, 0x0, %r0
	beq	.Lret_slow                 ! nothing more: back to the interrupted code
	ld	[udm_up_save+16], %r11     ! (delay) the interrupted code's UAC
	and.f	%r11, 0xffff0001, %r0
	bne	.Lret_slow                 ! it was atomic: back to it, the next waits
	or	%r11, 0xd, %r11            ! (delay) interrupt-disable, dispose-pending, extend
	st	%r11, -3748[%r0]           ! UAC for the next handler
	ld	4[%r10], %r9               ! the upcall entry
	st	%r9, -3960[%r0]            ! EPC, ENPC, ENNPC
	add	%r9, 0x4, %r9
	st	%r9, -3956[%r0]
	add	%r9, 0x4, %r9
	st	%r9, -3952[%r0]
	ld	64[%r10], %r9
	add	%r9, 0x1, %r9
	st	%r9, 64[%r10]              ! upcalls
	ld	[udm_bsave+8], %r11
	ld	[udm_bsave+4], %r10
	ld	[udm_bsave+0], %r9
	st	%r0, -3924[%r0]            ! RETI: user mode, the next handler
.Lret_slow:
	ld	[udm_bsave+8], %r11
	ld	[udm_bsave+4], %r10
	bt	udm_trap_generic
	ld	[udm_bsave+0], %r9         ! (delay)

	.data
	.globl	udm_insert_delay_iterations
	.p2align	2
udm_insert_delay_iterations:
	.long	0

	.bss
	.p2align	2
udm_bsave:                         ! r9..r12 of the interrupted code
	.space	16
