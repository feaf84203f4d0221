/* memcmp (and bcmp): compares bytes as unsigned char; the result's sign is that of
 * the first differing byte pair's difference. */
#include "rt.h"

int memcmp(const void *a, const void *b, rt_size_t n) {
  const unsigned char *p = (const unsigned char *)a;
  const unsigned char *q = (const unsigned char *)b;
  while (n) {
    if (*p != *q)
      return (int)*p - (int)*q;
    p++;
    q++;
    n--;
  }
  return 0;
}

int bcmp(const void *a, const void *b, rt_size_t n) { return memcmp(a, b, n); }
