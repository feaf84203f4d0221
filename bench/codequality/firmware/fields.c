/* fields: per-event updates of a pinned endpoint's fields. */
#include "pat.h"

uint32_t pat_step(uint32_t i) {
  EP.sent += 1;
  EP.bytes += 64 + (i & 0xFF);
  EP.seq = (uint16_t)(EP.seq + 1);
  EP.flags |= 0x0100;
  EP.last = i;
  if (EP.credits != 0) {
    EP.credits -= 1;
  } else {
    EP.credits = 8;
    EP.state += 1;
  }
  return EP.sent;
}
