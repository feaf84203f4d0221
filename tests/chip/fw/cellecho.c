/* Firmware for tests/chip/cell_interface_test.cpp: a cell echo over the ATM cell interface
 * (firmware/lib/atm.h). It places an 8-slot receive ring, then for each of ARG0 cells:
 * waits for the cell (polling RX_HEAD), adds 1 to its first payload word, and sends the
 * payload back as a raw cell on VCI + 1 with the same PTI. RESULT(0) counts the cells whose
 * status said "end of SDU". */
#include "../../../firmware/lib/atm.h"
#include "../../../firmware/lib/lanai.h"

#define CTL 0x10000u
#define W(a) (*(volatile unsigned int *)(a))
#define ARG0 W(CTL + 4)
#define RESULT(i) W(CTL + 12 + 4 * (i))

#define RING 0x20000u
#define SLOTS 8u
#define TXBUF 0x21000u

int main(void) {
  const unsigned n = ARG0;
  unsigned ends = 0;
  ATM_RX_BASE = RING;
  ATM_RX_SLOTS = SLOTS;
  for (unsigned i = 0; i < n; ++i) {
    while (ATM_RX_HEAD == i) {
    }
    const unsigned slot = RING + (i % SLOTS) * ATM_SLOT_BYTES;
    const unsigned header = W(slot + ATM_SLOT_HEADER);
    const unsigned status = W(slot + ATM_SLOT_STATUS);
    if (status & ATM_STATUS_END) ++ends;
    /* The previous reply's bytes are read when its cell is handed over: wait for it. */
    while (ATM_TX_QUEUED != 0) {
    }
    for (unsigned w = 0; w < 12; ++w) W(TXBUF + 4 * w) = W(slot + ATM_SLOT_PAYLOAD + 4 * w);
    W(TXBUF) = W(TXBUF) + 1;
    ATM_RX_TAIL = i + 1;
    ATM_TX_ADDR = TXBUF;
    ATM_TX_LEN = 48;
    ATM_TX_CMD = (ATM_HEADER_VCI(header) + 1) | (((header >> 1) & 7) << ATM_TX_PTI_SHIFT);
  }
  while (ATM_TX_QUEUED != 0) {
  }
  RESULT(0) = ends;
  return 0;
}
