/* dispatch: an opcode dispatch written as an if/else-if chain (the language has no
 * switch yet), counting opcodes in a pinned table. */
#include "pat.h"

uint32_t pat_step(uint32_t i) {
  uint32_t op = (i + (i >> 3)) & 15, r;
  if (op == 0) r = i + 1;
  else if (op == 1) r = i << 2;
  else if (op == 2) r = i ^ 0x55;
  else if (op == 3) r = i >> 1;
  else if (op == 4) r = ~i;
  else if (op == 5) r = i & 0xFF;
  else if (op == 6) r = i | 0x100;
  else if (op == 7) r = i - 3;
  else if (op == 8) r = i + i;
  else if (op == 9) r = 0x1234;
  else r = 0;
  CNT[op] += 1;
  return r;
}
