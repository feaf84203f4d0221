/* memmove: overlapping copies in either direction. Copies forward when dst is below
 * src and backward otherwise, by words when both pointers share their alignment. */
#include "rt.h"

void *memmove(void *dst, const void *src, rt_size_t n) {
  unsigned char *d = (unsigned char *)dst;
  const unsigned char *s = (const unsigned char *)src;
  int same_align = ((((su_int)(rt_size_t)d ^ (su_int)(rt_size_t)s) & 3u) == 0);
  if (d == s || n == 0)
    return dst;
  if (d < s) {
    if (same_align) {
      while (n && ((su_int)(rt_size_t)d & 3u)) {
        *d++ = *s++;
        n--;
      }
      su_int *dw = (su_int *)d;
      const su_int *sw = (const su_int *)s;
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
  } else {
    d += n;
    s += n;
    if (same_align) {
      while (n && ((su_int)(rt_size_t)d & 3u)) {
        *--d = *--s;
        n--;
      }
      su_int *dw = (su_int *)d;
      const su_int *sw = (const su_int *)s;
      while (n >= 4) {
        *--dw = *--sw;
        n -= 4;
      }
      d = (unsigned char *)dw;
      s = (const unsigned char *)sw;
    }
    while (n) {
      *--d = *--s;
      n--;
    }
  }
  return dst;
}
