/* firmware/udm/buffer.c -- the second delivery case of UDM (the paper's section 4.2):
 * the kernel's buffered path, playing Glaze's part on a FUGU node. docs/udm.md,
 * "Two-case delivery", is the manual.
 *
 * In buffered mode the interface's divert bit is set: every arriving message raises
 * mismatch-available, and this kernel copies it (the interface's DISPOSE_TO DMA) into the
 * software buffer of the application its GID names, taking a page from the node's pool
 * when the buffer's last page is full. The running application reads the same messages
 * through the base-register convention (MSGBASE points at its buffer's head record); its
 * DISPOSE traps (dispose-extend) and is emulated here; its handlers are upcalled from here
 * with the same atomicity as the fast case: a buffered message is delivered only while
 * interrupt-disable is clear, otherwise atomicity-extend is set and the application's
 * ENDATOM calls back. When the buffer drains the application returns to the fast case.
 * Messages of an application that is not running (another GID) are buffered the same
 * way, in fast mode too; it starts in buffered mode when scheduled.
 *
 * The kernel runs with interrupts off, entered through traps.s's generic entry. */
#include "udm.h"

#include <stddef.h>

/* buffered.s reads and writes these fields by offset. */
_Static_assert(offsetof(struct udm_app, gid) == 0 && offsetof(struct udm_app, entry) == 4 &&
                   offsetof(struct udm_app, upcall_active) == 16 &&
                   offsetof(struct udm_app, head) == 24 && offsetof(struct udm_app, tail) == 28 &&
                   offsetof(struct udm_app, tail_end) == 32 &&
                   offsetof(struct udm_app, messages) == 48 &&
                   offsetof(struct udm_app, inserted) == 52 &&
                   offsetof(struct udm_app, emulated_disposes) == 60 &&
                   offsetof(struct udm_app, upcalls) == 64,
               "struct udm_app's layout is buffered.s's");

struct udm_app *udm_current;
struct udm_kernel_counters udm_kernel_counters;
unsigned udm_fast_tbr = (unsigned)udm_fast_table;
unsigned udm_buffered_tbr = (unsigned)udm_buffered_table;

static struct udm_app apps[UDM_MAX_APPS];
static unsigned napps;
static unsigned *free_pages; /* the pool's free list, linked through word 0 */
/* What MSGBASE points at in buffered mode when the buffer is empty: a length of 0. */
static unsigned empty_record[2];

void udm_kernel_init(unsigned *pool, unsigned pages) {
  free_pages = 0;
  for (unsigned i = pages; i-- > 0;) {
    unsigned *p = pool + i * UDM_PAGE_WORDS;
    p[0] = (unsigned)free_pages;
    free_pages = p;
  }
  udm_kernel_counters.free_pages = udm_kernel_counters.min_free_pages = pages;
}

struct udm_app *udm_app_add(unsigned gid, void (*entry)(void), unsigned page_budget) {
  if (napps == UDM_MAX_APPS) return 0;
  struct udm_app *a = &apps[napps++];
  a->gid = gid;
  a->entry = (unsigned)entry;
  a->page_budget = page_budget;
  a->hold_next = NI_NODES; /* no broadcast under way */
  return a;
}

/* ---- overflow control's global suspension (udm.h) ---------------------------------------- */

static unsigned overflow_pending; /* an application's holds or releases are not all sent */

/* Sends a kernel message from the kernel, the user's described words (DESCLEN) put back
 * after it, as a context switch does. 0 if the output queue has no room for it and them:
 * the kernel never blocks on the network it may be waiting to drain. */
static int kernel_send(unsigned dest, unsigned op, unsigned gid) {
  const unsigned n = NI_DESCLEN;
  if (NI_SPACE < 3 + n) return 0;
  unsigned saved[16];
  for (unsigned i = 0; i < n; ++i) saved[i] = NI_SEND(i);
  NI_SEND(0) = dest | NI_KERNEL_MESSAGE;
  NI_SEND(1) = op;
  NI_SEND(2) = gid;
  NI_LAUNCH = 3;
  for (unsigned i = 0; i < n; ++i) NI_SEND(i) = saved[i];
  NI_DESCLEN = n;
  ++udm_kernel_counters.kernel_sent;
  return 1;
}

