/* atm.h -- the ATM cell interface's registers for C firmware (docs/chip.md, "The ATM cell
 * interface"). The same map as vm/cell_interface.h (the simulator's side);
 * tests/chip/cell_interface_test.cpp fails on any difference. Registers are 32-bit words
 * at the block's conventional base in the register-block window. */
#ifndef LANAIKIT_ATM_H
#define LANAIKIT_ATM_H

#define ATM_BASE 0xFFFFF100u
#define ATM_REG(off) (*(volatile unsigned int *)(ATM_BASE + (off)))

#define ATM_RX_BASE   ATM_REG(0x00) /* SRAM address of the receive ring (multiple of 64) */
#define ATM_RX_SLOTS  ATM_REG(0x04) /* slots in the ring; 0 = receive off */
#define ATM_RX_HEAD   ATM_REG(0x08) /* cells written (free-running) */
#define ATM_RX_TAIL   ATM_REG(0x0C) /* cells the firmware has finished with (free-running) */
#define ATM_RX_DROPS  ATM_REG(0x10) /* cells lost: ring full or receive off */
#define ATM_TX_ADDR   ATM_REG(0x14) /* SRAM address of the next launch */
#define ATM_TX_LEN    ATM_REG(0x18) /* 48 for a raw cell, 0..65535 for AAL5 */
#define ATM_TX_CMD    ATM_REG(0x1C) /* launch: VCI 15..0, PTI 18..16 (raw), ATM_TX_AAL5 */
#define ATM_TX_QUEUED ATM_REG(0x20) /* launches not yet wholly handed to the link */
#define ATM_TX_DONE   ATM_REG(0x24) /* launches wholly handed to the link (free-running) */

#define ATM_TX_AAL5      0x80000000u
#define ATM_TX_PTI_SHIFT 16
#define ATM_TX_QUEUE     16u

/* A receive slot: 64 bytes. */
#define ATM_SLOT_BYTES    64u
#define ATM_SLOT_HEADER   0u  /* the cell header's first 4 bytes (VCI in bits 19..4) */
#define ATM_SLOT_STATUS   4u  /* ATM_STATUS_* */
#define ATM_SLOT_PAYLOAD  8u  /* 48 bytes */
#define ATM_STATUS_CELLS  0x0000FFFFu /* cells of this PDU so far */
#define ATM_STATUS_END    0x00010000u /* PTI end-of-SDU */
#define ATM_STATUS_CRC_OK 0x00020000u /* on an end cell: the PDU's CRC-32 matched */
#define ATM_HEADER_VCI(h) (((h) >> 4) & 0xFFFFu)

#define ATM_RX_INT_BIT 0x00000100u /* ISR: a cell landed in the ring */
#define ATM_TX_INT_BIT 0x00000200u /* ISR: a launch was wholly handed to the link */

#endif
