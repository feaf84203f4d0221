! crt0.s -- reset-vector startup code for bare lanaikit programs.
!
! The linker places _start at address 0 (the reset vector): this file's .text must
! be the first thing in the image, and _start is its first instruction.
!
! Sequence (see docs/abi.md):
!   1. %sp <- SRAM size (MMIO word 0xFFFFF008), rounded down to 8: the stack grows
!      down from the top of SRAM.  %fp <- 0 (terminates frame-pointer chains).
!   2. zero [__bss_start, __bss_end): bytes up to a word boundary, then words,
!      then the remaining tail bytes.
!   3. call main with the standard clang call sequence.
!   4. store main's return value (%rv) to 0xFFFFF004, which halts the processor.
!
! Note: `and` with an immediate fills the other half-word with ones (0x3 would mean
! 0xffff0003), so the alignment test below shifts instead.
!
! Delay slots: a branch (and any ALU write to %pc) executes the next instruction
! before the jump takes effect; a load into %pc executes the next two.  Every
! branch below is followed by an instruction that is safe to execute on both paths.

	.text
	.globl	_start
	.type	_start,@function
	.p2align	2
_start:
	ld	-4088[%r0], %sp           ! sp <- mem[0xFFFFF008] (SRAM size in bytes)
	or	%r0, 0x0, %fp             ! fp <- 0
	and	%sp, 0xfffffff8, %sp      ! keep the stack 8-byte aligned (LLVM: S64)

	! ---- zero .bss ----------------------------------------------------------
	mov	hi(__bss_start), %r3
	or	%r3, lo(__bss_start), %r3 ! r3 = cursor
	mov	hi(__bss_end), %r9
	or	%r9, lo(__bss_end), %r9   ! r9 = end

	! leading bytes until the cursor is word aligned (or the end is reached)
.Lhead:
	sub.f	%r3, %r9, %r0
	buge	.Ldone                    ! cursor >= end: nothing (left) to clear
	sh	%r3, 0x1e, %r12           ! delay slot (harmless on both paths): r12 = cursor << 30
	sub.f	%r12, 0x0, %r0            ! low two bits of the cursor zero?
	beq	.Lwords
	nop
	st.b	%r0, 0[%r3]
	bt	.Lhead
	add	%r3, 0x1, %r3             ! delay slot: advance the cursor

	! whole words while cursor + 4 <= end
.Lwords:
	add	%r3, 0x4, %r12
	sub.f	%r12, %r9, %r0
	bugt	.Ltail
	nop
	st	%r0, 0[%r3]
	bt	.Lwords
	or	%r12, 0x0, %r3            ! delay slot: cursor += 4

	! trailing bytes
.Ltail:
	sub.f	%r3, %r9, %r0
	buge	.Ldone
	nop
	st.b	%r0, 0[%r3]
	bt	.Ltail
	add	%r3, 0x1, %r3             ! delay slot: advance the cursor

	! ---- call main ----------------------------------------------------------
.Ldone:
	add	%pc, 0x10, %rca           ! rca = address of the instruction after the delay slot
	st	%rca, [--%sp]             ! push the return address
	bt	main
	nop                               ! delay slot

	! ---- halt with main's return value ------------------------------------
	st	%rv, -4092[%r0]           ! mem[0xFFFFF004] <- status: halts
.Lhang:
	bt	.Lhang                    ! not reached: the store above halts
	nop
	.size	_start, .-_start
