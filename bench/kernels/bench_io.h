/* bench_io.h -- minimal output for the benchmark kernels (same on Lanai and natively).
 * Each kernel prints a line `<name> <checksum>` so the emulator's result can be
 * compared with a native run. On Lanai a byte goes to the MMIO word 0xFFFFF000. */
#ifndef BENCH_IO_H
#define BENCH_IO_H
#include <stdint.h>

#ifdef __lanai__
static inline void bench_putc(int c) { *(volatile unsigned int *)0xFFFFF000u = (unsigned int)(unsigned char)c; }
#else
#include <stdio.h>
static inline void bench_putc(int c) { putchar((unsigned char)c); }
#endif

static inline void bench_puts(const char *s) {
  while (*s) bench_putc(*s++);
}
static inline void bench_hex(uint32_t v) {
  for (int i = 28; i >= 0; i -= 4) bench_putc("0123456789abcdef"[(v >> i) & 15]);
}
/* prints "name checksum\n" */
static inline void bench_result(const char *name, uint32_t checksum) {
  bench_puts(name);
  bench_putc(' ');
  bench_hex(checksum);
  bench_putc('\n');
}
static inline uint32_t bench_rand(uint32_t *s) { /* xorshift32 */
  uint32_t x = *s;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return *s = x;
}
#endif
