// The DART firmware tests' bench: two nodes on an ATM network with DART's image, the
// driver's tables written straight into SRAM (node 1: connection 5 into an endpoint of
// three pages scattered backwards in physical memory, a window of 8 registers from 100,
// replies on VCI 6; node 0: connection 6 into the same-shaped endpoint, 4 registers from
// 200), the endpoints' memory backgrounded with 0xEE so a stray write shows, and control
// cells injected on node 0's link as a sender's card would send them.
#pragma once

#include "dart_setup.h"

#include "base/bytes.h"
#include "host/dart/cell.h"
#include "host/dart/send_registers.h"
#include "net/atm.h"

#include <gtest/gtest.h>

#include <array>
#include <functional>
#include <string>
#include <vector>

namespace lanaikit::test {

using dart::Amode;
using dart::Cell;
using dart::Cmp;
using dart::Op;
using dart::RegOp;
using dart::Sel;
using dart::Src;
constexpr Op NOP = Op::Nop, WRITE = Op::Write, READ = Op::Read;
constexpr Amode DIRECT = Amode::Direct, INDIRECT = Amode::Indirect, INDEXED = Amode::Indexed;

constexpr uint32_t kVa = 0x40000000;   // the endpoint's virtual base on node 1
constexpr uint32_t kBound = 3 * 4096;  // three pages
constexpr uint32_t kAsid = 7;
// Its pages lie scattered and backwards in physical memory: frame of page p.
constexpr uint32_t frame_of(uint32_t p) { return 0x300 - 0x10 * p; }
constexpr uint64_t pa_of(uint32_t offset) {
  return uint64_t(frame_of(offset >> 12)) << 12 | (offset & 0xFFF);
}

class DartBench {
public:
  explicit DartBench(bool with_switch = false, int link = -1)
      : h(image(), dart_cluster(with_switch, link), "dart") {
    for (uint32_t n = 0; n < 2; ++n) {
      send_regs[n] = static_cast<dart::SendRegisters*>(&h.node(n).chip().attach_block(
          dart::kSendRegistersBase, std::make_unique<dart::SendRegisters>()));
      set(n, "dart_endpoints[1].base", kVa);
      set(n, "dart_endpoints[1].bound", kBound);
      set(n, "dart_endpoints[1].asid", kAsid);
      set(n, "dart_endpoints[1].flags", h.constant("EP_OPEN"));
    }
    // Node 1: connection 5 (window of 8 registers from 100), replies on VCI 6; node 0:
    // connection 6 into the same-shaped endpoint, where replies land.
    open(1, 5, 100, 8, 6);
    open(0, 6, 200, 4, 5);
    for (uint32_t n = 0; n < 2; ++n)
      for (uint32_t p = 0; p < 3; ++p) map(n, p);
    if (with_switch) {
      h.cluster().atm()->connect(0, 5, 1, 5);
      h.cluster().atm()->connect(1, 6, 0, 6);
    }
    for (uint32_t n = 0; n < 2; ++n) {
      // Background the endpoint's memory so a stray write shows.
      std::vector<uint8_t> fill(kBound, 0xEE);
      for (uint32_t p = 0; p < 3; ++p)
        h.node(n).memory().write(pa_of(p * 4096), std::span(fill).subspan(0, 4096));
      set(n, "dart.go", h.constant("DART_GO"));
    }
    h.start("dart.ready");
  }
  void set(uint32_t n, const std::string& path, uint64_t v) { h.poke(n, path, v); }
  uint64_t get(uint32_t n, const std::string& path) { return h.peek(n, path); }
  void open(uint32_t n, uint32_t vci, uint32_t reg_base, uint32_t reg_count, uint32_t reply) {
    const std::string c = "dart_conns[" + std::to_string(vci) + "]";
    set(n, c + ".endpoint", 1);
    set(n, c + ".reg_base", reg_base);
    set(n, c + ".reg_count", reg_count);
    set(n, c + ".reply_vci", reply);
    set(n, c + ".flags", h.constant("CONN_OPEN"));
  }
  // The TLB entry the driver writes for page p of the endpoint.
  void map(uint32_t n, uint32_t p) {
    const uint32_t vpage = (kVa >> 12) + p;
    const uint32_t slot = (vpage ^ (kAsid << 4)) & (h.constant("TLB_ENTRIES") - 1);
    const std::string e = "dart_tlb[" + std::to_string(slot) + "]";
    set(n, e + ".frame", frame_of(p));
    set(n, e + ".tag", h.constant("TLB_VALID") | kAsid << 20 | vpage);
  }
  void unmap(uint32_t n, uint32_t p) {
    const uint32_t vpage = (kVa >> 12) + p;
    const uint32_t slot = (vpage ^ (kAsid << 4)) & (h.constant("TLB_ENTRIES") - 1);
    set(n, "dart_tlb[" + std::to_string(slot) + "].tag", 0);
  }
  uint32_t reg(uint32_t n, uint32_t r) { return uint32_t(get(n, "dart_regs[" + std::to_string(r) + "]")); }
  void set_reg(uint32_t n, uint32_t r, uint32_t v) { set(n, "dart_regs[" + std::to_string(r) + "]", v); }
  uint32_t word(uint32_t n, uint32_t offset) { return h.mem32(n, pa_of(offset)); }
  // Node 0's card sends a cell on `vci` (the one-cell message convention: end-of-SDU PTI).
  void send(const Cell& c, uint16_t vci = 5) {
    h.cluster().atm()->node_tx(0).send_cell(vci, c.bytes(), ++sent_, net::kPtiEndOfSdu);
  }
  void run_until_cells(uint32_t n, uint64_t cells) {
    h.run([&] { return get(n, "dart.counters.cells") >= cells; }, 20 * sim::kMillisecond);
  }
  uint64_t counter(uint32_t n, const std::string& name) { return get(n, "dart.counters." + name); }
  // The driver's part on node n, done by the bench: on each LAN0 signal, every new event;
  // for a TLB miss, `on_miss(event path)` (which makes the page resident: map()), then
  // the parked cell resumed.
  void serve_misses(uint32_t n, std::function<void(const std::string&)> on_miss) {
    h.on_interrupt(n, vm::regs::LAN0_SIG_BIT, [this, n, on_miss] {
      if (!h.take_isr(n, vm::regs::LAN0_SIG_BIT)) return;
      while (get(n, "dart.ev_tail") < get(n, "dart.ev_head")) {
        const uint64_t t = get(n, "dart.ev_tail");
        const std::string e = "dart_events[" + std::to_string(t % 64) + "]";
        if (get(n, e + ".kind") == h.constant("DartEventKind.TLB_MISS")) {
          on_miss(e);
          set(n, "dart.resume", get(n, "dart.miss_seq"));
        }
        set(n, "dart.ev_tail", t + 1);
      }
    });
  }
  // Every word of node n's endpoint outside [lo, hi) is still the background.
  void expect_untouched_outside(uint32_t n, uint32_t lo, uint32_t hi) {
    for (uint32_t off = 0; off < kBound; off += 4)
      if (off < lo || off >= hi) {
        ASSERT_EQ(word(n, off), 0xEEEEEEEEu) << "offset " << off;
      }
  }

