/* Benchmark kernel: in-place heapsort of N pseudo-random 32-bit ints, ROUNDS times
 * (fresh data each round), verifying order and folding the sorted data into a
 * checksum. Estimated cost at -O2 on Lanai: ~N*log2(N)*2 sift steps of ~12
 * instructions; measured: ~3.1 M instructions per round at -O2, so ROUNDS=15 is ~47 M. */
#include "bench_io.h"

#ifndef ROUNDS
#define ROUNDS 15
#endif
#define N 8192

static int32_t a[N];

static void sift_down(int32_t *v, uint32_t start, uint32_t end) {
  uint32_t root = start;
  int32_t x = v[root];
  for (;;) {
    uint32_t child = 2 * root + 1;
    if (child > end) break;
    if (child + 1 <= end && v[child] < v[child + 1]) child++;
    if (x >= v[child]) break;
    v[root] = v[child];
    root = child;
  }
  v[root] = x;
}

static void heapsort(int32_t *v, uint32_t n) {
  for (uint32_t s = n / 2; s-- > 0;) sift_down(v, s, n - 1);
  for (uint32_t end = n - 1; end > 0; end--) {
    int32_t t = v[0];
    v[0] = v[end];
    v[end] = t;
    sift_down(v, 0, end - 1);
  }
}

int main(void) {
  uint32_t seed = 2463534242u, sum = 0, bad = 0;
  for (int r = 0; r < ROUNDS; r++) {
    for (int i = 0; i < N; i++) a[i] = (int32_t)bench_rand(&seed);
    heapsort(a, N);
    for (int i = 1; i < N; i++) bad += a[i - 1] > a[i];
    for (int i = 0; i < N; i += 7) sum = (sum ^ (uint32_t)a[i]) * 16777619u;
  }
  bench_result("heapsort", sum ^ bad);
  return bad != 0;
}
