/* Validating a request's offset + length against a table of registered memory regions
 * (a protection check on every send), with the permission bits. */
#include "cq.h"

#define NREG 16
struct Region {
  uint32_t base;
  uint32_t len;
  uint32_t perms;
  uint32_t owner;
};
static struct Region regions[NREG];
static uint32_t nregions;

static int check(uint32_t id, uint32_t off, uint32_t len, uint32_t perm, uint32_t *addr) {
  if (id >= nregions) return 0;
  const struct Region *r = &regions[id];
  if (off > r->len || len > r->len - off) return 0;
  if ((r->perms & perm) != perm) return 0;
  *addr = r->base + off;
  return 1;
}

int main(void) {
  uint32_t seed = 0xCAFEF00Du;
  nregions = 12;
  for (uint32_t i = 0; i < NREG; i++) {
    uint32_t x = cq_rand(&seed);
    regions[i].base = x & 0xFFFFF000u;
    regions[i].len = (x >> 4) & 0xFFFF;
    regions[i].perms = 1 + (x & 3);
    regions[i].owner = i;
  }
  uint32_t acc = 0, ok = 0, addr = 0;
  for (uint32_t i = 0; i < 200000; i++) {
    uint32_t x = cq_rand(&seed);
    uint32_t id = x & 15;
    uint32_t off = (x >> 4) & 0xFFFF;
    uint32_t len = (x >> 20) & 0xFFF;
    uint32_t perm = 1u << ((x >> 30) & 1);
    if (check(id, off, len, perm, &addr)) {
      ok += 1;
      acc = cq_rotl(acc, 1) ^ addr;
    }
  }
  cq_result("bounds", acc ^ ok);
  return 0;
}