void udm_overflow_progress(void) {
  if (!overflow_pending) return;
  const unsigned nodes = NI_NODES, self = NI_NODE;
  unsigned pending = 0;
  for (unsigned i = 0; i < napps; ++i) {
    struct udm_app *a = &apps[i];
    if (a->hold_next >= nodes) {
      if (a->hold_told == a->hold_wanted) continue; /* nothing to tell */
      a->hold_next = 0; /* a broadcast of the change */
      if (a->hold_wanted) ++a->holds;
    }
    const unsigned op = a->hold_told ? UDM_KMSG_RELEASE : UDM_KMSG_HOLD;
    while (a->hold_next < nodes) {
      if (a->hold_next != self && !kernel_send(a->hold_next, op, a->gid)) break;
      ++a->hold_next;
    }
    if (a->hold_next < nodes) {
      pending = 1; /* the rest when the output queue has room */
      continue;
    }
    a->hold_told = op == UDM_KMSG_HOLD;
    pending |= a->hold_told != a->hold_wanted;
  }
  overflow_pending = pending;
}

static void want_hold(struct udm_app *a, unsigned hold) {
  if (a->hold_wanted == hold) return;
  a->hold_wanted = hold;
  overflow_pending = 1;
  udm_overflow_progress();
}

static struct udm_app *app_of(unsigned gid) {
  for (unsigned i = 0; i < napps; ++i)
    if (apps[i].gid == gid) return &apps[i];
  return 0;
}

static unsigned *page_alloc(void) {
  unsigned *p = free_pages;
  if (!p) return 0;
  free_pages = (unsigned *)p[0];
  p[0] = 0;
  if (--udm_kernel_counters.free_pages < udm_kernel_counters.min_free_pages)
    udm_kernel_counters.min_free_pages = udm_kernel_counters.free_pages;
  return p;
}

static void page_free(unsigned *p) {
  p[0] = (unsigned)free_pages;
  free_pages = p;
  ++udm_kernel_counters.free_pages;
}

/* The buffer-insert handler: the head message into its application's buffer. 0 if it
 * cannot be taken (overflow control: the budget or the pool is exhausted); the message
 * then stays in the interface and the network backs up behind it. */
static int insert_head(void) {
  unsigned head = NI_HEAD;
  if (head & 2) { /* another node's hold or release (the kernel reads the window) */
    const unsigned op = NI_RECV(1), gid = NI_RECV(2);
    ++udm_kernel_counters.kernel_messages;
    NI_DISPOSE = 1;
    if (op == UDM_KMSG_HOLD || op == UDM_KMSG_RELEASE) udm_sched_hold(gid, op == UDM_KMSG_HOLD ? 1 : -1);
    return 1;
  }
  struct udm_app *a = app_of((head >> 8) & 0xFF);
  if (!a) {
    ++udm_kernel_counters.unknown_gid;
    NI_DISPOSE = 1;
    return 1;
  }
  unsigned len = NI_RECV_LEN;
  unsigned *rec = a->tail;
  if (!rec || rec + 2 + len + 1 > a->tail_end) { /* keep a word for UDM_NEXT_PAGE */
    unsigned *page = a->pages < a->page_budget ? page_alloc() : 0;
    if (!page) {
      if (!a->suspended) ++a->overflow_stalls;
      a->suspended = 1;
      want_hold(a, 1); /* the other nodes hold the application until this buffer drains */
      return 0;
    }
    if (rec) {
      *rec = UDM_NEXT_PAGE;
      a->tail_page[0] = (unsigned)page;
    } else {
      a->head_page = page;
    }
    a->tail_page = page;
    a->tail_end = page + UDM_PAGE_WORDS;
    rec = page + 1;
    if (++a->pages > a->max_pages) a->max_pages = a->pages;
    ++a->page_allocs;
  }
  NI_DISPOSE_TO = (unsigned)rec;
  a->tail = rec + 2 + len;
  ++a->messages;
  ++a->inserted;
  if (!a->head) {
    a->head = rec;
    if (a == udm_current && a->buffered) NI_MSGBASE = (unsigned)rec;
  }
  return 1;
}

