/* 16-bit arithmetic: signed and unsigned, wrap, promotion pitfalls made explicit,
 * arrays of shorts (half-word loads/stores, sign and zero extension). */
#include "lk_io.h"

static uint16_t uarr[8] = {0, 1, 255, 256, 32767, 32768, 40000, 65535};
static int16_t sarr[8] = {0, 1, -1, 32767, -32768, -300, 12345, -12345};

int main(void) {
  uint32_t h = LK_FNV_INIT;
  for (int i = 0; i < 8; i++) {
    for (int j = 0; j < 8; j += 3) {
      uint16_t a = uarr[i], b = uarr[j];
      uint16_t s = (uint16_t)(a + b), d = (uint16_t)(a - b);
      uint16_t m = (uint16_t)((uint32_t)a * b); /* avoid int overflow of the promoted product */
      uint16_t q = b ? (uint16_t)(a / b) : 0xFFFF, r = b ? (uint16_t)(a % b) : 0;
      lk_printf("u16 %5u %5u: %5u %5u %5u %5u %5u %04x\n", a, b, s, d, m, q, r, (uint16_t)(a << 3));
      h = lk_mix(h, (uint32_t)s << 16 | m);
      int16_t c = sarr[i], e = sarr[j];
      int32_t wide = (int32_t)c * e;
      int16_t ss = (int16_t)(uint16_t)((uint32_t)(uint16_t)c + (uint16_t)e);
      int16_t sm = (int16_t)(uint16_t)(uint32_t)wide;
      lk_printf("s16 %6d %6d: %6d %11d %6d %6d %6d\n", c, e, ss, wide, sm, e ? c / e : 0, e ? c % e : 0);
      h = lk_mix(h, (uint32_t)wide);
    }
  }
  /* shorts in memory: extend on load */
  int32_t sum = 0;
  uint32_t usum = 0;
  for (int i = 0; i < 8; i++) {
    sum += sarr[i];
    usum += uarr[i];
    sarr[i] = (int16_t)(uint16_t)(sarr[i] * 3u);
    uarr[i] = (uint16_t)(uarr[i] * 3u);
  }
  lk_printf("sum %d usum %u\n", sum, usum);
  for (int i = 0; i < 8; i++) lk_printf("%d/%u ", sarr[i], uarr[i]);
  lk_printf("\nhash %08x\n", h);
  return (int)(h % 100);
}