  test::LcpBench h;
  std::array<dart::SendRegisters*, 2> send_regs{};
  uint64_t sent_ = 0;
};

Cell with_data(Cell c, uint32_t seed) {
  for (uint32_t w = 0; w < 8; ++w) c.data[w] = seed + w;
  return c;
}

constexpr Op WRITE_MULTIPLE = Op::WriteMultiple;

Cell block_control(uint32_t offset, uint32_t size) {
  Cell c = Cell::make(WRITE_MULTIPLE, 0, DIRECT, offset);
  c.data[0] = size;
  return c;
}

std::vector<uint8_t> block_bytes(uint32_t size, uint8_t seed) {
  std::vector<uint8_t> v(size);
  for (uint32_t i = 0; i < size; ++i) v[i] = uint8_t(seed + 13 * i + (i >> 8));
  return v;
}

std::vector<uint8_t> endpoint_bytes(DartBench& b, uint32_t n, uint32_t offset, uint32_t len) {
  std::vector<uint8_t> v;
  for (uint32_t i = 0; i < len; i += 4) {
    uint8_t w[4];
    store_be32(w, b.word(n, offset + i));
    v.insert(v.end(), w, w + std::min<uint32_t>(4, len - i));
  }
  return v;
}

} // namespace lanaikit::test
