/* Part-word memory: char and short arrays (byte/half-word loads and stores with
 * sign/zero extension), struct fields not aligned to words, packed structs whose
 * multi-byte fields are unaligned, and byte-wise assembly of big/little endian
 * values (explicit, so the result does not depend on the machine's byte order). */
#include "lk_io.h"

struct rec {
  uint8_t tag;
  int8_t delta;
  uint16_t len;
  uint8_t b[3];
  int16_t s; /* at offset 8 */
  uint8_t tail;
};

struct __attribute__((packed)) pk {
  uint8_t a;
  uint32_t w; /* offset 1: unaligned */
  uint16_t h; /* offset 5: unaligned */
  int64_t q;  /* offset 7 */
};

static uint32_t load_be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }
static uint32_t load_le32(const uint8_t *p) { return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0]; }
static void store_le16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }

int main(void) {
  int8_t sc[16];
  uint8_t uc[16];
  int16_t ss[16];
  uint16_t us[16];
  for (int i = 0; i < 16; i++) {
    sc[i] = (int8_t)(i * 37 - 200 + 256 * (i * 37 - 200 < -128));
    uc[i] = (uint8_t)(i * 37);
    ss[i] = (int16_t)(i * 4099 - 32768);
    us[i] = (uint16_t)(i * 4099u);
  }
  int32_t t = 0;
  for (int i = 0; i < 16; i++) {
    t += sc[i] + uc[i] + ss[i] + us[i];
    lk_printf("%d %u %d %u\n", sc[i], uc[i], ss[i], us[i]);
  }
  lk_printf("total %d\n", t);
  struct rec r[4];
  for (int i = 0; i < 4; i++) {
    r[i].tag = (uint8_t)(0xF0 + i);
    r[i].delta = (int8_t)(-i * 30);
    r[i].len = (uint16_t)(65535 - i);
    r[i].b[0] = 1; r[i].b[1] = (uint8_t)i; r[i].b[2] = 255;
    r[i].s = (int16_t)(-1000 * i);
    r[i].tail = (uint8_t)(i + 'a');
  }
  for (int i = 0; i < 4; i++)
    lk_printf("rec %x %d %u %u%u%u %d %c\n", r[i].tag, r[i].delta, r[i].len, r[i].b[0], r[i].b[1], r[i].b[2], r[i].s, r[i].tail);
  struct pk p[3];
  for (int i = 0; i < 3; i++) {
    p[i].a = (uint8_t)i;
    p[i].w = 0xA0B0C0D0u + (uint32_t)i;
    p[i].h = (uint16_t)(0x1234 * (i + 1));
    p[i].q = -((int64_t)1 << (40 + i));
  }
  for (int i = 0; i < 3; i++) {
    struct pk c = p[i];
    c.w ^= 0xFFFF;
    lk_printf("pk %u %x %x %lld\n", c.a, c.w, c.h, c.q);
  }
  uint8_t buf[11] = {0x12, 0x34, 0x56, 0x78, 0x9A, 0xBC, 0xDE, 0xF0, 0x11, 0x22, 0x33};
  for (int off = 0; off < 8; off++) lk_printf("be %08x le %08x\n", load_be32(buf + off), load_le32(buf + off));
  store_le16(buf + 3, 0xCAFE);
  for (int i = 0; i < 11; i++) lk_printf("%02x", buf[i]);
  lk_printf("\n");
  return (int)(t & 0x7f);
}
