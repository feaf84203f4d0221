/* firmware/udm/apps/enum.c -- the paper's "enum" (Table 6; Figures 7 and 8): a fine-grain,
 * data-parallel search that exchanges numerous unacknowledged short messages and
 * synchronizes only infrequently. It enumerates the positions of the triangle peg puzzle
 * with 6 holes a side (21 holes, one empty at the start: hole 0, the apex), breadth first:
 * level L holds the positions after L jumps.
 *
 * Every position has an owner node (a hash of it). A node expands the positions of level L
 * it owns and sends each successor, a 4-word message (destination, handler, position,
 * level), to the successor's owner, unacknowledged; the owner's handler drops it if it was
 * seen before and otherwise keeps it for level L + 1. A successor a node owns itself is
 * kept directly, in an atomic section (the handler touches the same tables). The only
 * synchronization is one per level: a node that has expanded its share tells every other
 * node how many successors it sent it; a node starts level L + 1 once it has all those
 * counts and as many successors.
 *
 * Two kept-lists by the level's parity: while a node waits for level L + 1, a faster node
 * may already send it level L + 2, which goes into the list level L used (expanded and
 * emptied before this node's counts went out, so before anyone could pass the level).
 *
 * Parameters (EXP_PARAM + i): 0 levels (20: every position; the puzzle has 19 jumps at
 * most). Results (EXP_R_APP + i): 0 messages sent, 1 messages received (successors and
 * counts), 2 positions owned, 3 positions of the last level owned, 4 successors kept
 * locally, 5 a table overflowed (0: no). */
#include "../udm.h"

#include "experiment.h"

#define SIDE 6
#define HOLES (SIDE * (SIDE + 1) / 2)
#define MAX_MOVES 64
#define SEEN_BITS 16
#define SEEN_WORDS (1u << SEEN_BITS)
#define LIST_WORDS (16u * 1024u)
/* the tables, in the experiments' free SRAM: 256 KB of positions seen, two 64 KB lists */
#define SEEN ((unsigned *)EXPERIMENT_FREE_LO)
#define LIST(p) ((unsigned *)(EXPERIMENT_FREE_LO + 4 * SEEN_WORDS + 4 * LIST_WORDS * (p)))
#if EXPERIMENT_FREE_LO + 4 * SEEN_WORDS + 8 * LIST_WORDS > EXPERIMENT_FREE_HI
#error "enum's tables do not fit in the experiments' free SRAM"
#endif

/* a jump: the peg at `from` over the peg at `over` into the empty hole `to` */
static unsigned move_pegs[MAX_MOVES], move_all[MAX_MOVES], moves;
static volatile unsigned kept[2], received[2], expected[2], counts_in[2];
static unsigned nodes, node;

static unsigned hole(int r, int c) { return 1u << (r * (r + 1) / 2 + c); }

static void make_moves(void) {
  static const int dir[6][2] = {{0, 1}, {0, -1}, {1, 0}, {-1, 0}, {1, 1}, {-1, -1}};
  for (int r = 0; r < SIDE; ++r)
    for (int c = 0; c <= r; ++c)
      for (int d = 0; d < 6; ++d) {
        int r1 = r + dir[d][0], c1 = c + dir[d][1], r2 = r + 2 * dir[d][0], c2 = c + 2 * dir[d][1];
        if (r2 < 0 || r2 >= SIDE || c2 < 0 || c2 > r2 || c1 < 0 || c1 > r1) continue;
        move_pegs[moves] = hole(r, c) | hole(r1, c1);
        move_all[moves] = move_pegs[moves] | hole(r2, c2);
        ++moves;
      }
}

static unsigned owner(unsigned pos) { return ((pos * 0x85EBCA6Bu) >> 16) % nodes; }

