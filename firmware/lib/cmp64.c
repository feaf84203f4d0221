/* 64-bit three-way compares: return 0 if a < b, 1 if equal, 2 if a > b. */
#include "rt.h"

si_int __cmpdi2(di_int a, di_int b) {
  si_int ah = (si_int)RT_HI(a), bh = (si_int)RT_HI(b);
  su_int al = RT_LO(a), bl = RT_LO(b);
  if (ah < bh) return 0;
  if (ah > bh) return 2;
  if (al < bl) return 0;
  if (al > bl) return 2;
  return 1;
}

si_int __ucmpdi2(du_int a, du_int b) {
  su_int ah = RT_HI(a), bh = RT_HI(b), al = RT_LO(a), bl = RT_LO(b);
  if (ah < bh) return 0;
  if (ah > bh) return 2;
  if (al < bl) return 0;
  if (al > bl) return 2;
  return 1;
}
