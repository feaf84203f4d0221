/* cq.h -- output and pseudo-random data for the code-quality kernels (the C side).
 * cq.fw is the same thing in the firmware language; both print "<kernel> <hex8>\n" so
 * run.py can check that the C and .fw versions compute the same result. */
#ifndef CQ_H
#define CQ_H
#include <stdint.h>

static inline void cq_putc(uint32_t c) { *(volatile uint32_t *)0xFFFFF000u = c; }

static inline void cq_puts(const char *s) {
  while (*s) cq_putc((uint8_t)*s++);
}

static inline void cq_hex(uint32_t v) {
  for (int32_t i = 28; i >= 0; i -= 4) {
    uint32_t d = (v >> i) & 15;
    if (d < 10) cq_putc(d + '0');
    else cq_putc(d - 10 + 'a');
  }
}

static inline void cq_result(const char *name, uint32_t v) {
  cq_puts(name);
  cq_putc(' ');
  cq_hex(v);
  cq_putc('\n');
}

static inline uint32_t cq_rand(uint32_t *s) { /* xorshift32 */
  uint32_t x = *s;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  *s = x;
  return x;
}

static inline uint32_t cq_rotl(uint32_t x, uint32_t n) { return (x << n) | (x >> (32 - n)); }
#endif
