/* Shifts: constant and variable amounts, logical vs arithmetic, every width,
 * rotates built from shifts, and 64-bit shifts across the word boundary. */
#include "lk_io.h"

static volatile uint32_t seed32 = 0x80000001u;
static volatile uint64_t seed64 = 0x8000000180000001ull;

static uint32_t rotl32(uint32_t x, unsigned r) { return (x << (r & 31)) | (x >> ((32 - r) & 31)); }
static uint64_t rotr64(uint64_t x, unsigned r) { return (x >> (r & 63)) | (x << ((64 - r) & 63)); }

int main(void) {
  uint32_t h = LK_FNV_INIT;
  uint32_t u = seed32;
  int32_t s = (int32_t)seed32;
  for (int k = 0; k < 32; k++) {
    lk_printf("%2d: %08x %08x %08x %08x\n", k, u << k, u >> k, (uint32_t)(s >> k), rotl32(0x12345678u, (unsigned)k));
    h = lk_mix(h, (u << k) ^ (uint32_t)(s >> k));
  }
  uint64_t v = seed64;
  int64_t sv = (int64_t)seed64;
  for (int k = 0; k < 64; k += 3) {
    lk_printf("%2d: %016llx %016llx %016llx %016llx\n", k, v << k, v >> k, (uint64_t)(sv >> k), rotr64(v, (unsigned)k));
    h = lk_mix(h, (uint32_t)(v << k) ^ (uint32_t)((uint64_t)(sv >> k) >> 32));
  }
  /* constant amounts */
  lk_printf("c %08x %08x %08x %016llx %016llx %016llx %016llx\n", u << 1, u >> 31, (uint32_t)(s >> 31), v << 32,
            v >> 32, (uint64_t)(sv >> 32), (uint64_t)(sv >> 63));
  /* narrow types */
  uint8_t b = 0x81;
  int8_t sb = (int8_t)-127;
  uint16_t w = 0x8001;
  int16_t sw = (int16_t)-32767;
  for (int k = 0; k < 8; k++)
    lk_printf("n%d: %02x %d %04x %d %x\n", k, (uint8_t)(b << k), sb >> k, (uint16_t)(w << k), sw >> k, (unsigned)(b >> k));
  lk_printf("hash %08x\n", h);
  return (int)(h & 0x7f);
}
