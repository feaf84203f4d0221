/* Internet checksum (RFC 1071, 16-bit ones' complement) over a buffer of big-endian
 * 16-bit words, 2000 times with varying start and length. */
#include "cq.h"

#define WORDS 776
static uint16_t buf[WORDS];

static uint16_t csum(const uint16_t *p, uint32_t n) {
  uint32_t sum = 0;
  for (uint32_t i = 0; i < n; i++) sum += p[i];
  while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
  return (uint16_t)~sum;
}

int main(void) {
  uint32_t seed = 0x2545F491u;
  for (uint32_t i = 0; i < WORDS; i++) buf[i] = (uint16_t)cq_rand(&seed);
  uint32_t acc = 0;
  for (uint32_t r = 0; r < 2000; r++) {
    uint32_t n = 512 + (r & 255);
    acc = cq_rotl(acc, 1) ^ csum(buf + (r & 7), n);
  }
  cq_result("checksum", acc);
  return 0;
}
