/* Switch statements: Lanai's backend only forms a jump table for 100 or more cases
 * (LanaiISelLowering sets the minimum), so `op128` has 128 dense cases and becomes
 * an indirect branch through a .rodata table; smaller switches become compare trees
 * or lookup tables. */
#include "lk_io.h"

#define C4(n, e) case n: r = (e); break; case n + 1: r = (e) + 1; break; case n + 2: r = (e) ^ 3; break; case n + 3: r = (e) * 3; break;
#define C16(n, e) C4(n, e) C4(n + 4, (e) + x) C4(n + 8, (e) - x) C4(n + 12, (e) ^ x)
static uint32_t op128(int sel, uint32_t x) {
  uint32_t r;
  switch (sel) {
    C16(0, x + 1)
    C16(16, x << 1)
    C16(32, x >> 1)
    C16(48, x * 7u)
    C16(64, ~x)
    C16(80, x ^ 0x5A5A5A5Au)
    C16(96, x + 0x1000u)
    C16(112, (x << 4) | (x >> 28))
  default:
    r = 0xDEADu;
    break;
  }
  return r;
}

/* a second dense table with returns and fallthrough */
static int weekday_len(unsigned d) {
  switch (d % 7) {
  case 0: return 6;  /* sunday */
  case 1: return 6;
  case 2: return 7;
  case 3: return 9;
  case 4: return 8;
  case 5: return 6;
  default: return 8;
  }
}

static const char *name(int k) {
  switch (k) {
  case 1: return "one";
  case 2: return "two";
  case 3:
  case 4: return "three-or-four";
  case 10: return "ten";
  case 100: return "hundred";
  case -1: return "minus-one";
  case 1000000: return "million";
  default: return "other";
  }
}

/* sparse switch: binary search tree of compares */
static int sparse(uint32_t v) {
  switch (v) {
  case 3: return 1;
  case 17: return 2;
  case 255: return 3;
  case 4096: return 4;
  case 65537: return 5;
  case 0x80000000u: return 6;
  case 0xFFFFFFFFu: return 7;
  }
  return 0;
}

int main(void) {
  uint32_t h = LK_FNV_INIT;
  for (int sel = -2; sel < 131; sel++) {
    uint32_t r = op128(sel, 0x01234567u + (uint32_t)sel);
    h = lk_mix(h, r);
    lk_printf("%08x%c", r, (sel + 3) % 8 == 0 ? '\n' : ' ');
  }
  lk_printf("\n");
  for (unsigned d = 0; d < 14; d++) lk_printf("%d", weekday_len(d));
  lk_printf("\n");
  int ks[] = {0, 1, 2, 3, 4, 5, 10, 100, -1, 1000000, 99};
  for (int i = 0; i < 11; i++) lk_printf("%s ", name(ks[i]));
  lk_printf("\n");
  uint32_t vs[] = {0, 3, 17, 18, 255, 4096, 65537, 0x80000000u, 0xFFFFFFFFu, 12};
  for (int i = 0; i < 10; i++) lk_printf("%d", sparse(vs[i]));
  lk_printf("\nhash %08x\n", h);
  return (int)(h & 0x7f);
}
