/* Bitfields: unsigned and signed fields of odd widths, fields straddling bytes,
 * read-modify-write through pointers, and a packed register layout decoded by shifts.
 * Values are printed field by field, never as raw memory (the layout is byte-order
 * dependent, the values are not). */
#include "lk_io.h"

struct flags {
  unsigned int ready : 1;
  unsigned int mode : 3;
  signed int delta : 5;
  unsigned int count : 12;
  signed int big : 11;
};

struct hdr { /* a made-up packet header */
  uint32_t version : 4;
  uint32_t ihl : 4;
  uint32_t tos : 8;
  uint32_t length : 16;
  uint16_t id;
  uint16_t frag : 13;
  uint16_t flags : 3;
};

static void bump(struct flags *f) {
  f->count++;
  f->mode = (f->mode + 1) & 7;
  f->delta = f->delta == 15 ? -16 : f->delta + 1;
  f->ready = !f->ready;
}

int main(void) {
  struct flags f = {0, 0, -3, 4090, -1024};
  for (int i = 0; i < 24; i++) {
    bump(&f);
    lk_printf("%d %u %d %u %d\n", f.ready, f.mode, f.delta, f.count, f.big);
  }
  f.big = 1023;
  f.count = 0;
  f.count--; /* unsigned field wraps to 4095 */
  lk_printf("big %d count %u\n", f.big, f.count);
  struct hdr h = {4, 5, 0x2e, 1500, 0xBEEF, 0x1FFF, 5};
  uint32_t w0 = (uint32_t)h.version << 28 | (uint32_t)h.ihl << 24 | (uint32_t)h.tos << 16 | h.length;
  lk_printf("hdr v%u ihl%u tos%x len%u id%x frag%x fl%u w0=%08x\n", h.version, h.ihl, h.tos, h.length, h.id, h.frag, h.flags, w0);
  struct hdr arr[5];
  for (int i = 0; i < 5; i++) {
    arr[i] = h;
    arr[i].length = (uint32_t)(arr[i].length + i * 20000) & 0xFFFF;
    arr[i].flags = (uint16_t)(i & 7);
    arr[i].frag = (uint16_t)((arr[i].frag + i) & 0x1FFF);
  }
  uint32_t sum = 0;
  for (int i = 0; i < 5; i++) {
    lk_printf("[%u %u %u]", arr[i].length, arr[i].flags, arr[i].frag);
    sum += arr[i].length + arr[i].flags + arr[i].frag;
  }
  lk_printf("\nsum %u\n", sum);
  /* manual packing with masks */
  uint32_t reg = 0;
  for (uint32_t i = 0; i < 8; i++) reg |= (i & 0xF) << (i * 4);
  for (uint32_t i = 0; i < 8; i++) lk_printf("%u", (reg >> (28 - i * 4)) & 0xF);
  lk_printf(" %08x\n", reg);
  return (int)(sum & 0x7f);
}
