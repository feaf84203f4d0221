/* UDM's Table 4 benchmark (tests/udm/fast_path_test.cpp, lua-scripts/udm/tables.lua): one node sends
 * null messages, spaced so that each is received alone; the other receives them at kernel
 * level, at user level by interrupt (an assembly null handler, or a C handler through the
 * runtime's upcall entry), or by polling. */
#include "../fugu.h"

#define CTL 0x30000u
#define W(a) (*(volatile unsigned int *)(a))
#define SCENARIO W(CTL)
#define MESSAGES W(CTL + 4)
#define GAP W(CTL + 8)
#define HANDLER W(CTL + 12) /* the handler word the sender puts in its messages */
#define RESULT(i) W(CTL + 16 + 4 * (i))
#define EXIT W(0xFFFFF004u)

enum { SENDER = 1, KERNEL_RECV = 2, USER_RECV = 3, USER_C_RECV = 4, POLL_RECV = 5,
       SENDER_ARG = 6, USER_ARG_RECV = 7 };

void bench_idle(void);
void bench_send_null(unsigned dest, unsigned handler);
void bench_send_arg(unsigned dest, unsigned handler, unsigned arg);
void bench_poll(unsigned handler);
void bench_arg_handler(void);
void udm_null_handler(void);
void udm_c_upcall(void);
extern unsigned udm_upcall_entry;
extern unsigned udm_fast_table[], udm_kernel_table[];

void udm_trap(struct udm_trap_frame *f) {
  if (CPU_CAUSE == CAUSE_SYSCALL) {
    if (CPU_TVAL == 0) EXIT = 0;
    f->skip = 1;
    return;
  }
  RESULT(9) = CPU_CAUSE; /* nothing else is expected: stop with the cause */
  EXIT = 1;
}

/* A C handler at user level, entered through udm_c_upcall. */
void null_c_handler(void) { NI_DISPOSE = 1; }

static void spin(unsigned n) {
  for (volatile unsigned i = 0; i < n; ++i) {
  }
}

static void sender(void) {
  for (unsigned i = 0; i < MESSAGES; ++i) {
    spin(GAP);
    bench_send_null(1, HANDLER);
  }
  CPU_SYSCALL = 0;
}

static void sender_arg(void) {
  for (unsigned i = 0; i < MESSAGES; ++i) {
    spin(GAP);
    bench_send_arg(1, HANDLER, i);
  }
  CPU_SYSCALL = 0;
}

static void poller(void) {
  NI_BEGINATOM = UAC_INTERRUPT_DISABLE;
  bench_poll(HANDLER);
}

static unsigned user_stack[256];

int main(void) {
  void (*app)(void) = bench_idle;
  CPU_TBR = (unsigned)udm_trap_table;
  switch (SCENARIO) {
  case SENDER: app = sender; break;
  case SENDER_ARG: app = sender_arg; break;
  case KERNEL_RECV: /* the handlers run in kernel mode; the idle loop too, with IE on */
    CPU_TBR = (unsigned)udm_kernel_table;
    CPU_IMASK = 1u << LINE_MESSAGE_AVAILABLE;
    CPU_STATUS = 2; /* IE */
    bench_idle();
    return 0;
  case USER_RECV:
    CPU_TBR = (unsigned)udm_fast_table;
    udm_upcall_entry = (unsigned)udm_null_handler;
    break;
  case USER_ARG_RECV:
    CPU_TBR = (unsigned)udm_fast_table;
    udm_upcall_entry = (unsigned)bench_arg_handler;
    break;
  case USER_C_RECV:
    CPU_TBR = (unsigned)udm_fast_table;
    udm_upcall_entry = (unsigned)udm_c_upcall;
    break;
  case POLL_RECV: app = poller; break;
  default: return 1;
  }
  CPU_IMASK = 0xFFFFFFFFu;
  udm_enter_user(app, (unsigned)&user_stack[256]);
  return 2;
}
