/* Recursion: Ackermann (deep stack), naive Fibonacci, Towers of Hanoi with move
 * output, mutual recursion, and a recursive 64-bit function. */
#include "lk_io.h"

static uint32_t ack(uint32_t m, uint32_t n) {
  if (m == 0) return n + 1;
  if (n == 0) return ack(m - 1, 1);
  return ack(m - 1, ack(m, n - 1));
}

static uint32_t fib(uint32_t n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

static uint32_t moves;
static void hanoi(int n, char from, char to, char via) {
  if (n == 0) return;
  hanoi(n - 1, from, via, to);
  moves++;
  if (n >= 4 || moves <= 8) lk_printf("move %d %c->%c\n", n, from, to);
  hanoi(n - 1, via, to, from);
}

static int is_odd(uint32_t n);
static int is_even(uint32_t n) { return n == 0 ? 1 : is_odd(n - 1); }
static int is_odd(uint32_t n) { return n == 0 ? 0 : is_even(n - 1); }

static uint64_t fact64(uint32_t n) { return n <= 1 ? 1 : n * fact64(n - 1); }

/* recursion with many live values across calls */
static int32_t tree_sum(int depth, int32_t a, int32_t b, int32_t c) {
  if (depth == 0) return a ^ b ^ c;
  int32_t l = tree_sum(depth - 1, a + 1, b * 2 % 1000, c - 3);
  int32_t r = tree_sum(depth - 1, b, c, a);
  return l + r + a - b + c;
}

int main(void) {
  for (uint32_t m = 0; m <= 2; m++)
    for (uint32_t n = 0; n <= 4; n++) lk_printf("ack(%u,%u)=%u\n", m, n, ack(m, n));
  lk_printf("ack(3,3)=%u\n", ack(3, 3));
  for (uint32_t i = 0; i <= 20; i += 5) lk_printf("fib(%u)=%u\n", i, fib(i));
  hanoi(6, 'A', 'C', 'B');
  lk_printf("moves %u\n", moves);
  lk_printf("even(100)=%d odd(77)=%d\n", is_even(100), is_odd(77));
  lk_printf("20!=%llu\n", fact64(20));
  lk_printf("tree %d\n", tree_sum(10, 1, 2, 3));
  return (int)(fib(12) % 128);
}
