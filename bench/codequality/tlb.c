/* A 2-way set-associative TLB (64 sets): probe both ways, refill the LRU way on a miss. */
#include "cq.h"

#define SETS 64
struct TlbEntry {
  uint32_t tag; /* (va >> 18) << 1 | valid */
  uint32_t frame;
};
struct Set {
  struct TlbEntry way[2];
};
static struct Set tlb[SETS];
static uint8_t lru[SETS];

static uint32_t probe(uint32_t va) {
  uint32_t set = (va >> 12) & (SETS - 1);
  uint32_t tag = ((va >> 18) << 1) | 1;
  struct TlbEntry *e = &tlb[set].way[0];
  if (e[0].tag == tag) {
    lru[set] = 1;
    return e[0].frame | (va & 0xFFF);
  }
  if (e[1].tag == tag) {
    lru[set] = 0;
    return e[1].frame | (va & 0xFFF);
  }
  return 0xFFFFFFFFu;
}

static void fill(uint32_t va, uint32_t frame) {
  uint32_t set = (va >> 12) & (SETS - 1);
  uint32_t way = lru[set];
  tlb[set].way[way].tag = ((va >> 18) << 1) | 1;
  tlb[set].way[way].frame = frame;
  lru[set] = (uint8_t)(way ^ 1);
}

int main(void) {
  uint32_t seed = 0x12345678u;
  for (uint32_t i = 0; i < 96; i++) {
    uint32_t va = cq_rand(&seed) & 0x3FFFFF;
    fill(va, (va ^ 0x5A5A5000u) & 0xFFFFF000u);
  }
  uint32_t acc = 0, misses = 0;
  for (uint32_t i = 0; i < 200000; i++) {
    uint32_t va = cq_rand(&seed) & 0x3FFFFF;
    uint32_t pa = probe(va);
    if (pa == 0xFFFFFFFFu) {
      misses += 1;
      fill(va, (va ^ 0x5A5A5000u) & 0xFFFFF000u);
    } else {
      acc = cq_rotl(acc, 1) ^ pa;
    }
  }
  cq_result("tlb", acc ^ misses);
  return 0;
}
