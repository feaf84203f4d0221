/* A memcpy-like word loop: copy n 32-bit words between SRAM buffers, 2000 times with
 * varying offsets and lengths. */
#include "cq.h"

#define WORDS 1024
static uint32_t src[WORDS];
static uint32_t dst[WORDS + 16];

static void copy_words(uint32_t *d, const uint32_t *s, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) d[i] = s[i];
}

int main(void) {
  uint32_t seed = 0x0BADC0DEu;
  for (uint32_t i = 0; i < WORDS; i++) src[i] = cq_rand(&seed);
  uint32_t acc = 0;
  for (uint32_t r = 0; r < 2000; r++) {
    uint32_t n = 256 + (r & 511);
    copy_words(dst + (r & 15), src + (r & 7), n);
    acc = cq_rotl(acc, 1) ^ dst[((r << 3) ^ r) & (WORDS - 1)];
  }
  for (uint32_t i = 0; i < WORDS + 16; i++) acc ^= dst[i];
  cq_result("copy", acc);
  return 0;
}
