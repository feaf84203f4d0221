/* Benchmark kernel: table-driven CRC-32 over a 16 KiB pseudo-random buffer, PASSES
 * times (each pass chains from the previous CRC). Estimated cost at -O2 on Lanai:
 * ~8 instructions per byte estimated; measured ~58 M instructions for PASSES=320. */
#include "bench_io.h"

#ifndef PASSES
#define PASSES 320
#endif
#define BUF_BYTES 16384

static uint8_t buf[BUF_BYTES];
static uint32_t table[256];

int main(void) {
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    table[i] = c;
  }
  uint32_t seed = 0x12345678u;
  for (int i = 0; i < BUF_BYTES; i++) buf[i] = (uint8_t)bench_rand(&seed);
  uint32_t crc = 0;
  for (int p = 0; p < PASSES; p++) {
    uint32_t c = ~crc;
    const uint8_t *q = buf, *end = buf + BUF_BYTES;
    while (q != end) c = table[(c ^ *q++) & 0xFFu] ^ (c >> 8);
    crc = ~c;
  }
  bench_result("crc32", crc);
  return 0;
}
