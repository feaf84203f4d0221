// FUGU's network interface (vm/fugu_interface.h) on a cluster of FUGU nodes, driven by
// firmware with the UDM kernel's trap entry (firmware/udm/traps.s) in user and kernel mode:
// sends and receives by interrupt and by polling, every protection trap, the atomicity
// timeout revoking an interrupt disable, GID isolation, a sender blocked by a full network,
// and the same results whatever the CPU's batch size.
#include "firmware.h"
#include "sim/cluster.h"

#include <gtest/gtest.h>

namespace lanaikit {
namespace {

using vm::FuguInterface;

constexpr uint32_t kCtl = 0x30000;
enum Scenario : uint32_t { SEND = 1, RECV_INT = 2, RECV_POLL = 3, PROTECT = 4, TIMEOUT = 5,
                           SEND_BIG = 6, RECV_LATE = 7, FORCE = 8, FORCE_RESUMED = 9 };
enum Result : int { R_COUNT = 0, R_SUM = 1, R_MISMATCH = 2, R_TIMEOUTS = 3, R_ORDER = 4, R_HEAD = 5 };

const assembler::FirmwareImage& image() {
  static const assembler::FirmwareImage img = test::build_firmware(
      {test::source("tests/chip/fw/fugutest.c"), test::source("firmware/udm/traps.s")});
  return img;
}

struct NodeSetup {
  uint32_t scenario, arg0 = 0, gid = 0;
};

struct FuguRig {
  std::unique_ptr<sim::Cluster> c;
  std::vector<bool> stopped;

