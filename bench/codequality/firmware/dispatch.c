/* dispatch: an opcode dispatch as a `switch` of 10 arms, counting opcodes in a pinned
 * table. (clang keeps LLVM's Lanai threshold of 100 cases for a jump table, so this is a
 * compare tree; the language's backend lowers it to 8.) */
#include "pat.h"

uint32_t pat_step(uint32_t i) {
  uint32_t op = (i + (i >> 3)) & 15, r = 0;
  switch (op) {
  case 0: r = i + 1; break;
  case 1: r = i << 2; break;
  case 2: r = i ^ 0x55; break;
  case 3: r = i >> 1; break;
  case 4: r = ~i; break;
  case 5: r = i & 0xFF; break;
  case 6: r = i | 0x100; break;
  case 7: r = i - 3; break;
  case 8: r = i + i; break;
  case 9: r = 0x1234; break;
  }
  CNT[op] += 1;
  return r;
}
