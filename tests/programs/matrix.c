/* Integer matrices: multiply (32-bit and 64-bit accumulators), transpose, power by
 * repeated squaring (Fibonacci via 2x2 matrices mod a prime), and a fraction-free
 * (Bareiss) determinant. */
#include "lk_io.h"

#define M 12
static int32_t A[M][M], B[M][M], C[M][M];

static void matmul(int32_t (*a)[M], int32_t (*b)[M], int32_t (*c)[M]) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < M; j++) {
      int32_t s = 0;
      for (int k = 0; k < M; k++) s += a[i][k] * b[k][j];
      c[i][j] = s;
    }
}

static void mat2_mul(uint64_t r[2][2], const uint64_t x[2][2], const uint64_t y[2][2], uint64_t mod) {
  uint64_t t[2][2];
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++) t[i][j] = (x[i][0] * y[0][j] % mod + x[i][1] * y[1][j] % mod) % mod;
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++) r[i][j] = t[i][j];
}

static uint64_t fib_mod(uint64_t n, uint64_t mod) {
  uint64_t r[2][2] = {{1, 0}, {0, 1}}, b[2][2] = {{1, 1}, {1, 0}};
  while (n) {
    if (n & 1) mat2_mul(r, r, b, mod);
    mat2_mul(b, b, b, mod);
    n >>= 1;
  }
  return r[0][1];
}

static int64_t det_bareiss(int64_t m[4][4], int n) {
  int64_t prev = 1;
  int sign = 1;
  for (int k = 0; k < n - 1; k++) {
    if (m[k][k] == 0) {
      int p = k + 1;
      while (p < n && m[p][k] == 0) p++;
      if (p == n) return 0;
      for (int j = 0; j < n; j++) { int64_t t = m[k][j]; m[k][j] = m[p][j]; m[p][j] = t; }
      sign = -sign;
    }
    for (int i = k + 1; i < n; i++)
      for (int j = k + 1; j < n; j++) m[i][j] = (m[i][j] * m[k][k] - m[i][k] * m[k][j]) / prev;
    prev = m[k][k];
  }
  return sign * m[n - 1][n - 1];
}

int main(void) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < M; j++) {
      A[i][j] = (i * 7 + j * 3) % 11 - 5;
      B[i][j] = (i == j) * 2 + (i + 2 * j) % 5 - 2;
    }
  matmul(A, B, C);
  uint32_t h = LK_FNV_INIT;
  for (int i = 0; i < M; i++) {
    for (int j = 0; j < M; j++) {
      h = lk_mix(h, (uint32_t)C[i][j]);
      if (i < 4 && j < 8) lk_printf("%5d", C[i][j]);
    }
    if (i < 4) lk_printf("\n");
  }
  int64_t tr = 0;
  for (int i = 0; i < M; i++) tr += C[i][i];
  lk_printf("trace %lld hash %08x\n", tr, h);
  for (uint64_t n = 10; n <= 10000000000ull; n *= 100) lk_printf("fib(%llu) mod 1e9+7 = %llu\n", n, fib_mod(n, 1000000007ull));
  int64_t d[4][4] = {{2, -1, 0, 3}, {1, 3, -2, 0}, {0, 5, 1, -1}, {4, 0, 2, 1}};
  int64_t e[4][4] = {{0, 1, 2, 3}, {1, 0, 1, 2}, {2, 1, 0, 1}, {3, 2, 1, 0}};
  lk_printf("det %lld %lld\n", det_bareiss(d, 4), det_bareiss(e, 4));
  return (int)(h & 0x7f);
}
