/* Checksums: CRC-32 (bitwise and table-driven, reflected, poly 0xEDB88320),
 * CRC-16/CCITT (non-reflected), Adler-32 and Fletcher-16 over test vectors. */
#include "lk_io.h"

static uint32_t crc32_bitwise(const uint8_t *p, size_t n) {
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < n; i++) {
    c ^= p[i];
    for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
  }
  return ~c;
}

static uint32_t table[256];
static void crc32_init(void) {
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = c & 1 ? (c >> 1) ^ 0xEDB88320u : c >> 1;
    table[i] = c;
  }
}
static uint32_t crc32_table(const uint8_t *p, size_t n) {
  uint32_t c = 0xFFFFFFFFu;
  while (n--) c = table[(c ^ *p++) & 0xFF] ^ (c >> 8);
  return ~c;
}

static uint16_t crc16_ccitt(const uint8_t *p, size_t n) {
  uint16_t c = 0xFFFF;
  for (size_t i = 0; i < n; i++) {
    c ^= (uint16_t)(p[i] << 8);
    for (int k = 0; k < 8; k++) c = (c & 0x8000) ? (uint16_t)((c << 1) ^ 0x1021) : (uint16_t)(c << 1);
  }
  return c;
}

static uint32_t adler32(const uint8_t *p, size_t n) {
  uint32_t a = 1, b = 0;
  for (size_t i = 0; i < n; i++) {
    a = (a + p[i]) % 65521u;
    b = (b + a) % 65521u;
  }
  return b << 16 | a;
}

static uint16_t fletcher16(const uint8_t *p, size_t n) {
  uint16_t s1 = 0, s2 = 0;
  for (size_t i = 0; i < n; i++) {
    s1 = (uint16_t)((s1 + p[i]) % 255);
    s2 = (uint16_t)((s2 + s1) % 255);
  }
  return (uint16_t)(s2 << 8 | s1);
}

int main(void) {
  crc32_init();
  static const char *vec[] = {"", "a", "abc", "123456789", "The quick brown fox jumps over the lazy dog", "message digest"};
  for (int i = 0; i < 6; i++) {
    const uint8_t *p = (const uint8_t *)vec[i];
    size_t n = strlen(vec[i]);
    lk_printf("%-44s crc32 %08x/%08x crc16 %04x adler %08x fl16 %04x\n", vec[i], crc32_bitwise(p, n), crc32_table(p, n),
              crc16_ccitt(p, n), adler32(p, n), fletcher16(p, n));
  }
  static uint8_t buf[4096];
  uint32_t st = 1;
  for (int i = 0; i < 4096; i++) buf[i] = (uint8_t)lk_rand(&st);
  uint32_t c1 = crc32_bitwise(buf, sizeof buf), c2 = crc32_table(buf, sizeof buf);
  lk_printf("buf crc32 %08x %08x adler %08x\n", c1, c2, adler32(buf, sizeof buf));
  return (int)(c2 & 0x7f);
}
