/* memset: aligned word stores in the middle, bytes at the ends. */
#include "rt.h"

void *memset(void *dst, int c, rt_size_t n) {
  unsigned char *d = (unsigned char *)dst;
  unsigned char b = (unsigned char)c;
  while (n && ((su_int)(rt_size_t)d & 3u)) {
    *d++ = b;
    n--;
  }
  if (n >= 4) {
    su_int w = b;
    w |= w << 8;
    w |= w << 16;
    su_int *dw = (su_int *)d;
    while (n >= 16) {
      dw[0] = w;
      dw[1] = w;
      dw[2] = w;
      dw[3] = w;
      dw += 4;
      n -= 16;
    }
    while (n >= 4) {
      *dw++ = w;
      n -= 4;
    }
    d = (unsigned char *)dw;
  }
  while (n) {
    *d++ = b;
    n--;
  }
  return dst;
}
