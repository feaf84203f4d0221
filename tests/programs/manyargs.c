/* Calling convention stress: more arguments than the four argument registers
 * (r6, r7, r18, r19), 64-bit arguments split across registers and the stack, narrow
 * (char/short) arguments and returns that must be extended, and 64-bit returns in
 * rv:r9. */
#include "lk_io.h"

static int32_t ten(int32_t a, int32_t b, int32_t c, int32_t d, int32_t e, int32_t f, int32_t g, int32_t h, int32_t i, int32_t j) {
  return a * 1 + b * 2 + c * 3 + d * 4 + e * 5 + f * 6 + g * 7 + h * 8 + i * 9 + j * 10;
}
static int64_t mix64(int32_t a, int64_t b, int32_t c, int64_t d, int64_t e, int8_t f, uint16_t g) {
  return a + b * 3 + c - d + (e >> 4) + f + g;
}
static uint64_t three64(uint64_t a, uint64_t b, uint64_t c) { return (a ^ (b << 1)) + (c >> 1); }
static int8_t narrow_s(int8_t a, int8_t b) { return (int8_t)(uint8_t)(a + b); }
static uint8_t narrow_u(uint8_t a, uint8_t b) { return (uint8_t)(a * b); }
static int16_t narrow_h(int16_t a) { return (int16_t)(uint16_t)(a * 3u); }
static __attribute__((noinline)) int32_t deep(int depth, int32_t a, int32_t b, int32_t c, int32_t d, int32_t e, int32_t f) {
  if (depth == 0) return a + b + c + d + e + f;
  return deep(depth - 1, b, c, d, e, f, a + 1) + depth;
}

int main(void) {
  lk_printf("ten %d\n", ten(1, -2, 3, -4, 5, -6, 7, -8, 9, -10));
  lk_printf("mix64 %lld\n", mix64(-5, 10000000000ll, 7, -123456789012ll, -16000, -100, 65535));
  lk_printf("three64 %llx\n", three64(0xF0F0F0F0F0F0F0F0ull, 0x0123456789ABCDEFull, 0xFFFFFFFFFFFFFFFFull));
  int32_t acc = 0;
  for (int i = -130; i < 130; i += 13) {
    int8_t s = narrow_s((int8_t)(i / 2), (int8_t)(i / 3));
    uint8_t u = narrow_u((uint8_t)(i & 0xFF), 7);
    int16_t h = narrow_h((int16_t)(i * 200));
    acc += s + u + h;
    lk_printf("%d:%d/%u/%d ", i, s, u, h);
  }
  lk_printf("\nacc %d deep %d\n", acc, deep(20, 1, 2, 3, 4, 5, 6));
  return (int)(acc & 0x7f);
}
