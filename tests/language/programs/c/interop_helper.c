// C side of interop.fw: the same ABI both ways (docs/abi.md).
#include <stdint.h>

uint32_t fw_scale(uint32_t x, uint8_t by);          // defined in interop.fw
extern uint32_t fw_counter;                          // a .fw global

int64_t c_mix(int32_t a, int64_t b, uint8_t c, int16_t d, uint32_t e, int8_t f, _Bool g) {
  return a + b * 3 + c + d + (int64_t)e * 5 + f + (g ? 1000 : 0);
}

uint32_t c_calls_back(uint32_t x) {
  fw_counter += 1;
  return fw_scale(x, 3) + fw_counter;
}
