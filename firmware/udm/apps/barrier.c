/* firmware/udm/apps/barrier.c -- the paper's "barrier" application (Table 6: 10,000
 * barriers; Figures 7 and 8): a butterfly barrier on a power-of-two number of nodes. In
 * round r of a barrier a node sends one message to node ^ (1 << r) and waits for that
 * partner's round-r message; a handler counts them per round (a partner may be a barrier
 * ahead, so the counts run on). log2(nodes) messages per node per barrier.
 *
 * Two ways to receive (EXP_PARAM + 1):
 *   0, by interrupt: the handler is upcalled when a message arrives, the node spins;
 *   1, polled: the whole run is one atomic section (interrupts off) and the node runs the
 *      handler itself whenever a message shows at the base register (UDM_LEN, the same in
 *      both delivery cases; the handler's DISPOSE is emulated from the buffer). The
 *      atomicity timer does not fire: the node polls whenever it is not sending.
 * By interrupt, this barrier has two steady states: lockstep, and, once one node has been
 * delayed (an interrupt the others do not take), an out-of-phase pattern with a longer chain
 * of dependent rounds: 1.75 times slower for good. Polled, it is faster and the pattern
 * costs it 5% (docs/udm.md, "The experiments").
 * Parameters: EXP_PARAM + 0 the number of barriers, + 1 the way to receive.
 * Results: EXP_R_APP + 0 messages sent, + 1 received. */
#include "../udm.h"

#include "experiment.h"

#define MAX_ROUNDS 12
static volatile unsigned arrived[MAX_ROUNDS];

void barrier_handler(void) {
  unsigned r = UDM_WORD(2);
  if (r < MAX_ROUNDS) arrived[r] += 1;
  UDM_DISPOSE();
  EXP_RESULT(EXP_R_APP + 1) += 1;
}

void experiment_app(void) {
  unsigned node = NI_NODE, nodes = NI_NODES, barriers = EXP_CTL(EXP_PARAM);
  const unsigned polled = EXP_CTL(EXP_PARAM + 1);
  unsigned rounds = 0;
  while ((1u << rounds) < nodes) ++rounds;
  if (polled) NI_BEGINATOM = UAC_INTERRUPT_DISABLE;
  for (unsigned b = 0; b < barriers; ++b) {
    for (unsigned r = 0; r < rounds; ++r) {
      NI_SEND(0) = node ^ (1u << r);
      NI_SEND(1) = (unsigned)barrier_handler;
      NI_SEND(2) = r;
      NI_LAUNCH = 3;
      EXP_RESULT(EXP_R_APP) += 1;
      while (arrived[r] <= b)
        if (polled && UDM_LEN() != 0) ((void (*)(void))UDM_WORD(1))(); /* it disposes */
    }
  }
  if (polled) NI_ENDATOM = UAC_INTERRUPT_DISABLE;
  CPU_SYSCALL = UDM_SYSCALL_DONE;
}
