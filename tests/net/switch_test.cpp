// Switches and topologies: route bytes consumed, fall-through, wormhole blocking with
// round-robin arbitration, many-to-one saturation, down ports, chains, determinism.
#include "net/switch.h"
#include "net/topology.h"
#include "test_sinks.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <string>

using namespace lanaikit;
using namespace lanaikit::net;
using namespace lanaikit::net::testing;
using sim::kNanosecond;

namespace {
// A network plus a collector on every node's receiving link.
struct Rig {
  sim::Kernel k;
  std::unique_ptr<Network> net;
  std::vector<std::unique_ptr<Collector>> rx;
  void collect() {
    for (uint32_t n = 0; n < net->nodes(); ++n) {
      rx.push_back(std::make_unique<Collector>(k));
      net->node_rx(n).set_sink(rx.back().get());
    }
  }
  void send(uint32_t src, uint32_t dst, uint64_t id, size_t payload) {
    net->node_tx(src).send(net->make_packet(src, dst, id, pattern(payload, uint32_t(id))));
  }
};
std::unique_ptr<Rig> single(uint32_t nodes, LinkConfig link = {}, SwitchConfig sw = {}) {
  auto r = std::make_unique<Rig>();
  r->net = build_single_switch(r->k, nodes, link, sw);
  r->collect();
  return r;
}
} // namespace

TEST(Switch, ConsumesTheRouteByteAfterTheFallThroughTime) {
  auto r = single(4);
  r->send(0, 1, 11, 63); // 64 bytes with the route byte
  r->k.run();
  ASSERT_EQ(r->rx[1]->packets.size(), 1u);
  const Arrival& a = r->rx[1]->packets[0];
  EXPECT_EQ(a.bytes, pattern(63, 11)); // the route byte is gone
  EXPECT_EQ(a.id, 11u);
  // Head chunk (32 bytes) at the switch: 50 + 200 ns. Fall-through 500 ns: the head leaves
  // at 750 ns; 63 data + CRC = 64 wire bytes take 400 ns; 50 ns of cable. The first chunk
  // out is the first chunk in less its route byte: 31 bytes.
  EXPECT_EQ(a.head_ps, 750'000 + 31 * 6'250 + 50'000);
  EXPECT_EQ(a.tail_ps, 750'000 + 400'000 + 50'000);
  EXPECT_EQ(r->net->switch_at(0).counters().packets_routed, 1u);
  for (uint32_t n : {0u, 2u, 3u}) EXPECT_TRUE(r->rx[n]->packets.empty());
}

TEST(Switch, LongPacketCutsThroughWithoutStalling) {
  auto r = single(2);
  r->send(0, 1, 1, 1000);
  r->k.run();
  ASSERT_EQ(r->rx[1]->packets.size(), 1u);
  // The output starts 500 ns after the head chunk arrived and, fed faster than it sends,
  // runs 1001 wire bytes back to back: 750 ns + 6256.25 ns + 50 ns.
  EXPECT_EQ(r->rx[1]->packets[0].tail_ps, 750'000 + 6'256'250 + 50'000);
  EXPECT_EQ(r->rx[1]->packets[0].bytes, pattern(1000, 1));
}

TEST(Switch, TwoInputsToOneOutputBlockTheLoserWormholeStyle) {
  auto r = single(4);
  r->send(0, 2, 100, 1000);
  r->send(1, 2, 200, 1000);
  bool checked = false;
  r->k.schedule_at(3000 * kNanosecond, [&] {
    // Mid-way through the winner: it holds the output; the loser's bytes fill its
    // incoming link's slack buffer and its sender is stopped.
    EXPECT_EQ(r->net->switch_at(0).holder(2), 0);
    EXPECT_TRUE(r->net->node_tx(1).stopped());
    EXPECT_GE(r->net->node_tx(1).buffered_bytes(), LinkConfig{}.stop_bytes);
    checked = true;
  });
  r->k.run();
  EXPECT_TRUE(checked);
  const auto& got = r->rx[2]->packets;
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].id, 100u); // round robin starts at input 0
  EXPECT_EQ(got[1].id, 200u);
  EXPECT_EQ(got[0].bytes, pattern(1000, 100));
  EXPECT_EQ(got[1].bytes, pattern(1000, 200));
  // Both heads routed at 750 ns; the output then sends both packets back to back.
  EXPECT_EQ(got[0].tail_ps, 750'000 + 6'256'250 + 50'000);
  EXPECT_EQ(got[1].tail_ps, 750'000 + 2 * 6'256'250 + 50'000);
  EXPECT_GT(r->net->node_tx(1).counters().stops, 0u);
  EXPECT_GT(r->net->node_tx(1).counters().time_stopped_ps, 0);
  EXPECT_LE(r->net->node_tx(1).counters().max_buffered_bytes, LinkConfig{}.slack_bytes);
}

