/* Fixed-point Mandelbrot set rendered as ASCII (Q12 arithmetic: many multiplies
 * through __mulsi3, signed arithmetic shifts), plus an integer square root and a
 * fixed-point sine table by the CORDIC-free Bhaskara approximation. */
#include "lk_io.h"

#define FRAC 12
#define ONE (1 << FRAC)

static int iterate(int32_t cr, int32_t ci) {
  int32_t zr = 0, zi = 0;
  for (int n = 0; n < 40; n++) {
    int32_t zr2 = (zr * zr) >> FRAC, zi2 = (zi * zi) >> FRAC;
    if (zr2 + zi2 > 4 * ONE) return n;
    int32_t t = zr2 - zi2 + cr;
    zi = ((zr * zi) >> (FRAC - 1)) + ci;
    zr = t;
  }
  return 40;
}

static uint32_t isqrt(uint32_t x) {
  uint32_t r = 0, bit = 1u << 30;
  while (bit > x) bit >>= 2;
  while (bit) {
    if (x >= r + bit) { x -= r + bit; r = (r >> 1) + bit; }
    else r >>= 1;
    bit >>= 2;
  }
  return r;
}

int main(void) {
  static const char shades[] = " .:-=+*#%@";
  uint32_t h = LK_FNV_INIT;
  for (int y = -12; y <= 12; y++) {
    for (int x = -39; x <= 20; x++) {
      int n = iterate(x * ONE / 20, y * ONE / 10);
      h = lk_mix(h, (uint32_t)n);
      lk_putc(shades[n >= 40 ? 9 : n % 9]);
    }
    lk_putc('\n');
  }
  lk_printf("hash %08x\n", h);
  uint32_t vals[] = {0, 1, 2, 3, 4, 15, 16, 17, 1000000, 0xFFFFFFFFu, 0x7FFFFFFFu};
  for (int i = 0; i < 11; i++) lk_printf("isqrt(%u)=%u ", vals[i], isqrt(vals[i]));
  lk_printf("\n");
  /* Bhaskara I sine approximation in degrees, scaled by 1000 */
  for (int32_t d = 0; d <= 180; d += 30) {
    int32_t s = 4000 * d * (180 - d) / (40500 - d * (180 - d));
    lk_printf("sin(%d)~%d ", d, s);
  }
  lk_printf("\n");
  return (int)(h & 0x7f);
}
