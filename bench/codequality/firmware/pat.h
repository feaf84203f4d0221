/* pat.h -- the pinned SRAM layout the firmware patterns share (bench/codequality/firmware).
 * Real firmware keeps its host-visible state at fixed SRAM addresses above the image;
 * these sit at 0x8000 and up, out of reach of a one-instruction `%r0`-relative address
 * (the 16-bit offset is signed). pat.fw declares the same layout in the language. */
#ifndef PAT_H
#define PAT_H
#include <stdint.h>

#define ISR (*(volatile uint32_t *)0xFFFFF008u) /* a read-only register (SRAM size) */
#define DOORBELL (*(volatile uint32_t *)0x8000u) /* a word the host writes */

struct Hdr { uint32_t w0, w1, w2, w3; };
#define HDR ((struct Hdr *)0x8100u) /* 8 packet headers */

struct Endpoint {
  uint32_t state, sent, bytes;
  uint16_t seq, flags;
  uint32_t last, credits;
};
#define EP (*(struct Endpoint *)0x8200u)
#define CNT ((uint32_t *)0x8280u) /* 16 per-opcode counters */

struct RingCtl { uint32_t head, tail; };
struct Slot { uint32_t addr, len; };
#define RC (*(struct RingCtl *)0x8300u)
#define RING ((struct Slot *)0x8310u) /* 16 slots */

#define PT ((uint32_t *)0x8400u) /* 256 page-table entries, to 0x8800 */

uint32_t pat_step(uint32_t i);
#endif
