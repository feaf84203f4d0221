/* Benchmark kernel: sieve of Eratosthenes over a 64 KiB byte array, ROUNDS times,
 * counting primes and summing them. Estimated cost at -O2 on Lanai: ~1 M
 * instructions per round (marking ~2.5*N stores plus a scan of N bytes) ->
 * ROUNDS=40 estimated ~40 M; measured ~65 M at -O2. */
#include "bench_io.h"

#ifndef ROUNDS
#define ROUNDS 40
#endif
#define LIMIT 65536

static uint8_t composite[LIMIT];

int main(void) {
  uint32_t count = 0, sum = 0;
  for (int r = 0; r < ROUNDS; r++) {
    for (uint32_t i = 0; i < LIMIT; i++) composite[i] = 0;
    for (uint32_t i = 2; i * i < LIMIT; i++)
      if (!composite[i])
        for (uint32_t j = i * i; j < LIMIT; j += i) composite[j] = 1;
    count = 0;
    for (uint32_t i = 2; i < LIMIT; i++)
      if (!composite[i]) {
        count++;
        sum += i;
      }
  }
  bench_result("sieve", count * 2654435761u ^ sum);
  return 0;
}
