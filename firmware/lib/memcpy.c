/* memcpy: word copies when source and destination share their alignment, bytes
 * otherwise. clang emits calls to memcpy for struct copies and large initialisers. */
#include "rt.h"

void *memcpy(void *restrict dst, const void *restrict src, rt_size_t n) {
  unsigned char *d = (unsigned char *)dst;
  const unsigned char *s = (const unsigned char *)src;
  if ((((su_int)(rt_size_t)d ^ (su_int)(rt_size_t)s) & 3u) == 0) {
    while (n && ((su_int)(rt_size_t)d & 3u)) {
      *d++ = *s++;
      n--;
    }
    su_int *dw = (su_int *)d;
    const su_int *sw = (const su_int *)s;
    while (n >= 16) {
      su_int a = sw[0], b = sw[1], c = sw[2], e = sw[3];
      dw[0] = a;
      dw[1] = b;
      dw[2] = c;
      dw[3] = e;
      dw += 4;
      sw += 4;
      n -= 16;
    }
    while (n >= 4) {
      *dw++ = *sw++;
      n -= 4;
    }
    d = (unsigned char *)dw;
    s = (const unsigned char *)sw;
  }
  while (n) {
    *d++ = *s++;
    n--;
  }
  return dst;
}
