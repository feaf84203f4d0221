/* 64-bit shifts: __ashldi3, __lshrdi3, __ashrdi3 (shift amount 0..63; larger is UB in
 * C, treated here as amount & 63). clang-14 on Lanai inlines `<<` and unsigned `>>`
 * of 64-bit values but calls __ashrdi3 for signed `>>` by a variable amount; the
 * other two are provided for completeness. Written on 32-bit halves. */
#include "rt.h"

di_int __ashldi3(di_int a, int b) {
  su_int lo = RT_LO(a), hi = RT_HI(a);
  b &= 63;
  if (b == 0)
    return a;
  if (b >= 32)
    return (di_int)RT_MAKE(lo << (b - 32), 0);
  return (di_int)RT_MAKE((hi << b) | (lo >> (32 - b)), lo << b);
}

di_int __lshrdi3(di_int a, int b) {
  su_int lo = RT_LO(a), hi = RT_HI(a);
  b &= 63;
  if (b == 0)
    return a;
  if (b >= 32)
    return (di_int)RT_MAKE(0, hi >> (b - 32));
  return (di_int)RT_MAKE(hi >> b, (lo >> b) | (hi << (32 - b)));
}

di_int __ashrdi3(di_int a, int b) {
  su_int lo = RT_LO(a), hi = RT_HI(a);
  si_int shi = (si_int)hi; /* 32-bit arithmetic shifts are native (sha) */
  b &= 63;
  if (b == 0)
    return a;
  if (b >= 32)
    return (di_int)RT_MAKE((su_int)(shi >> 31), (su_int)(shi >> (b - 32)));
  return (di_int)RT_MAKE((su_int)(shi >> b), (lo >> b) | (hi << (32 - b)));
}
