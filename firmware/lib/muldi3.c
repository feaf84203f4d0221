/* __muldi3: 64-bit multiply (low 64 bits of the product; signed and unsigned agree).
 * Built from 32-bit products by __mulsi3 (mulsi3.s, whose cost is 11 + 4 instructions per
 * significant bit of its smaller operand): a 32x32->64 product from four 16x16 ones,
 * or one when both operands are below 2^16; cross terms skipped when a high word is
 * zero. Nothing here uses `*` (clang would call __muldi3 or __mulsi3 implicitly). */
#include "rt.h"

si_int __mulsi3(si_int a, si_int b);

static su_int mul(su_int a, su_int b) { return (su_int)__mulsi3((si_int)a, (si_int)b); }

/* Full 64-bit product of two 32-bit values. */
static du_int mul32x32(su_int a, su_int b) {
  if (((a | b) >> 16) == 0) /* the product fits 32 bits */
    return mul(a, b);
  su_int al = a & 0xFFFFu, ah = a >> 16, bl = b & 0xFFFFu, bh = b >> 16;
  /* a half-word factor of zero (one operand below 2^16) skips its products */
  su_int ll = mul(al, bl);
  su_int hh = ah && bh ? mul(ah, bh) : 0;
  su_int lh = bh ? mul(al, bh) : 0;
  su_int hl = ah ? mul(ah, bl) : 0;
  su_int mid = lh + hl;
  su_int mid_carry = mid < lh; /* the middle sum overflowed: 2^32 * 2^16 */
  su_int lo = ll + (mid << 16);
  su_int hi = hh + (mid >> 16) + (mid_carry << 16) + (lo < ll);
  return RT_MAKE(hi, lo);
}

di_int __muldi3(di_int a, di_int b) {
  su_int alo = RT_LO(a), ahi = RT_HI(a), blo = RT_LO(b), bhi = RT_HI(b);
  du_int p = mul32x32(alo, blo);
  su_int hi = RT_HI(p);
  if (bhi)
    hi += mul(alo, bhi);
  if (ahi)
    hi += mul(ahi, blo);
  return (di_int)RT_MAKE(hi, RT_LO(p));
}
