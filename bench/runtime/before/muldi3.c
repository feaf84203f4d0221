/* __muldi3: 64-bit multiply (low 64 bits of the product; signed and unsigned agree).
 * Built from 32x32->64 partial products computed by shift-and-add on 32-bit halves,
 * so nothing here calls __mulsi3 or itself. */
#include "rt.h"

/* Full 64-bit product of two 32-bit values. */
static du_int mul32x32(su_int a, su_int b) {
  if (a < b) {
    su_int t = a;
    a = b;
    b = t;
  }
  su_int lo = 0, hi = 0;
  su_int ahi = 0; /* a shifted left, as a 64-bit (ahi:a) pair */
  while (b) {
    if (b & 1u) {
      su_int nlo = lo + a;
      hi += ahi + (nlo < lo);
      lo = nlo;
    }
    ahi = (ahi << 1) | (a >> 31);
    a <<= 1;
    b >>= 1;
  }
  return RT_MAKE(hi, lo);
}

/* low 32 bits of a 32x32 product */
static su_int mul32lo(su_int a, su_int b) {
  if (a < b) {
    su_int t = a;
    a = b;
    b = t;
  }
  su_int r = 0;
  while (b) {
    r += a & (0u - (b & 1u));
    a <<= 1;
    b >>= 1;
  }
  return r;
}

di_int __muldi3(di_int a, di_int b) {
  su_int alo = RT_LO(a), ahi = RT_HI(a), blo = RT_LO(b), bhi = RT_HI(b);
  du_int p = mul32x32(alo, blo);
  su_int hi = RT_HI(p) + mul32lo(alo, bhi) + mul32lo(ahi, blo);
  return (di_int)RT_MAKE(hi, RT_LO(p));
}
