/* Firmware of the UDM gang-scheduling tests (tests/udm/gang_test.cpp): two applications
 * multiprogrammed on two nodes by firmware/udm/sched.c. Each traffic application sends
 * MESSAGES messages (word 2 the sequence, word 3 its tag) to its peer on the other node and
 * checks, in its handler, that what it receives is its own (the tag), in order and once. */
#include "../../../firmware/udm/udm.h"

#define CTL 0x30000u
#define W(a) (*(volatile unsigned int *)(a))
#define SCENARIO W(CTL)
#define MESSAGES W(CTL + 4)
#define GAP W(CTL + 8)
#define SLICE W(CTL + 12) /* RTC ticks */
#define SKEW W(CTL + 16)  /* RTC ticks: this node's switches are late by this much */
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
static unsigned expected_a, expected_b;
static unsigned stacks[3][512];

static void spin(unsigned n) {
  for (volatile unsigned i = 0; i < n; ++i) {
  }
}

void udm_trap(struct udm_trap_frame *f) {
  if (udm_buffer_trap(f) || udm_sched_trap(f)) return;
  RESULT(R_CAUSE) = CPU_CAUSE; /* nothing else is expected: stop with the cause */
  W(0xFFFFF004u) = 1;
}

static void check(unsigned tag, unsigned *expected, unsigned handled, unsigned errors) {
  unsigned seq = UDM_WORD(2);
  if (UDM_LEN() != 4 || UDM_WORD(3) != tag || seq != *expected || UDM_SRC() != (NI_NODE ^ 1u))
    RESULT(errors) += 1;
  *expected = seq + 1;
  UDM_DISPOSE();
  RESULT(handled) += 1;
}

void handler_a(void) { check(TAG_A, &expected_a, R_HANDLED_A, R_ERRORS_A); }
void handler_b(void) { check(TAG_B, &expected_b, R_HANDLED_B, R_ERRORS_B); }

static void send_all(unsigned dest, void (*handler)(void), unsigned tag) {
  for (unsigned i = 0; i < MESSAGES; ++i) {
    spin(GAP);
    NI_SEND(0) = dest;
    NI_SEND(1) = (unsigned)handler;
    NI_SEND(2) = i;
    NI_SEND(3) = tag;
    NI_LAUNCH = 4;
  }
}

static void traffic_a(void) {
  send_all(NI_NODE ^ 1u, handler_a, TAG_A);
  while (RESULT(R_HANDLED_A) != MESSAGES) {
  }
  RESULT(R_A_DONE) = 1;
  CPU_SYSCALL = UDM_SYSCALL_DONE;
}

static void traffic_b(void) {
  send_all(NI_NODE ^ 1u, handler_b, TAG_B);
  while (RESULT(R_HANDLED_B) != MESSAGES) {
  }
  CPU_SYSCALL = UDM_SYSCALL_DONE;
}

/* GID 3 on node 0: messages for A's handler on node 1, stamped with the wrong GID. */
static void intruder(void) {
  send_all(1, handler_a, TAG_A);
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
  NI_TIMEOUT = 2000;
  CPU_IMASK = 0xFFFFFFFFu;
  udm_sched_start();
  return 2;
}
