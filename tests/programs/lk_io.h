/* lk_io.h -- output for the lanaikit C test corpus, identical natively and on Lanai.
 *
 * On Lanai (__lanai__) a byte is written by a 32-bit store to the MMIO word 0xFFFFF000
 * (docs/abi.md); natively it goes through putchar. Everything else here (including
 * the printf-like formatter, which exercises varargs and 64-bit division on Lanai) is
 * plain C compiled the same way for both.
 *
 * Only freestanding headers are used: clang --target=lanai has no C library.
 * Supported conversions: %d %i %u %x %X %o %c %s %% with flags '-' '0' '+' ' ',
 * a width (or '*'), a precision for %s, and length modifiers hh h ll
 * (there is no 'l': long differs between the host and Lanai). */
#ifndef LK_IO_H
#define LK_IO_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __lanai__
static inline void lk_putc(int c) { *(volatile unsigned int *)0xFFFFF000u = (unsigned int)(unsigned char)c; }
/* Provided by the lanaikit runtime (firmware/lib/string.c, memcpy.c, ...). */
size_t strlen(const char *s);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strcpy(char *restrict d, const char *restrict s);
char *strncpy(char *restrict d, const char *restrict s, size_t n);
char *strcat(char *restrict d, const char *restrict s);
char *strchr(const char *s, int c);
char *strrchr(const char *s, int c);
void *memchr(const void *s, int c, size_t n);
void *memcpy(void *restrict d, const void *restrict s, size_t n);
void *memmove(void *d, const void *s, size_t n);
void *memset(void *d, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
#else
#include <stdio.h>
#include <string.h>
static inline void lk_putc(int c) { putchar((unsigned char)c); }
#endif

/* 64-bit variadic arguments. clang-14's Lanai backend passes every variadic argument
 * in 4-byte stack slots (CC_Lanai32_VarArg: CCAssignToStack<4, 4>), so a 64-bit value
 * may start at a slot that is only 4-byte aligned -- but clang's va_arg for a 64-bit
 * type first rounds the va_list pointer up to 8, reading the wrong words whenever the
 * value follows an odd number of words. On Lanai, read the two words (high word
 * first) one slot at a time instead, which matches what the caller stored. */
#ifdef __lanai__
#define LK_VA_ARG_U64(ap)                        \
  __extension__({                                \
    uint32_t lk_hi_ = va_arg(ap, uint32_t);      \
    uint32_t lk_lo_ = va_arg(ap, uint32_t);      \
    (uint64_t)lk_hi_ << 32 | lk_lo_;             \
  })
#else
#define LK_VA_ARG_U64(ap) va_arg(ap, uint64_t)
#endif
#define LK_VA_ARG_I64(ap) ((int64_t)LK_VA_ARG_U64(ap))

static inline void lk_puts(const char *s) { /* no newline added */
  while (*s)
    lk_putc(*s++);
}

/* Formats an unsigned 64-bit value in base 2..16 into buf (no terminator); returns length. */
static inline int lk_utoa(uint64_t v, unsigned base, int upper, char *buf) {
  const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  char tmp[66];
  int n = 0;
  do {
    tmp[n++] = digits[v % base];
    v /= base;
  } while (v);
  for (int i = 0; i < n; i++)
    buf[i] = tmp[n - 1 - i];
  return n;
}

static inline int lk_vprintf(const char *fmt, va_list ap) {
  int count = 0;
  for (; *fmt; fmt++) {
    if (*fmt != '%') {
      lk_putc(*fmt);
      count++;
      continue;
    }
    fmt++;
    int left = 0, zero = 0, plus = 0, space = 0, width = 0, prec = -1, len = 0;
    for (;; fmt++) {
      if (*fmt == '-') left = 1;
      else if (*fmt == '0') zero = 1;
      else if (*fmt == '+') plus = 1;
      else if (*fmt == ' ') space = 1;
      else break;
    }
    if (*fmt == '*') {
      width = va_arg(ap, int);
      if (width < 0) {
        left = 1;
        width = -width;
      }
      fmt++;
    } else {
      while (*fmt >= '0' && *fmt <= '9')
        width = width * 10 + (*fmt++ - '0');
    }
    if (*fmt == '.') {
      fmt++;
      prec = 0;
      while (*fmt >= '0' && *fmt <= '9')
        prec = prec * 10 + (*fmt++ - '0');
    }
    if (*fmt == 'h') {
      fmt++;
      len = -1;
      if (*fmt == 'h') {
        fmt++;
        len = -2;
      }
    } else if (*fmt == 'l' && fmt[1] == 'l') {
      fmt += 2;
      len = 2;
    }
    char buf[70];
    const char *body = buf;
    int blen = 0;
    char sign = 0;
    char conv = *fmt;
    if (conv == 0)
      break;
    switch (conv) {
    case 'd':
    case 'i': {
      int64_t v;
      if (len == 2) v = LK_VA_ARG_I64(ap);
      else v = va_arg(ap, int);
      if (len == -1) v = (int16_t)v;
      if (len == -2) v = (int8_t)v;
      uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
      if (v < 0) sign = '-';
      else if (plus) sign = '+';
      else if (space) sign = ' ';
      blen = lk_utoa(u, 10, 0, buf);
      break;
    }
    case 'u':
    case 'x':
    case 'X':
    case 'o': {
      uint64_t u;
      if (len == 2) u = LK_VA_ARG_U64(ap);
      else u = va_arg(ap, unsigned int);
      if (len == -1) u = (uint16_t)u;
      if (len == -2) u = (uint8_t)u;
      blen = lk_utoa(u, conv == 'u' ? 10 : conv == 'o' ? 8 : 16, conv == 'X', buf);
      break;
    }
    case 'c':
      buf[0] = (char)va_arg(ap, int);
      blen = 1;
      break;
    case 's': {
      const char *s = va_arg(ap, const char *);
      if (!s) s = "(null)";
      body = s;
      while (s[blen] && (prec < 0 || blen < prec))
        blen++;
      break;
    }
    default: /* includes %% */
      buf[0] = conv;
      blen = 1;
      break;
    }
    int total = blen + (sign ? 1 : 0);
    int pad = width > total ? width - total : 0;
    if (!left && !(zero && conv != 's' && conv != 'c'))
      for (; pad > 0; pad--, count++) lk_putc(' ');
    if (sign) {
      lk_putc(sign);
      count++;
    }
    if (!left)
      for (; pad > 0; pad--, count++) lk_putc('0');
    for (int i = 0; i < blen; i++, count++)
      lk_putc(body[i]);
    for (; pad > 0; pad--, count++) lk_putc(' ');
  }
  return count;
}

static inline int lk_printf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = lk_vprintf(fmt, ap);
  va_end(ap);
  return n;
}

/* FNV-1a over bytes: a checksum programs can print or fold into their exit status. */
static inline uint32_t lk_fnv(uint32_t h, const void *p, size_t n) {
  const unsigned char *b = (const unsigned char *)p;
  for (size_t i = 0; i < n; i++) {
    h ^= b[i];
    h *= 16777619u;
  }
  return h;
}
#define LK_FNV_INIT 2166136261u

/* Mixes a 32-bit value into a running checksum, independent of byte order. */
static inline uint32_t lk_mix(uint32_t h, uint32_t v) {
  for (int i = 0; i < 4; i++) {
    h ^= (v >> (8 * i)) & 0xFFu;
    h *= 16777619u;
  }
  return h;
}

/* A small deterministic generator (xorshift32) for test data. */
static inline uint32_t lk_rand(uint32_t *state) {
  uint32_t x = *state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return *state = x;
}

#endif
