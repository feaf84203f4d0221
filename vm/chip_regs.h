// The chip's memory-mapped registers: addresses and ISR bits (docs/chip.md is the manual).
//
// The block sits at the top of the address space, 0xFFFFFE00 + offset, so firmware reaches
// a register as a negative offset from %r0 (`ld -432[%r0], %r8` reads ISR at 0x50). Names
// and offsets follow Myricom's LANai 7 header where it has the register; LANai 4's EAR and
// DMA_DIR (the host-DMA engine's host address and direction) and our additions (HOST_SIG
// through CRC_ERRORS) take free offsets.
#pragma once

#include <cstdint>

namespace lanaikit::vm::regs {

inline constexpr uint32_t kBase = 0xFFFFFE00;

enum Offset : uint32_t {
  ISR = 0x050,         // interrupt status; writing 1s clears latched bits
  EIMR = 0x058,        // host-interrupt mask
  IT0 = 0x060,         // interval timer (RTC ticks to go)
  RTC = 0x068,         // real-time clock (RTC ticks)
  LAR = 0x070,         // host DMA: SRAM address
  EAR = 0x074,         // host DMA: host physical address
  CTR = 0x078,         // host DMA: byte count; a write starts the transfer
  DMA_DIR = 0x080,     // host DMA: kDmaL2E or kDmaE2L
  RMP = 0x0E0,         // receive DMA: pointer
  RML = 0x0E8,         // receive DMA: limit; a write arms the engine
  SMP = 0x0F0,         // send DMA: pointer
  SML = 0x100,         // send DMA: limit; a write sends [SMP, SML), packet stays open
  SMLT = 0x108,        // send DMA: limit with tail; sends [SMP, SMLT) and ends the packet
  HOST_SIG = 0x160,    // doorbell value written by the host
  SIG = 0x168,         // firmware sets LANn_SIG bits here
  RECV_STATUS = 0x170, // PacketStatus bits of the last packet received
  LINK_STATUS = 0x178, // kLinkUp | kLinkStopped
  CRC_ERRORS = 0x180,  // packets received with a bad CRC
};

inline constexpr uint32_t kDmaL2E = 0; // SRAM -> host memory
inline constexpr uint32_t kDmaE2L = 1; // host memory -> SRAM

inline constexpr uint32_t kLinkUp = 1u << 0;
inline constexpr uint32_t kLinkStopped = 1u << 1;

// ISR bits. "Level" bits show an engine's state and ignore writes; the others latch until
// written with a 1.
enum Bit : uint32_t {
  HOST_SIG_BIT = 0x40000000, // the host rang the doorbell
  LINK_INT_BIT = 0x01000000, // link state changed (LINK_STATUS)
  LAN7_SIG_BIT = 0x00800000,
  LAN6_SIG_BIT = 0x00400000,
  LAN5_SIG_BIT = 0x00200000,
  LAN4_SIG_BIT = 0x00100000,
  LAN3_SIG_BIT = 0x00080000,
  LAN2_SIG_BIT = 0x00040000,
  LAN1_SIG_BIT = 0x00020000,
  LAN0_SIG_BIT = 0x00010000,
  CRC_INT_BIT = 0x00008000,  // a packet with a CRC error was received
  TIME0_INT_BIT = 0x00000040, // IT0 reached zero
  DMA_INT_BIT = 0x00000010,  // level: host-DMA engine idle
  SEND_INT_BIT = 0x00000008, // level: send-DMA engine idle
  BUFF_INT_BIT = 0x00000004, // receive reached RML inside a packet; the link is stalled
  RECV_INT_BIT = 0x00000002, // a packet's tail was received; the engine waits for RML
  HEAD_INT_BIT = 0x00000001, // the head of a packet arrived
};

inline constexpr uint32_t kLanSigBits = 0x00FF0000;
// ISR bits a protocol's register block may raise (vm/register_block.h): bits 8..14, free
// in the map above. lanaikit's, not Myricom's; each block documents which it uses.
inline constexpr uint32_t kBlockIsrBits = 0x00007F00;

// Every register by name, for messages, debuggers and scripts.
struct RegisterName {
  const char* name;
  uint32_t offset;
  bool readable, writable; // by the CPU
};
inline constexpr RegisterName kRegisterNames[] = {
    {"ISR", ISR, true, true},           {"EIMR", EIMR, true, true},
    {"IT0", IT0, true, true},           {"RTC", RTC, true, true},
    {"LAR", LAR, true, true},           {"EAR", EAR, true, true},
    {"CTR", CTR, true, true},           {"DMA_DIR", DMA_DIR, true, true},
    {"RMP", RMP, true, true},           {"RML", RML, true, true},
    {"SMP", SMP, true, true},           {"SML", SML, false, true},
    {"SMLT", SMLT, false, true},        {"HOST_SIG", HOST_SIG, true, false},
    {"SIG", SIG, false, true},          {"RECV_STATUS", RECV_STATUS, true, false},
    {"LINK_STATUS", LINK_STATUS, true, false}, {"CRC_ERRORS", CRC_ERRORS, true, false},
};

// The register at `offset`, or null.
constexpr const RegisterName* register_at(uint32_t offset) {
  for (const auto& r : kRegisterNames)
    if (r.offset == offset) return &r;
  return nullptr;
}
inline constexpr uint32_t kLevelBits = DMA_INT_BIT | SEND_INT_BIT;

} // namespace lanaikit::vm::regs