TEST(Switch, ArbitrationIsRoundRobin) {
  auto r = single(4);
  for (int round = 0; round < 3; ++round)
    for (uint32_t src : {0u, 1u, 3u}) r->send(src, 2, src * 10 + round, 200);
  r->k.run();
  std::vector<uint64_t> order;
  for (const Arrival& a : r->rx[2]->packets) order.push_back(a.id);
  EXPECT_EQ(order, (std::vector<uint64_t>{0, 10, 30, 1, 11, 31, 2, 12, 32}));
}

TEST(Switch, ManyToOneSaturationLosesNoByte) {
  auto r = single(8);
  const int kPerSource = 20, kPayload = 512;
  for (int i = 0; i < kPerSource; ++i)
    for (uint32_t src = 0; src < 7; ++src) r->send(src, 7, src * 1000 + i, kPayload);
  r->k.run();
  const auto& got = r->rx[7]->packets;
  ASSERT_EQ(got.size(), size_t(7 * kPerSource));
  std::vector<int> next(7, 0);
  for (const Arrival& a : got) {
    const uint32_t src = uint32_t(a.id / 1000);
    ASSERT_LT(src, 7u);
    EXPECT_EQ(a.id % 1000, uint64_t(next[src]++)) << "per-source order";
    EXPECT_EQ(a.bytes, pattern(kPayload, uint32_t(a.id)));
    EXPECT_EQ(a.status, 0u);
  }
  // The output never idles once the first head is routed: 140 packets of 513 wire bytes.
  const uint64_t wire = 7ull * kPerSource * (kPayload + 1);
  EXPECT_EQ(got.back().tail_ps, 750'000 + r->net->node_rx(7).wire_time(wire) + 50'000);
  for (size_t i = 0; i < r->net->link_count(); ++i)
    EXPECT_LE(r->net->link_at(i).counters().max_buffered_bytes, LinkConfig{}.slack_bytes);
  EXPECT_EQ(r->net->switch_at(0).counters().packets_discarded, 0u);
}

TEST(Switch, PoweredOffNodeMakesTheSwitchDiscardAndCount) {
  auto r = single(4);
  r->net->set_node_powered(2, false);
  for (int i = 0; i < 3; ++i) r->send(0, 2, i, 300);
  r->send(0, 1, 9, 300);
  // A route byte naming no port is discarded too.
  r->net->node_tx(3).send(Packet{77, {9, 1, 2, 3}, 0});
  r->k.run();
  EXPECT_TRUE(r->rx[2]->packets.empty());
  ASSERT_EQ(r->rx[1]->packets.size(), 1u);
  EXPECT_EQ(r->rx[1]->packets[0].id, 9u);
  const SwitchCounters& c = r->net->switch_at(0).counters();
  EXPECT_EQ(c.discarded_by_port[2], 3u);
  EXPECT_EQ(c.bad_routes, 1u);
  EXPECT_EQ(c.packets_discarded, 4u);
  EXPECT_EQ(r->net->node_tx(0).buffered_bytes(), 0u);
  // Powered back on, the port carries traffic again.
  r->net->set_node_powered(2, true);
  r->send(0, 2, 5, 10);
  r->k.run();
  ASSERT_EQ(r->rx[2]->packets.size(), 1u);
  EXPECT_EQ(r->rx[2]->packets[0].id, 5u);
}