/* Keeps `pos` for its level if this node has not seen it (handler, or an atomic section). */
static void keep(unsigned pos, unsigned level) {
  unsigned i = (pos * 0x9E3779B1u) >> (32 - SEEN_BITS);
  for (unsigned probes = 0; SEEN[i] != 0; ++probes) {
    if (SEEN[i] == pos) return;
    if (probes == SEEN_WORDS) {
      EXP_RESULT(EXP_R_APP + 5) = 1;
      return;
    }
    i = (i + 1) & (SEEN_WORDS - 1);
  }
  SEEN[i] = pos;
  EXP_RESULT(EXP_R_APP + 2) += 1;
  const unsigned p = level & 1;
  if (kept[p] == LIST_WORDS) {
    EXP_RESULT(EXP_R_APP + 5) = 1;
    return;
  }
  LIST(p)[kept[p]] = pos;
  kept[p] = kept[p] + 1;
}

void enum_position_handler(void) {
  const unsigned pos = UDM_WORD(2), level = UDM_WORD(3);
  UDM_DISPOSE();
  received[level & 1] = received[level & 1] + 1;
  keep(pos, level);
  EXP_RESULT(EXP_R_APP + 1) += 1;
}

void enum_count_handler(void) { /* a node's successors of `level` sent to this one */
  const unsigned level = UDM_WORD(2), n = UDM_WORD(3);
  UDM_DISPOSE();
  expected[level & 1] = expected[level & 1] + n;
  counts_in[level & 1] = counts_in[level & 1] + 1;
  EXP_RESULT(EXP_R_APP + 1) += 1;
}

static void send4(unsigned dest, void (*handler)(void), unsigned a, unsigned b) {
  NI_SEND(0) = dest;
  NI_SEND(1) = (unsigned)handler;
  NI_SEND(2) = a;
  NI_SEND(3) = b;
  NI_LAUNCH = 4;
  EXP_RESULT(EXP_R_APP) += 1;
}

void experiment_app(void) {
  static unsigned sent_to[32];
  const unsigned levels = EXP_CTL(EXP_PARAM);
  node = NI_NODE;
  nodes = NI_NODES;
  make_moves();
  for (unsigned i = 0; i < SEEN_WORDS; ++i) SEEN[i] = 0;
  const unsigned start = ((1u << HOLES) - 1) & ~1u;
  if (owner(start) == node) {
    NI_BEGINATOM = UAC_INTERRUPT_DISABLE;
    keep(start, 0);
    NI_ENDATOM = UAC_INTERRUPT_DISABLE;
  }
  for (unsigned level = 0; level + 1 < levels; ++level) {
    const unsigned p = level & 1, q = p ^ 1;
    for (unsigned d = 0; d < nodes; ++d) sent_to[d] = 0;
    const unsigned *list = LIST(p);
    for (unsigned k = 0; k < kept[p]; ++k) {
      const unsigned pos = list[k];
      for (unsigned m = 0; m < moves; ++m) {
        if ((pos & move_all[m]) != move_pegs[m]) continue; /* two pegs, then a hole */
        const unsigned next = pos ^ move_all[m], to = owner(next);
        if (to == node) {
          NI_BEGINATOM = UAC_INTERRUPT_DISABLE;
          keep(next, level + 1);
          NI_ENDATOM = UAC_INTERRUPT_DISABLE;
          EXP_RESULT(EXP_R_APP + 4) += 1;
        } else {
          send4(to, enum_position_handler, next, level + 1);
          sent_to[to] += 1;
        }
      }
    }
    kept[p] = 0; /* expanded: the list takes level + 2, which may come once the counts are out */
    for (unsigned d = 0; d < nodes; ++d)
      if (d != node) send4(d, enum_count_handler, level, sent_to[d]);
    while (counts_in[p] != nodes - 1 || received[q] != expected[p]) {
    }
    counts_in[p] = 0;
    expected[p] = 0;
    received[q] = 0;
  }
  EXP_RESULT(EXP_R_APP + 3) = kept[(levels - 1) & 1];
  CPU_SYSCALL = UDM_SYSCALL_DONE;
}
