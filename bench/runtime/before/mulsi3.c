/* __mulsi3: 32-bit multiply (Lanai has no multiplier; clang calls this for every
 * non-constant `*` of 32 bits or less). Signed and unsigned products agree modulo 2^32.
 * Shift-and-add over the bits of the smaller operand, two bits per iteration. */
#include "rt.h"

si_int __mulsi3(si_int a, si_int b) {
  su_int x = (su_int)a, y = (su_int)b, r = 0;
  if (x < y) { /* iterate over the operand with fewer significant bits */
    su_int t = x;
    x = y;
    y = t;
  }
  while (y) {
    r += x & (0u - (y & 1u));
    r += (x << 1) & (0u - ((y >> 1) & 1u));
    x <<= 2;
    y >>= 2;
  }
  return (si_int)r;
}
