/* Benchmark kernel: integer matrix multiply C = A*B of NxN 32-bit matrices with
 * small entries, REPS times (B perturbed between reps). Lanai has no multiplier, so
 * every product is a __mulsi3 call: estimated ~50 instructions per multiply-add at
 * -O2; measured ~66 M instructions for N=64, REPS=3. */
#include "bench_io.h"

#ifndef REPS
#define REPS 3
#endif
#define N 64

static int32_t A[N][N], B[N][N], C[N][N];

int main(void) {
  uint32_t seed = 777;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      A[i][j] = (int32_t)(bench_rand(&seed) & 0xFF) - 128;
      B[i][j] = (int32_t)(bench_rand(&seed) & 0xFF);
    }
  uint32_t h = 2166136261u;
  for (int r = 0; r < REPS; r++) {
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++) {
        int32_t s = 0;
        for (int k = 0; k < N; k++) s += A[i][k] * B[k][j];
        C[i][j] = s;
      }
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++) {
        h = (h ^ (uint32_t)C[i][j]) * 16777619u;
        B[i][j] = (B[i][j] + r + 1) & 0xFF;
      }
  }
  bench_result("matmul", h);
  return 0;
}
