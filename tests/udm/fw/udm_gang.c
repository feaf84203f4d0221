/* Firmware of the UDM gang-scheduling tests (tests/udm/gang_test.cpp): two applications
 * multiprogrammed on every node by firmware/udm/sched.c. Each traffic application sends
 * MESSAGES messages (word 2 the sequence number per destination, word 3 its tag) to its
 * peers on other nodes, chosen at random (a generator every node can replay, so each knows
 * how many messages it will get from whom), GAP spin iterations apart on average, and
 * checks in its handler that what it receives is its own (the tag), in order per sender
 * and once. */
#include "../../../firmware/udm/udm.h"

#define CTL 0x30000u
#define W(a) (*(volatile unsigned int *)(a))
#define SCENARIO W(CTL)
#define MESSAGES W(CTL + 4)
#define GAP W(CTL + 8)
#define SLICE W(CTL + 12) /* RTC ticks */
#define SKEW W(CTL + 16)  /* RTC ticks: this node's switches are late by this much */
#define SEED W(CTL + 20)  /* of the traffic generators */
#define TIMEOUT W(CTL + 24) /* the atomicity timeout */
#define C_ONLY W(CTL + 28)  /* buffered mode wholly in C */
#define RESULT(i) W(CTL + 64 + 4 * (i))

/* GANG: traffic applications A (GID 1) and B (GID 2) on both nodes.
 * GANG_NULL: A against a null application (GID 2) that only spins and watches the window.
 * INTRUDER: A on both nodes; node 0's other application (GID 3) sends MESSAGES messages
 * addressed to A's handler on node 1, where no application has GID 3; node 1's other
 * application is the null one. */
enum { GANG = 20, GANG_NULL = 21, INTRUDER = 22 };
enum { R_HANDLED_A = 0, R_ERRORS_A = 1, R_HANDLED_B = 2, R_ERRORS_B = 3, R_NULL_SAW = 4,
       R_A_DONE = 5, R_CAUSE = 9 };
enum { TAG_A = 0xA0A0u, TAG_B = 0xB0B0u };

void udm_c_upcall(void);
void handler_a(void);
void handler_b(void);

#define POOL_PAGES 16
static unsigned pool[POOL_PAGES * UDM_PAGE_WORDS];
struct udm_app *app_a, *app_b; /* read by the test */
#define MAX_NODES 16
static unsigned expected[2][MAX_NODES]; /* per application, per source: the next sequence */
static unsigned stacks[3][512];

static void spin(unsigned n) {
  for (volatile unsigned i = 0; i < n; ++i) {
  }
}

/* The last 8 traps (cause, the running GID and its mode, UAC; EPC), for the test's report
 * when something goes wrong. */
static unsigned ring_next;
static void remember(const struct udm_trap_frame *f, unsigned exit) {
  struct udm_app *c = udm_current;
  unsigned k = 24 + 4 * (ring_next++ & 15);
  RESULT(k) = CPU_CAUSE | c->gid << 8 | c->buffered << 16 | c->upcall_active << 17 | NI_UAC << 20 | exit << 31;
  RESULT(k + 1) = CPU_EPC;
  RESULT(k + 2) = f->r[5];
  RESULT(k + 3) = f->r[4];
  RESULT(23) = ring_next;
}

void udm_trap(struct udm_trap_frame *f) {
  remember(f, 0);
  if (udm_buffer_trap(f) || udm_sched_trap(f)) {
    remember(f, 1);
    return;
  }
  RESULT(R_CAUSE) = CPU_CAUSE; /* nothing else is expected: stop with the cause */
  RESULT(16) = CPU_EPC;
  RESULT(17) = CPU_TVAL;
  W(0xFFFFF004u) = 1;
}

static void check(unsigned app, unsigned tag, unsigned handled, unsigned errors) {
  unsigned src = UDM_SRC(), seq = UDM_WORD(2);
  if (UDM_LEN() != 4 || UDM_WORD(3) != tag || src >= MAX_NODES || src == NI_NODE ||
      seq != expected[app][src]) {
    if (RESULT(errors) == 0) { /* the first error, for the test's report */
      RESULT(10) = UDM_LEN();
      RESULT(11) = src;
      RESULT(12) = seq;
      RESULT(13) = src < MAX_NODES ? expected[app][src] : 0;
      RESULT(14) = UDM_WORD(3);
    }
    RESULT(errors) += 1;
  } else {
    expected[app][src] = seq + 1;
  }
  UDM_DISPOSE();
  RESULT(handled) += 1;
}

void handler_a(void) { check(0, TAG_A, R_HANDLED_A, R_ERRORS_A); }
void handler_b(void) { check(1, TAG_B, R_HANDLED_B, R_ERRORS_B); }

