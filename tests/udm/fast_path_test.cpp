// UDM's fast path measured on the emulated FUGU node (docs/udm.md, "The fast path"): the
// cycles to receive a null message at kernel level, at user level by interrupt (an assembly
// null handler, a C handler through the runtime's upcall entry) and by polling, and to send
// one; the per-argument increments. The paper's Table 4 numbers are these paths on a
// Sparcle. The test checks what must hold whatever the costs (every message costs the
// same, the orderings, the increments the cost model implies) and prints the table.
#include "udm_support.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <map>

namespace lanaikit {
namespace {

constexpr uint32_t kCtl = 0x30000;
enum Scenario : uint32_t { SENDER = 1, KERNEL_RECV = 2, USER_RECV = 3, USER_C_RECV = 4,
                           POLL_RECV = 5, SENDER_ARG = 6, USER_ARG_RECV = 7 };
constexpr uint32_t kMessages = 20;

const assembler::FirmwareImage& image() {
  static const assembler::FirmwareImage img =
      test::udm::build({"firmware/udm/bench/table4.c", "firmware/udm/bench/paths.s"});
  return img;
}

uint32_t sym(const char* name) { return test::udm::symbol(image(), name); }

// Cycles per instruction address, from the first time the CPU reaches the idle loop (or the
// polling loop): what the node spends on messages, and nothing of its start-up.
class PathCycles : public vm::Instrument {
public:
  PathCycles(uint32_t start_lo, uint32_t start_hi) : lo_(start_lo), hi_(start_hi) {}
  bool before(uint32_t pc) override {
    if (!started_ && pc >= lo_ && pc < hi_) started_ = true;
    return true;
  }
  void after(uint32_t pc, uint32_t cycles) override {
    if (started_) by_pc[pc] += cycles;
  }
  uint64_t in(uint32_t lo, uint32_t hi) const {
    uint64_t n = 0;
    for (auto& [pc, c] : by_pc)
      if (pc >= lo && pc < hi) n += c;
    return n;
  }
  uint64_t outside(uint32_t lo, uint32_t hi) const {
    uint64_t n = 0;
    for (auto& [pc, c] : by_pc)
      if (pc < lo || pc >= hi) n += c;
    return n;
  }
  std::map<uint32_t, uint64_t> by_pc;

private:
  uint32_t lo_, hi_;
  bool started_ = false;
};

struct PathRun {
  uint64_t receive_cycles = 0; // the receiver's, per message
  uint64_t poll_cycles = 0;    // in the polling loop's receive block, per message
  uint64_t send_cycles = 0;    // in the send routine, per message
  uint64_t disposed = 0;
  std::map<uint32_t, uint64_t> by_pc; // the receiver's cycles per address
};

PathRun measure(Scenario receiver, uint32_t handler, Scenario sender = SENDER) {
  sim::Cluster c(test::udm::fugu_cluster(2));
  const bool poll = receiver == POLL_RECV;
  PathCycles rx(poll ? sym("bench_poll") : sym("bench_idle"), poll ? sym("bench_poll_end") : sym("bench_idle_end"));
  const uint32_t send_lo = sym(sender == SENDER ? "bench_send_null" : "bench_send_arg");
  const uint32_t send_hi = sym(sender == SENDER ? "bench_send_null_end" : "bench_send_arg_end");
  PathCycles txs(send_lo, send_hi);
  const Scenario roles[2] = {sender, receiver};
  for (uint32_t i = 0; i < 2; ++i) {
    sim::Node& n = c.node(i);
    n.load(image());
    for (auto [off, v] : {std::pair{0u, uint32_t(roles[i])}, {4u, kMessages}, {8u, 300u}, {12u, handler}})
      test::udm::write_word(n, kCtl + off, v);
    n.chip().set_instrument(i == 0 ? static_cast<vm::Instrument*>(&txs) : &rx);
    n.start();
  }
  c.kernel().run_until(100 * sim::kMillisecond);
  for (uint32_t i = 0; i < 2; ++i)
    if (c.node(i).chip().cpu().fault()) ADD_FAILURE() << c.node(i).chip().cpu().fault_report();
  EXPECT_TRUE(c.node(0).chip().cpu().halted()) << "the sender did not finish";
  PathRun r;
  r.disposed = c.fugu_interface(1)->counters().disposed;
  EXPECT_EQ(r.disposed, kMessages);
  const uint64_t rx_total = poll ? rx.in(sym("bench_poll_receive"), sym("bench_poll_end"))
                                 : rx.outside(sym("bench_idle"), sym("bench_idle_end"));
  EXPECT_EQ(rx_total % kMessages, 0u) << "messages cost different cycles";
  r.receive_cycles = rx_total / kMessages;
  r.by_pc = rx.by_pc;
  const uint64_t tx_total = txs.in(send_lo, send_hi);
  EXPECT_EQ(tx_total % kMessages, 0u);
  r.send_cycles = tx_total / kMessages;
  return r;
}

TEST(UdmFastPath, Table4PathsOnTheEmulatedNode) {
  const PathRun kernel = measure(KERNEL_RECV, sym("udm_null_kernel_handler"));
  const PathRun user = measure(USER_RECV, 0);
  const PathRun user_c = measure(USER_C_RECV, sym("null_c_handler"));
  const PathRun poll = measure(POLL_RECV, 0x1234);
  const PathRun user_arg = measure(USER_ARG_RECV, 0, SENDER_ARG);
  // Send: two describing stores and a launch; an argument is one store more, which the
  // cost model prices at base + memory-mapped access.
  const vm::CostModel cm;
  EXPECT_EQ(user_arg.send_cycles - user.send_cycles, cm.base_cycles + cm.mmio_cycles);
  EXPECT_LT(poll.receive_cycles, kernel.receive_cycles);
  EXPECT_LT(kernel.receive_cycles, user.receive_cycles);
  EXPECT_LT(user.receive_cycles, user_c.receive_cycles);
  EXPECT_GT(user_arg.receive_cycles, user.receive_cycles);
  std::printf("UDM Table 4 paths on the emulated node (cycles per null message; paper: Sparcle)\n");
  std::printf("  send (describe 2 words + launch)      %4llu   +%llu per argument\n",
              (unsigned long long)user.send_cycles,
              (unsigned long long)(user_arg.send_cycles - user.send_cycles));
  std::printf("  kernel-level interrupt receive        %4llu   (paper 54)\n",
              (unsigned long long)kernel.receive_cycles);
  std::printf("  user-level interrupt receive, asm     %4llu   (paper 87)   +%llu with one argument read\n",
              (unsigned long long)user.receive_cycles,
              (unsigned long long)(user_arg.receive_cycles - user.receive_cycles));
  std::printf("  user-level interrupt receive, C       %4llu\n", (unsigned long long)user_c.receive_cycles);
  std::printf("  polling receive                       %4llu   (paper 9)\n",
              (unsigned long long)poll.receive_cycles);
  // Where the user-level path's cycles go (entry cycles count with the vector).
  auto part = [&](uint32_t lo, uint32_t hi) {
    uint64_t n = 0;
    for (auto& [pc, c] : user.by_pc)
      if (pc >= lo && pc < hi) n += c;
    return n / kMessages;
  };
  const uint32_t table = sym("udm_fast_table");
  const uint64_t vec2 = part(table + 2 * 16, table + 3 * 16), vec44 = part(table + 44 * 16, table + 45 * 16);
  const uint64_t up = part(sym("udm_fast_message"), sym("udm_fast_return"));
  const uint64_t back = part(sym("udm_fast_return"), sym("udm_kernel_message_done"));
  const uint64_t handler = part(sym("udm_null_handler"), sym("udm_c_upcall"));
  std::printf("  user-level, asm: entry + vector %llu, save the stream and upcall %llu, handler %llu, "
              "ENDATOM trap entry + vector %llu, restore and return %llu\n",
              (unsigned long long)vec2, (unsigned long long)up, (unsigned long long)handler,
              (unsigned long long)vec44, (unsigned long long)back);
  EXPECT_EQ(vec2 + up + handler + vec44 + back, user.receive_cycles);
}

} // namespace
} // namespace lanaikit
