/* firmware/udm/apps/experiment.c -- the node side of the UDM experiments
 * (lua-scripts/udm/, the paper's section 5): the kernel (buffer.c, sched.c) running one
 * application, alone or gang scheduled against a null application, and what the scripts
 * read back. The application is another source file defining experiment_app() (user mode,
 * ends with CPU_SYSCALL = UDM_SYSCALL_DONE); its handlers run through udm_c_upcall. */
#include "../udm.h"
#include "../../lib/lanai.h"

#include "experiment.h"

static unsigned pool[EXPERIMENT_POOL_PAGES * UDM_PAGE_WORDS];
static unsigned app_stack[1024], null_stack[256];
struct udm_app *experiment_app_struct; /* read by the scripts */

/* The null application: spins until the application is done on this node. */
static void null_app(void) {
  while (!EXP_RESULT(EXP_R_DONE)) {
  }
  CPU_SYSCALL = UDM_SYSCALL_DONE;
}

/* The application's share of the CPU: RTC ticks it held the CPU (up to its last quantum),
 * quanta it was given, timer interrupts taken. */
static unsigned app_since;
void udm_trap(struct udm_trap_frame *f) {
  /* Figure 10's added latency, for an insert that did not come through udm_delayed_table */
  if (udm_insert_delay_iterations && CPU_CAUSE == LINE_MISMATCH_AVAILABLE &&
      CPU_TBR != (unsigned)udm_delayed_table)
    udm_delay_stall(udm_insert_delay_iterations);
  if (udm_buffer_trap(f)) return;
  if (CPU_CAUSE == FUGU_LINE_CHIP) {
    if (udm_current == experiment_app_struct) EXP_RESULT(EXP_R_APP_TICKS) += RTC - app_since;
    udm_sched_trap(f);
    if (udm_current == experiment_app_struct) {
      app_since = RTC;
      EXP_RESULT(EXP_R_APP_QUANTA) += 1;
    }
    EXP_RESULT(EXP_R_TIMER_IRQS) += 1;
    return;
  }
  if (CPU_CAUSE == CAUSE_SYSCALL && CPU_TVAL == UDM_SYSCALL_DONE && udm_current == experiment_app_struct) {
    EXP_RESULT(EXP_R_DONE) = 1;
    EXP_RESULT(EXP_R_DONE_RTC) = RTC;
  }
  if (udm_sched_trap(f)) return;
  EXP_RESULT(EXP_R_CAUSE) = CPU_CAUSE; /* nothing else is expected: stop with the cause */
  EXP_RESULT(EXP_R_EPC) = CPU_EPC;
  *(volatile unsigned *)0xFFFFF004u = 1;
}

int main(void) {
  CPU_TBR = (unsigned)udm_fast_table;
  udm_fast_tbr = (unsigned)udm_fast_table;
  udm_kernel_init(pool, EXPERIMENT_POOL_PAGES);
  if (EXP_CTL(EXP_INSERT_DELAY)) {
    udm_insert_delay_iterations = EXP_CTL(EXP_INSERT_DELAY) / 2;
    udm_buffered_tbr = (unsigned)udm_delayed_table;
  }
  experiment_app_struct = udm_app_add(1, udm_c_upcall, EXP_CTL(EXP_BUDGET));
  udm_sched_init(EXP_CTL(EXP_SLICE), EXP_CTL(EXP_SKEW));
  udm_sched_add(experiment_app_struct, experiment_app, (unsigned)&app_stack[1024]);
  if (EXP_CTL(EXP_NULL))
    udm_sched_add(udm_app_add(2, udm_c_upcall, 1), null_app, (unsigned)&null_stack[256]);
  NI_TIMEOUT = EXP_CTL(EXP_TIMEOUT);
  CPU_IMASK = 0xFFFFFFFFu;
  EXP_RESULT(EXP_R_START_RTC) = RTC;
  udm_sched_start();
  return 2;
}
