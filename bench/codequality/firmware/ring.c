/* ring: push an entry on a pinned 16-slot ring and, on three calls out of four, pop one. */
#include "pat.h"

uint32_t pat_step(uint32_t i) {
  uint32_t r = 0;
  if (RC.tail - RC.head < 16) {
    struct Slot *s = &RING[RC.tail & 15];
    s->addr = i;
    s->len = i ^ 0xABCD0000u;
    RC.tail = RC.tail + 1;
  }
  if ((i & 3) != 0 && RC.head != RC.tail) {
    struct Slot *s = &RING[RC.head & 15];
    r = s->addr + s->len;
    RC.head = RC.head + 1;
  }
  return r;
}
