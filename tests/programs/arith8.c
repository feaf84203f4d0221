/* 8-bit arithmetic: signed and unsigned, wraparound through explicit conversions,
 * integer promotions, and char arithmetic kept in registers and in memory. */
#include "lk_io.h"

static volatile uint8_t vu[6] = {0, 1, 127, 128, 200, 255};
static volatile int8_t vs[6] = {0, 1, -1, 127, -128, -100};

int main(void) {
  uint32_t h = LK_FNV_INIT;
  for (int i = 0; i < 6; i++) {
    for (int j = 0; j < 6; j++) {
      uint8_t a = vu[i], b = vu[j];
      uint8_t s = (uint8_t)(a + b), d = (uint8_t)(a - b), m = (uint8_t)(a * b);
      uint8_t q = b ? (uint8_t)(a / b) : 0, r = b ? (uint8_t)(a % b) : 0;
      uint8_t x = (uint8_t)(a ^ b), o = (uint8_t)(a | b), n = (uint8_t)(a & b);
      lk_printf("u8 %3u %3u: + %3u - %3u * %3u / %3u %% %3u ^ %3u | %3u & %3u\n", a, b, s, d, m, q, r, x, o, n);
      h = lk_mix(h, s | d << 8 | (uint32_t)m << 16 | (uint32_t)q << 24);
      int8_t c = vs[i], e = vs[j];
      int8_t ss = (int8_t)(uint8_t)(c + e); /* modular conversion (implementation-defined, same on both) */
      int8_t sd = (int8_t)(uint8_t)(c - e);
      int8_t sm = (int8_t)(uint8_t)(c * e);
      int sq = e ? c / e : 0, sr = e ? c % e : 0; /* promoted to int: -128 / -1 is fine */
      lk_printf("s8 %4d %4d: + %4d - %4d * %4d / %4d %% %4d >> %4d ~ %4d\n", c, e, ss, sd, sm, sq, sr, c >> 2, (int8_t)~c);
      h = lk_mix(h, (uint32_t)(uint8_t)ss | (uint32_t)(uint8_t)sm << 8 | (uint32_t)(sq & 0xFFFF) << 16);
    }
  }
  /* increments that wrap in memory */
  uint8_t cnt = 250;
  int8_t sc = 120;
  for (int i = 0; i < 10; i++) {
    cnt++;
    sc = (int8_t)(uint8_t)((uint8_t)sc + 1u);
    lk_printf("%u/%d ", cnt, sc);
  }
  lk_printf("\n");
  /* promotion: unsigned char compares as int */
  uint8_t big = 200;
  int8_t neg = -56;
  lk_printf("promo %d %d %d\n", big > neg, (uint8_t)neg == big, big + neg);
  lk_printf("hash %08x\n", h);
  return (int)(h & 0x7f);
}