/* A node's traffic generator for one application: replayable from (seed, node, tag). */
struct gen {
  unsigned x;
};
static unsigned gen_next(struct gen *g) {
  g->x = g->x * 1664525u + 1013904223u;
  return g->x >> 8;
}
static void gen_init(struct gen *g, unsigned node, unsigned tag) { g->x = SEED ^ (node * 0x9E3779B9u) ^ tag; }
static unsigned gen_dest(struct gen *g, unsigned node, unsigned nodes) {
  unsigned d = gen_next(g) % (nodes - 1);
  return d >= node ? d + 1 : d;
}

static void send_all(void (*handler)(void), unsigned tag) {
  unsigned node = NI_NODE, nodes = NI_NODES, gap = GAP;
  unsigned seq[MAX_NODES] = {0};
  struct gen g;
  gen_init(&g, node, tag);
  for (unsigned i = 0; i < MESSAGES; ++i) {
    unsigned dest = gen_dest(&g, node, nodes);
    spin(gap ? gen_next(&g) % (2 * gap + 1) : 0);
    NI_SEND(0) = dest;
    NI_SEND(1) = (unsigned)handler;
    NI_SEND(2) = seq[dest]++;
    NI_SEND(3) = tag;
    NI_LAUNCH = 4;
  }
}

/* How many messages this node gets from the others' generators for `tag`. */
static unsigned incoming(unsigned tag) {
  unsigned node = NI_NODE, nodes = NI_NODES, n = 0;
  for (unsigned s = 0; s < nodes; ++s) {
    if (s == node) continue;
    struct gen g;
    gen_init(&g, s, tag);
    for (unsigned i = 0; i < MESSAGES; ++i) {
      if (gen_dest(&g, s, nodes) == node) ++n;
      if (GAP) gen_next(&g);
    }
  }
  return n;
}

static void traffic_a(void) {
  unsigned want = incoming(TAG_A);
  send_all(handler_a, TAG_A);
  while (RESULT(R_HANDLED_A) != want) {
  }
  RESULT(R_A_DONE) = 1;
  CPU_SYSCALL = UDM_SYSCALL_DONE;
}

static void traffic_b(void) {
  unsigned want = incoming(TAG_B);
  send_all(handler_b, TAG_B);
  while (RESULT(R_HANDLED_B) != want) {
  }
  CPU_SYSCALL = UDM_SYSCALL_DONE;
}

/* GID 3 on node 0: messages for A's handler on node 1, stamped with the wrong GID. */
static void intruder(void) {
  for (unsigned i = 0; i < MESSAGES; ++i) {
    spin(GAP);
    NI_SEND(0) = 1;
    NI_SEND(1) = (unsigned)handler_a;
    NI_SEND(2) = i;
    NI_SEND(3) = TAG_A;
    NI_LAUNCH = 4;
  }
  CPU_SYSCALL = UDM_SYSCALL_DONE;
}

/* The null application: spins until A is done, and counts any message it can see. */
static void null_app(void) {
  while (!RESULT(R_A_DONE))
    if (UDM_LEN() != 0 || NI_MSGAVAIL) RESULT(R_NULL_SAW) += 1;
  CPU_SYSCALL = UDM_SYSCALL_DONE;
}

int main(void) {
  unsigned node = NI_NODE;
  CPU_TBR = (unsigned)udm_fast_table;
  udm_fast_tbr = (unsigned)udm_fast_table;
  udm_kernel_init(pool, POOL_PAGES);
  app_a = udm_app_add(1, udm_c_upcall, 8);
  udm_sched_init(SLICE, SKEW);
  udm_sched_add(app_a, traffic_a, (unsigned)&stacks[0][512]);
  switch (SCENARIO) {
  case GANG:
    app_b = udm_app_add(2, udm_c_upcall, 8);
    udm_sched_add(app_b, traffic_b, (unsigned)&stacks[1][512]);
    break;
  case GANG_NULL:
    app_b = udm_app_add(2, udm_c_upcall, 8);
    udm_sched_add(app_b, null_app, (unsigned)&stacks[1][512]);
    break;
  case INTRUDER:
    if (node == 0) {
      app_b = udm_app_add(3, udm_c_upcall, 8);
      udm_sched_add(app_b, intruder, (unsigned)&stacks[1][512]);
    } else {
      app_b = udm_app_add(2, udm_c_upcall, 8);
      udm_sched_add(app_b, null_app, (unsigned)&stacks[1][512]);
    }
    break;
  default: return 1;
  }
  NI_TIMEOUT = TIMEOUT;
  if (C_ONLY) udm_buffered_tbr = (unsigned)udm_trap_table;
  CPU_IMASK = 0xFFFFFFFFu;
  udm_sched_start();
  return 2;
}
