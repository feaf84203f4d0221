/* memcpy/memmove/memset/memcmp used the way programs use them: buffer shifting,
 * overlapping moves both ways, clearing structs, comparing records, a ring buffer,
 * and implicit calls clang emits for large struct copies and array initialisers. */
#include "lk_io.h"

static void dump(const char *tag, const uint8_t *p, int n) {
  lk_printf("%s:", tag);
  for (int i = 0; i < n; i++) lk_printf(" %02x", p[i]);
  lk_printf("\n");
}

struct blob { uint32_t words[16]; uint8_t bytes[13]; };

int main(void) {
  uint8_t b[40];
  for (int i = 0; i < 40; i++) b[i] = (uint8_t)i;
  memmove(b + 3, b, 20); /* overlap, dst above src */
  dump("fwd", b, 26);
  for (int i = 0; i < 40; i++) b[i] = (uint8_t)i;
  memmove(b, b + 5, 30); /* overlap, dst below src */
  dump("bwd", b, 32);
  memset(b + 1, 0xAB, 9);
  memset(b + 10, 0, 0);
  dump("set", b, 12);
  uint8_t c[40];
  memcpy(c, b, 40);
  lk_printf("cmp %d", memcmp(b, c, 40) == 0);
  c[17]++;
  lk_printf(" %d %d %d\n", memcmp(b, c, 40) < 0, memcmp(c, b, 40) > 0, memcmp(b, c, 17) == 0);
  struct blob x, y;
  memset(&x, 0, sizeof x);
  for (int i = 0; i < 16; i++) x.words[i] = 0x01010101u * (uint32_t)i;
  for (int i = 0; i < 13; i++) x.bytes[i] = (uint8_t)(200 + i);
  y = x; /* implicit memcpy */
  y.bytes[12] = 0;
  lk_printf("blob %u %u %u %d\n", y.words[15], y.bytes[11], y.bytes[12], memcmp(&x, &y, sizeof x.words) == 0);
  /* ring buffer with wrap-around copies */
  uint8_t ring[16];
  memset(ring, '.', sizeof ring);
  unsigned head = 0;
  const char *msg = "abcdefghijklmnopqrstuvwxyz0123456789";
  for (int chunk = 0; chunk < 6; chunk++) {
    unsigned len = 5 + (unsigned)chunk;
    const char *src = msg + chunk * 5;
    unsigned first = len < 16 - head ? len : 16 - head;
    memcpy(ring + head, src, first);
    memcpy(ring, src + first, len - first);
    head = (head + len) % 16;
    lk_printf("ring %u: ", head);
    for (int i = 0; i < 16; i++) lk_putc(ring[i]);
    lk_putc('\n');
  }
  int32_t init[32] = {1, 2, 3, [20] = 20, [31] = -1}; /* mostly-zero initialiser */
  int32_t s = 0;
  for (int i = 0; i < 32; i++) s += init[i] * (i + 1);
  lk_printf("init %d\n", s);
  return (int)(s & 0x7f);
}
