/* Firmware for tests/chip/block_test.cpp: drives the toy mailbox register block
 * (tests/chip/mailbox_block.h) attached at 0xFFFFF200. One scenario per test number, chosen
 * by the host in the control block; results go back into it. */
#include "../../../firmware/lib/lanai.h"

#define CTL 0x10000u
#define W(a) (*(volatile unsigned int *)(a))
#define ARG0 W(CTL + 4)
#define RESULT(i) W(CTL + 12 + 4 * (i))

#define BLOCK(off) (*(volatile unsigned int *)(0xFFFFF200u + (off)))
#define MAILBOX BLOCK(0x0)  /* R/W: the host's last word; the firmware's answer */
#define COUNT BLOCK(0x4)    /* R: host writes to MAILBOX so far */
#define DOORBELL BLOCK(0x8) /* W: raise MAILBOX_INT after this many ns */
#define NOW_NS BLOCK(0xC)   /* R: the time in ns (exact) */
#define MAILBOX_INT 0x00000100u

/* ARG0 rounds: wait for the host's word, answer twice it, ring the doorbell, wait until
 * the host has acknowledged the interrupt. RESULT(0) = sum of the words, RESULT(1..) = the
 * time each word was seen. */
static void rounds(unsigned n) {
  unsigned seen = 0, sum = 0;
  EIMR = MAILBOX_INT;
  for (unsigned i = 0; i < n; ++i) {
    while (COUNT == seen) {
    }
    ++seen;
    const unsigned v = MAILBOX;
    sum += v;
    RESULT(1 + i) = NOW_NS;
    MAILBOX = 2 * v;
    DOORBELL = 300;
    while (!(ISR & MAILBOX_INT)) {
    }
    while (ISR & MAILBOX_INT) {
    }
  }
  RESULT(0) = sum;
}

int main(void) {
  switch (W(CTL)) {
  case 1: rounds(ARG0); break;
  case 2: /* a byte load from the block: a fault */
    RESULT(0) = *(volatile unsigned char *)0xFFFFF203u;
    break;
  case 3: /* inside the window, past the block's end: a fault */
    RESULT(0) = BLOCK(0x10);
    break;
  case 4: /* writing the read-only COUNT: the block's own error */
    COUNT = 1;
    break;
  case 5: /* reading the write-only DOORBELL */
    RESULT(0) = DOORBELL;
    break;
  }
  return 0;
}
