/* Sieve of Eratosthenes on a byte array and on a bit array, prime counting,
 * twin primes and the largest prime gap below the limit. */
#include "lk_io.h"

#define N 30000
static uint8_t composite[N + 1];
static uint32_t bits[(N >> 5) + 1];

int main(void) {
  for (uint32_t i = 2; i * i <= N; i++)
    if (!composite[i])
      for (uint32_t j = i * i; j <= N; j += i) composite[j] = 1;
  uint32_t count = 0, twins = 0, last = 0, gap = 0, gap_at = 0;
  for (uint32_t i = 2; i <= N; i++) {
    if (composite[i]) continue;
    count++;
    if (last && i - last == 2) twins++;
    if (last && i - last > gap) { gap = i - last; gap_at = last; }
    last = i;
  }
  lk_printf("primes<=%d: %u twins %u largest %u gap %u after %u\n", N, count, twins, last, gap, gap_at);
  /* bit sieve over odd numbers only */
  for (uint32_t i = 3; i * i <= N; i += 2)
    if (!(bits[i >> 5] >> (i & 31) & 1))
      for (uint32_t j = i * i; j <= N; j += 2 * i) bits[j >> 5] |= 1u << (j & 31);
  uint32_t c2 = 1;
  for (uint32_t i = 3; i <= N; i += 2) c2 += !(bits[i >> 5] >> (i & 31) & 1);
  lk_printf("bit sieve %u\n", c2);
  for (uint32_t i = 2, k = 0; k < 25; i++)
    if (!composite[i]) { lk_printf("%u ", i); k++; }
  lk_printf("\n");
  return (int)(count & 0x7f);
}
