/* pagetable: translate a virtual address through a pinned one-level page table
 * (present bit 0, writable bit 1; odd calls are writes). */
#include "pat.h"

uint32_t pat_step(uint32_t i) {
  uint32_t vaddr = (i << 12) | (i & 0xFFF);
  uint32_t pte = PT[(vaddr >> 12) & 0xFF];
  if ((pte & 1) == 0) return 0xFFFFFFFFu;
  if ((pte & 2) == 0 && (i & 1) != 0) return 0xFFFFFFFEu;
  return (pte & 0xFFFFF000u) | (vaddr & 0xFFF);
}
