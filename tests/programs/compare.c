/* Every comparison operator at every width, signed and unsigned, in branches, in
 * stored booleans (scc) and in selects; 64-bit compares split across two words. */
#include "lk_io.h"

#define CMP_ALL(T, a, b) \
  (((a) < (b)) | ((a) <= (b)) << 1 | ((a) > (b)) << 2 | ((a) >= (b)) << 3 | ((a) == (b)) << 4 | ((a) != (b)) << 5)

static volatile int64_t S64[] = {0, 1, -1, INT64_MAX, INT64_MIN, 0x100000000ll, -0x100000000ll, 0xFFFFFFFFll, 42};
static volatile int32_t S32[] = {0, 1, -1, INT32_MAX, INT32_MIN, 65536, -65536, 42};
static volatile int16_t S16[] = {0, 1, -1, INT16_MAX, INT16_MIN, 255, -256};
static volatile int8_t S8[] = {0, 1, -1, INT8_MAX, INT8_MIN, 42};

static int branchy(int32_t a, int32_t b) {
  int r = 0;
  if (a < b) r += 1;
  if (a > b) r += 10;
  if ((uint32_t)a < (uint32_t)b) r += 100;
  if ((uint32_t)a >= (uint32_t)b) r += 1000;
  return r;
}

int main(void) {
  uint32_t h = LK_FNV_INIT;
  for (unsigned i = 0; i < sizeof S64 / sizeof S64[0]; i++) {
    lk_printf("i64 %lld:", S64[i]);
    for (unsigned j = 0; j < sizeof S64 / sizeof S64[0]; j++) {
      int64_t a = S64[i], b = S64[j];
      uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
      int s = CMP_ALL(int64_t, a, b), u = CMP_ALL(uint64_t, ua, ub);
      lk_printf(" %02x/%02x", s, u);
      h = lk_mix(h, (uint32_t)(s << 8 | u));
    }
    lk_printf("\n");
  }
  for (unsigned i = 0; i < sizeof S32 / sizeof S32[0]; i++) {
    lk_printf("i32 %d:", S32[i]);
    for (unsigned j = 0; j < sizeof S32 / sizeof S32[0]; j++) {
      int32_t a = S32[i], b = S32[j];
      uint32_t ua = (uint32_t)a, ub = (uint32_t)b;
      int s = CMP_ALL(int32_t, a, b), u = CMP_ALL(uint32_t, ua, ub);
      lk_printf(" %02x/%02x/%d", s, u, branchy(a, b));
      h = lk_mix(h, (uint32_t)(s << 8 | u));
    }
    lk_printf("\n");
  }
  for (unsigned i = 0; i < sizeof S16 / sizeof S16[0]; i++) {
    lk_printf("i16 %d:", S16[i]);
    for (unsigned j = 0; j < sizeof S16 / sizeof S16[0]; j++) {
      int16_t a = S16[i], b = S16[j];
      uint16_t ua = (uint16_t)a, ub = (uint16_t)b;
      lk_printf(" %02x/%02x", CMP_ALL(int16_t, a, b), CMP_ALL(uint16_t, ua, ub));
    }
    lk_printf("\n");
  }
  for (unsigned i = 0; i < sizeof S8 / sizeof S8[0]; i++) {
    lk_printf("i8 %d:", S8[i]);
    for (unsigned j = 0; j < sizeof S8 / sizeof S8[0]; j++) {
      int8_t a = S8[i], b = S8[j];
      uint8_t ua = (uint8_t)a, ub = (uint8_t)b;
      lk_printf(" %02x/%02x", CMP_ALL(int8_t, a, b), CMP_ALL(uint8_t, ua, ub));
    }
    lk_printf("\n");
  }
  /* min/max/select chains */
  int32_t mn = INT32_MAX, mx = INT32_MIN;
  uint32_t umn = 0xFFFFFFFFu, umx = 0;
  for (unsigned i = 0; i < sizeof S32 / sizeof S32[0]; i++) {
    int32_t v = S32[i];
    mn = v < mn ? v : mn;
    mx = v > mx ? v : mx;
    umn = (uint32_t)v < umn ? (uint32_t)v : umn;
    umx = (uint32_t)v > umx ? (uint32_t)v : umx;
  }
  lk_printf("min %d max %d umin %u umax %u\n", mn, mx, umn, umx);
  lk_printf("hash %08x\n", h);
  return (int)(h & 0x7f);
}
