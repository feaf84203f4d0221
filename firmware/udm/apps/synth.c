/* firmware/udm/apps/synth.c -- the paper's synth-K (section 5.2, Figures 9 and 10):
 * request-reply traffic with a synchronization point every K requests. Each node sends
 * groups of K requests, each to a random other node, a random interval apart (uniform, mean
 * T_betw instructions), then waits until the group's K replies are in. A request's handler
 * stalls (the paper fixes a request's handling at 290 cycles with interrupt and kernel
 * overhead) and sends the reply from inside the handler; a reply's handler counts it.
 *
 * Sends from the main loop are atomic sections: a request handler replying through the one
 * send buffer must not run between the main loop's describing stores and its launch.
 *
 * At the end a node tells every other that it is done and waits for theirs: it keeps
 * answering requests until nobody can send it one (a node's messages arrive in order, so
 * its "done" follows its last request; it sends "done" once its own replies are in).
 *
 * Parameters (EXP_PARAM + i): 0 requests per node, 1 K, 2 T_betw (mean instructions between
 * sends), 3 the request handler's stall (instructions), 4 the seed.
 * Results (EXP_R_APP + i): 0 requests sent, 1 requests handled, 2 replies received, 3 "done"
 * messages received. */
#include "../udm.h"

#include "experiment.h"

static volatile unsigned replies, dones;

void synth_done_handler(void) {
  UDM_DISPOSE();
  dones += 1;
  EXP_RESULT(EXP_R_APP + 3) += 1;
}

void synth_reply_handler(void) {
  UDM_DISPOSE();
  replies += 1;
  EXP_RESULT(EXP_R_APP + 2) += 1;
}

/* Runs with interrupts disabled (a handler is atomic), so the send buffer is its own. */
void synth_request_handler(void) {
  unsigned src = UDM_SRC();
  UDM_DISPOSE();
  udm_delay_stall(EXP_CTL(EXP_PARAM + 3) / 2); /* two instructions an iteration */
  NI_SEND(0) = src;
  NI_SEND(1) = (unsigned)synth_reply_handler;
  NI_LAUNCH = 2;
  EXP_RESULT(EXP_R_APP + 1) += 1;
}

static unsigned rng;
static unsigned next_random(void) {
  rng = rng * 1664525u + 1013904223u;
  return rng >> 8;
}

void experiment_app(void) {
  const unsigned node = NI_NODE, nodes = NI_NODES;
  const unsigned requests = EXP_CTL(EXP_PARAM), k = EXP_CTL(EXP_PARAM + 1);
  const unsigned betw = EXP_CTL(EXP_PARAM + 2);
  rng = EXP_CTL(EXP_PARAM + 4) ^ (node * 0x9E3779B9u);
  unsigned sent = 0;
  while (sent < requests) {
    const unsigned group = requests - sent < k ? requests - sent : k;
    const unsigned target = replies + group;
    for (unsigned i = 0; i < group; ++i) {
      unsigned dest = next_random() % (nodes - 1);
      if (dest >= node) ++dest;
      /* uniform on 0..2 T_betw instructions (2 per stall iteration) */
      udm_delay_stall(betw ? next_random() % (2 * betw + 1) / 2 : 0);
      NI_BEGINATOM = UAC_INTERRUPT_DISABLE;
      NI_SEND(0) = dest;
      NI_SEND(1) = (unsigned)synth_request_handler;
      NI_LAUNCH = 2;
      NI_ENDATOM = UAC_INTERRUPT_DISABLE;
      ++sent;
      EXP_RESULT(EXP_R_APP) = sent;
    }
    while (replies != target) {
    }
  }
  for (unsigned d = 0; d < nodes; ++d) {
    if (d == node) continue;
    NI_BEGINATOM = UAC_INTERRUPT_DISABLE;
    NI_SEND(0) = d;
    NI_SEND(1) = (unsigned)synth_done_handler;
    NI_LAUNCH = 2;
    NI_ENDATOM = UAC_INTERRUPT_DISABLE;
  }
  while (dones != nodes - 1) {
  }
  CPU_SYSCALL = UDM_SYSCALL_DONE;
}
