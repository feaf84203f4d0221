/* Firmware for tests/chip/fugu_interface_test.cpp: FUGU nodes (vm/fugu_interface.h) with
 * the UDM kernel's trap entry (firmware/udm/traps.s) and a small kernel of its own: one
 * scenario per node, chosen by the test in the control block; results go back into it. */
#include "../../../firmware/udm/fugu.h"

#define CTL 0x30000u
#define W(a) (*(volatile unsigned int *)(a))
#define SCENARIO W(CTL)
#define ARG0 W(CTL + 4)
#define ARG1 W(CTL + 8)
#define RESULT(i) W(CTL + 16 + 4 * (i))
#define LOG(i) W(CTL + 0x100 + 4 * (i)) /* causes of the traps taken, in order */
#define LOGGED W(CTL + 0xFC)
#define EXIT W(0xFFFFF004u)

enum { SEND = 1, RECV_INT = 2, RECV_POLL = 3, PROTECT = 4, TIMEOUT = 5, SEND_BIG = 6,
       RECV_LATE = 7, FORCE = 8, FORCE_RESUMED = 9 };
enum { R_COUNT = 0, R_SUM = 1, R_MISMATCH = 2, R_TIMEOUTS = 3, R_ORDER = 4, R_HEAD = 5 };

static unsigned user_stack[512];

/* The messages every sender sends: word 2 the sequence number, word 3 a function of it. */
static unsigned payload(unsigned i) { return i * 2654435761u; }

static void check(unsigned len, unsigned w2, unsigned w3) {
  if (w2 != RESULT(R_COUNT) || w3 != payload(w2) || len < 4) RESULT(R_ORDER) += 1;
  RESULT(R_COUNT) += 1;
  RESULT(R_SUM) += w2;
}

/* Kernel-mode receive: the window holds the head message whatever its GID. */
static void kernel_take(void) {
  check(NI_RECV_LEN, NI_RECV(2), NI_RECV(3));
  NI_DISPOSE = 1;
}

void udm_trap(struct udm_trap_frame *f) {
  const unsigned cause = CPU_CAUSE;
  LOG(LOGGED) = cause;
  LOGGED += 1;
  switch (cause) {
  case LINE_MESSAGE_AVAILABLE: kernel_take(); return;
  case LINE_MISMATCH_AVAILABLE:
    RESULT(R_MISMATCH) += 1;
    RESULT(R_HEAD) = NI_HEAD;
    kernel_take();
    return;
  case LINE_ATOMICITY_TIMEOUT:
    if (SCENARIO == FORCE || SCENARIO == FORCE_RESUMED) { /* timer-force: how far it got */
      RESULT(9) = RESULT(8);
      EXIT = 0;
    }
    /* The application held the network too long: divert its messages to the kernel. */
    RESULT(R_TIMEOUTS) += 1;
    NI_DIVERT = 1;
    NI_IRQ_ACK = 1;
    return;
  case CAUSE_SYSCALL:
    if (CPU_TVAL == 0) EXIT = 0; /* the application is done: halt */
    if (CPU_TVAL == 2) NI_DIVERT = 1;
    f->skip = 1;
    return;
  case CAUSE_DISPOSE_FAILURE: NI_UAC = 0; f->skip = 1; return;
  default: f->skip = 1; return; /* a protection trap: skip the instruction */
  }
}

static void user_exit(void) { CPU_SYSCALL = 0; }

static void send_one(unsigned dest, unsigned i, unsigned words) {
  NI_SEND(0) = dest;
  NI_SEND(1) = 0; /* handler */
  NI_SEND(2) = i;
  NI_SEND(3) = payload(i);
  for (unsigned w = 4; w < words; ++w) NI_SEND(w) = w;
  NI_LAUNCH = words;
}

static void user_send(void) {
  for (unsigned i = 0; i < ARG0; ++i) send_one(1, i, 4);
  user_exit();
}

static void user_send_big(void) {
  for (unsigned i = 0; i < ARG0; ++i) send_one(1, i, 16);
  user_exit();
}

