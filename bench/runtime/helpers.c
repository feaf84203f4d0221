/* Driver for bench/runtime/run.py: N calls of one runtime helper on one operand class.
 *
 * Built with -DOP=<n> -DCLASS=<n> -DREPS=<r>. The operands are generated at run time
 * (a fixed xorshift sequence, so the compiler cannot fold anything and every build
 * sees the same operands); the measured loop is run REPS times. run.py builds REPS=1
 * and REPS=2 and takes the difference, which is exactly the cost of one pass of the
 * loop over the N pairs; subtracting the same difference for OP_NONE (the loop with
 * `a ^ b` (OP_NONE64: the 64-bit operands' xor) in place of the operation) leaves the cost of the calls themselves:
 * argument set-up, the call sequence and the helper, minus one xor. */
#include <stdint.h>

#define N 64

/* (macros, not an enum: OP is tested by #if) */
#define OP_NONE 0
#define OP_NONE64 1
#define OP_MUL32 2
#define OP_UDIV32 3
#define OP_UMOD32 4
#define OP_SDIV32 5
#define OP_SMOD32 6
#define OP_MUL64 7
#define OP_UDIV64 8
#define OP_SDIV64 9
enum { C_SMALL8, C_BY8, C_BY16, C_LARGE, C_LT, C_POW2, C_MIXED };

static uint32_t s = 0x9E3779B9u;
static uint32_t rnd(void) { /* xorshift32 */
  s ^= s << 13;
  s ^= s >> 17;
  s ^= s << 5;
  return s;
}

/* Aligned so that .bss starts and ends on a word boundary whatever the code size: crt0
 * clears unaligned head and tail bytes one at a time, which would make the startup cost
 * differ between the REPS=1 and REPS=2 builds. */
static uint64_t A[N] __attribute__((aligned(16))), B[N] __attribute__((aligned(16)));

static void operands(void) {
  for (int i = 0; i < N; i++) {
    uint64_t a = rnd(), b = rnd();
    uint64_t a64 = a << 32 | rnd(), b64 = b << 32 | rnd();
    switch (CLASS) {
    case C_SMALL8: a &= 0xFF; b &= 0xFF; a64 = a; b64 = b; break;   /* both < 2^8 */
    case C_BY8: b &= 0xFF; b64 &= 0xFF; a64 = a; break;             /* one < 2^8, other 32-bit */
    case C_BY16: b &= 0xFFFF; b64 &= 0xFFFF; a64 = a; break;        /* one < 2^16, other 32-bit */
    case C_LARGE: break;                                            /* full width */
    case C_LT: a &= 0xFFF; b |= 0x1000; a64 &= 0xFFF; b64 |= 0x1000; break; /* dividend < divisor */
    case C_POW2: b = 1u << (b & 31); b64 = 1ull << (b64 & 63); a64 = a; break; /* power-of-two divisor */
    case C_MIXED: /* magnitudes spread over 1..32 bits, random signs */
      a >>= rnd() & 31; b >>= rnd() & 31;
      if (rnd() & 1) a = (uint32_t)-(int32_t)a;
      if (rnd() & 1) b = (uint32_t)-(int32_t)b;
      a &= 0xFFFFFFFFu; b &= 0xFFFFFFFFu;
      a64 = (uint64_t)(int64_t)(int32_t)a; b64 = (uint64_t)(int64_t)(int32_t)b;
      break;
    }
    if (OP >= OP_UDIV32 && OP <= OP_SMOD32 && (uint32_t)b == 0) b = 1;
    if (OP >= OP_UDIV64 && b64 == 0) b64 = 1;
    if (OP >= OP_MUL64 || OP == OP_NONE64) { A[i] = a64; B[i] = b64; }
    else { A[i] = (uint32_t)a; B[i] = (uint32_t)b; }
  }
}

int main(void) {
  operands();
  uint32_t acc = 0;
  for (int r = 0; r < REPS; r++) {
    for (int i = 0; i < N; i++) {
#if OP == OP_NONE
      acc += (uint32_t)A[i] ^ (uint32_t)B[i];
#elif OP == OP_NONE64
      acc += (uint32_t)((A[i] ^ B[i]) >> 17);
#elif OP == OP_MUL32
      acc += (uint32_t)A[i] * (uint32_t)B[i];
#elif OP == OP_UDIV32
      acc += (uint32_t)A[i] / (uint32_t)B[i];
#elif OP == OP_UMOD32
      acc += (uint32_t)A[i] % (uint32_t)B[i];
#elif OP == OP_SDIV32
      acc += (uint32_t)((int32_t)A[i] / (int32_t)B[i]);
#elif OP == OP_SMOD32
      acc += (uint32_t)((int32_t)A[i] % (int32_t)B[i]);
#elif OP == OP_MUL64
      acc += (uint32_t)((A[i] * B[i]) >> 17);
#elif OP == OP_UDIV64
      acc += (uint32_t)(A[i] / B[i]);
#elif OP == OP_SDIV64
      acc += (uint32_t)((int64_t)A[i] / (int64_t)B[i]);
#endif
    }
  }
  return (int)(acc & 0x7F);
}
