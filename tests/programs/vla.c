/* Dynamic stack allocation: variable-length arrays (sp adjusted at run time, the
 * frame pointer keeps locals addressable), __builtin_alloca, and deep frames with
 * large local arrays. */
#include "lk_io.h"

static int32_t vla_sum(int n) {
  int32_t v[n];
  for (int i = 0; i < n; i++) v[i] = i * i - n;
  int32_t s = 0;
  for (int i = 0; i < n; i++) s += v[i];
  return s;
}

static uint32_t matrix_vla(int r, int c) {
  uint16_t m[r][c];
  for (int i = 0; i < r; i++)
    for (int j = 0; j < c; j++) m[i][j] = (uint16_t)(i * 31 + j * 17);
  uint32_t h = LK_FNV_INIT;
  for (int j = 0; j < c; j++)
    for (int i = 0; i < r; i++) h = lk_mix(h, m[i][j]);
  return h;
}

static int32_t with_alloca(int n, int32_t seed) {
  int32_t *p = __builtin_alloca((size_t)n * sizeof(int32_t));
  for (int i = 0; i < n; i++) p[i] = seed + i;
  int32_t mx = p[0];
  for (int i = 1; i < n; i++) mx = p[i] > mx ? p[i] : mx;
  return mx;
}

static uint32_t big_frame(int depth) {
  uint8_t buf[512];
  for (int i = 0; i < 512; i++) buf[i] = (uint8_t)(i + depth);
  uint32_t s = depth ? big_frame(depth - 1) : 0;
  for (int i = 0; i < 512; i += 5) s += buf[i];
  return s;
}

int main(void) {
  for (int n = 1; n <= 200; n *= 3) lk_printf("vla_sum(%d)=%d\n", n, vla_sum(n));
  lk_printf("matrix %08x %08x\n", matrix_vla(7, 13), matrix_vla(1, 1));
  lk_printf("alloca %d %d\n", with_alloca(10, -5), with_alloca(100, 1000));
  uint32_t s = big_frame(20);
  lk_printf("big_frame %u\n", s);
  return (int)(s & 0x7f);
}
