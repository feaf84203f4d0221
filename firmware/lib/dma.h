/* dma.h -- the chip's three DMA engines for C firmware: the C face of dma.fw and
 * packet.fw (docs/firmware-lib.md), for control programs written in C (firmware/echo/).
 * The same sequences, in the same register order; a control program in the firmware
 * language imports the .fw files instead. */
#ifndef LANAIKIT_DMA_H
#define LANAIKIT_DMA_H

#include "lanai.h"

/* Host DMA: waits until the transfer in the engine (if any) has finished. */
static inline void lanai_dma_wait(void) {
  while (!(ISR & DMA_INT_BIT)) {
  }
}

/* Host DMA: starts `len` bytes between SRAM `sram` and host address `host` in direction
 * `dir` (DMA_L2E or DMA_E2L); the engine must be idle. The compiler barrier puts the
 * SRAM stores made before the call in memory before the engine reads it. */
static inline void lanai_dma_start(unsigned int sram, unsigned int host, unsigned int len,
                                   unsigned int dir) {
  __asm__ volatile("" ::: "memory");
  LAR = sram;
  EAR = host;
  DMA_DIR = dir;
  CTR = len;
}

/* Send DMA: waits until the send engine is idle. */
static inline void lanai_send_wait(void) {
  while (!(ISR & SEND_INT_BIT)) {
  }
}

/* Send DMA: sends the packet [first, last) (route bytes first); the engine must be idle. */
static inline void lanai_send_packet(unsigned int first, unsigned int last) {
  SMP = first;
  SMLT = last;
}

/* Receive DMA: arms the engine into the `bytes` bytes at `buf` (the RML write arms it). */
static inline void lanai_recv_arm(unsigned int buf, unsigned int bytes) {
  RMP = buf;
  RML = buf + bytes;
}

#endif
