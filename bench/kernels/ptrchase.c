/* Benchmark kernel: pointer chasing through a linked list laid out as a single random
 * cycle (Sattolo's shuffle) over NODES nodes, STEPS hops in total. Estimated cost at
 * -O2 on Lanai: ~5 instructions per hop -> STEPS = 8 M is ~40 M instructions
 * (plus ~1 M to build the permutation); measured ~69 M at -O2. */
#include "bench_io.h"

#ifndef STEPS
#define STEPS (8u << 20)
#endif
#define NODES 8192

struct node {
  struct node *next;
  uint32_t payload;
};
static struct node nodes[NODES];
static uint32_t perm[NODES];

int main(void) {
  uint32_t seed = 99991;
  for (uint32_t i = 0; i < NODES; i++) perm[i] = i;
  for (uint32_t i = NODES - 1; i > 0; i--) { /* Sattolo: one cycle through all nodes */
    uint32_t j = bench_rand(&seed) % i;
    uint32_t t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
  for (uint32_t i = 0; i < NODES; i++) {
    nodes[i].next = &nodes[perm[i]];
    nodes[i].payload = i * 2654435761u;
  }
  const struct node *p = &nodes[0];
  uint32_t acc = 0;
  for (uint32_t s = 0; s < STEPS; s++) {
    acc = ((acc << 5) | (acc >> 27)) + p->payload;
    p = p->next;
  }
  bench_result("ptrchase", acc ^ p->payload);
  return 0;
}