// An empty packet (no route byte) crosses the link as one chunk with no bytes, head and
// tail at once; the link takes a chunk with no bytes as consumed whatever the sink answers,
// so the switch must discard it at once. It used to start routing it, find no route after
// the fall-through time, and discard the next packet on that input instead (found with
// the packet fuzz target; tests/fuzz/README.md).
TEST(Switch, EmptyPacketIsDiscardedWithoutTakingTheNextOne) {
  auto r = single(4);
  r->net->node_tx(0).send(Packet{70, {}, 0});
  r->send(0, 1, 71, 40);
  r->k.run();
  ASSERT_EQ(r->rx[1]->packets.size(), 1u);
  EXPECT_EQ(r->rx[1]->packets[0].id, 71u);
  EXPECT_EQ(r->rx[1]->packets[0].bytes, pattern(40, 71));
  const SwitchCounters& c = r->net->switch_at(0).counters();
  EXPECT_EQ(c.packets_discarded, 1u);
  EXPECT_EQ(c.bad_routes, 1u);
  EXPECT_EQ(c.packets_routed, 1u);
  EXPECT_EQ(r->net->node_tx(0).buffered_bytes(), 0u);
}

TEST(Switch, CrcErrorUpstreamStaysFlaggedDownstream) {
  sim::Kernel k;
  Network net(k);
  Switch& sw = net.add_switch(SwitchConfig{}, "sw");
  LinkConfig noisy;
  noisy.faults.corrupt_packets = {0};
  Link& in = net.add_link(noisy, "in");
  Link& out = net.add_link(LinkConfig{}, "out");
  sw.attach_input(0, in);
  sw.attach_output(1, out);
  Collector sink(k);
  out.set_sink(&sink);
  std::vector<uint8_t> bytes = pattern(41, 3);
  bytes[0] = 1; // route: port 1
  in.send(Packet{3, bytes, 0});
  in.send(Packet{4, bytes, 0});
  k.run();
  ASSERT_EQ(sink.packets.size(), 2u);
  // The first hop failed its check; the second hop's CRC was computed over the damaged
  // bytes and passes, but the flag travels with the packet.
  EXPECT_EQ(sink.packets[0].status, uint32_t(kCrcError));
  EXPECT_EQ(sink.packets[1].status, 0u);
  EXPECT_EQ(in.counters().crc_errors, 1u);
  EXPECT_EQ(out.counters().crc_errors, 0u);
}

TEST(Topology, ChainRoutesThroughEverySwitch) {
  sim::Kernel k;
  auto net = build_switch_chain(k, 3, 2, LinkConfig{}, SwitchConfig{});
  ASSERT_EQ(net->nodes(), 6u);
  EXPECT_EQ(net->route(0, 5), (std::vector<uint8_t>{3, 3, 1}));
  EXPECT_EQ(net->route(5, 0), (std::vector<uint8_t>{2, 2, 0}));
  EXPECT_EQ(net->route(2, 3), (std::vector<uint8_t>{1}));
  std::vector<std::unique_ptr<Collector>> rx;
  for (uint32_t n = 0; n < 6; ++n) {
    rx.push_back(std::make_unique<Collector>(k));
    net->node_rx(n).set_sink(rx.back().get());
  }
  net->node_tx(0).send(net->make_packet(0, 5, 1, pattern(13, 1)));
  net->node_tx(5).send(net->make_packet(5, 0, 2, pattern(13, 2)));
  k.run();
  ASSERT_EQ(rx[5]->packets.size(), 1u);
  ASSERT_EQ(rx[0]->packets.size(), 1u);
  EXPECT_EQ(rx[5]->packets[0].bytes, pattern(13, 1));
  EXPECT_EQ(rx[0]->packets[0].bytes, pattern(13, 2));
  // Per hop: the packet (one chunk) crosses the link, then waits 500 ns of fall-through;
  // each switch strips a byte: 17, 16, 15, 14 wire bytes at 6.25 ns, 50 ns per cable.
  const sim::Time expect = 4 * 50'000 + 3 * 500'000 + (17 + 16 + 15 + 14) * 6'250;
  EXPECT_EQ(rx[5]->packets[0].tail_ps, expect);
  EXPECT_EQ(rx[0]->packets[0].tail_ps, expect);
  for (size_t s = 0; s < net->switch_count(); ++s)
    EXPECT_EQ(net->switch_at(s).counters().packets_routed, 2u);
}

