/* firmware/udm/apps/pingpong.c -- UDM's row of the main job (lua-scripts/udm/headline.lua):
 * between nodes 0 and 1, user-level messages received by interrupt into C handlers.
 *   mode 0, ping-pong: node 0 sends a one-word message (destination, handler, one argument),
 *     node 1's handler answers with the same, node 0's handler counts; `count` round trips,
 *     one at a time.
 *   mode 1, stream: node 0 sends `count` messages of `words` words (2 header words, the rest
 *     payload) back to back; node 1's handler reads every payload word and counts, and
 *     answers the last one, so that node 0 waits for the stream to be in before it ends.
 * The times come from a profile of the handlers (their invocations' start times), so the
 * application reads no clock (the chip's RTC is the kernel's).
 * The sends go through pp_send (a function of its own, so that a profile can price it) and
 * never collide with a handler's send: node 0's handlers do not send, node 1's main loop
 * does not.
 * Parameters (EXP_PARAM + i): 0 mode, 1 count, 2 words (stream, 3..16).
 * Results (EXP_R_APP + i): 0 sent, 1 received, 2 the payload checksum node 1 read. */
#include "../udm.h"

#include "experiment.h"

static volatile unsigned received, finished;

__attribute__((noinline)) void pp_send(unsigned dest, void (*handler)(void), unsigned words) {
  NI_SEND(0) = dest;
  NI_SEND(1) = (unsigned)handler;
  for (unsigned i = 2; i < words; ++i) NI_SEND(i) = i;
  NI_LAUNCH = words;
}

static void count(void) {
  received += 1;
  EXP_RESULT(EXP_R_APP + 1) = received;
}

void pp_pong_handler(void) { /* node 0: the answer */
  UDM_DISPOSE();
  count();
}

void pp_ping_handler(void) { /* node 1: answer at once */
  EXP_RESULT(EXP_R_APP + 2) += UDM_WORD(2);
  UDM_DISPOSE();
  pp_send(0, pp_pong_handler, 3);
  count();
}

void pp_done_handler(void) { /* node 0: the stream is in */
  UDM_DISPOSE();
  finished = 1;
}

void pp_sink_handler(void) { /* node 1: read the payload */
  unsigned words = UDM_LEN(), sum = 0;
  for (unsigned i = 2; i < words; ++i) sum += UDM_WORD(i);
  UDM_DISPOSE();
  EXP_RESULT(EXP_R_APP + 2) += sum;
  count();
  if (received == EXP_CTL(EXP_PARAM + 1)) pp_send(0, pp_done_handler, 2);
}

void experiment_app(void) {
  const unsigned mode = EXP_CTL(EXP_PARAM), n = EXP_CTL(EXP_PARAM + 1);
  const unsigned words = EXP_CTL(EXP_PARAM + 2);
  if (NI_NODE == 0 && mode == 0) {
    for (unsigned i = 0; i < n; ++i) {
      pp_send(1, pp_ping_handler, 3);
      EXP_RESULT(EXP_R_APP) = i + 1;
      while (received == i) {
      }
    }
  } else if (NI_NODE == 0) {
    for (unsigned i = 0; i < n; ++i) {
      pp_send(1, pp_sink_handler, words);
      EXP_RESULT(EXP_R_APP) = i + 1;
    }
    while (!finished) {
    }
  } else {
    while (received != n) {
    }
  }
  CPU_SYSCALL = UDM_SYSCALL_DONE;
}
