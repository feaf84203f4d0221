/* firmware/udm/sched.c -- the gang scheduler of a FUGU node (docs/udm.md, "The gang
 * scheduler"): applications multiprogrammed round robin, one timeslice each, switched on
 * the chip's interval timer (IT0, routed to the CPU's line 3 on FUGU nodes). Every node
 * runs the same rotation with the same timeslice; a node's switches are offset by its skew,
 * the paper's "artificially poor schedules in a controlled manner". A switch is a quantum
 * expiration for the application leaving: its messages arriving while another runs take
 * the buffered path (their GID mismatches), and it starts its next quantum in buffered mode
 * if anything was buffered for it (buffer.c). */
#include "udm.h"

#include "../lib/lanai.h"

/* What a switch saves of an application: its registers, its stream, its UAC, its upcall
 * state, the words it had described into the send buffer (DESCLEN, the paper's "what a
 * context switch unloads") and what its atomicity timer had left (TIMER): an atomic section
 * switched out does not get a whole new timeout when it is switched back in. */
struct udm_context {
  struct udm_app *app;
  unsigned r[32];
  unsigned epc, enpc, ennpc, esw, uac, timer;
  unsigned up_save[7];
  unsigned send[16], desclen;
  unsigned done;
  unsigned held; /* other nodes' holds of its application (overflow control), not released */
};

static struct udm_context ctx[UDM_MAX_APPS];
static unsigned nctx, cur;
static unsigned slice, next_switch;
struct udm_sched_counters udm_sched_counters;

void udm_sched_init(unsigned slice_ticks, unsigned skew_ticks) {
  slice = slice_ticks;
  next_switch = RTC + slice_ticks + skew_ticks;
}

void udm_sched_add(struct udm_app *a, void (*fn)(void), unsigned sp) {
  struct udm_context *c = &ctx[nctx++];
  c->app = a;
  c->r[4] = sp; /* %sp */
  c->epc = (unsigned)fn;
  c->enpc = c->epc + 4;
  c->ennpc = c->epc + 8;
}

static void arm(void) {
  IT0 = next_switch - RTC;
  EIMR = TIME0_INT_BIT;
}

void udm_sched_start(void) {
  cur = 0;
  arm();
  NI_UAC = 0;
  udm_app_run(ctx[0].app);
  udm_enter_user((void (*)(void))ctx[0].epc, ctx[0].r[4]);
}

static void save(struct udm_context *c, const struct udm_trap_frame *f) {
  c->timer = NI_TIMER; /* first: the application's UAC and GID still run it */
  for (unsigned i = 3; i < 32; ++i) c->r[i] = f->r[i];
  c->epc = CPU_EPC;
  c->enpc = CPU_ENPC;
  c->ennpc = CPU_ENNPC;
  c->esw = CPU_ESW;
  c->uac = NI_UAC;
  for (unsigned i = 0; i < 7; ++i) c->up_save[i] = udm_up_save[i];
  c->desclen = NI_DESCLEN;
  for (unsigned i = 0; i < c->desclen; ++i) c->send[i] = NI_SEND(i);
}

static void restore(const struct udm_context *c, struct udm_trap_frame *f) {
  for (unsigned i = 3; i < 32; ++i) f->r[i] = c->r[i];
  CPU_EPC = c->epc;
  CPU_ENPC = c->enpc;
  CPU_ENNPC = c->ennpc;
  CPU_ESW = c->esw;
  for (unsigned i = 0; i < 7; ++i) udm_up_save[i] = c->up_save[i];
  for (unsigned i = 0; i < c->desclen; ++i) NI_SEND(i) = c->send[i];
  NI_DESCLEN = c->desclen;
  NI_UAC = c->uac; /* before udm_app_run: a handler in progress shows in atomicity-extend */
  udm_app_run(c->app);
  /* last: the outgoing application's timer has stopped; this one's, running again or
   * not yet, counts from what it had left (0, never saved or timed out: TIMEOUT) */
  NI_TIMER = c->timer;
}

/* The next application that is not done after `from`; `from` itself if it is the only one;
 * nctx if none is left. */
static unsigned next_runnable(unsigned from) {
  for (unsigned k = 1; k <= nctx; ++k) {
    unsigned i = (from + k) % nctx;
    if (!ctx[i].done) return i;
  }
  return nctx;
}

/* Whether another node holds this application (overflow control) and this node does not
 * hold it itself: a node whose own buffer for it overflowed must keep running it (it
 * drains that buffer). */
static int held(const struct udm_context *c) {
  return c->held && !c->app->hold_wanted && !c->app->hold_told;
}

/* The next application to give a quantum after `from`: not done, not held; if every one
 * left is held, the next not done (a held application still runs when nothing else can). */
static unsigned next_to_run(unsigned from) {
  for (unsigned k = 1; k <= nctx; ++k) {
    unsigned i = (from + k) % nctx;
    if (ctx[i].done) continue;
    if (!held(&ctx[i])) return i;
    ++udm_sched_counters.held;
  }
  return next_runnable(from);
}

void udm_sched_hold(unsigned gid, int delta) {
  for (unsigned i = 0; i < nctx; ++i)
    if (ctx[i].app->gid == gid) {
      if (delta > 0) ++ctx[i].held;
      else if (ctx[i].held) --ctx[i].held;
    }
}

static void switch_to(unsigned next, struct udm_trap_frame *f) {
  if (next != cur) {
    if (!ctx[cur].done) save(&ctx[cur], f);
    cur = next;
    restore(&ctx[cur], f);
    ++udm_sched_counters.switches;
  }
}

int udm_sched_trap(struct udm_trap_frame *f) {
  unsigned cause = CPU_CAUSE;
  if (cause == FUGU_LINE_CHIP) {
    ISR = TIME0_INT_BIT; /* acknowledge */
    next_switch += slice; /* on the node's own (skewed) clock: no drift from this handler */
    /* Taken more than a timeslice late (the kernel held the CPU: a flood of inserts keeps
     * the higher-priority mismatch line busy): the quanta it missed are skipped, round robin
     * included, so the node stays in phase with the gang; arming a time already past would
     * leave IT0 negative and the node never switching again. */
    unsigned steps = 1;
    while ((int)(next_switch - RTC) <= 0) {
      next_switch += slice;
      ++steps;
      ++udm_sched_counters.missed;
    }
    arm();
    ++udm_sched_counters.quanta;
    udm_overflow_progress(); /* holds or releases that found no room in the output queue */
    unsigned next = cur;
    for (unsigned k = 0; k + 1 < steps && next < nctx; ++k) next = next_runnable(next);
    if (next < nctx) next = next_to_run(next);
    if (next < nctx) switch_to(next, f);
    return 1;
  }
  if (cause == CAUSE_SYSCALL && CPU_TVAL == UDM_SYSCALL_DONE) {
    ctx[cur].done = 1;
    unsigned next = next_runnable(cur);
    if (next == nctx) {
      udm_sched_counters.all_done = 1;
      *(volatile unsigned *)0xFFFFF004u = 0; /* the node's work is over: EXIT */
      return 1;
    }
    switch_to(next, f);
    return 1;
  }
  return 0;
}
