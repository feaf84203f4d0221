/* poll: wait for an interrupt bit in a register or a host-written doorbell word, with a
 * spin budget (both conditions stay false here, so each call spins its whole budget). */
#include "pat.h"

uint32_t pat_step(uint32_t i) {
  uint32_t budget = 8 + (i & 7), spins = 0;
  while (spins < budget) {
    if ((ISR & 0x80000003u) != 0) return spins | 0x10000u;
    if (DOORBELL == 0xDEAD0001u) return spins | 0x20000u;
    spins++;
  }
  return spins;
}
