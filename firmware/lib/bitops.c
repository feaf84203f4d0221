/* Bit-counting helpers. Lanai has popc, leadz and trailz instructions and clang-14
 * uses them for __builtin_popcount/clz/ctz, so these are only a safety net for code
 * (or other compilers) that call the libgcc names. Written without the builtins so
 * that they cannot resolve to themselves. Results for zero inputs follow libgcc:
 * undefined for clz/ctz (here: 32 / 64). */
#include "rt.h"

si_int __popcountsi2(su_int x) {
  x = x - ((x >> 1) & 0x55555555u);
  x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
  x = (x + (x >> 4)) & 0x0F0F0F0Fu;
  x += x >> 8;
  x += x >> 16;
  return (si_int)(x & 0x3Fu);
}

si_int __popcountdi2(du_int x) { return __popcountsi2(RT_HI(x)) + __popcountsi2(RT_LO(x)); }

si_int __paritysi2(su_int x) { return __popcountsi2(x) & 1; }

si_int __paritydi2(du_int x) { return __popcountsi2(RT_HI(x) ^ RT_LO(x)) & 1; }

si_int __clzsi2(su_int x) {
  si_int n = 0;
  if (x == 0) return 32;
  if ((x & 0xFFFF0000u) == 0) { n += 16; x <<= 16; }
  if ((x & 0xFF000000u) == 0) { n += 8; x <<= 8; }
  if ((x & 0xF0000000u) == 0) { n += 4; x <<= 4; }
  if ((x & 0xC0000000u) == 0) { n += 2; x <<= 2; }
  if ((x & 0x80000000u) == 0) { n += 1; }
  return n;
}

si_int __clzdi2(du_int x) {
  su_int hi = RT_HI(x);
  return hi ? __clzsi2(hi) : 32 + __clzsi2(RT_LO(x));
}

si_int __ctzsi2(su_int x) {
  si_int n = 0;
  if (x == 0) return 32;
  if ((x & 0x0000FFFFu) == 0) { n += 16; x >>= 16; }
  if ((x & 0x000000FFu) == 0) { n += 8; x >>= 8; }
  if ((x & 0x0000000Fu) == 0) { n += 4; x >>= 4; }
  if ((x & 0x00000003u) == 0) { n += 2; x >>= 2; }
  if ((x & 0x00000001u) == 0) { n += 1; }
  return n;
}

si_int __ctzdi2(du_int x) {
  su_int lo = RT_LO(x);
  return lo ? __ctzsi2(lo) : 32 + __ctzsi2(RT_HI(x));
}

si_int __ffssi2(su_int x) { return x ? __ctzsi2(x) + 1 : 0; }

si_int __ffsdi2(du_int x) { return x ? __ctzdi2(x) + 1 : 0; }

su_int __bswapsi2(su_int x) {
  return (x >> 24) | ((x >> 8) & 0xFF00u) | ((x << 8) & 0xFF0000u) | (x << 24);
}

du_int __bswapdi2(du_int x) { return RT_MAKE(__bswapsi2(RT_LO(x)), __bswapsi2(RT_HI(x))); }

/* 64-bit negation (libgcc name; clang inlines it, provided for completeness). */
di_int __negdi2(di_int a) { return (di_int)(0 - (du_int)a); }
