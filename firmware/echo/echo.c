/* echo.c -- a minimal control program: host doorbell -> packet out; packet in -> host
 * memory plus a completion record. See echo.h for the layout and the protocol.
 *
 * The main loop polls ISR, as LANai control programs do: the CPU has nothing else to do,
 * and polling reacts within a few instructions. Bad packets (CRC error, wrong magic,
 * impossible length) and bad requests from the host are counted and dropped. */
#include "../lib/dma.h"
#include "echo.h"

#define W(addr) (*(volatile unsigned int *)(addr))
#define B(addr) (*(volatile unsigned char *)(addr))

static unsigned int completions;

static void arm_receive(void) { lanai_recv_arm(ECHO_RECV_BUF, ECHO_HEADER_BYTES + ECHO_MAX_DATA); }

/* The host rang the doorbell: send the message it left in the send buffer. (noinline: the
 * profiler counts each call as one event, and a handler must exist as a function.) */
__attribute__((noinline)) void send_message(void) {
  unsigned int len = W(ECHO_CTL + ECHO_CTL_SEND_LEN);
  unsigned int dest = W(ECHO_CTL + ECHO_CTL_SEND_DEST);
  if (len > ECHO_MAX_DATA || dest >= ECHO_MAX_NODES) {
    W(ECHO_CTL + ECHO_CTL_BAD_SEND) += 1;
    return;
  }
  unsigned int rlen = W(ECHO_CTL + ECHO_CTL_ROUTE_LEN + 4 * dest);
  if (rlen > ECHO_MAX_ROUTE) {
    W(ECHO_CTL + ECHO_CTL_BAD_SEND) += 1;
    return;
  }
  unsigned int hdr = ECHO_SEND_DATA - ECHO_HEADER_BYTES;
  W(hdr) = ECHO_MAGIC;
  W(hdr + 4) = W(ECHO_CTL + ECHO_CTL_NODE);
  W(hdr + 8) = len;
  unsigned int start = hdr - rlen;
  const unsigned int routes = ECHO_CTL + ECHO_CTL_ROUTES + ECHO_MAX_ROUTE * dest;
  for (unsigned int i = 0; i < rlen; ++i) B(start + i) = B(routes + i);
  lanai_send_wait();
  lanai_send_packet(start, ECHO_SEND_DATA + len);
  W(ECHO_CTL + ECHO_CTL_SENT) += 1;
}

/* A packet arrived: check it, DMA its payload and then a completion record to the host. */
__attribute__((noinline)) void deliver(void) {
  unsigned int got = RMP - ECHO_RECV_BUF;
  unsigned int status = RECV_STATUS;
  unsigned int len = W(ECHO_RECV_BUF + 8);
  if (status != 0 || got < ECHO_HEADER_BYTES || W(ECHO_RECV_BUF) != ECHO_MAGIC ||
      len != got - ECHO_HEADER_BYTES) {
    W(ECHO_CTL + ECHO_CTL_REJECTED) += 1;
    arm_receive();
    return;
  }
  unsigned int host = W(ECHO_CTL + ECHO_CTL_HOST_BUF);
  if (len > 0) {
    lanai_dma_start(ECHO_RECV_BUF + ECHO_HEADER_BYTES, host, len, DMA_L2E);
    lanai_dma_wait();
  }
  completions += 1;
  W(ECHO_COMPLETION) = completions;
  W(ECHO_COMPLETION + 4) = len;
  W(ECHO_COMPLETION + 8) = W(ECHO_RECV_BUF + 4);
  lanai_dma_start(ECHO_COMPLETION, host + ECHO_MAX_DATA, ECHO_COMPLETION_BYTES, DMA_L2E);
  W(ECHO_CTL + ECHO_CTL_RECEIVED) += 1;
  arm_receive();
  lanai_dma_wait();
}

int main(void) {
  arm_receive();
  for (;;) {
    unsigned int isr = ISR;
    if (isr & HOST_SIG_BIT) {
      ISR = HOST_SIG_BIT;
      send_message();
    }
    if (isr & RECV_INT_BIT) deliver();
  }
}
