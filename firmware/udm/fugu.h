/* firmware/udm/fugu.h -- FUGU's network interface (vm/fugu_interface.h) and the CPU's
 * interrupt and trap registers (docs/vm.md, "Interrupts and traps") for C code running on
 * a FUGU node. docs/udm.md is the manual. */
#ifndef LANAIKIT_FIRMWARE_UDM_FUGU_H
#define LANAIKIT_FIRMWARE_UDM_FUGU_H

#define FUGU_REG(off) (*(volatile unsigned int *)(0xFFFFF100u + (off)))
#define NI_SEND(i) FUGU_REG(0x000 + 4 * (i)) /* the send buffer, 16 words */
#define NI_SPACE FUGU_REG(0x040)     /* words writable without blocking */
#define NI_DESCLEN FUGU_REG(0x044)
#define NI_LAUNCH FUGU_REG(0x048)    /* write the length in words: launch */
#define NI_MSGAVAIL FUGU_REG(0x04C)  /* 1: a message of this application is in the window */
#define NI_DISPOSE FUGU_REG(0x050)
#define NI_BEGINATOM FUGU_REG(0x054)
#define NI_ENDATOM FUGU_REG(0x058)
#define NI_UAC FUGU_REG(0x05C)
#define NI_RECV_LEN FUGU_REG(0x078) /* RECV_LEN and RECV_SRC sit just before RECV: a record */
#define NI_RECV_SRC FUGU_REG(0x07C)
#define NI_RECV(i) FUGU_REG(0x080 + 4 * (i)) /* the input window, 16 words */
/* kernel only */
#define NI_GID FUGU_REG(0x0C0)
#define NI_DIVERT FUGU_REG(0x0C4)
#define NI_TIMEOUT FUGU_REG(0x0C8)
#define NI_TIMER FUGU_REG(0x0CC)
#define NI_HEAD FUGU_REG(0x0D0)
#define NI_IRQ_ACK FUGU_REG(0x0D4)
#define NI_NODE FUGU_REG(0x0D8)      /* user code may read NODE and NODES */
#define NI_NODES FUGU_REG(0x0DC)
#define NI_DISPOSE_TO FUGU_REG(0x0E0) /* copy the head message to memory as a record, dispose */
#define NI_MSGBASE FUGU_REG(0x0E4)    /* the base register: 0 the window, else a record */
/* the message at the base (user R): one access each */
#define NI_MSG_LEN FUGU_REG(0x100)
#define NI_MSG_SRC FUGU_REG(0x104)
#define NI_MSG(i) FUGU_REG(0x108 + 4 * (i))

/* UAC bits */
#define UAC_INTERRUPT_DISABLE 1u
#define UAC_TIMER_FORCE 2u
#define UAC_DISPOSE_PENDING 4u
#define UAC_ATOMICITY_EXTEND 8u
/* word 0 of a message: the destination; a kernel message has this bit */
#define NI_KERNEL_MESSAGE 0x80000000u

/* interrupt lines and trap causes */
#define LINE_ATOMICITY_TIMEOUT 0u
#define LINE_MISMATCH_AVAILABLE 1u
#define LINE_MESSAGE_AVAILABLE 2u
#define CAUSE_PRIVILEGED 32u
#define CAUSE_SYSCALL 33u
#define CAUSE_PROTECTION_VIOLATION 40u
#define CAUSE_DISPOSE_EXTEND 41u
#define CAUSE_DISPOSE_FAILURE 42u
#define CAUSE_BAD_DISPOSE 43u
#define CAUSE_ATOMICITY_EXTEND 44u

/* the CPU's control registers */
#define CPU_REG(addr) (*(volatile unsigned int *)(addr))
#define CPU_STATUS CPU_REG(0xFFFFF080u)
#define CPU_ESTATUS CPU_REG(0xFFFFF084u)
#define CPU_EPC CPU_REG(0xFFFFF088u)
#define CPU_ENPC CPU_REG(0xFFFFF08Cu)
#define CPU_ENNPC CPU_REG(0xFFFFF090u)
#define CPU_ESW CPU_REG(0xFFFFF094u)
#define CPU_CAUSE CPU_REG(0xFFFFF098u)
#define CPU_TVAL CPU_REG(0xFFFFF09Cu)
#define CPU_TBR CPU_REG(0xFFFFF0A0u)
#define CPU_IMASK CPU_REG(0xFFFFF0A4u)
#define CPU_IPEND CPU_REG(0xFFFFF0A8u)
#define CPU_SYSCALL CPU_REG(0xFFFFF0B0u)

/* firmware/udm/traps.s */
struct udm_trap_frame {
  unsigned int r[32]; /* r3..r31 as interrupted (r0..r2 unused) */
  unsigned int skip;  /* set: return past the trapping instruction */
};
extern unsigned int udm_trap_table[];
void udm_trap(struct udm_trap_frame *frame); /* the kernel's handler, in C */
void udm_enter_user(void (*fn)(void), unsigned int sp);

#endif