TEST(Topology, TwoLevelClosDeliversAllToAll) {
  sim::Kernel k;
  auto net = build_two_level_clos(k, 4, 2, 2, LinkConfig{}, SwitchConfig{});
  ASSERT_EQ(net->nodes(), 8u);
  ASSERT_EQ(net->switch_count(), 6u);
  EXPECT_EQ(net->route(0, 1), (std::vector<uint8_t>{1}));
  EXPECT_EQ(net->route(0, 7), (std::vector<uint8_t>{2 + 1, 3, 1})); // spine (0+7)%2 = 1
  EXPECT_EQ(net->route(2, 4), (std::vector<uint8_t>{2 + 0, 2, 0}));
  std::vector<std::unique_ptr<Collector>> rx;
  for (uint32_t n = 0; n < 8; ++n) {
    rx.push_back(std::make_unique<Collector>(k));
    net->node_rx(n).set_sink(rx.back().get());
  }
  for (uint32_t src = 0; src < 8; ++src)
    for (uint32_t dst = 0; dst < 8; ++dst)
      if (src != dst)
        for (int i = 0; i < 3; ++i)
          net->node_tx(src).send(net->make_packet(src, dst, src * 1000 + dst * 10 + i,
                                                  pattern(300, src * 8 + dst)));
  k.run();
  for (uint32_t dst = 0; dst < 8; ++dst) {
    ASSERT_EQ(rx[dst]->packets.size(), 21u) << "node " << dst;
    std::vector<int> next(8, 0);
    for (const Arrival& a : rx[dst]->packets) {
      const uint32_t src = uint32_t(a.id / 1000);
      EXPECT_EQ((a.id / 10) % 100, dst);
      EXPECT_EQ(a.id % 10, uint64_t(next[src]++)) << "in order per pair";
      EXPECT_EQ(a.bytes, pattern(300, src * 8 + dst));
    }
  }
}

namespace {
uint64_t busy_run(uint64_t seed) {
  sim::Kernel k;
  LinkConfig link;
  link.faults.seed = seed;
  link.faults.corrupt_probability = 0.05;
  link.faults.delay_probability = 0.05;
  link.faults.extra_delay_ps = 200 * kNanosecond;
  auto net = build_switch_chain(k, 2, 3, link, SwitchConfig{});
  std::vector<std::unique_ptr<Collector>> rx;
  for (uint32_t n = 0; n < net->nodes(); ++n) {
    rx.push_back(std::make_unique<Collector>(k));
    net->node_rx(n).set_sink(rx.back().get());
  }
  for (int i = 0; i < 30; ++i)
    for (uint32_t src = 0; src < 6; ++src) {
      const uint32_t dst = (src + 1 + uint32_t(i) % 5) % 6;
      net->node_tx(src).send(net->make_packet(src, dst, src * 100 + i, pattern(100 + i * 7, i)));
    }
  k.run();
  size_t total = 0;
  for (auto& c : rx) total += c->packets.size();
  EXPECT_EQ(total, 180u);
  return k.trace_hash();
}
} // namespace

TEST(Determinism, IdenticalRunsGiveTheSameTraceHash) {
  const uint64_t a = busy_run(7), b = busy_run(7), c = busy_run(8);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}