/* The dispose-extend emulation: the head record is consumed. */
static void buffer_pop(struct udm_app *a) {
  unsigned *next = a->head + 2 + a->head[0];
  --a->messages;
  ++a->emulated_disposes;
  if (next == a->tail) { /* drained: its one page goes back to the pool */
    page_free(a->head_page);
    a->head = a->tail = a->tail_end = a->head_page = a->tail_page = 0;
    a->pages = 0;
    if (a->hold_wanted) want_hold(a, 0);
  } else {
    if (*next == UDM_NEXT_PAGE) {
      unsigned *done = a->head_page;
      a->head_page = (unsigned *)done[0];
      page_free(done);
      --a->pages;
      next = a->head_page + 1;
      /* down to half the budget: the other nodes may run it again */
      if (a->hold_wanted && a->pages <= a->page_budget / 2) want_hold(a, 0);
    }
    a->head = next;
  }
  if (a->suspended && a->pages < a->page_budget) {
    /* a page came back: insertion resumes (the line is level: it re-raises at once) */
    a->suspended = 0;
    CPU_IMASK = CPU_IMASK | 1u << LINE_MISMATCH_AVAILABLE;
  }
}

/* Runs the application's handler on its buffer's head message, as the fast case's
 * message-available vector does on the window's (fast.s): the interrupted stream and UAC
 * saved in udm_up_save, UAC's interrupt-disable, dispose-pending and atomicity-extend set,
 * user mode at the upcall entry. */
static void upcall(struct udm_app *a) {
  unsigned uac = NI_UAC;
  udm_up_save[0] = CPU_EPC;
  udm_up_save[1] = CPU_ENPC;
  udm_up_save[2] = CPU_ENNPC;
  udm_up_save[3] = CPU_ESW;
  udm_up_save[4] = uac;
  /* The fast case's return (fast.s, vector 44) reloads r9 from here: a handler running
   * when the buffer drains returns through it. */
  udm_up_save[6] = udm_trap_frame.r[9];
  NI_UAC = uac | UAC_INTERRUPT_DISABLE | UAC_DISPOSE_PENDING | UAC_ATOMICITY_EXTEND;
  CPU_EPC = a->entry;
  CPU_ENPC = a->entry + 4;
  CPU_ENNPC = a->entry + 8;
  a->upcall_active = 1;
  ++a->upcalls;
}

/* A buffered message for the running application: upcall its handler now, or, inside an
 * atomic section, when the section ends (its ENDATOM traps: atomicity-extend). */
static void deliver(struct udm_app *a) {
  if (!a->buffered || !a->head || a->upcall_active) return;
  unsigned uac = NI_UAC;
  if (uac & UAC_INTERRUPT_DISABLE)
    NI_UAC = uac | UAC_ATOMICITY_EXTEND;
  else
    upcall(a);
}

static void to_fast(struct udm_app *a) {
  /* With no buffered handler running, atomicity-extend can only be a delivery deferred to
   * the end of an atomic section (deliver), and there is nothing left to deliver: it goes,
   * or the section's ENDATOM would trap into the fast case's vector 44, which takes it for a
   * handler's end and resumes a stale stream (user code polling its own buffer empty). */
  if (!a->upcall_active) NI_UAC = NI_UAC & ~UAC_ATOMICITY_EXTEND;
  a->buffered = 0;
  a->upcall_active = 0; /* a handler still running returns through the fast vector */
  ++a->to_fast;
  NI_DIVERT = 0;
  CPU_TBR = udm_fast_tbr;
  NI_MSGBASE = 0;
}

/* Buffered mode for the running application; `handler`: one of its handlers is running
 * (its end, ENDATOM's atomicity-extend trap, returns to the interrupted stream). */
static void divert(struct udm_app *a, unsigned handler) {
  a->buffered = 1;
  ++a->to_buffered;
  a->upcall_active = handler;
  /* Buffered mode's table: its common cases in assembly, the rest here (vector 44 too:
   * every return from a handler comes back to the kernel). */
  CPU_TBR = udm_buffered_tbr;
  NI_DIVERT = 1;
  while ((NI_HEAD & 1) && insert_head()) {
  }
  NI_MSGBASE = a->head ? (unsigned)a->head : (unsigned)empty_record;
  deliver(a); /* what was copied: now, or at the end of the atomic section */
}

void udm_divert(void) {
  struct udm_app *a = udm_current;
  /* In the fast case only the upcall vector sets atomicity-extend: a handler is running. */
  if (!a->buffered) divert(a, (NI_UAC & UAC_ATOMICITY_EXTEND) != 0);
}

