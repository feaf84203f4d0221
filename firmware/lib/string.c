/* The usual <string.h> string functions, for programs that declare and call them
 * (clang does not emit calls to these by itself in freestanding mode). */
#include "rt.h"

rt_size_t strlen(const char *s) {
  const char *p = s;
  while (*p)
    p++;
  return (rt_size_t)(p - s);
}

rt_size_t strnlen(const char *s, rt_size_t max) {
  rt_size_t n = 0;
  while (n < max && s[n])
    n++;
  return n;
}

int strcmp(const char *a, const char *b) {
  const unsigned char *p = (const unsigned char *)a, *q = (const unsigned char *)b;
  while (*p && *p == *q) {
    p++;
    q++;
  }
  return (int)*p - (int)*q;
}

int strncmp(const char *a, const char *b, rt_size_t n) {
  const unsigned char *p = (const unsigned char *)a, *q = (const unsigned char *)b;
  for (; n; n--, p++, q++) {
    if (*p != *q)
      return (int)*p - (int)*q;
    if (!*p)
      return 0;
  }
  return 0;
}

char *strcpy(char *restrict d, const char *restrict s) {
  char *r = d;
  while ((*d++ = *s++) != 0) {
  }
  return r;
}

char *strncpy(char *restrict d, const char *restrict s, rt_size_t n) {
  char *r = d;
  while (n && *s) {
    *d++ = *s++;
    n--;
  }
  while (n) {
    *d++ = 0;
    n--;
  }
  return r;
}

char *strcat(char *restrict d, const char *restrict s) {
  char *r = d;
  while (*d)
    d++;
  while ((*d++ = *s++) != 0) {
  }
  return r;
}

char *strchr(const char *s, int c) {
  char ch = (char)c;
  for (;; s++) {
    if (*s == ch)
      return (char *)s;
    if (!*s)
      return 0;
  }
}

char *strrchr(const char *s, int c) {
  char ch = (char)c;
  const char *last = 0;
  for (;; s++) {
    if (*s == ch)
      last = s;
    if (!*s)
      return (char *)last;
  }
}

void *memchr(const void *s, int c, rt_size_t n) {
  const unsigned char *p = (const unsigned char *)s;
  unsigned char ch = (unsigned char)c;
  for (; n; n--, p++)
    if (*p == ch)
      return (void *)p;
  return 0;
}
