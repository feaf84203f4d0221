/* 64-bit division: __udivmoddi4, __udivdi3, __umoddi3, __divdi3, __moddi3.
 * Same C semantics as the 32-bit helpers (truncation toward zero, remainder with the
 * dividend's sign; x/0 gives quotient all ones, for the signed helper too, and remainder
 * x). Uses only 64-bit add, sub, compare and logical shifts, which clang expands inline
 * on Lanai. Early exits: both operands below 2^32 (the 32-bit core in div32.s), a
 * dividend below the divisor, a power-of-two divisor. */
#include "rt.h"

static int clz64(du_int x) { /* x != 0 */
  su_int hi = RT_HI(x);
  return hi ? __builtin_clz(hi) : 32 + __builtin_clz(RT_LO(x));
}

/* Inlined into each entry point, so that __udivdi3 (rem = 0) loses the remainder's
 * stores and tests and no entry pays a second call. */
static inline __attribute__((always_inline)) du_int udivmod64(du_int n, du_int d, du_int *rem) {
  du_int r;
  if (d == 0) {
    if (rem)
      *rem = n;
    return ~(du_int)0;
  }
  if (RT_HI(n) == 0 && RT_HI(d) == 0) { /* the common 32-bit case */
    su_int r32;
    su_int q32 = __lanaikit_udivmodsi4(RT_LO(n), RT_LO(d), &r32);
    if (rem)
      *rem = r32;
    return q32;
  }
  if (n < d) {
    if (rem)
      *rem = n;
    return 0;
  }
  if ((d & (d - 1)) == 0) { /* a power of two: a shift and a mask */
    int k = RT_LO(d) ? __builtin_ctz(RT_LO(d)) : 32 + __builtin_ctz(RT_HI(d));
    if (rem)
      *rem = n & (d - 1);
    return n >> k;
  }
  int shift = clz64(d) - clz64(n);
  du_int q = 0;
  d <<= shift;
  r = n;
  for (;;) {
    q <<= 1;
    if (r >= d) {
      r -= d;
      q |= 1;
    }
    if (shift-- == 0)
      break;
    d >>= 1;
  }
  if (rem)
    *rem = r;
  return q;
}

du_int __udivmoddi4(du_int n, du_int d, du_int *rem) { return udivmod64(n, d, rem); }

du_int __udivdi3(du_int n, du_int d) { return udivmod64(n, d, 0); }

du_int __umoddi3(du_int n, du_int d) {
  du_int r;
  udivmod64(n, d, &r);
  return r;
}

di_int __divdi3(di_int a, di_int b) {
  if (b == 0) /* all ones whatever the dividend's sign (the sign fix-up below would not) */
    return -1;
  du_int ua = a < 0 ? 0 - (du_int)a : (du_int)a;
  du_int ub = b < 0 ? 0 - (du_int)b : (du_int)b;
  du_int q = udivmod64(ua, ub, 0);
  return (di_int)(((a < 0) != (b < 0)) ? 0 - q : q);
}

di_int __moddi3(di_int a, di_int b) {
  du_int ua = a < 0 ? 0 - (du_int)a : (du_int)a;
  du_int ub = b < 0 ? 0 - (du_int)b : (du_int)b;
  du_int r;
  udivmod64(ua, ub, &r);
  return (di_int)(a < 0 ? 0 - r : r);
}
