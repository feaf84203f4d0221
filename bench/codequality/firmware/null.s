! An empty pat_step (3 instructions: the return and its delay slots): run.py measures the
! driver's own cost per call with it and subtracts that from every variant's.
	.text
	.globl	pat_step
	.type	pat_step,@function
	.p2align	2
pat_step:
	ld	0[%sp], %pc
	add	%sp, 0x4, %sp
	mov	0x0, %rv
	.size	pat_step, .-pat_step
