/* lanai.h -- the chip's memory-mapped registers for C firmware (docs/chip.md).
 *
 * The same map as vm/chip_regs.h (the simulator's side) and firmware/lib/lanai.fw (the
 * firmware language's side); tests/firmware/register_map_test.cpp fails on any difference.
 * Registers are 32-bit and must be accessed as words. */
#ifndef LANAIKIT_LANAI_H
#define LANAIKIT_LANAI_H

#define LANAI_REG(off) (*(volatile unsigned int *)(0xFFFFFE00u + (off)))

#define ISR         LANAI_REG(0x050) /* interrupt status; write 1s to clear latched bits */
#define EIMR        LANAI_REG(0x058) /* host-interrupt mask */
#define IT0         LANAI_REG(0x060) /* interval timer, RTC ticks to go */
#define RTC         LANAI_REG(0x068) /* real-time clock, in ticks */
#define LAR         LANAI_REG(0x070) /* host DMA: SRAM address */
#define EAR         LANAI_REG(0x074) /* host DMA: host physical address */
#define CTR         LANAI_REG(0x078) /* host DMA: byte count; writing starts it */
#define DMA_DIR     LANAI_REG(0x080) /* host DMA: DMA_L2E or DMA_E2L */
#define RMP         LANAI_REG(0x0E0) /* receive DMA: pointer */
#define RML         LANAI_REG(0x0E8) /* receive DMA: limit; writing arms the engine */
#define SMP         LANAI_REG(0x0F0) /* send DMA: pointer */
#define SML         LANAI_REG(0x100) /* send DMA: limit (packet stays open) */
#define SMLT        LANAI_REG(0x108) /* send DMA: limit with tail (ends the packet) */
#define HOST_SIG    LANAI_REG(0x160) /* doorbell value from the host */
#define SIG         LANAI_REG(0x168) /* write LANn_SIG bits: interrupt the host */
#define RECV_STATUS LANAI_REG(0x170) /* last packet: bit0 CRC error, bit1 truncated */
#define LINK_STATUS LANAI_REG(0x178) /* bit0 link up, bit1 stopped by back-pressure */
#define CRC_ERRORS  LANAI_REG(0x180) /* packets received with a bad CRC */

#define DMA_L2E 0u /* SRAM -> host */
#define DMA_E2L 1u /* host -> SRAM */

#define HOST_SIG_BIT  0x40000000u
#define LINK_INT_BIT  0x01000000u
#define LAN7_SIG_BIT  0x00800000u /* firmware -> host signals (SIG) */
#define LAN6_SIG_BIT  0x00400000u
#define LAN5_SIG_BIT  0x00200000u
#define LAN4_SIG_BIT  0x00100000u
#define LAN3_SIG_BIT  0x00080000u
#define LAN2_SIG_BIT  0x00040000u
#define LAN1_SIG_BIT  0x00020000u
#define LAN0_SIG_BIT  0x00010000u
#define CRC_INT_BIT   0x00008000u
#define TIME0_INT_BIT 0x00000040u
#define DMA_INT_BIT   0x00000010u /* level: host DMA idle */
#define SEND_INT_BIT  0x00000008u /* level: send DMA idle */
#define BUFF_INT_BIT  0x00000004u
#define RECV_INT_BIT  0x00000002u
#define HEAD_INT_BIT  0x00000001u

#define RECV_CRC_ERROR 1u
#define RECV_TRUNCATED 2u
#define LINK_UP        1u /* LINK_STATUS bits */
#define LINK_STOPPED   2u

/* Bare-ABI debug page (docs/abi.md). */
#define LANAI_PUTC (*(volatile unsigned int *)0xFFFFF000u)
#define LANAI_EXIT (*(volatile unsigned int *)0xFFFFF004u)

#endif
