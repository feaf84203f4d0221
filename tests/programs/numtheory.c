/* Number theory with 64-bit math: gcd/lcm, extended Euclid, modular exponentiation
 * with 64-bit products (mod < 2^32), deterministic Miller-Rabin for 32-bit values,
 * Collatz sequence lengths, and integer factorisation by trial division. */
#include "lk_io.h"

static uint64_t gcd(uint64_t a, uint64_t b) { while (b) { uint64_t t = a % b; a = b; b = t; } return a; }
static int64_t egcd(int64_t a, int64_t b, int64_t *x, int64_t *y) {
  if (b == 0) { *x = 1; *y = 0; return a; }
  int64_t x1, y1, g = egcd(b, a % b, &x1, &y1);
  *x = y1;
  *y = x1 - (a / b) * y1;
  return g;
}
static uint32_t powmod(uint32_t b, uint32_t e, uint32_t m) {
  uint64_t r = 1 % m, x = b % m;
  while (e) {
    if (e & 1) r = r * x % m;
    x = x * x % m;
    e >>= 1;
  }
  return (uint32_t)r;
}
static int is_prime(uint32_t n) {
  if (n < 2) return 0;
  static const uint32_t small[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37};
  for (int i = 0; i < 12; i++) if (n % small[i] == 0) return n == small[i];
  uint32_t d = n - 1;
  int s = 0;
  while (!(d & 1)) { d >>= 1; s++; }
  static const uint32_t bases[] = {2, 7, 61};
  for (int i = 0; i < 3; i++) {
    uint64_t x = powmod(bases[i], d, n);
    if (x == 1 || x == n - 1) continue;
    int comp = 1;
    for (int r = 1; r < s; r++) {
      x = x * x % n;
      if (x == n - 1) { comp = 0; break; }
    }
    if (comp) return 0;
  }
  return 1;
}
static uint32_t collatz_len(uint64_t n) {
  uint32_t len = 1;
  while (n != 1) { n = n & 1 ? 3 * n + 1 : n >> 1; len++; }
  return len;
}

int main(void) {
  lk_printf("gcd %llu lcm %llu\n", gcd(1071ull * 1000003, 462ull * 1000003), 1071ull * 462 / gcd(1071, 462));
  int64_t x, y;
  int64_t g = egcd(240, 46, &x, &y);
  lk_printf("egcd(240,46)=%lld x=%lld y=%lld\n", g, x, y);
  g = egcd(1000000007, 998244353, &x, &y);
  lk_printf("egcd=%lld x=%lld y=%lld check=%lld\n", g, x, y, 1000000007ll * x + 998244353ll * y);
  lk_printf("powmod %u %u %u\n", powmod(2, 1000000, 1000000007u), powmod(3, 0xFFFFFFFFu, 0xFFFFFFFBu), powmod(7, 0, 1));
  uint32_t cands[] = {1, 2, 97, 561, 7919, 65537, 2147483647u, 4294967291u, 4294967295u, 3215031751u, 1000000007u};
  for (int i = 0; i < 11; i++) lk_printf("%u:%d ", cands[i], is_prime(cands[i]));
  lk_printf("\n");
  uint32_t best = 0, arg = 0;
  for (uint32_t n = 1; n < 3000; n++) {
    uint32_t l = collatz_len(n);
    if (l > best) { best = l; arg = n; }
  }
  lk_printf("collatz longest below 3000: %u (len %u), 2^40+1 len %u\n", arg, best, collatz_len((1ull << 40) + 1));
  uint64_t v = 600851475143ull;
  lk_printf("factors of %llu:", v);
  for (uint64_t f = 2; f * f <= v; f++)
    while (v % f == 0) { lk_printf(" %llu", f); v /= f; }
  if (v > 1) lk_printf(" %llu", v);
  lk_printf("\n");
  return (int)(best & 0x7f);
}
