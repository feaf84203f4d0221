/* Backtracking: N-queens solution counts for N = 1..9 using bitmasks, the first
 * 8-queens solution printed as a board, and subset-sum counting. */
#include "lk_io.h"

static uint32_t solve(uint32_t n, uint32_t row, uint32_t cols, uint32_t d1, uint32_t d2) {
  if (row == n) return 1;
  uint32_t count = 0, avail = ~(cols | d1 | d2) & ((1u << n) - 1);
  while (avail) {
    uint32_t bit = avail & (0u - avail);
    avail ^= bit;
    count += solve(n, row + 1, cols | bit, (d1 | bit) << 1, (d2 | bit) >> 1);
  }
  return count;
}

static int board[8];
static int place(int row) {
  if (row == 8) return 1;
  for (int c = 0; c < 8; c++) {
    int ok = 1;
    for (int r = 0; r < row && ok; r++) ok = board[r] != c && board[r] - c != row - r && c - board[r] != row - r;
    if (ok) { board[row] = c; if (place(row + 1)) return 1; }
  }
  return 0;
}

static int subset_count(const int32_t *v, int n, int32_t target) {
  if (n == 0) return target == 0;
  return subset_count(v + 1, n - 1, target) + subset_count(v + 1, n - 1, target - v[0]);
}

int main(void) {
  uint32_t total = 0;
  for (uint32_t n = 1; n <= 9; n++) {
    uint32_t c = solve(n, 0, 0, 0, 0);
    total += c;
    lk_printf("queens(%u) = %u\n", n, c);
  }
  place(0);
  for (int r = 0; r < 8; r++) {
    for (int c = 0; c < 8; c++) lk_putc(board[r] == c ? 'Q' : '.');
    lk_putc('\n');
  }
  int32_t v[] = {3, 34, 4, 12, 5, 2, 7, 9, 11, 1, 8, 6};
  lk_printf("subsets summing to 20: %d\n", subset_count(v, 12, 20));
  return (int)(total & 0x7f);
}
