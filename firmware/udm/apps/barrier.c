/* firmware/udm/apps/barrier.c -- the paper's "barrier" application (Table 6: 10,000
 * barriers; Figures 7 and 8): a butterfly barrier on a power-of-two number of nodes. In
 * round r of a barrier a node sends one message to node ^ (1 << r) and waits for that
 * partner's round-r message; a handler counts them per round (a partner may be a barrier
 * ahead, so the counts run on). log2(nodes) messages per node per barrier.
 * Parameters: EXP_PARAM + 0 the number of barriers. Results: EXP_R_APP + 0 messages sent,
 * + 1 received. */
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
  unsigned rounds = 0;
  while ((1u << rounds) < nodes) ++rounds;
  for (unsigned b = 0; b < barriers; ++b) {
    for (unsigned r = 0; r < rounds; ++r) {
      NI_SEND(0) = node ^ (1u << r);
      NI_SEND(1) = (unsigned)barrier_handler;
      NI_SEND(2) = r;
      NI_LAUNCH = 3;
      EXP_RESULT(EXP_R_APP) += 1;
      while (arrived[r] <= b) {
      }
    }
  }
  CPU_SYSCALL = UDM_SYSCALL_DONE;
}
