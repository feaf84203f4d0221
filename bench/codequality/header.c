/* Parsing big-endian fields out of packet headers in SRAM: validate type, length and hop
 * count, then fold the addresses into a flow key. */
#include "cq.h"

#define NPKT 64
struct PktHdr {
  uint8_t route[4];
  uint16_t type;
  uint16_t len;
  uint32_t src;
  uint32_t dst;
  uint32_t seq;
  uint8_t flags;
  uint8_t hops;
  uint16_t csum;
};
struct Packet {
  struct PktHdr hdr;
  uint32_t payload[2];
};
struct Stats {
  uint32_t good;
  uint32_t bad;
  uint32_t expired;
};
static struct Packet pkts[NPKT];
static struct Stats stats;
static const uint16_t types[4] = {0x0800, 0x86DD, 0x0806, 0x1234};

static uint32_t parse(const struct PktHdr *h, struct Stats *st) {
  if (h->type != 0x0800 && h->type != 0x86DD && h->type != 0x0806) {
    st->bad += 1;
    return 0;
  }
  if (h->len < 24 || h->len > 1500) {
    st->bad += 1;
    return 0;
  }
  if (h->hops == 0) {
    st->expired += 1;
    return 0;
  }
  uint32_t key = h->src ^ (h->dst << 1) ^ h->seq ^ h->route[h->hops & 3];
  if (h->flags & 1) key = ~key;
  st->good += 1;
  return key + h->len;
}

int main(void) {
  uint32_t seed = 0xDEADBEEFu;
  for (uint32_t i = 0; i < NPKT; i++) {
    struct PktHdr *h = &pkts[i].hdr;
    uint32_t x = cq_rand(&seed);
    for (uint32_t k = 0; k < 4; k++) h->route[k] = (uint8_t)(x >> (k * 8));
    h->type = types[x & 3];
    h->len = (uint16_t)((x >> 8) & 0x7FF);
    h->src = cq_rand(&seed);
    h->dst = cq_rand(&seed);
    h->seq = i;
    h->flags = (uint8_t)(x >> 20);
    h->hops = (uint8_t)((x >> 24) & 7);
    h->csum = 0;
  }
  uint32_t acc = 0;
  for (uint32_t r = 0; r < 2000; r++)
    for (uint32_t i = 0; i < NPKT; i++) acc = cq_rotl(acc, 5) ^ parse(&pkts[i].hdr, &stats);
  cq_result("header", acc ^ stats.good ^ (stats.bad << 8) ^ (stats.expired << 16));
  return 0;
}
