/* Control flow: for/while/do-while, break and continue in nested loops, goto for
 * early exit, loops counting down through zero with unsigned counters, and loops
 * the optimizer may unroll or vectorise-by-scalar. */
#include "lk_io.h"

int main(void) {
  uint32_t h = LK_FNV_INIT;
  int found_i = -1, found_j = -1;
  for (int i = 1; i < 50; i++) {
    for (int j = i; j < 50; j++) {
      if ((i * j) % 7 != 3) continue;
      if (i * i + j * j == 1025) { found_i = i; found_j = j; goto done; }
    }
  }
done:
  lk_printf("pair %d %d\n", found_i, found_j);
  unsigned n = 10, steps = 0;
  do { steps++; } while (n-- != 0);
  lk_printf("do-while steps %u n %u\n", steps, n);
  int32_t tri = 0;
  for (int i = 100; i > 0; i -= 3) tri += i;
  lk_printf("tri %d\n", tri);
  int primes = 0;
  for (int i = 2; i < 200; i++) {
    int j = 2;
    while (j * j <= i) { if (i % j == 0) break; j++; }
    if (j * j > i) primes++;
  }
  lk_printf("primes %d\n", primes);
  /* unsigned countdown to zero inclusive */
  uint8_t k = 5;
  for (;;) { lk_printf("%u ", k); h = lk_mix(h, k); if (k == 0) break; k--; }
  lk_printf("\n");
  /* array reduction loops */
  int32_t arr[100];
  for (int i = 0; i < 100; i++) arr[i] = (i * 37) % 101 - 50;
  int32_t sum = 0, mx = arr[0], pos = 0, prod = 1;
  for (int i = 0; i < 100; i++) {
    sum += arr[i];
    if (arr[i] > mx) mx = arr[i];
    pos += arr[i] > 0;
    if (i < 10) prod *= arr[i] == 0 ? 1 : arr[i] % 5 + 3;
  }
  lk_printf("sum %d max %d pos %d prod %d\n", sum, mx, pos, prod);
  /* while with complex condition and side effects */
  uint32_t a = 1071, b = 462;
  while (b != 0 && a != 0) { uint32_t t = a % b; a = b; b = t; }
  lk_printf("gcd %u\n", a);
  /* loop with a switch inside and labeled continue via flag */
  int counts[4] = {0, 0, 0, 0};
  for (int i = 0; i < 37; i++) {
    switch (i % 5) {
    case 0: counts[0]++; break;
    case 1: case 2: counts[1]++; continue;
    case 3: counts[2]++; /* fallthrough */
    default: counts[3]++;
    }
    h = lk_mix(h, (uint32_t)i);
  }
  lk_printf("counts %d %d %d %d hash %08x\n", counts[0], counts[1], counts[2], counts[3], h);
  return primes;
}
