/* Runtime unit test for the bit helpers and 64-bit compares: on Lanai clang uses
 * popc/leadz/trailz instructions for the builtins, so the libgcc-named helpers in
 * firmware/lib/bitops.c and cmp64.c are called explicitly here (natively the test
 * links equivalent local definitions). Expected values are literals. */
#include "lk_io.h"

#ifdef __lanai__
int __popcountsi2(uint32_t);
int __popcountdi2(uint64_t);
int __clzsi2(uint32_t);
int __clzdi2(uint64_t);
int __ctzsi2(uint32_t);
int __ctzdi2(uint64_t);
int __paritysi2(uint32_t);
int __ffssi2(uint32_t);
uint32_t __bswapsi2(uint32_t);
uint64_t __bswapdi2(uint64_t);
int __cmpdi2(int64_t, int64_t);
int __ucmpdi2(uint64_t, uint64_t);
#define POP32 __popcountsi2
#define POP64 __popcountdi2
#define CLZ32 __clzsi2
#define CLZ64 __clzdi2
#define CTZ32 __ctzsi2
#define CTZ64 __ctzdi2
#define PAR32 __paritysi2
#define FFS32 __ffssi2
#define BSW32 __bswapsi2
#define BSW64 __bswapdi2
#define CMP64 __cmpdi2
#define UCMP64 __ucmpdi2
#else
#define POP32 __builtin_popcount
#define POP64 __builtin_popcountll
#define CLZ32 __builtin_clz
#define CLZ64 __builtin_clzll
#define CTZ32 __builtin_ctz
#define CTZ64 __builtin_ctzll
#define PAR32 __builtin_parity
#define FFS32(x) __builtin_ffs((int)(x))
#define BSW32 __builtin_bswap32
#define BSW64 __builtin_bswap64
static int CMP64(int64_t a, int64_t b) { return a < b ? 0 : a > b ? 2 : 1; }
static int UCMP64(uint64_t a, uint64_t b) { return a < b ? 0 : a > b ? 2 : 1; }
#endif

static volatile const struct { uint32_t x; int pop, clz, ctz, par, ffs; uint32_t bswap; } T32[] = {
    {0x00000001u, 1, 31, 0, 1, 1, 0x01000000u}, {0x80000000u, 1, 0, 31, 1, 32, 0x00000080u},
    {0xFFFFFFFFu, 32, 0, 0, 0, 1, 0xFFFFFFFFu}, {0x12345678u, 13, 3, 3, 1, 4, 0x78563412u},
    {0x00F0F000u, 8, 8, 12, 0, 13, 0x00F0F000u}, {0x7FFFFFFFu, 31, 1, 0, 1, 1, 0xFFFFFF7Fu},
    {0x00010000u, 1, 15, 16, 1, 17, 0x00000100u}, {0xDEADBEEFu, 24, 0, 0, 0, 1, 0xEFBEADDEu},
    {0x00000006u, 2, 29, 1, 0, 2, 0x06000000u},
};
static volatile const struct { uint64_t x; int pop, clz, ctz; uint64_t bswap; } T64[] = {
    {0x1ull, 1, 63, 0, 0x0100000000000000ull}, {0x8000000000000000ull, 1, 0, 63, 0x80ull},
    {0x0000000100000000ull, 1, 31, 32, 0x0000000001000000ull}, {0x00000000FFFFFFFFull, 32, 32, 0, 0xFFFFFFFF00000000ull},
    {0x0123456789ABCDEFull, 32, 7, 0, 0xEFCDAB8967452301ull}, {0xFFFFFFFFFFFFFFFFull, 64, 0, 0, 0xFFFFFFFFFFFFFFFFull},
    {0x0000100000000000ull, 1, 19, 44, 0x0000000000100000ull},
};
static volatile const struct { int64_t a, b; int s, u; } TC[] = {
    {0, 0, 1, 1}, {-1, 0, 0, 2}, {0, -1, 2, 0}, {INT64_MIN, INT64_MAX, 0, 2}, {0x100000000ll, 0xFFFFFFFFll, 2, 2},
    {-0x100000000ll, -0xFFFFFFFFll, 0, 0}, {5, 5, 1, 1}, {0x7FFFFFFF00000000ll, 0x7FFFFFFF00000001ll, 0, 0},
};

int main(void) {
  int cases = 0, fails = 0;
  uint32_t h = LK_FNV_INIT;
  for (unsigned i = 0; i < sizeof T32 / sizeof T32[0]; i++) {
    uint32_t x = T32[i].x;
    int pop = POP32(x), clz = CLZ32(x), ctz = CTZ32(x), par = PAR32(x), ffs = FFS32(x);
    uint32_t bs = BSW32(x);
    /* and the instruction-backed builtins, which must agree */
    int bpop = __builtin_popcount(x), bclz = __builtin_clz(x), bctz = __builtin_ctz(x);
    lk_printf("%08x: %d %d %d %d %d %08x\n", x, pop, clz, ctz, par, ffs, bs);
    h = lk_mix(h, (uint32_t)(pop | clz << 6 | ctz << 12 | par << 18 | ffs << 20) ^ bs);
    cases++;
    if (pop != T32[i].pop || clz != T32[i].clz || ctz != T32[i].ctz || par != T32[i].par || ffs != T32[i].ffs || bs != T32[i].bswap ||
        bpop != pop || bclz != clz || bctz != ctz) { fails++; lk_printf("  FAIL\n"); }
  }
  for (unsigned i = 0; i < sizeof T64 / sizeof T64[0]; i++) {
    uint64_t x = T64[i].x;
    int pop = POP64(x), clz = CLZ64(x), ctz = CTZ64(x);
    uint64_t bs = BSW64(x);
    lk_printf("%016llx: %d %d %d %016llx\n", x, pop, clz, ctz, bs);
    h = lk_mix(h, (uint32_t)(pop | clz << 8 | ctz << 16) ^ (uint32_t)bs);
    cases++;
    if (pop != T64[i].pop || clz != T64[i].clz || ctz != T64[i].ctz || bs != T64[i].bswap ||
        __builtin_popcountll(x) != pop || __builtin_clzll(x) != clz || __builtin_ctzll(x) != ctz) { fails++; lk_printf("  FAIL\n"); }
  }
  for (unsigned i = 0; i < sizeof TC / sizeof TC[0]; i++) {
    int64_t a = TC[i].a, b = TC[i].b;
    int s = CMP64(a, b), u = UCMP64((uint64_t)a, (uint64_t)b);
    lk_printf("cmp %lld %lld: %d %d\n", a, b, s, u);
    cases++;
    if (s != TC[i].s || u != TC[i].u) { fails++; lk_printf("  FAIL\n"); }
  }
  lk_printf("runtime_bits: %d cases, %d failed, checksum %08x\n", cases, fails, h);
  return fails;
}