  FuguRig(const std::vector<NodeSetup>& nodes, uint64_t max_batch = 0) {
    sim::ClusterParams p;
    p.nodes = uint32_t(nodes.size());
    p.node.chip = vm::ChipParams::lanaikit_default();
    p.node.pci = host::PciParams::vmmc();
    p.fugu = FuguInterface::Config{};
    c = std::make_unique<sim::Cluster>(p);
    stopped.assign(nodes.size(), false);
    for (uint32_t i = 0; i < nodes.size(); ++i) {
      sim::Node& n = c->node(i);
      n.load(image());
      put(i, kCtl, nodes[i].scenario);
      put(i, kCtl + 4, nodes[i].arg0);
      put(i, kCtl + 8, nodes[i].gid);
      n.chip().set_max_batch(max_batch);
      n.chip().on_stop([this, i](vm::Chip&) { stopped[i] = true; });
      n.start();
    }
  }
  void put(uint32_t node, uint32_t addr, uint32_t v) {
    const uint8_t b[4] = {uint8_t(v >> 24), uint8_t(v >> 16), uint8_t(v >> 8), uint8_t(v)};
    c->node(node).chip().host_write_sram(addr, b);
  }
  uint32_t word(uint32_t node, uint32_t addr) {
    uint8_t b[4];
    c->node(node).chip().host_read_sram(addr, b);
    return uint32_t(b[0]) << 24 | uint32_t(b[1]) << 16 | uint32_t(b[2]) << 8 | b[3];
  }
  uint32_t result(uint32_t node, int i) { return word(node, kCtl + 16 + 4 * i); }
  std::vector<uint32_t> log(uint32_t node) {
    std::vector<uint32_t> out;
    for (uint32_t i = 0; i < word(node, kCtl + 0xFC); ++i) out.push_back(word(node, kCtl + 0x100 + 4 * i));
    return out;
  }
  vm::Cpu& cpu(uint32_t node) { return c->node(node).chip().cpu(); }
  // Runs until every node's CPU stopped (halted or faulted) or `until`.
  void run(sim::Time until = 20 * sim::kMillisecond) {
    while (c->kernel().now() < until && std::find(stopped.begin(), stopped.end(), false) != stopped.end())
      c->kernel().run_until(std::min(until, c->kernel().now() + 100 * sim::kMicrosecond));
  }
  bool halted_cleanly(uint32_t node) {
    const vm::Cpu& cp = cpu(node);
    if (cp.fault()) ADD_FAILURE() << "node " << node << ":\n" << cp.fault_report();
    return cp.halted() && !cp.fault();
  }
};

TEST(FuguInterface, TheTrapTableIsAlignedForTbr) {
  const auto sym = image().symbol("udm_trap_table");
  ASSERT_TRUE(sym.has_value());
  EXPECT_EQ(*sym % 1024, 0u);
}

TEST(FuguInterface, UserSendsAndTheKernelReceivesByInterrupt) {
  FuguRig r({{SEND, 50}, {RECV_INT, 50}});
  r.run();
  ASSERT_TRUE(r.halted_cleanly(0));
  ASSERT_TRUE(r.halted_cleanly(1));
  EXPECT_EQ(r.result(1, R_COUNT), 50u);
  EXPECT_EQ(r.result(1, R_ORDER), 0u); // in order, payloads intact
  EXPECT_EQ(r.result(1, R_SUM), 50u * 49 / 2);
  EXPECT_EQ(r.result(1, R_MISMATCH), 0u);
  const auto log = r.log(1);
  EXPECT_EQ(std::count(log.begin(), log.end(), 2u), 50); // message-available, once per message
  const auto& ni = r.c->fugu_interface(1)->counters();
  EXPECT_EQ(ni.received, 50u);
  EXPECT_EQ(ni.disposed, 50u);
  EXPECT_EQ(r.c->fugu_interface(0)->counters().launched, 50u);
}

TEST(FuguInterface, UserPollsWithInterruptsDisabled) {
  FuguRig r({{SEND, 40}, {RECV_POLL, 40}});
  r.run();
  ASSERT_TRUE(r.halted_cleanly(1));
  EXPECT_EQ(r.result(1, R_COUNT), 40u);
  EXPECT_EQ(r.result(1, R_ORDER), 0u);
  // No message interrupt was taken: only the exit SYSCALL.
  EXPECT_EQ(r.log(1), std::vector<uint32_t>{33u});
}

TEST(FuguInterface, UserCodeIsRefusedEveryKernelPower) {
  FuguRig r({{PROTECT}, {RECV_LATE, 0}});
  r.run();
  ASSERT_TRUE(r.halted_cleanly(0));
  // kernel message, 17 words, no such node (protection violation); GID (privileged); bad
  // dispose; endatom with dispose-pending (dispose failure); SYSCALL 2 (divert); dispose in
  // divert mode (dispose-extend); a CPU register (privileged); the exit.
  EXPECT_EQ(r.log(0), (std::vector<uint32_t>{40, 40, 40, 32, 43, 42, 33, 41, 32, 33}));
  EXPECT_EQ(r.result(0, 7), 100u); // NODE is readable
  EXPECT_EQ(r.c->fugu_interface(0)->counters().launched, 0u);
  EXPECT_EQ(r.c->fugu_interface(1)->counters().received, 0u);
}

TEST(FuguInterface, AtomicityTimeoutRevokesTheDisableAndDivertsToTheKernel) {
  FuguRig r({{SEND, 3}, {TIMEOUT, 3}});
  r.run();
  ASSERT_TRUE(r.halted_cleanly(1));
  EXPECT_EQ(r.result(1, R_TIMEOUTS), 1u);
  EXPECT_EQ(r.result(1, R_COUNT), 3u);
  EXPECT_EQ(r.result(1, R_ORDER), 0u);
  EXPECT_EQ(r.result(1, R_MISMATCH), 3u); // divert mode: every message to the kernel
  EXPECT_EQ(r.c->fugu_interface(1)->counters().timeouts, 1u);
}

TEST(FuguInterface, TimerForceCountsUserCyclesFromTheBeginatom) {
  // The loop after BEGINATOM costs the same every iteration: twice the timeout, about twice
  // the iterations (the kernel's halt records how far it got).
  FuguRig a({{FORCE, 3000, 37}});
  FuguRig b({{FORCE, 6000, 37}});
  a.run();
  b.run();
  ASSERT_TRUE(a.halted_cleanly(0));
  ASSERT_TRUE(b.halted_cleanly(0));
  const uint32_t na = a.result(0, 9), nb = b.result(0, 9);
  EXPECT_GT(na, 100u);
  EXPECT_NEAR(double(nb) / na, 2.0, 0.05) << na << " " << nb;
}

TEST(FuguInterface, ATimerWriteSetsWhatItsNextStartCountsFrom) {
  // What a context switch does: TIMER written while the timer is stopped; the next start
  // counts from it once (half the timeout: about half the iterations), and a read while
  // stopped shows it.
  FuguRig full({{FORCE, 6000, 37}});
  FuguRig half({{FORCE_RESUMED, 6000, 37}});
  full.run();
  half.run();
  ASSERT_TRUE(full.halted_cleanly(0));
  ASSERT_TRUE(half.halted_cleanly(0));
  EXPECT_EQ(half.result(0, 7), 3000u);
  const uint32_t nf = full.result(0, 9), nh = half.result(0, 9);
  EXPECT_GT(nh, 50u);
  EXPECT_NEAR(double(nf) / nh, 2.0, 0.05) << nf << " " << nh;
}

TEST(FuguInterface, AnotherGroupsMessagesGoToTheKernel) {
  FuguRig r({{SEND, 5, 1}, {RECV_INT, 5, 2}});
  r.run();
  ASSERT_TRUE(r.halted_cleanly(1));
  EXPECT_EQ(r.result(1, R_MISMATCH), 5u);
  EXPECT_EQ(r.result(1, R_COUNT), 5u);
  EXPECT_EQ((r.result(1, R_HEAD) >> 8) & 0xFF, 1u); // the sender's GID, stamped by its NI
}

TEST(FuguInterface, ASenderBlocksWhileTheNetworkIsFullAndLosesNothing) {
  FuguRig r({{SEND_BIG, 40}, {RECV_LATE, 40}});
  r.run();
  ASSERT_TRUE(r.halted_cleanly(0));
  ASSERT_TRUE(r.halted_cleanly(1));
  EXPECT_EQ(r.result(1, R_COUNT), 40u);
  EXPECT_EQ(r.result(1, R_ORDER), 0u);
  EXPECT_GT(r.c->fugu_interface(0)->counters().blocked_cycles, 100u);
}

// Hostile packets (a length field of 0, of more than 16 words, or not matching the bytes;
// a header cut short) are dropped and counted at the receiving interface; the legitimate
// messages behind them arrive intact and in order.
TEST(FuguInterface, MalformedPacketsAreDroppedAndCounted) {
  FuguRig r({{SEND, 10}, {RECV_INT, 10}});
  net::Network& net = r.c->network();
  auto inject = [&](std::vector<uint8_t> payload) {
    net.node_tx(0).send(net.make_packet(0, 1, 9000 + payload.size(), payload));
  };
  inject({0, 0, 0, 0});                          // length 0
  inject({0, 0, 0, 20, 1, 2, 3, 4});             // 20 words claimed
  inject({0, 0, 0, 5, 0, 0, 0, 1, 0, 0, 0, 2});  // 5 claimed, 2 carried
  inject({0, 0});                                // a header cut short
  r.run();
  ASSERT_TRUE(r.halted_cleanly(1));
  EXPECT_EQ(r.c->fugu_interface(1)->counters().malformed, 4u);
  EXPECT_EQ(r.result(1, R_COUNT), 10u);
  EXPECT_EQ(r.result(1, R_ORDER), 0u);
  EXPECT_EQ(r.result(1, R_MISMATCH), 0u);
}

// Batching: the CPU's batch size never changes a result, with interrupts, traps, the
// atomicity alarm and blocked stores in play.
TEST(FuguInterface, BatchSizesGiveOneResult) {
  struct Outcome {
    uint64_t hash, insns0, insns1, cycles1;
    std::vector<uint32_t> log1;
    uint32_t count;
    bool operator==(const Outcome&) const = default;
  };
  for (const auto& nodes : {std::vector<NodeSetup>{{SEND, 30}, {RECV_INT, 30}},
                            std::vector<NodeSetup>{{SEND, 3}, {TIMEOUT, 3}},
                            std::vector<NodeSetup>{{SEND_BIG, 12}, {RECV_LATE, 12}},
                            std::vector<NodeSetup>{{FORCE, 777, 5}}}) {
    std::vector<Outcome> out;
    const uint32_t last = uint32_t(nodes.size() - 1);
    for (uint64_t batch : {0u, 1u, 7u}) {
      FuguRig r(nodes, batch);
      r.run();
      out.push_back({r.c->kernel().trace_hash(), r.cpu(0).instructions(), r.cpu(last).instructions(),
                     r.cpu(last).cycles(), r.log(last),
                     r.result(last, nodes[last].scenario == FORCE ? 9 : R_COUNT)});
    }
    EXPECT_GT(out[0].count, 0u);
    EXPECT_TRUE(out[0] == out[1]) << "scenario " << nodes.back().scenario << ": batch 1 differs";
    EXPECT_TRUE(out[0] == out[2]) << "scenario " << nodes.back().scenario << ": batch 7 differs";
  }
}

} // namespace
} // namespace lanaikit
