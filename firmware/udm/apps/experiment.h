/* firmware/udm/apps/experiment.h -- the control block of the UDM experiments
 * (experiment.c; lua-scripts/udm/udm_experiment.lua writes and reads it). */
#ifndef LANAIKIT_FIRMWARE_UDM_APPS_EXPERIMENT_H
#define LANAIKIT_FIRMWARE_UDM_APPS_EXPERIMENT_H

#define EXPERIMENT_CTL 0x80000u /* SRAM: above the image */
#define EXPERIMENT_POOL_PAGES 32
#define EXP_CTL(i) (*(volatile unsigned *)(EXPERIMENT_CTL + 4 * (i)))
#define EXP_RESULT(i) EXP_CTL(32 + (i))
/* SRAM an application may use for its own data, above the control block and below the
 * start-up stack at the top of SRAM (crt0) */
#define EXPERIMENT_FREE_LO 0x81000u
#define EXPERIMENT_FREE_HI 0xF8000u

enum {
  EXP_SLICE = 0,   /* the timeslice, RTC ticks */
  EXP_SKEW = 1,    /* this node's schedule skew, RTC ticks */
  EXP_TIMEOUT = 2, /* the atomicity timeout, user cycles */
  EXP_NULL = 3,    /* 1: gang scheduled against a null application; 0: alone */
  EXP_BUDGET = 4,  /* the application's page budget */
  EXP_INSERT_DELAY = 5, /* cycles added to every buffer insert (Figure 10; buffered.s's udm_delayed_table), even */
  EXP_PARAM = 8,   /* the application's own parameters from here */
};
enum {
  EXP_R_DONE = 0, EXP_R_START_RTC = 1, EXP_R_DONE_RTC = 2, EXP_R_CAUSE = 3, EXP_R_EPC = 4,
  EXP_R_APP_TICKS = 5,  /* RTC ticks the application held the CPU before its last quantum */
  EXP_R_APP_QUANTA = 6, /* quanta it was switched in for (after its first) */
  EXP_R_TIMER_IRQS = 7, /* the scheduler's timer interrupts */
  EXP_R_APP = 8,        /* the application's own results from here */
};

void experiment_app(void);

#endif
