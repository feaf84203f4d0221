/* The first job of any NIC control program: checksum a packet. Computes the Internet
 * checksum (RFC 1071) and CRC-32 of a generated 1500-byte frame, prints both and exits
 * with the low bits of the checksum so the status is checked too. The test
 * `example_checksum` runs it on the emulator and natively and compares. */
#include <stdint.h>

#ifdef __lanai__
/* The bare-program ABI: a 32-bit store to 0xFFFFF000 appends a byte to stdout. */
static void out_char(char c) { *(volatile uint32_t*)0xFFFFF000u = (uint8_t)c; }
#else
/* Built natively, the same program writes through stdio: tests compare the two. */
#include <stdio.h>
static void out_char(char c) { putchar(c); }
#endif
static void out_str(const char* s) { while (*s) out_char(*s++); }
static void out_hex(uint32_t v) {
  for (int i = 28; i >= 0; i -= 4) out_char("0123456789abcdef"[(v >> i) & 0xF]);
}

static uint8_t frame[1500];

static uint16_t inet_checksum(const uint8_t* p, uint32_t len) {
  uint32_t sum = 0;
  for (uint32_t i = 0; i + 1 < len; i += 2) sum += (uint32_t)(p[i] << 8 | p[i + 1]);
  if (len & 1) sum += (uint32_t)p[len - 1] << 8;
  while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
  return (uint16_t)~sum;
}

static uint32_t crc32(const uint8_t* p, uint32_t len) {
  uint32_t crc = 0xFFFFFFFFu;
  for (uint32_t i = 0; i < len; ++i) {
    crc ^= p[i];
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1)));
  }
  return ~crc;
}

int main(void) {
  uint32_t x = 12345;
  for (uint32_t i = 0; i < sizeof frame; ++i) {
    x = x * 1103515245u + 12345u;
    frame[i] = (uint8_t)(x >> 16);
  }
  const uint16_t sum = inet_checksum(frame, sizeof frame);
  const uint32_t crc = crc32(frame, sizeof frame);
  out_str("inet checksum 0x");
  out_hex(sum);
  out_str("\ncrc32         0x");
  out_hex(crc);
  out_str("\n");
  return sum & 0x7F;
}
