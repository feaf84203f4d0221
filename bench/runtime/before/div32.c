/* 32-bit division: __udivsi3, __umodsi3, __divsi3, __modsi3.
 * C semantics: quotients truncate toward zero; the remainder has the sign of the
 * dividend. Division by zero returns quotient 0xFFFFFFFF / remainder = dividend
 * (no trap; it is undefined behaviour in C anyway). INT_MIN / -1 wraps to INT_MIN. */
#include "rt.h"

su_int __lanaikit_udivmodsi4(su_int n, su_int d, su_int *rem) {
  if (d == 0) {
    *rem = n;
    return 0xFFFFFFFFu;
  }
  if (n < d) {
    *rem = n;
    return 0;
  }
  /* Align the divisor's top bit with the dividend's (leadz instruction), then do
   * one restoring-division step per bit of difference. */
  int shift = __builtin_clz(d) - __builtin_clz(n);
  su_int q = 0;
  d <<= shift;
  for (;;) {
    q <<= 1;
    if (n >= d) {
      n -= d;
      q |= 1;
    }
    if (shift-- == 0)
      break;
    d >>= 1;
  }
  *rem = n;
  return q;
}

su_int __udivsi3(su_int n, su_int d) {
  su_int r;
  return __lanaikit_udivmodsi4(n, d, &r);
}

su_int __umodsi3(su_int n, su_int d) {
  su_int r;
  __lanaikit_udivmodsi4(n, d, &r);
  return r;
}

si_int __divsi3(si_int a, si_int b) {
  su_int ua = a < 0 ? 0u - (su_int)a : (su_int)a;
  su_int ub = b < 0 ? 0u - (su_int)b : (su_int)b;
  su_int r;
  su_int q = __lanaikit_udivmodsi4(ua, ub, &r);
  return (si_int)(((a < 0) != (b < 0)) ? 0u - q : q);
}

si_int __modsi3(si_int a, si_int b) {
  su_int ua = a < 0 ? 0u - (su_int)a : (su_int)a;
  su_int ub = b < 0 ? 0u - (su_int)b : (su_int)b;
  su_int r;
  __lanaikit_udivmodsi4(ua, ub, &r);
  return (si_int)(a < 0 ? 0u - r : r);
}
