! Code far above the start of SRAM: calls into it and returns out of it exercise the slots
! made dispatchable beyond the ready prefix (docs/vm.md, "Host memory"). 100 calls adding 3.
	.text
	.globl main
main:
	st %rca, [--%sp]
	mov 0, %r9
	mov 100, %r10
loop:
	mov hi(far), %r11
	or %r11, lo(far), %r11
	add %pc, 0x10, %rca
	mov %r11, %pc
	nop
	nop
	sub.f %r10, 1, %r10
	bne loop
	nop
	ld [%sp++], %rca
	mov %r9, %rv
	mov %rca, %pc
	nop
	.org 0x180000
far:
	add %r9, 3, %r9
	mov %rca, %pc
	nop
