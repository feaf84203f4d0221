/* UDM's buffered path under test and Table 5 (tests/udm/buffered_path_test.cpp,
 * lua-scripts/udm/tables.lua). Node 0 sends
 * MESSAGES messages of WORDS words (word 2 the sequence number, the rest a pattern of it),
 * GAP spin iterations apart; node 1 receives them with the kernel of firmware/udm/buffer.c
 * under one of the scenarios below and checks every word, the order and that each arrives
 * once. */
#include "../udm.h"

#define CTL 0x30000u
#define W(a) (*(volatile unsigned int *)(a))
#define SCENARIO W(CTL)
#define MESSAGES W(CTL + 4)
#define GAP W(CTL + 8)
#define WORDS W(CTL + 12)   /* message length, 3..16 */
#define TIMEOUT W(CTL + 16) /* the atomicity timeout (0: none) */
#define BUDGET W(CTL + 20)  /* the application's page budget */
#define SPIN W(CTL + 24)    /* the receiver's atomic section at start, or a stuck handler's */
#define STUCK_AT W(CTL + 28) /* the message whose handler spins SPIN before disposing */
#define C_ONLY W(CTL + 32)   /* buffered mode entirely in C (buffer.c), not buffered.s */
#define RESULT(i) W(CTL + 64 + 4 * (i))
#define EXIT W(0xFFFFF004u)

enum { SENDER = 1, BENCH_NULL = 10, CHECK = 11, BAD_DISPOSE = 12, BENCH_ARG = 13, LAZY = 14 };
enum { R_HANDLED = 0, R_ERRORS = 1, R_BAD_DISPOSES = 2, R_CAUSE = 9 };

void bench_idle(void);
void udm_null_handler(void);
void udm_c_upcall(void);
void check_handler(void);
void bench_base_arg_handler(void);

#define POOL_PAGES 16
static unsigned pool[POOL_PAGES * UDM_PAGE_WORDS];
struct udm_app *rx_app; /* read by the test */
static unsigned expected;

static void spin(unsigned n) {
  for (volatile unsigned i = 0; i < n; ++i) {
  }
}

void udm_trap(struct udm_trap_frame *f) {
  if (udm_buffer_trap(f)) return;
  unsigned cause = CPU_CAUSE;
  if (cause == CAUSE_SYSCALL) {
    if (CPU_TVAL == 0) EXIT = 0;
    if (CPU_TVAL == 1) udm_divert(); /* the tests' stand-in for a quantum's end */
    f->skip = 1;
    return;
  }
  if (cause == CAUSE_BAD_DISPOSE || cause == CAUSE_DISPOSE_EXTEND) { /* no message */
    RESULT(R_BAD_DISPOSES) += 1;
    f->skip = 1;
    return;
  }
  RESULT(R_CAUSE) = cause; /* nothing else is expected: stop with the cause */
  EXIT = 1;
}

/* A user-level handler (through udm_c_upcall): every word checked against the sender's
 * pattern, the sequence in order. */
void check_handler(void) {
  unsigned len = UDM_LEN(), seq = UDM_WORD(2);
  if (len != WORDS || seq != expected || UDM_SRC() != 0) RESULT(R_ERRORS) += 1;
  for (unsigned j = 3; j < len; ++j)
    if (UDM_WORD(j) != seq * 31 + j) RESULT(R_ERRORS) += 1;
  expected = seq + 1;
  if (seq == STUCK_AT) spin(SPIN); /* holds the network past the atomicity timeout */
  /* LAZY: every fourth handler forgets to dispose (the kernel's dispose-failure trap does) */
  if (SCENARIO != LAZY || seq % 4 != 1) UDM_DISPOSE();
  RESULT(R_HANDLED) += 1;
}

static void sender(void) {
  unsigned words = WORDS;
  for (unsigned i = 0; i < MESSAGES; ++i) {
    spin(GAP);
    NI_SEND(0) = 1;
    NI_SEND(1) = (unsigned)check_handler;
    NI_SEND(2) = i;
    for (unsigned j = 3; j < words; ++j) NI_SEND(j) = i * 31 + j;
    NI_LAUNCH = words;
  }
  CPU_SYSCALL = 0;
}

/* An atomic section long enough for the timer to revoke it; then idle. */
static void bench_app(void) {
  NI_BEGINATOM = UAC_INTERRUPT_DISABLE;
  spin(SPIN);
  NI_ENDATOM = UAC_INTERRUPT_DISABLE;
  bench_idle();
}

static void check_app(void) {
  if (STUCK_AT == 0xFFFFFFFFu) { /* the atomic section at start is what buffers */
    NI_BEGINATOM = UAC_INTERRUPT_DISABLE;
    spin(SPIN);
    NI_ENDATOM = UAC_INTERRUPT_DISABLE;
  }
  while (RESULT(R_HANDLED) != MESSAGES) {
  }
  CPU_SYSCALL = 0;
}

static void bad_dispose_app(void) {
  UDM_DISPOSE();   /* fast case, no message: bad-dispose */
  CPU_SYSCALL = 1; /* buffered mode with an empty buffer */
  UDM_DISPOSE();   /* dispose-extend with nothing buffered: also refused */
  while (RESULT(R_HANDLED) != MESSAGES) {
  }
  CPU_SYSCALL = 0;
}

static unsigned user_stack[512];

int main(void) {
  void (*app)(void) = 0;
  void (*entry)(void) = udm_c_upcall;
  CPU_TBR = (unsigned)udm_fast_table;
  udm_fast_tbr = (unsigned)udm_fast_table;
  udm_kernel_init(pool, POOL_PAGES);
  if (C_ONLY) udm_buffered_tbr = (unsigned)udm_trap_table;
  switch (SCENARIO) {
  case SENDER: app = sender; break;
  case BENCH_NULL: app = bench_app; entry = udm_null_handler; break;
  case BENCH_ARG: app = bench_app; entry = bench_base_arg_handler; break;
  case CHECK:
  case LAZY: app = check_app; break;
  case BAD_DISPOSE: app = bad_dispose_app; break;
  default: return 1;
  }
  rx_app = udm_app_add(1, entry, BUDGET);
  udm_app_run(rx_app);
  NI_TIMEOUT = TIMEOUT;
  CPU_IMASK = 0xFFFFFFFFu;
  udm_enter_user(app, (unsigned)&user_stack[512]);
  return 2;
}
