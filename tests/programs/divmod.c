/* Division and modulo: truncation toward zero with negative operands at 8/16/32/64
 * bits, division by powers of two (shift sequences with rounding fixups), division by
 * other constants (which clang may strength-reduce or call helpers for), and variable
 * divisors through the runtime helpers. */
#include "lk_io.h"

static volatile int32_t N[] = {0, 1, -1, 7, -7, 8, -8, 100, -100, 12345, -12345, INT32_MAX, INT32_MIN, INT32_MIN + 1};
static volatile int32_t D[] = {1, -1, 2, -2, 3, -3, 4, 7, -7, 8, 16, -16, 1024, 65536, 1000000, INT32_MAX, INT32_MIN};

int main(void) {
  uint32_t h = LK_FNV_INIT;
  int nn = sizeof N / sizeof N[0], nd = sizeof D / sizeof D[0];
  for (int i = 0; i < nn; i++) {
    int32_t a = N[i];
    lk_printf("%d: /2 %d %%2 %d /4 %d %%4 %d /8 %d %%8 %d /16 %d %%16 %d /3 %d %%3 %d /10 %d %%10 %d /7 %d %%7 %d\n", a,
              a / 2, a % 2, a / 4, a % 4, a / 8, a % 8, a / 16, a % 16, a / 3, a % 3, a / 10, a % 10, a / 7, a % 7);
    uint32_t u = (uint32_t)a;
    lk_printf("  u: /2 %u %%2 %u /8 %u %%8 %u /3 %u /10 %u %%10 %u /1000 %u\n", u / 2, u % 2, u / 8, u % 8, u / 3,
              u / 10, u % 10, u / 1000);
    for (int j = 0; j < nd; j++) {
      int32_t b = D[j];
      if (a == INT32_MIN && b == -1)
        continue; /* overflow: undefined */
      int32_t q = a / b, r = a % b;
      uint32_t uq = (uint32_t)a / (uint32_t)b, ur = (uint32_t)a % (uint32_t)b;
      if (q * b + r != a) lk_printf("BAD identity %d %d\n", a, b);
      h = lk_mix(lk_mix(lk_mix(lk_mix(h, (uint32_t)q), (uint32_t)r), uq), ur);
    }
  }
  /* 64-bit signed division with negatives */
  int64_t big[] = {-1000000000000ll, 999999999999ll, -7, 7, INT64_MIN + 1, INT64_MAX};
  int64_t dv[] = {-3, 3, 1000000007ll, -4294967296ll, 2, -2};
  for (int i = 0; i < 6; i++)
    for (int j = 0; j < 6; j++)
      lk_printf("%lld / %lld = %lld r %lld\n", big[i], dv[j], big[i] / dv[j], big[i] % dv[j]);
  for (int i = 0; i < 6; i++)
    lk_printf("%lld: /2 %lld /16 %lld %%16 %lld /10 %lld\n", big[i], big[i] / 2, big[i] / 16, big[i] % 16, big[i] / 10);
  /* narrow types: promoted to int, so INT8_MIN / -1 is defined */
  int8_t c8[] = {-128, -127, -1, 0, 1, 127};
  int16_t c16[] = {-32768, -3, 3, 32767};
  for (int i = 0; i < 6; i++)
    for (int j = 0; j < 4; j++)
      if (c16[j] % 128) lk_printf("%d/%d=%d %d%%%d=%d  ", c8[i], (int8_t)c16[j], c8[i] / (int8_t)c16[j], c8[i], (int8_t)c16[j], c8[i] % (int8_t)c16[j]);
  lk_printf("\n%d %d\n", (int8_t)-128 / (int8_t)-1, (int16_t)-32768 / (int16_t)-1);
  lk_printf("hash %08x\n", h);
  return (int)(h & 0x7f);
}
