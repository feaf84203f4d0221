/* Multi-precision arithmetic on arrays of 32-bit limbs with 64-bit intermediates:
 * 50!, 2^200, Fibonacci(300), printed in decimal by repeated division by 10^9. */
#include "lk_io.h"

#define LIMBS 24
typedef struct { uint32_t d[LIMBS]; } big; /* little-endian limbs */

static void set_u32(big *a, uint32_t v) { for (int i = 0; i < LIMBS; i++) a->d[i] = 0; a->d[0] = v; }
static void mul_small(big *a, uint32_t m) {
  uint64_t carry = 0;
  for (int i = 0; i < LIMBS; i++) {
    uint64_t t = (uint64_t)a->d[i] * m + carry;
    a->d[i] = (uint32_t)t;
    carry = t >> 32;
  }
}
static void add(big *r, const big *a, const big *b) {
  uint64_t carry = 0;
  for (int i = 0; i < LIMBS; i++) {
    uint64_t t = (uint64_t)a->d[i] + b->d[i] + carry;
    r->d[i] = (uint32_t)t;
    carry = t >> 32;
  }
}
static uint32_t div_small(big *a, uint32_t d) { /* returns remainder */
  uint64_t rem = 0;
  for (int i = LIMBS - 1; i >= 0; i--) {
    uint64_t cur = rem << 32 | a->d[i];
    a->d[i] = (uint32_t)(cur / d);
    rem = cur % d;
  }
  return (uint32_t)rem;
}
static int is_zero(const big *a) { for (int i = 0; i < LIMBS; i++) if (a->d[i]) return 0; return 1; }
static void print_big(const char *tag, big a) {
  uint32_t parts[40];
  int n = 0;
  do parts[n++] = div_small(&a, 1000000000u); while (!is_zero(&a));
  lk_printf("%s = %u", tag, parts[n - 1]);
  for (int i = n - 2; i >= 0; i--) lk_printf("%09u", parts[i]);
  lk_printf("\n");
}

int main(void) {
  big f;
  set_u32(&f, 1);
  for (uint32_t i = 2; i <= 50; i++) mul_small(&f, i);
  print_big("50!", f);
  big p;
  set_u32(&p, 1);
  for (int i = 0; i < 200; i++) mul_small(&p, 2);
  print_big("2^200", p);
  big a, b, c;
  set_u32(&a, 0);
  set_u32(&b, 1);
  for (int i = 0; i < 300; i++) { add(&c, &a, &b); a = b; b = c; }
  print_big("fib(300)", a);
  uint32_t digitsum = 0;
  big t = f;
  while (!is_zero(&t)) digitsum += div_small(&t, 10);
  lk_printf("digit sum of 50! = %u\n", digitsum);
  return (int)(digitsum & 0x7f);
}
