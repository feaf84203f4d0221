/* Varargs: on Lanai every argument of a variadic function, including the fixed
 * ones, is passed on the stack in 4-byte slots (64-bit values are NOT realigned to 8,
 * which clang's own va_arg gets wrong: see LK_VA_ARG_U64 in lk_io.h). Exercises
 * va_arg of mixed widths, va_copy, forwarding a va_list, and the lk_printf formatter
 * with widths and flags. */
#include "lk_io.h"

static int32_t sum_ints(int n, ...) {
  va_list ap;
  va_start(ap, n);
  int32_t s = 0;
  for (int i = 0; i < n; i++) s += va_arg(ap, int32_t);
  va_end(ap);
  return s;
}

/* format letters: i = int, L = int64, c = char (promoted), p = string */
static uint64_t mixed(const char *fmt, ...) {
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  uint64_t h = 0;
  for (const char *f = fmt; *f; f++) {
    switch (*f) {
    case 'i': h = h * 31 + (uint32_t)va_arg(ap, int); break;
    case 'L': h = h * 31 + LK_VA_ARG_U64(ap); break; /* see lk_io.h: not va_arg(ap, int64_t) */
    case 'c': h = h * 31 + (unsigned char)va_arg(ap, int); break;
    case 'p': { const char *s = va_arg(ap, const char *); while (*s) h = h * 31 + (unsigned char)*s++; break; }
    }
  }
  /* walk the copy again: only the first value */
  uint64_t first = 0;
  if (fmt[0] == 'i') first = (uint32_t)va_arg(ap2, int);
  else if (fmt[0] == 'L') first = LK_VA_ARG_U64(ap2);
  va_end(ap2);
  va_end(ap);
  return h ^ (first << 40);
}

static int logf_(const char *tag, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = lk_printf("[%s] ", tag);
  n += lk_vprintf(fmt, ap);
  va_end(ap);
  return n;
}

int main(void) {
  lk_printf("sum %d %d %d\n", sum_ints(0), sum_ints(3, 1, 2, 3), sum_ints(10, 1, -2, 3, -4, 5, -6, 7, -8, 9, -10));
  lk_printf("mixed %llx\n", mixed("iLcpiL", 7, (int64_t)-5, 'z', "hello", -1, (int64_t)0x123456789ll));
  lk_printf("mixed %llx\n", mixed("LLL", (int64_t)1, (int64_t)2, (int64_t)3));
  int n = logf_("info", "%d items, %s, %c%c, %lld\n", 42, "done", 'o', 'k', (int64_t)-9000000000ll);
  lk_printf("logged %d chars\n", n);
  /* formatter corner cases */
  lk_printf("[%5d][%-5d][%05d][%+d][% d][%x][%X][%08x][%o]\n", 42, 42, -42, 7, 7, 0xbeefu, 0xbeefu, 0xabcu, 8u);
  lk_printf("[%10s][%-10s][%.3s][%*d][%-*d][%%][%c]\n", "right", "left", "truncate", 6, 99, 6, 99, 'Q');
  lk_printf("[%hhd][%hhu][%hd][%hu][%lld][%llu][%llx]\n", 300, 300, 70000, 70000, INT64_MIN, UINT64_MAX, 0x1ull << 63);
  lk_printf("[%d][%u][%d]\n", INT32_MIN, UINT32_MAX, INT32_MAX);
  return n;
}
