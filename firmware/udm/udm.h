/* firmware/udm/udm.h -- UDM's runtime conventions and the kernel's buffered path
 * (firmware/udm/buffer.c) for code running on a FUGU node. docs/udm.md, "Two-case
 * delivery", is the manual. */
#ifndef LANAIKIT_FIRMWARE_UDM_UDM_H
#define LANAIKIT_FIRMWARE_UDM_UDM_H

#include "fugu.h"

/* The base-register convention ("a known base register to point to the input message
 * buffer"): user code reads the message it is handling through the interface's MSG
 * registers, never through NI_RECV directly. They show the message at the base register
 * MSGBASE: the window itself in the fast case (MSGBASE 0), the head record of the
 * application's software buffer in buffered mode (the kernel sets it). A record has the
 * window's layout from RECV_LEN on: the length (0: no message), the source node, then the
 * words. Each read is one access through the base, so the kernel may move the base between
 * any two instructions of a handler (a switch to buffered mode in the middle of one): a
 * base held in memory and loaded into a register by user code could not be moved under it,
 * and the Lanai has no register to reserve for it across C code. */
#define UDM_LEN() NI_MSG_LEN   /* words in the message; 0: none (polling reads this) */
#define UDM_SRC() NI_MSG_SRC
#define UDM_WORD(i) NI_MSG(i)  /* word 1 is the handler, arguments from word 2 */
#define UDM_DISPOSE() (NI_DISPOSE = 1) /* traps and is emulated in buffered mode */

/* The kernel's side (buffer.c). Pages of the node's pool hold the software buffers: word 0
 * links to the next page of the same buffer, records follow; a record never spans pages
 * (UDM_NEXT_PAGE in a length word sends the reader to the next page). */
#define UDM_PAGE_WORDS 1024u /* 4 KB pages */
#define UDM_NEXT_PAGE 0xFFFFFFFFu
#define UDM_MAX_APPS 4

struct udm_app {
  unsigned gid;
  unsigned entry;       /* the application's upcall entry (user code) */
  unsigned page_budget; /* overflow control: pages its buffer may hold */
  unsigned buffered;    /* in buffered mode (only the running application) */
  unsigned upcall_active; /* a buffered-mode handler is running (the stream saved) */
  unsigned suspended;   /* overflow control stopped insertion for it */
  unsigned *head, *tail, *tail_end; /* head record (0: empty), where the next goes */
  unsigned *head_page, *tail_page;
  unsigned pages, messages; /* held now */
  /* counters */
  unsigned inserted, page_allocs, emulated_disposes, upcalls, to_buffered, to_fast,
      max_pages, overflow_stalls;
  /* global suspension (overflow control): what every other node has been told (1: hold
   * this application), what this node wants them told, the next node of a broadcast under
   * way (NODES: none), and the holds asked */
  unsigned hold_told, hold_wanted, hold_next, holds;
  unsigned dispose_failures; /* handlers that ended without disposing (the kernel did) */
};

struct udm_kernel_counters {
  unsigned kernel_messages; /* kernel messages received (holds and releases) */
  unsigned unknown_gid;     /* messages for no application on this node (dropped) */
  unsigned timeouts;        /* atomicity timeouts (each a switch to buffered mode) */
  unsigned free_pages, min_free_pages;
  unsigned kernel_sent; /* kernel messages sent (holds and releases) */
};

/* Overflow control's global suspension (the paper's "an application on the verge of
 * exhausting physical memory is globally suspended"): a node whose application's buffer
 * reaches its page budget tells every other node to hold that application (a kernel
 * message: destination | NI_KERNEL_MESSAGE, UDM_KMSG_HOLD, the GID), and to release it
 * once the buffer is down to half the budget. A held application is not scheduled from its
 * next quantum on, except on a node that holds it itself (it must drain its buffer). */
#define UDM_KMSG_HOLD 1u
#define UDM_KMSG_RELEASE 2u
/* sched.c: a hold (+1) or release (-1) of the application with this GID from another node */
void udm_sched_hold(unsigned gid, int delta);
/* Sends what is pending of the holds and releases (called on every kernel entry that may
 * change them, and by the scheduler's timer: a broadcast waits for room in the output
 * queue rather than block the kernel). */
void udm_overflow_progress(void);

extern struct udm_app *udm_current;
extern struct udm_kernel_counters udm_kernel_counters;
extern unsigned udm_fast_tbr; /* the trap table of the fast case (udm_fast_table) */
/* ... and of buffered mode: udm_buffered_table (buffered.s's common cases, the rest in C),
 * or udm_trap_table (everything in C: the reference the tests compare it with) */
extern unsigned udm_buffered_tbr;

/* The node's page pool: `pages` pages of UDM_PAGE_WORDS words at `pool`. */
void udm_kernel_init(unsigned *pool, unsigned pages);
/* An application: its GID, upcall entry and page budget. 0 if the table is full. */
struct udm_app *udm_app_add(unsigned gid, void (*entry)(void), unsigned page_budget);
/* Makes `a` the running application (GID, upcall entry, base; buffered mode if its
 * buffer holds messages). */
void udm_app_run(struct udm_app *a);
/* Switches the running application to buffered mode (a timeout, a quantum's end, a test). */
void udm_divert(void);
/* The kernel's traps and interrupts of the buffered path: mismatch-available (insert),
 * atomicity-timeout (switch), dispose-extend (emulate) and, in buffered mode,
 * atomicity-extend (end a handler, deliver the next). 1 if handled. */
int udm_buffer_trap(struct udm_trap_frame *frame);

/* The gang scheduler (sched.c): applications round robin, `slice_ticks` RTC ticks each,
 * this node's switches `skew_ticks` later than an unskewed node's. An application ends
 * with CPU_SYSCALL = UDM_SYSCALL_DONE; the node exits when all have. */
#define UDM_SYSCALL_DONE 0x5D0u
#define FUGU_LINE_CHIP 3u /* the chip's interrupt (ISR & EIMR): the kernel's timer */
struct udm_sched_counters {
  unsigned quanta, switches, all_done;
  unsigned missed; /* quanta skipped: the timer was taken more than a timeslice late */
  unsigned held;   /* quanta an application was passed over because another node held it */
};
extern struct udm_sched_counters udm_sched_counters;
void udm_sched_init(unsigned slice_ticks, unsigned skew_ticks);
void udm_sched_add(struct udm_app *a, void (*fn)(void), unsigned sp);
void udm_sched_start(void); /* does not return */
int udm_sched_trap(struct udm_trap_frame *frame); /* the timer and UDM_SYSCALL_DONE; 1 if handled */

/* fast.s: the upcall state (EPC, ENPC, ENNPC, ESW, UAC, -, r9) */
extern unsigned udm_up_save[7];
/* traps.s: the frame of the trap being handled (the kernel's traps do not nest) */
extern struct udm_trap_frame udm_trap_frame;
extern unsigned udm_upcall_entry;
extern unsigned udm_fast_table[];
/* fast.s: upcall entries: C handlers (the one named in word 1), the null handler */
void udm_c_upcall(void);
void udm_null_handler(void);
/* buffered.s: the trap table of buffered mode; the same with every insert first stalling
 * udm_insert_delay_iterations x 2 cycles (Figure 10's added latency) */
extern unsigned udm_buffered_table[], udm_delayed_table[];
extern unsigned udm_insert_delay_iterations;
/* `iterations` x 2 instructions (the stall of the delayed insert; any code's measured wait) */
void udm_delay_stall(unsigned iterations);

#endif
