/* Differential test of the runtime's multiply and divide helpers (__mulsi3, __udivsi3,
 * __umodsi3, __divsi3, __modsi3, __muldi3, __udivdi3, __umoddi3, __divdi3, __moddi3):
 * operands from a fixed pseudo-random sequence, drawn from the classes the helpers'
 * early exits distinguish (0, 1, -1, INT_MIN, INT_MAX, powers of two and their
 * neighbours, all ones, 1..32-bit and 1..64-bit magnitudes with random signs). The
 * native build computes the same operations with the host's hardware, so run_corpus.py's
 * comparison of the outputs is the check. Division by zero and MIN / -1 (undefined in C)
 * are skipped. Prints per-operation checksums and the first results verbatim. */
#include "lk_io.h"

static uint32_t s = 0x2545F491u;
static uint32_t rnd(void) { /* xorshift32 */
  s ^= s << 13;
  s ^= s >> 17;
  s ^= s << 5;
  return s;
}

static uint64_t rnd64(void) { /* two calls, sequenced (the order of operands is not) */
  uint64_t hi = rnd();
  return hi << 32 | rnd();
}

static uint32_t operand32(void) {
  uint32_t k = rnd() & 31;
  switch (rnd() % 12) {
  case 0: return 0;
  case 1: return 1;
  case 2: return 0xFFFFFFFFu;
  case 3: return 0x80000000u;
  case 4: return 0x7FFFFFFFu;
  case 5: return 1u << k;
  case 6: return (1u << k) - 1;
  case 7: return (1u << k) + 1;
  case 8: return (uint32_t) - (int32_t)(rnd() >> k);
  default: return rnd() >> k; /* 1..32 significant bits */
  }
}

static uint64_t operand64(void) {
  uint32_t k = rnd() & 63;
  switch (rnd() % 12) {
  case 0: return 0;
  case 1: return 1;
  case 2: return ~0ull;
  case 3: return 1ull << 63;
  case 4: return (1ull << k) - 1;
  case 5: return 1ull << k;
  case 6: return operand32();
  case 7: return (uint64_t)(int64_t)(int32_t)operand32();
  case 8: /* clang-14 -O1+ compiles `0 - (x >> k)` on 64 bits with a conditional
           * `or.f.ne` whose flags the next instruction reads, also when k == 0 and the
           * condition fails (docs/vm.md: a predicated-off RR op sets Z/N from the kept Rd) */
    return 0 - (rnd64() >> k);
  default: return rnd64() >> k;
  }
}

#define ROUNDS 1500

int main(void) {
  uint32_t h[10];
  for (int i = 0; i < 10; i++) h[i] = LK_FNV_INIT;
  for (int i = 0; i < ROUNDS; i++) {
    uint32_t a = operand32(), b = operand32();
    int32_t sa = (int32_t)a, sb = (int32_t)b;
    h[0] = lk_mix(h[0], a * b);
    if (b != 0) {
      h[1] = lk_mix(h[1], a / b);
      h[2] = lk_mix(h[2], a % b);
      if (!(sa == INT32_MIN && sb == -1)) {
        h[3] = lk_mix(h[3], (uint32_t)(sa / sb));
        h[4] = lk_mix(h[4], (uint32_t)(sa % sb));
      }
    }
    uint64_t x = operand64(), y = operand64();
    int64_t sx = (int64_t)x, sy = (int64_t)y;
    uint64_t p = x * y;
    h[5] = lk_mix(lk_mix(h[5], (uint32_t)p), (uint32_t)(p >> 32));
    if (y != 0) {
      uint64_t q = x / y, r = x % y;
      h[6] = lk_mix(lk_mix(h[6], (uint32_t)q), (uint32_t)(q >> 32));
      h[7] = lk_mix(lk_mix(h[7], (uint32_t)r), (uint32_t)(r >> 32));
      if (!(sx == INT64_MIN && sy == -1)) {
        int64_t sq = sx / sy, sr = sx % sy;
        h[8] = lk_mix(lk_mix(h[8], (uint32_t)sq), (uint32_t)((uint64_t)sq >> 32));
        h[9] = lk_mix(lk_mix(h[9], (uint32_t)sr), (uint32_t)((uint64_t)sr >> 32));
      }
    }
    if (i < 12)
      lk_printf("%08x %08x: %08x %08x %08x %d %d | %llx %llx: %llx\n", a, b, a * b, b ? a / b : 0,
                b ? a % b : 0, (b && !(sa == INT32_MIN && sb == -1)) ? sa / sb : 0,
                (b && !(sa == INT32_MIN && sb == -1)) ? sa % sb : 0, x, y, p);
  }
  static const char *const names[10] = {"mul32", "udiv32", "umod32", "sdiv32", "smod32",
                                         "mul64", "udiv64", "umod64", "sdiv64", "smod64"};
  for (int i = 0; i < 10; i++) lk_printf("%s %08x\n", names[i], h[i]);
  return 0;
}
