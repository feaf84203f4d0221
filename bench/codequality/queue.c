/* A ring of fixed-size entries in SRAM (a send queue): push bursts, pop them back. */
#include "cq.h"

#define QSIZE 64
struct Entry {
  uint32_t addr;
  uint16_t len;
  uint8_t kind;
  uint8_t flags;
  uint32_t seq;
};
struct Queue {
  uint32_t head;
  uint32_t tail;
  uint32_t count;
  struct Entry e[QSIZE];
};
static struct Queue q;

static int push(struct Queue *q, uint32_t addr, uint16_t len, uint8_t kind, uint32_t seq) {
  if (q->count == QSIZE) return 0;
  struct Entry *e = &q->e[q->tail];
  e->addr = addr;
  e->len = len;
  e->kind = kind;
  e->flags = 0;
  e->seq = seq;
  q->tail = (q->tail + 1) & (QSIZE - 1);
  q->count += 1;
  return 1;
}

static int pop(struct Queue *q, struct Entry *out) {
  if (q->count == 0) return 0;
  *out = q->e[q->head];
  q->head = (q->head + 1) & (QSIZE - 1);
  q->count -= 1;
  return 1;
}

int main(void) {
  uint32_t seed = 0x9E3779B9u;
  uint32_t acc = 0, seq = 0, full = 0;
  struct Entry e;
  for (uint32_t r = 0; r < 4000; r++) {
    uint32_t x = cq_rand(&seed);
    uint32_t k = 1 + (x & 63);
    for (uint32_t i = 0; i < k; i++) {
      if (!push(&q, x ^ i, (uint16_t)((x >> 8) & 0x5FF), (uint8_t)(r & 3), seq)) full += 1;
      seq += 1;
    }
    uint32_t m = k - (r & 1);
    for (uint32_t i = 0; i < m; i++) {
      if (!pop(&q, &e)) break;
      acc = cq_rotl(acc, 3) ^ e.addr ^ e.len ^ ((uint32_t)e.kind << 16) ^ e.seq;
    }
  }
  cq_result("queue", acc ^ full ^ q.count);
  return 0;
}