// Held-back arrivals (Link::set_sink_refuses_quietly, which every switch input sets): a
// switch input's chunks that arrive while the switch waits are no events. Everything an
// observer sees must be what the eager model (one event per chunk) gives: every packet's
// head and tail on every link with its time, what every node receives and when, and every
// link's and switch's counters. The workload makes the switches wait in every way: a Clos
// network with many-to-one bursts, receivers slower than the links (back-pressure through
// the switches, STOP and GO on their inputs), faults on every node's link, sizes from 0 to
// 1500 bytes.
namespace {
struct Observed {
  std::vector<std::string> lines;
  uint64_t events = 0, stops = 0;
};

Observed run_clos(bool hold, uint64_t seed) {
  sim::Kernel k;
  LinkConfig link;
  auto net = build_two_level_clos(k, 3, 3, 2, link, SwitchConfig{});
  Observed o;
  for (size_t i = 0; i < net->link_count(); ++i) {
    Link& l = net->link_at(i);
    l.set_watch([&o, &k, &l](Link::Watch w, const Packet& p, sim::Time t, bool ok) {
      o.lines.push_back(l.name() + " watch " + std::to_string(int(w)) + " id " +
                        std::to_string(p.id) + " at " + std::to_string(t) + " ok " +
                        std::to_string(ok) + " now " + std::to_string(k.now()));
    });
  }
  for (uint32_t n = 0; n < net->nodes(); ++n) {
    FaultPlan f;
    f.seed = seed + n;
    f.corrupt_probability = 0.03;
    f.drop_probability = 0.03;
    f.delay_probability = 0.05;
    f.extra_delay_ps = 300 * kNanosecond;
    net->node_tx(n).set_faults(f);
  }
  std::vector<std::unique_ptr<Collector>> rx;
  for (uint32_t n = 0; n < net->nodes(); ++n) {
    // Every third node drains at a quarter of the link's rate.
    if (n % 3 == 0) rx.push_back(std::make_unique<SlowSink>(k, net->node_rx(n), 96, 40'000'000));
    else rx.push_back(std::make_unique<Collector>(k));
    net->node_rx(n).set_sink(rx.back().get());
  }
  if (!hold)
    for (size_t i = 0; i < net->link_count(); ++i) net->link_at(i).set_sink_refuses_quietly(false);
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 400; ++i) {
    const uint32_t src = uint32_t(rng() % net->nodes());
    // Bursts towards node 0 and node 4, otherwise anywhere.
    uint32_t dst = rng() % 3 == 0 ? (rng() % 2 ? 0u : 4u) : uint32_t(rng() % net->nodes());
    if (dst == src) dst = (dst + 1) % net->nodes();
    const size_t size = rng() % 4 == 0 ? rng() % 40 : rng() % 1500;
    // On the byte clock's grid (6.25 ns), as are the latency and the fall-through: events of
    // different links then often fall on the same picosecond, where the order of events
    // (time, order, scheduling sequence) decides.
    const sim::Time at = sim::Time(rng() % 6400) * 6250;
    k.schedule_at(at, [&net, src, dst, i, size] {
      net->node_tx(src).send(net->make_packet(src, dst, uint64_t(i), pattern(size, uint32_t(i))));
    });
  }
  // Midway, counters and buffers as they stand (held chunks that are due counted in).
  k.run_until(20'000 * kNanosecond);
  for (size_t i = 0; i < net->link_count(); ++i) {
    const LinkCounters c = net->link_at(i).counters();
    o.lines.push_back(net->link_at(i).name() + " mid " + std::to_string(c.bytes_received) + " " +
                      std::to_string(c.max_buffered_bytes) + " " +
                      std::to_string(net->link_at(i).buffered_bytes()));
  }
  k.run();
  for (uint32_t n = 0; n < net->nodes(); ++n)
    for (const Arrival& a : rx[n]->packets)
      o.lines.push_back("node " + std::to_string(n) + " got " + std::to_string(a.id) + " size " +
                        std::to_string(a.bytes.size()) + " ok " +
                        std::to_string(a.bytes == pattern(a.bytes.size(), uint32_t(a.id))) +
                        " status " + std::to_string(a.status) + " head " +
                        std::to_string(a.head_ps) + " tail " + std::to_string(a.tail_ps));
  for (size_t i = 0; i < net->link_count(); ++i) {
    const LinkCounters c = net->link_at(i).counters();
    o.lines.push_back(net->link_at(i).name() + " end " + std::to_string(c.packets_sent) + " " +
                      std::to_string(c.bytes_sent) + " " + std::to_string(c.packets_received) +
                      " " + std::to_string(c.bytes_received) + " " + std::to_string(c.crc_errors) +
                      " " + std::to_string(c.drops) + " " + std::to_string(c.stops) + " " +
                      std::to_string(c.time_stopped_ps) + " " +
                      std::to_string(c.max_buffered_bytes));
    o.stops += c.stops;
  }
  for (size_t s = 0; s < net->switch_count(); ++s) {
    const SwitchCounters& c = net->switch_at(s).counters();
    o.lines.push_back("switch " + std::to_string(s) + " " + std::to_string(c.packets_routed) + " " +
                      std::to_string(c.packets_discarded));
  }
  o.lines.push_back("end at " + std::to_string(k.now()));
  o.events = k.events_run();
  return o;
}
} // namespace

