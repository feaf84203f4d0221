/* Globals and statics: initialised data, zero-initialised bss (crt0 must clear it),
 * static locals keeping state across calls, const tables in .rodata, arrays of
 * pointers to globals, and globals of every width. */
#include "lk_io.h"

int32_t g_init = 12345;
int32_t g_zero;
static uint8_t g_bytes[37];          /* bss, odd size */
static uint16_t g_halves[5] = {1, 2, 3};
static int64_t g_wide = -77;
static uint64_t g_bss64;
static const char *const g_words[] = {"alpha", "beta", "gamma", "delta"};
static int32_t *const g_ptrs[] = {&g_init, &g_zero};
static const uint32_t g_table[16] = {0x0, 0x1, 0x3, 0x7, 0xF, 0x1F, 0x3F, 0x7F, 0xFF, 0x1FF, 0x3FF, 0x7FF, 0xFFF, 0x1FFF, 0x3FFF, 0x7FFF};
static char g_big_bss[1000];

static int counter(void) {
  static int calls;          /* bss */
  static int32_t start = 100; /* data */
  calls++;
  start += calls;
  return start;
}

static uint32_t next_id(void) {
  static uint32_t id = 0xFFFFFFFEu;
  return id++;
}

int main(void) {
  int nonzero = 0;
  for (int i = 0; i < 37; i++) nonzero += g_bytes[i] != 0;
  for (int i = 0; i < 1000; i++) nonzero += g_big_bss[i] != 0;
  lk_printf("bss nonzero %d, g_zero %d, g_bss64 %llu\n", nonzero, g_zero, g_bss64);
  lk_printf("init %d wide %lld halves %u %u %u %u %u\n", g_init, g_wide, g_halves[0], g_halves[1], g_halves[2], g_halves[3], g_halves[4]);
  for (int i = 0; i < 5; i++) lk_printf("counter %d\n", counter());
  for (int i = 0; i < 4; i++) lk_printf("id %u\n", next_id());
  *g_ptrs[1] = 7;
  *g_ptrs[0] += g_zero;
  g_wide *= -3;
  g_bss64 = (uint64_t)g_wide << 20;
  for (int i = 0; i < 37; i++) g_bytes[i] = (uint8_t)(i * 9);
  for (int i = 0; i < 1000; i++) g_big_bss[i] = (char)('a' + i % 26);
  uint32_t s = 0;
  for (int i = 0; i < 37; i++) s += g_bytes[i];
  lk_printf("after %d %d %lld %llx sum %u last %c\n", g_init, g_zero, g_wide, g_bss64, s, g_big_bss[999]);
  for (int i = 0; i < 4; i++) lk_printf("%s:%x ", g_words[i], g_table[i * 5 % 16]);
  lk_printf("\n");
  return nonzero;
}
