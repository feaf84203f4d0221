/* Runtime unit test for memcpy, memmove, memset, memcmp (firmware/lib/mem*.c) and the
 * string functions: every destination and source alignment 0..3, every length 0..33,
 * overlapping moves in both directions with every distance 1..9, guard bytes around
 * every destination, and memcmp/strcmp signs on bytes >= 0x80. The expected results
 * come from byte-at-a-time reference loops through volatile pointers (which the
 * compiler cannot turn back into calls). Prints mismatches and a checksum. */
#include "lk_io.h"

#define BUF 80
static uint8_t src[BUF], dst[BUF], ref[BUF];
static int fails, cases;

static void fill(uint8_t *p, uint8_t seed) {
  for (int i = 0; i < BUF; i++) p[i] = (uint8_t)(seed + i * 13);
}
static int same(const uint8_t *a, const uint8_t *b) {
  const volatile uint8_t *x = a, *y = b;
  for (int i = 0; i < BUF; i++)
    if (x[i] != y[i]) return 0;
  return 1;
}
static void ref_copy(uint8_t *d, const uint8_t *s, int n) { /* memmove semantics */
  volatile uint8_t tmp[BUF];
  for (int i = 0; i < n; i++) tmp[i] = s[i];
  volatile uint8_t *vd = d;
  for (int i = 0; i < n; i++) vd[i] = tmp[i];
}

int main(void) {
  uint32_t h = LK_FNV_INIT;
  /* memcpy: all alignments and lengths */
  for (int da = 0; da < 4; da++)
    for (int sa = 0; sa < 4; sa++)
      for (int n = 0; n <= 33; n++) {
        fill(src, 1);
        fill(dst, 77);
        fill(ref, 77);
        void *r = memcpy(dst + 8 + da, src + 8 + sa, (size_t)n);
        ref_copy(ref + 8 + da, src + 8 + sa, n);
        cases++;
        if (!same(dst, ref) || r != dst + 8 + da) { fails++; lk_printf("memcpy da=%d sa=%d n=%d\n", da, sa, n); }
      }
  h = lk_fnv(h, dst, BUF);
  /* memset: all alignments and lengths, values incl. >= 0x80 and ints wider than a byte */
  for (int da = 0; da < 4; da++)
    for (int n = 0; n <= 33; n++) {
      int val = n % 3 == 0 ? 0 : n % 3 == 1 ? 0xA5 : 0x1234; /* only the low byte counts */
      fill(dst, 5);
      fill(ref, 5);
      void *r = memset(dst + 8 + da, val, (size_t)n);
      volatile uint8_t *vr = ref;
      for (int i = 0; i < n; i++) vr[8 + da + i] = (uint8_t)val;
      cases++;
      if (!same(dst, ref) || r != dst + 8 + da) { fails++; lk_printf("memset da=%d n=%d\n", da, n); }
    }
  h = lk_fnv(h, dst, BUF);
  /* memmove: overlapping both ways, every distance 1..9, alignments, lengths */
  for (int dist = 1; dist <= 9; dist++)
    for (int a = 0; a < 4; a++)
      for (int n = 0; n <= 33; n += 1 + (n > 12)) {
        for (int dir = 0; dir < 2; dir++) {
          fill(dst, 9);
          fill(ref, 9);
          int s = 20 + a, d = dir ? s + dist : s - dist;
          memmove(dst + d, dst + s, (size_t)n);
          ref_copy(ref + d, ref + s, n);
          cases++;
          if (!same(dst, ref)) { fails++; lk_printf("memmove dist=%d a=%d n=%d dir=%d\n", dist, a, n, dir); }
        }
      }
  h = lk_fnv(h, dst, BUF);
  /* memcmp: sign of the first difference, bytes compared unsigned */
  static const struct { const char *a, *b; int n, sign; } mc[] = {
      {"abc", "abc", 3, 0}, {"abc", "abd", 3, -1}, {"abd", "abc", 3, 1}, {"\x80", "\x7f", 1, 1}, {"\x7f", "\x80", 1, -1},
      {"\xff\x00", "\xff\x01", 2, -1}, {"xyz", "abc", 0, 0}, {"same prefix!", "same prefix?", 11, 0}, {"same prefix!", "same prefix?", 12, -1}};
  for (unsigned i = 0; i < sizeof mc / sizeof mc[0]; i++) {
    int r = memcmp(mc[i].a, mc[i].b, (size_t)mc[i].n);
    int sign = (r > 0) - (r < 0);
    cases++;
    lk_printf("memcmp %u: %d\n", i, sign);
    if (sign != mc[i].sign) { fails++; lk_printf("memcmp case %u sign %d\n", i, sign); }
  }
  /* memcmp at every alignment, difference at every position */
  for (int a = 0; a < 4; a++)
    for (int n = 1; n <= 20; n++)
      for (int pos = 0; pos < n; pos++) {
        fill(src, 3);
        fill(dst, 3);
        dst[a + pos] = (uint8_t)(src[a + pos] + 0x80);
        int r = memcmp(src + a, dst + a, (size_t)n);
        int want = src[a + pos] < dst[a + pos] ? -1 : 1;
        cases++;
        if ((r > 0) - (r < 0) != want || memcmp(src + a, dst + a, (size_t)pos) != 0) { fails++; lk_printf("memcmp a=%d n=%d pos=%d\n", a, n, pos); }
      }
  /* string functions */
  char buf[40];
  strcpy(buf, "runtime");
  strcat(buf, "-strings");
  cases += 5;
  if (strlen(buf) != 15) { fails++; lk_printf("strlen %u\n", (unsigned)strlen(buf)); }
  if (strcmp(buf, "runtime-strings") != 0) fails++;
  if (strcmp("a\x90", "a\x10") <= 0) { fails++; lk_printf("strcmp unsigned\n"); }
  if (strncmp("abcX", "abcY", 3) != 0 || strncmp("abcX", "abcY", 4) >= 0) fails++;
  if (strchr(buf, '-') != buf + 7 || strrchr(buf, 's') != buf + 14 || strchr(buf, 'Q') != 0) fails++;
  lk_printf("%s %u\n", buf, (unsigned)strlen(buf));
  lk_printf("runtime_mem: %d cases, %d failed, checksum %08x\n", cases, fails, h);
  return fails > 100 ? 100 : fails;
}
