/* Bit tricks: __builtin_popcount/clz/ctz (Lanai's popc/leadz/trailz instructions)
 * at 32 and 64 bits, bswap, parity, ffs, and the classic hand-written versions
 * (Kernighan popcount, de Bruijn ctz, next power of two, bit reversal) checked
 * against them. */
#include "lk_io.h"

static int pop_kernighan(uint32_t x) { int n = 0; while (x) { x &= x - 1; n++; } return n; }
static uint32_t next_pow2(uint32_t x) { x--; x |= x >> 1; x |= x >> 2; x |= x >> 4; x |= x >> 8; x |= x >> 16; return x + 1; }
static uint32_t rev32(uint32_t x) {
  x = (x >> 1 & 0x55555555u) | (x & 0x55555555u) << 1;
  x = (x >> 2 & 0x33333333u) | (x & 0x33333333u) << 2;
  x = (x >> 4 & 0x0F0F0F0Fu) | (x & 0x0F0F0F0Fu) << 4;
  x = (x >> 8 & 0x00FF00FFu) | (x & 0x00FF00FFu) << 8;
  return x >> 16 | x << 16;
}
static int ctz_debruijn(uint32_t x) {
  static const uint8_t tab[32] = {0, 1, 28, 2, 29, 14, 24, 3, 30, 22, 20, 15, 25, 17, 4, 8,
                                  31, 27, 13, 23, 21, 19, 16, 7, 26, 12, 18, 6, 11, 5, 10, 9};
  return tab[((x & (0u - x)) * 0x077CB531u) >> 27];
}

static volatile uint32_t V[] = {1u, 2u, 3u, 0x80000000u, 0xFFFFFFFFu, 0x12345678u, 0x00F0F000u, 0x7FFFFFFFu, 0x00010000u, 0xDEADBEEFu};

int main(void) {
  int bad = 0;
  for (unsigned i = 0; i < sizeof V / sizeof V[0]; i++) {
    uint32_t x = V[i];
    int pc = __builtin_popcount(x), lz = __builtin_clz(x), tz = __builtin_ctz(x);
    lk_printf("%08x pop %2d clz %2d ctz %2d ffs %2d par %d bswap %08x rev %08x np2 %08x\n", x, pc, lz, tz, __builtin_ffs((int)x),
              __builtin_parity(x), __builtin_bswap32(x), rev32(x), next_pow2(x));
    bad += pc != pop_kernighan(x);
    bad += tz != ctz_debruijn(x);
    uint64_t y = (uint64_t)x << 17 | 1ull << 63;
    uint64_t z = (uint64_t)x;
    lk_printf("  64: pop %d clz %d ctz %d | pop %d clz %d ctz %d bswap %016llx\n", __builtin_popcountll(y), __builtin_clzll(y),
              __builtin_ctzll(y), __builtin_popcountll(z), __builtin_clzll(z), __builtin_ctzll(z), __builtin_bswap64(y));
  }
  /* isolate / clear lowest set bit, sign tricks */
  int32_t vals[] = {12, -12, 1, -1, 0, 1000000};
  for (int i = 0; i < 6; i++) {
    int32_t v = vals[i];
    uint32_t u = (uint32_t)v;
    int32_t sign = -(int32_t)(u >> 31);
    uint32_t absv = (u ^ (uint32_t)sign) - (uint32_t)sign;
    lk_printf("%d: low %x clear %x abs %u pow2 %d\n", v, u & (0u - u), u & (u - 1), absv, u && !(u & (u - 1)));
  }
  lk_printf("bad %d\n", bad);
  return bad;
}
