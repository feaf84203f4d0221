/* Firmware for tests/chip/chip_test.cpp: one scenario per test number, chosen by the host
 * in the control block before the CPU starts. Results go back into the control block. */
#include "../../../firmware/lib/lanai.h"

#define CTL 0x10000u
#define W(a) (*(volatile unsigned int *)(a))
#define ARG0 W(CTL + 4)
#define ARG1 W(CTL + 8)
#define RESULT0 W(CTL + 12)
#define RESULT1 W(CTL + 16)
#define RESULT2 W(CTL + 20)

static void wait_dma(void) {
  while (!(ISR & DMA_INT_BIT)) {
  }
}

static void dma_round_trip(unsigned host, unsigned len) {
  volatile unsigned char *a = (volatile unsigned char *)0x8000;
  volatile unsigned char *b = (volatile unsigned char *)0x9000;
  for (unsigned i = 0; i < len; ++i) a[i] = (unsigned char)(i * 7 + 3);
  RESULT1 = RTC;
  LAR = 0x8000;
  EAR = host;
  DMA_DIR = DMA_L2E;
  CTR = len;
  wait_dma();
  LAR = 0x9000;
  EAR = host;
  DMA_DIR = DMA_E2L;
  CTR = len;
  wait_dma();
  RESULT2 = RTC;
  unsigned bad = 0;
  for (unsigned i = 0; i < len; ++i) bad += b[i] != (unsigned char)(i * 7 + 3);
  RESULT0 = bad;
}

/* A poll through a call: the call pushes its return address and the callee stores a
 * constant, the same bytes on every pass (silent stores, vm/doze.h). */
static __attribute__((noinline)) unsigned poll_through_call(unsigned addr) {
  W(addr + 8) = 5;
  return W(addr);
}

int main(void) {
  switch (W(CTL)) {
  case 1:
    dma_round_trip(ARG0, ARG1);
    break;
  case 2: {
    unsigned t0 = RTC;
    IT0 = ARG0;
    while (!(ISR & TIME0_INT_BIT)) {
    }
    RESULT0 = RTC - t0;
    ISR = TIME0_INT_BIT;
    RESULT1 = ISR & TIME0_INT_BIT;
    break;
  }
  case 3:
    SIG = LAN0_SIG_BIT << ARG0;
    while (ISR & (LAN0_SIG_BIT << ARG0)) {
    }
    RESULT0 = 1;
    break;
  case 4: /* a second DMA while the first runs: a fault */
    LAR = 0x8000;
    EAR = ARG0;
    DMA_DIR = DMA_L2E;
    CTR = 4096;
    CTR = 4096;
    break;
  case 5: /* DMA outside host memory: a fault */
    LAR = 0x8000;
    EAR = 0xFFFFF000u;
    DMA_DIR = DMA_L2E;
    CTR = 8192;
    break;
  case 6: /* a register read as a byte: a fault */
    RESULT0 = *(volatile unsigned char *)0xFFFFFE50u;
    break;
  case 7: /* wait for the doorbell */
    while (!(ISR & HOST_SIG_BIT)) {
    }
    RESULT0 = HOST_SIG;
    ISR = HOST_SIG_BIT;
    RESULT1 = ISR & HOST_SIG_BIT;
    break;
  case 10: /* poll the SRAM word at ARG0 until it equals ARG1 (vm/doze.h's idle loop) */
    while (W(ARG0) != ARG1) {
    }
    RESULT0 = RTC;
    break;
  case 11: /* case 10's poll, through poll_through_call */
    while (poll_through_call(ARG0) != ARG1) {
    }
    RESULT0 = RTC;
    break;
  case 8: /* writing a read-only register: a fault */
    CRC_ERRORS = 1;
    break;
  case 9: /* a service request: the driver translates virtual address ARG0 */
    W(CTL + 24) = ARG0;
    W(CTL + 28) = 0;
    SIG = LAN0_SIG_BIT;
    while (W(CTL + 28) == 0) {
    }
    RESULT0 = W(CTL + 28);
    RESULT1 = RTC;
    break;
  }
  return 0;
}
