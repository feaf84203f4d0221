/* 32-bit arithmetic: unsigned wraparound, signed operations kept defined, mixed
 * signed/unsigned, multiplication by constants and variables, negation, abs. */
#include "lk_io.h"

static volatile uint32_t U[] = {0u, 1u, 2u, 3u, 7u, 100u, 65535u, 65536u, 0x7FFFFFFFu, 0x80000000u, 0xDEADBEEFu, 0xFFFFFFFFu};
static volatile int32_t S[] = {0, 1, -1, 2, -2, 1000, -1000, 46340, -46341, INT32_MAX, INT32_MIN};

int main(void) {
  uint32_t h = LK_FNV_INIT;
  int nu = sizeof U / sizeof U[0], ns = sizeof S / sizeof S[0];
  for (int i = 0; i < nu; i++) {
    for (int j = 0; j < nu; j++) {
      uint32_t a = U[i], b = U[j];
      uint32_t r[6] = {a + b, a - b, a * b, b ? a / b : 0, b ? a % b : 0, a * 10u + b * 3u};
      for (int k = 0; k < 6; k++) h = lk_mix(h, r[k]);
      if (j % 4 == 0) lk_printf("u32 %x %x: %x %x %x %u %u %x\n", a, b, r[0], r[1], r[2], r[3], r[4], r[5]);
    }
  }
  for (int i = 0; i < ns; i++) {
    for (int j = 0; j < ns; j++) {
      int32_t a = S[i], b = S[j];
      int64_t sum = (int64_t)a + b, prod = (int64_t)a * b;
      int32_t q = (b == 0 || (a == INT32_MIN && b == -1)) ? 0 : a / b;
      int32_t m = (b == 0 || (a == INT32_MIN && b == -1)) ? 0 : a % b;
      int32_t wrap = (int32_t)((uint32_t)a * (uint32_t)b);
      h = lk_mix(h, (uint32_t)q);
      h = lk_mix(h, (uint32_t)m);
      h = lk_mix(h, (uint32_t)wrap);
      if (j % 3 == 0) lk_printf("s32 %d %d: %lld %lld %d %d %d\n", a, b, sum, prod, q, m, wrap);
    }
  }
  /* negation and abs, mixed comparisons */
  for (int i = 0; i < ns; i++) {
    int32_t a = S[i];
    uint32_t mag = a < 0 ? 0u - (uint32_t)a : (uint32_t)a;
    lk_printf("%d: mag %u neg %d not %d mixed %d\n", a, mag, a == INT32_MIN ? a : -a, ~a, (uint32_t)a > 5u);
  }
  /* constant multiplies (shift/add sequences) */
  uint32_t x = U[10];
  lk_printf("k %x %x %x %x %x %x\n", x * 3u, x * 5u, x * 7u, x * 100u, x * 0x10001u, x * 0xFFFFFFF0u);
  lk_printf("hash %08x\n", h);
  return (int)(h & 0x3f);
}