TEST(HeldArrivals, ASwitchInputSeesWhatTheEagerModelSees) {
  for (uint64_t seed : {1u, 2u, 3u}) {
    const Observed eager = run_clos(false, seed), held = run_clos(true, seed);
    ASSERT_EQ(eager.lines.size(), held.lines.size()) << "seed " << seed;
    for (size_t i = 0; i < eager.lines.size(); ++i)
      ASSERT_EQ(eager.lines[i], held.lines[i]) << "seed " << seed << ", line " << i;
    // The workload must make the switches' inputs send STOP, and chunks be held.
    EXPECT_GT(eager.stops, 10u) << "seed " << seed;
    EXPECT_LT(held.events, eager.events * 9 / 10) << "seed " << seed;
    EXPECT_GT(eager.lines.size(), 1000u);
  }
}

// Held chunks keep the run going as their events would have: behind a receiver that never
// takes anything, the last chunks to reach the switch are held (STOP already sent), and
// nothing else is left to run. run() must still reach them: the same end time, counters
// and buffer as the eager model. And an agent reading a switch input's counters in its
// batch sees what it would see with one event per chunk: every chunk up to the time its
// batch started (the kernel runs an agent only strictly before the next event).
namespace {
struct Refuser : PacketSink {
  uint32_t accept(const Chunk&) override { return 0; }
};

std::string stuck_run(bool hold) {
  sim::Kernel k;
  LinkConfig lc;
  lc.latency_ps = 1000 * kNanosecond; // a long cable: many chunks on the wire after STOP
  lc.slack_bytes = 2000;
  auto net = build_single_switch(k, 2, lc, SwitchConfig{});
  Refuser never;
  net->node_rx(1).set_sink(&never);
  Collector c(k);
  net->node_rx(0).set_sink(&c);
  if (!hold)
    for (size_t i = 0; i < net->link_count(); ++i) net->link_at(i).set_sink_refuses_quietly(false);
  net->node_tx(0).send(net->make_packet(0, 1, 1, pattern(3000, 1)));
  k.run();
  const LinkCounters in = net->node_tx(0).counters();
  return "now " + std::to_string(k.now()) + " idle " + std::to_string(k.idle()) + " received " +
         std::to_string(in.bytes_received) + " max " + std::to_string(in.max_buffered_bytes) +
         " buffered " + std::to_string(net->node_tx(0).buffered_bytes()) + " stops " +
         std::to_string(in.stops);
}

struct Reader : sim::Agent {
  sim::Kernel& k;
  Link& link;
  sim::Time at;
  std::string seen;
  Reader(sim::Kernel& kernel, Link& l, sim::Time t) : k(kernel), link(l), at(t) {}
  sim::Time advance(sim::Time horizon) override {
    if (horizon <= at) return horizon;
    if (k.now() < at) return at;
    seen = "at " + std::to_string(k.now()) + " received " +
           std::to_string(link.counters().bytes_received) + " buffered " +
           std::to_string(link.buffered_bytes());
    return -1;
  }
};

std::string agent_run(bool hold) {
  sim::Kernel k;
  SwitchConfig sc;
  sc.fall_through_ps = 5000 * kNanosecond; // the switch waits long: later chunks are held
  auto net = build_single_switch(k, 3, LinkConfig{}, sc);
  std::vector<std::unique_ptr<Collector>> rx;
  for (uint32_t n = 0; n < 3; ++n) {
    rx.push_back(std::make_unique<Collector>(k));
    net->node_rx(n).set_sink(rx.back().get());
  }
  if (!hold)
    for (size_t i = 0; i < net->link_count(); ++i) net->link_at(i).set_sink_refuses_quietly(false);
  net->node_tx(0).send(net->make_packet(0, 2, 1, pattern(1000, 1)));
  Reader r(k, net->node_tx(0), 700 * kNanosecond);
  k.wake(k.add_agent(&r), 0);
  k.run_until(2000 * kNanosecond);
  return r.seen;
}
} // namespace

TEST(HeldArrivals, TheRunReachesHeldChunksWhenNothingElseIsLeft) {
  const std::string eager = stuck_run(false), held = stuck_run(true);
  EXPECT_EQ(held, eager);
  EXPECT_NE(eager.find("stops 1"), std::string::npos) << eager;
  EXPECT_NE(eager.find("idle 1"), std::string::npos) << eager;
}

TEST(HeldArrivals, AnAgentReadsWhatTheEagerModelShows) {
  const std::string eager = agent_run(false), held = agent_run(true);
  EXPECT_FALSE(eager.empty());
  EXPECT_EQ(held, eager);
}
