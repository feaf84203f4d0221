/* header: build a 4-word packet header with 32-bit constants in a pinned buffer. */
#include "pat.h"

uint32_t pat_step(uint32_t i) {
  struct Hdr *h = &HDR[i & 7];
  h->w0 = 0xE1A00000u | (i & 0xFF);
  h->w1 = 0x08004500u;
  h->w2 = ((64 + (i & 63)) << 16) | 0xC0DEu;
  h->w3 = i ^ 0x5A5A5A5Au;
  return h->w0 ^ h->w3;
}
