/* 64-bit arithmetic: add/sub with carries, multiply (__muldi3), divide and modulo
 * signed and unsigned (__divdi3 & co), shifts by variable amounts (__ashrdi3 for
 * signed right shifts), mixing with 32-bit values. */
#include "lk_io.h"

static volatile uint64_t V[] = {0ull, 1ull, 2ull, 10ull, 0xFFFFFFFFull, 0x100000000ull, 0x123456789ABCDEFull,
                                0x7FFFFFFFFFFFFFFFull, 0x8000000000000000ull, 0xFFFFFFFFFFFFFFFFull, 1000000007ull,
                                0xFEDCBA9876543210ull};

int main(void) {
  uint64_t h = 1469598103934665603ull;
  int n = sizeof V / sizeof V[0];
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++) {
      uint64_t a = V[i], b = V[j];
      uint64_t add = a + b, sub = a - b, mul = a * b;
      uint64_t q = b ? a / b : 0, r = b ? a % b : 0;
      int64_t sa = (int64_t)a, sb = (int64_t)b;
      int64_t sq = 0, sr = 0;
      if (sb != 0 && !(sa == INT64_MIN && sb == -1)) {
        sq = sa / sb;
        sr = sa % sb;
      }
      h = (h ^ add) * 1099511628211ull;
      h = (h ^ sub) * 1099511628211ull;
      h = (h ^ mul) * 1099511628211ull;
      h = (h ^ q) * 1099511628211ull;
      h = (h ^ r) * 1099511628211ull;
      h = (h ^ (uint64_t)sq) * 1099511628211ull;
      h = (h ^ (uint64_t)sr) * 1099511628211ull;
      if ((i + j) % 5 == 0)
        lk_printf("%llx %llx: + %llx - %llx * %llx / %llu %% %llu s/ %lld s%% %lld\n", a, b, add, sub, mul, q, r, sq, sr);
    }
  }
  for (int s = 0; s < 64; s += 7) {
    uint64_t a = V[11];
    int64_t sa = (int64_t)V[11];
    lk_printf("sh %2d: %016llx %016llx %016llx\n", s, a << s, a >> s, (uint64_t)(sa >> s));
    h = (h ^ (a << s) ^ (uint64_t)(sa >> s)) * 1099511628211ull;
  }
  /* 32x32->64 widening multiplies */
  uint32_t x = 0xFFFFFFFFu, y = 0xFFFFFFFEu;
  int32_t sx = -123456789, sy = 987654321;
  lk_printf("wide %llu %lld\n", (uint64_t)x * y, (int64_t)sx * sy);
  /* a 64-bit accumulator loop */
  uint64_t fact = 1;
  for (uint64_t k = 1; k <= 20; k++) fact *= k;
  lk_printf("20! = %llu\n", fact);
  lk_printf("hash %016llx\n", h);
  return (int)(h >> 58);
}
