/* String functions: the runtime's strlen/strcmp/strncmp/strcpy/strncpy/strcat/strchr/
 * strrchr/memchr (libc natively), plus hand-written tokenising, reversing, case
 * conversion and integer parsing. Comparison results are printed by sign only. */
#include "lk_io.h"

static int sgn(int v) { return (v > 0) - (v < 0); }

static void reverse(char *s) {
  size_t n = strlen(s);
  for (size_t i = 0; i < n / 2; i++) {
    char t = s[i];
    s[i] = s[n - 1 - i];
    s[n - 1 - i] = t;
  }
}

static int32_t parse_int(const char **sp) {
  const char *s = *sp;
  int neg = 0;
  int32_t v = 0;
  while (*s == ' ') s++;
  if (*s == '-' || *s == '+') neg = *s++ == '-';
  while (*s >= '0' && *s <= '9') v = v * 10 + (*s++ - '0');
  *sp = s;
  return neg ? -v : v;
}

static void upcase(char *s) {
  for (; *s; s++)
    if (*s >= 'a' && *s <= 'z') *s = (char)(*s - 'a' + 'A');
}

int main(void) {
  const char *words[] = {"", "a", "abc", "abd", "ab", "ABC", "abc\x80", "abc\x7f", "zebra", "hello, world"};
  int n = sizeof words / sizeof words[0];
  for (int i = 0; i < n; i++) {
    lk_printf("len(%s)=%u:", words[i], (unsigned)strlen(words[i]));
    for (int j = 0; j < n; j++) lk_printf(" %d", sgn(strcmp(words[i], words[j])));
    lk_printf(" | n2:");
    for (int j = 0; j < n; j++) lk_printf(" %d", sgn(strncmp(words[i], words[j], 2)));
    lk_printf("\n");
  }
  char buf[64];
  strcpy(buf, "lanai");
  strcat(buf, "kit");
  strcat(buf, " runs C");
  lk_printf("%s (%u)\n", buf, (unsigned)strlen(buf));
  reverse(buf);
  lk_printf("%s\n", buf);
  upcase(buf);
  lk_printf("%s\n", buf);
  char pad[10];
  memset(pad, 'x', sizeof pad);
  strncpy(pad, "ab", 6);
  for (int i = 0; i < 10; i++) lk_printf("%d ", pad[i]);
  lk_printf("\n");
  const char *hay = "the quick brown fox jumps over the lazy dog";
  const char *p = strchr(hay, 'q'), *q = strrchr(hay, 'o'), *z = strchr(hay, 'Z');
  const char *m = memchr(hay, 'j', strlen(hay));
  lk_printf("q@%d o@%d Z:%d j@%d nul@%d\n", (int)(p - hay), (int)(q - hay), z == 0, (int)(m - hay), (int)(strchr(hay, 0) - hay));
  const char *nums = " 12 -7 +300 2147483 -99999 0 42";
  int32_t sum = 0;
  for (int i = 0; i < 7; i++) {
    int32_t v = parse_int(&nums);
    lk_printf("%d ", v);
    sum += v;
  }
  lk_printf("= %d\n", sum);
  /* count words */
  int wc = 0, inw = 0;
  for (const char *s = hay; *s; s++) {
    if (*s == ' ') inw = 0;
    else if (!inw) { inw = 1; wc++; }
  }
  lk_printf("words %d\n", wc);
  return wc;
}