/* Interrupt receive: the kernel takes the messages; the application waits for them. */
static void user_wait(void) {
  while (RESULT(R_COUNT) < ARG0) {
  }
  user_exit();
}

/* Polling receive: interrupts disabled (beginatom), the application extracts itself. */
static void user_poll(void) {
  NI_BEGINATOM = UAC_INTERRUPT_DISABLE;
  while (RESULT(R_COUNT) < ARG0) {
    if (!NI_MSGAVAIL) continue;
    check(NI_RECV_LEN, NI_RECV(2), NI_RECV(3));
    NI_DISPOSE = 1;
  }
  NI_ENDATOM = UAC_INTERRUPT_DISABLE;
  user_exit();
}

/* Every way user code is refused: each traps, the kernel logs it and skips it. */
static void user_protect(void) {
  NI_SEND(0) = NI_KERNEL_MESSAGE | 1;
  NI_LAUNCH = 2;           /* a kernel message: protection violation */
  NI_SEND(0) = 1;
  NI_LAUNCH = 17;          /* longer than the send buffer: protection violation */
  NI_SEND(0) = 99;
  NI_LAUNCH = 2;           /* no such node: protection violation */
  NI_GID = 5;              /* a kernel register: privileged */
  NI_DISPOSE = 1;          /* no message: bad dispose */
  NI_ENDATOM = UAC_INTERRUPT_DISABLE; /* dispose-pending set by the kernel: dispose failure */
  CPU_SYSCALL = 2;         /* the kernel sets divert mode */
  NI_DISPOSE = 1;          /* in divert mode: dispose-extend */
  RESULT(6) = CPU_STATUS;  /* a CPU control register: privileged (skipped) */
  RESULT(7) = NI_NODE + 100; /* user code may read NODE */
  user_exit();
}

/* Holds the network: interrupts disabled, never extracts. The timeout revokes it; the
 * kernel then receives in divert mode. */
static void user_hold(void) {
  NI_BEGINATOM = UAC_INTERRUPT_DISABLE;
  while (RESULT(R_COUNT) < ARG0) {
  }
  user_exit();
}

/* The timer forced on: it runs on user cycles from this store, messages or not. */
static void user_force(void) {
  for (volatile unsigned i = 0; i < ARG1; ++i) {
  }
  NI_BEGINATOM = UAC_TIMER_FORCE;
  for (;;) RESULT(8) += 1;
}

int main(void) {
  CPU_TBR = (unsigned)udm_trap_table;
  CPU_IMASK = 0xFFFFFFFFu;
  NI_GID = ARG1;
  void (*app)(void) = 0;
  switch (SCENARIO) {
  case SEND: app = user_send; break;
  case SEND_BIG: app = user_send_big; break;
  case RECV_INT: app = user_wait; break;
  case RECV_POLL: app = user_poll; break;
  case PROTECT:
    NI_UAC = UAC_DISPOSE_PENDING;
    app = user_protect;
    break;
  case TIMEOUT:
    NI_TIMEOUT = 2000;
    app = user_hold;
    break;
  case FORCE:
    NI_TIMEOUT = ARG0;
    NI_GID = 0;
    app = user_force;
    break;
  case FORCE_RESUMED: /* the same, the timer's next start set to half (a switch's restore) */
    NI_TIMEOUT = ARG0;
    NI_GID = 0;
    NI_TIMER = ARG0 / 2;
    RESULT(7) = NI_TIMER; /* stopped: what the next start counts from */
    app = user_force;
    break;
  case RECV_LATE: /* kernel mode, interrupts off: drain late, by polling */
    for (volatile unsigned i = 0; i < 3000; ++i) {
    }
    while (RESULT(R_COUNT) < ARG0)
      if (NI_HEAD & 1) kernel_take();
    return 0;
  default: return 1;
  }
  udm_enter_user(app, (unsigned)&user_stack[512]);
  return 2; /* not reached */
}
