/* Firmware for tests/chip/system_test.cpp: a source streams numbered packets with a
 * verifiable payload to one destination; a sink receives, verifies and counts them,
 * optionally spending `delay` loop iterations per packet so that the network backs up.
 *
 * Control block (words at CTL): role (1 source, 2 sink), packets, payload bytes,
 * route length, route bytes (word 4), delay; results: sent, received, bytes, bad,
 * crc errors, last sequence per source (8 sources); and while the sink waits for a
 * packet, each doorbell from the host logs a word of the buffer and RMP (PEEKS, PEEK). */
#include "../../../firmware/lib/lanai.h"

#define CTL 0x10000u
#define W(a) (*(volatile unsigned int *)(a))
#define ROLE W(CTL)
#define PACKETS W(CTL + 4)
#define BYTES W(CTL + 8)
#define ROUTE_LEN W(CTL + 12)
#define ROUTE (CTL + 16)
#define DELAY W(CTL + 20)
#define NODE W(CTL + 24)
#define SENT W(CTL + 32)
#define RECEIVED W(CTL + 36)
#define RX_BYTES W(CTL + 40)
#define BAD W(CTL + 44)
#define CRC_BAD W(CTL + 48)
#define NEXT_SEQ(src) W(CTL + 64 + 4 * (src))
#define PEEKS W(CTL + 56)
#define PEEK(i) W(CTL + 0x100 + 4 * ((i) % 64))

#define TX_BUF 0x20000u
#define RX_BUF 0x30000u
#define RX_MAX 0x8000u

static unsigned char pattern(unsigned src, unsigned seq, unsigned k) {
  return (unsigned char)(src * 31u + seq * 7u + k);
}

static void source(void) {
  unsigned rlen = ROUTE_LEN, len = BYTES, node = NODE;
  /* The route goes right before the (word-aligned) header. */
  const unsigned h = TX_BUF + 16;
  volatile unsigned char *buf = (volatile unsigned char *)(h - rlen);
  for (unsigned i = 0; i < rlen; ++i) buf[i] = *(volatile unsigned char *)(ROUTE + i);
  for (unsigned seq = 0; seq < PACKETS; ++seq) {
    while (!(ISR & SEND_INT_BIT)) {
    }
    W(h) = node;
    W(h + 4) = seq;
    volatile unsigned char *p = (volatile unsigned char *)(h + 8);
    for (unsigned k = 0; k < len; ++k) p[k] = pattern(node, seq, k);
    SMP = h - rlen;
    SMLT = h + 8 + len;
    SENT = seq + 1;
  }
  while (!(ISR & SEND_INT_BIT)) {
  }
}

static void sink(void) {
  RMP = RX_BUF;
  RML = RX_BUF + RX_MAX;
  for (;;) {
    while (!(ISR & RECV_INT_BIT)) {
      /* The host rang: log a word of the packet arriving (before reading RMP, which
       * could bring the receive engine up to date) and where receive stands (RMP), as
       * the firmware sees them in the middle of a packet. */
      if (ISR & HOST_SIG_BIT) {
        ISR = HOST_SIG_BIT;
        unsigned n = PEEKS;
        PEEK(2 * n) = W(RX_BUF + 1024);
        PEEK(2 * n + 1) = RMP;
        PEEKS = n + 1;
      }
    }
    unsigned got = RMP - RX_BUF;
    if (RECV_STATUS != 0) {
      CRC_BAD += 1;
    } else {
      unsigned src = W(RX_BUF), seq = W(RX_BUF + 4);
      unsigned ok = got >= 8 && src < 8 && seq >= NEXT_SEQ(src); /* in order; gaps only where CRC-bad packets were dropped */
      volatile unsigned char *p = (volatile unsigned char *)(RX_BUF + 8);
      for (unsigned k = 0; ok && k + 8 < got; ++k) ok = p[k] == pattern(src, seq, k);
      if (ok) {
        NEXT_SEQ(src) = seq + 1;
        RECEIVED += 1;
        RX_BYTES += got - 8;
      } else {
        BAD += 1;
      }
    }
    for (volatile unsigned d = DELAY; d > 0; --d) {
    }
    RMP = RX_BUF;
    RML = RX_BUF + RX_MAX;
  }
}

int main(void) {
  if (ROLE == 1) source();
  else if (ROLE == 2) sink();
  return 0;
}