void udm_app_run(struct udm_app *a) {
  /* Was one of its handlers running when it was switched out (UAC is the application's
   * again)? In the fast case atomicity-extend says so; in buffered mode it may instead be a
   * delivery deferred to the end of an atomic section, and only upcall_active tells them
   * apart (taking the section's end for a handler's would resume a stale stream). */
  const unsigned handler = a->buffered ? a->upcall_active : (NI_UAC & UAC_ATOMICITY_EXTEND) != 0;
  udm_current = a;
  NI_GID = a->gid;
  udm_upcall_entry = a->entry;
  a->buffered = 0;
  a->upcall_active = 0;
  if (a->head) {
    divert(a, handler);
  } else {
    NI_DIVERT = 0;
    CPU_TBR = udm_fast_tbr;
    NI_MSGBASE = 0;
  }
}

/* The saved stream past the trapping instruction (what RETI_SKIP does), so that a handler
 * can still be upcalled from this trap. */
static void skip_instruction(void) {
  CPU_EPC = CPU_ENPC;
  CPU_ENPC = CPU_ENNPC;
  CPU_ENNPC = CPU_ENNPC + 4;
}

/* The value the trapping store (an ENDATOM) would have written: its source register,
 * bits 27..23 of every Lanai store encoding. */
static unsigned stored_value(const struct udm_trap_frame *f) {
  unsigned rd = (*(const unsigned *)CPU_EPC >> 23) & 31;
  return rd == 0 ? 0 : rd == 1 ? 0xFFFFFFFFu : rd == 2 ? CPU_EPC : f->r[rd];
}

/* The emulated DISPOSE of the head record: dispose-pending cleared as DISPOSE does, the
 * next record at the base, or the fast case again when the buffer drained. */
static void dispose_head(struct udm_app *a) {
  buffer_pop(a);
  NI_UAC = NI_UAC & ~UAC_DISPOSE_PENDING;
  if (a->head)
    NI_MSGBASE = (unsigned)a->head;
  else
    to_fast(a);
}

/* A handler's ENDATOM with its message not disposed (dispose-failure): the kernel disposes
 * it for it (counted: the application's bug, not the network's) and the ENDATOM runs again,
 * now an ordinary handler's end. Its message is the window's in the fast case, the head
 * record in buffered mode. (Outside udm_buffer_trap's switch, which the common paths go
 * through: one case more there made clang's dispatch of every case dearer.) */
static int dispose_failure(struct udm_app *a) {
  if (!a) return 0;
  ++a->dispose_failures;
  if (!a->buffered)
    NI_DISPOSE = 1; /* the window's message; the interface clears dispose-pending */
  else if (a->head)
    dispose_head(a);
  else
    NI_UAC = NI_UAC & ~UAC_DISPOSE_PENDING;
  return 1;
}

int udm_buffer_trap(struct udm_trap_frame *f) {
  struct udm_app *a = udm_current;
  switch (CPU_CAUSE) {
  case LINE_MISMATCH_AVAILABLE:
    if (!insert_head()) /* overflow control: mask the line until a page is freed */
      CPU_IMASK = CPU_IMASK & ~(1u << LINE_MISMATCH_AVAILABLE);
    if (a) deliver(a);
    return 1;
  case LINE_ATOMICITY_TIMEOUT:
    NI_IRQ_ACK = 1;
    ++udm_kernel_counters.timeouts;
    if (a) udm_divert();
    return 1;
  case CAUSE_DISPOSE_EXTEND:
    if (!a || !a->buffered || !a->head) return 0; /* a bad dispose: the caller decides */
    dispose_head(a);
    skip_instruction();
    return 1;
  case CAUSE_ATOMICITY_EXTEND:
    if (!a || !a->buffered) return 0;
    if (a->upcall_active) { /* a buffered handler's end: back to the interrupted stream */
      a->upcall_active = 0;
      CPU_EPC = udm_up_save[0];
      CPU_ENPC = udm_up_save[1];
      CPU_ENNPC = udm_up_save[2];
      CPU_ESW = udm_up_save[3];
      NI_UAC = udm_up_save[4];
    } else { /* an atomic section's end, deferred deliveries waiting: do its ENDATOM */
      unsigned bits = stored_value(f) & (UAC_INTERRUPT_DISABLE | UAC_TIMER_FORCE);
      NI_UAC = NI_UAC & ~(bits | UAC_ATOMICITY_EXTEND);
      skip_instruction();
    }
    deliver(a);
    return 1;
  default: return CPU_CAUSE == CAUSE_DISPOSE_FAILURE ? dispose_failure(a) : 0;
  }
}
