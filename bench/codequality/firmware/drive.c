/* drive.c -- the driver of every firmware pattern (bench/codequality/firmware/run.py).
 * Built with -DPAT=<index> -DITERS=<n> together with one implementation of pat_step
 * (<pattern>.c, .fw or .s). Sets up the pattern's pinned state, calls pat_step(i) for
 * i = 0..ITERS-1 (one event each: one poll, one header, one dispatch...), folds the
 * results and the pinned region 0x8000-0x8800 into a checksum and prints
 * "<pattern> <hex8>". run.py builds ITERS and 2*ITERS: the difference in executed
 * instructions is the cost of ITERS calls of pat_step alone. */
#include "../cq.h"
#include "pat.h"

static const char *const NAMES[] = {"poll", "header", "fields", "dispatch", "ring", "pagetable"};

int main(void) {
  volatile uint32_t *w = (volatile uint32_t *)0x8000u;
  for (uint32_t k = 0; k < 512; k++) w[k] = 0;
  if (PAT == 5)
    for (uint32_t k = 0; k < 256; k++)
      PT[k] = ((0x100u + k * 3u) << 12) | (k % 3u != 0) | ((k & 4u) ? 2u : 0u);
  uint32_t acc = 0;
  for (uint32_t i = 0; i < ITERS; i++) acc = cq_rotl(acc, 5) ^ pat_step(i);
  for (uint32_t k = 0; k < 512; k++) acc = cq_rotl(acc, 1) ^ w[k];
  cq_result(NAMES[PAT], acc);
  return 0;
}
