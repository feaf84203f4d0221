// Whole clusters: batching never changes results, runs are deterministic, back-pressure
// loses nothing, corrupted packets are flagged and counted, a powered-off node's packets
// are discarded by the switch while other traffic flows.
#include "firmware.h"
#include "sim/cluster.h"
#include "sim/echo_experiment.h"
#include "sim/platform.h"
#include "report/pcapng.h"
#include "tests/support/pcapng_reader.h"

#include <map>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace lanaikit {
namespace {

using sim::Time;

sim::ClusterParams vmmc(uint32_t nodes) {
  return sim::cluster_params(sim::load_platform(test::source("lua-scripts/platforms/vmmc.lua")), nodes);
}

const assembler::FirmwareImage& echo_fw() {
  static const assembler::FirmwareImage img = test::build_firmware({test::source("firmware/echo/echo.c")});
  return img;
}

sim::EchoResult echo(uint64_t max_batch, bool profile = false, bool doze = true,
                     bool take_held = true) {
  sim::EchoConfig c;
  c.profile = profile;
  c.doze = doze;
  c.take_held = take_held;
  c.cluster = vmmc(2);
  c.sizes = {4, 200, 1500};
  c.warmup = 1;
  c.iterations = 3;
  c.max_batch = max_batch;
  return sim::run_echo(c, echo_fw());
}

// The same simulated time, instruction count, latencies and per-packet instruction counts
// (and, unless events were left out on purpose, the same event trace).
void expect_same_run(const sim::EchoResult& ref, const sim::EchoResult& r, bool same_events = true) {
  if (same_events) {
    EXPECT_EQ(ref.trace_hash, r.trace_hash);
  }
  EXPECT_EQ(ref.guest_instructions, r.guest_instructions);
  EXPECT_EQ(ref.simulated, r.simulated);
  ASSERT_EQ(ref.sizes.size(), r.sizes.size());
  for (size_t i = 0; i < ref.sizes.size(); ++i) {
    EXPECT_EQ(ref.sizes[i].one_way, r.sizes[i].one_way);
    EXPECT_EQ(ref.sizes[i].send_insns, r.sizes[i].send_insns);
    EXPECT_EQ(ref.sizes[i].recv_insns, r.sizes[i].recv_insns);
  }
}

TEST(System, BatchingNeverChangesTheEventTrace) {
  const sim::EchoResult ref = echo(1); // one instruction per batch: the reference schedule
  const sim::EchoResult fast = echo(0);
  const sim::EchoResult seven = echo(7);
  expect_same_run(ref, fast);
  expect_same_run(ref, seven);
  EXPECT_GT(ref.agent_batches, 2 * fast.agent_batches); // the batches did differ
}

// Idle chips doze (vm/doze.h): a CPU proven to repeat its poll loop leaves the kernel's
// agents and its counters advance by arithmetic. The reference runs every instruction one
// batch at a time with dozing off; dozing with any batch size gives the same trace, times,
// instruction counts, and (profiled) the same per-handler records. The event trace is the
// same when every chunk is an event; by default a dozing chip's receive engine also takes
// chunks held back without events (net/link.h), which changes only the events.
TEST(System, SleepingChipsChangeNothing) {
  const sim::EchoResult ref = echo(1, false, false);
  EXPECT_EQ(ref.dozed_instructions, 0u);
  for (uint64_t batch : {uint64_t(1), uint64_t(7), uint64_t(0)}) {
    SCOPED_TRACE(batch);
    const sim::EchoResult r = echo(batch, false, true, false);
    expect_same_run(ref, r);
    // The chips did doze, for a good share of their instructions.
    EXPECT_GT(r.dozed_instructions, ref.guest_instructions / 4);
    const sim::EchoResult held = echo(batch, false, true);
    expect_same_run(ref, held, false);
    EXPECT_LT(held.events, r.events); // some chunks were held back: fewer events
  }
  EXPECT_LT(echo(0, false, true).agent_batches, echo(0, false, false).agent_batches);

  // Profiled: the per-handler records (every invocation's instructions, cycles, stalls and
  // DMA wait) and the per-line report are the same when the CPU dozes inside or between
  // handlers.
  const sim::EchoResult pref = echo(1, true, false), pdoze = echo(0, true, true);
  expect_same_run(ref, pref);
  expect_same_run(pref, pdoze, false);
  EXPECT_GT(pdoze.dozed_instructions, 0u);
  ASSERT_EQ(pref.handlers.size(), pdoze.handlers.size());
  for (size_t n = 0; n < pref.handlers.size(); ++n) {
    ASSERT_EQ(pref.handlers[n].size(), pdoze.handlers[n].size());
    for (size_t h = 0; h < pref.handlers[n].size(); ++h) {
      const auto& a = pref.handlers[n][h];
      const auto& b = pdoze.handlers[n][h];
      EXPECT_EQ(a.instructions.count, b.instructions.count);
      for (auto [x, y] : {std::pair{a.instructions, b.instructions}, {a.cycles, b.cycles},
                          {a.stall_cycles, b.stall_cycles}, {a.dma_wait_cycles, b.dma_wait_cycles},
                          {a.duration_ps, b.duration_ps}}) {
        EXPECT_EQ(x.min, y.min);
        EXPECT_EQ(x.max, y.max);
        EXPECT_EQ(x.median, y.median);
        EXPECT_EQ(x.p99, y.p99);
        EXPECT_EQ(x.mean, y.mean);
        EXPECT_EQ(x.log2_histogram, y.log2_histogram);
      }
    }
    EXPECT_EQ(pref.profiles[n], pdoze.profiles[n]);
  }
  EXPECT_EQ(pref.utilisation, pdoze.utilisation);
}

// The profiler runs the CPUs on the reference model with hooks: nothing observable may
// change, and its counts must be exact.
TEST(System, ProfilingChangesNothingAndCountsEveryCall) {
  const sim::EchoResult plain = echo(0), prof = echo(0, true);
  EXPECT_EQ(plain.trace_hash, prof.trace_hash);
  EXPECT_EQ(plain.guest_instructions, prof.guest_instructions);
  ASSERT_EQ(prof.handlers.size(), 2u);
  // Each node sends 12 messages (3 sizes x 4 round trips) and delivers 12; node 0's last
  // delivery is still finishing when its host sees the completion and the run ends.
  for (size_t n = 0; n < prof.handlers.size(); ++n) {
    const auto& node = prof.handlers[n];
    ASSERT_EQ(node.size(), 2u);
    EXPECT_EQ(node[0].name, "send_message");
    EXPECT_EQ(node[0].instructions.count, 12u);
    EXPECT_EQ(node[1].name, "deliver");
    EXPECT_EQ(node[1].instructions.count, n == 0 ? 11u : 12u);
    // The send path does not depend on the size: every call takes the same instructions.
    EXPECT_EQ(node[0].instructions.min, node[0].instructions.max);
    EXPECT_GT(node[0].instructions.min, 20u);
    // Delivering a bigger message waits longer for its DMA.
    EXPECT_GT(node[1].instructions.max, node[1].instructions.min);
    EXPECT_GT(node[1].dma_wait_cycles.max, 0u);
  }
  EXPECT_NE(prof.profiles[0].find("| send_message | 12 |"), std::string::npos) << prof.profiles[0];
  EXPECT_NE(prof.profiles[0].find("| deliver | 11 |"), std::string::npos) << prof.profiles[0];
  // Utilisation rows: CPU split into handlers and polling, PCI, engines, links.
  for (const char* row : {"| node0 cpu in handlers |", "| node1 cpu polling |", "| node0 pci bus |",
                          "| node1 host-dma engine |", "| link node0->sw0.0 |"})
    EXPECT_NE(prof.utilisation.find(row), std::string::npos) << row << "\n" << prof.utilisation;
}

// The timeline (Chrome trace events) and the capture (pcapng) of an echo run: every packet
// on every link is captured with its exact time, and the trace holds handler, DMA and
// packet spans that a trace viewer accepts.
TEST(System, TimelineAndCaptureOfAnEchoRun) {
  sim::EchoConfig c;
  c.cluster = vmmc(2);
  c.sizes = {4, 300};
  c.warmup = 0;
  c.iterations = 2;
  c.profile = true;
  std::ostringstream trace, pcap;
  c.trace = &trace;
  c.pcap = &pcap;
  const sim::EchoResult r = sim::run_echo(c, echo_fw());
  EXPECT_EQ(r.rejected, 0u);

  const std::string bytes = pcap.str();
  report::PcapngReader reader(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
  ASSERT_EQ(reader.interfaces().size(), 4u); // two nodes, a link each way to the switch
  // 4 messages each way, each crossing two links; the last echo's completion is not a
  // packet. Every capture has the link's packet bytes and a picosecond timestamp.
  EXPECT_EQ(reader.packets().size(), 16u);
  std::map<std::string, int> per_link;
  for (const auto& p : reader.packets()) {
    ++per_link[reader.interfaces().at(p.interface).name];
    EXPECT_EQ(reader.interfaces().at(p.interface).tsresol, 12);
    EXPECT_GT(p.time_ps, 0);
    EXPECT_FALSE(p.crc_error());
  }
  EXPECT_EQ(per_link["node0->sw0.0"], 4);
  EXPECT_EQ(per_link["sw0.1->node1"], 4);

  const nlohmann::json doc = nlohmann::json::parse(trace.str());
  std::map<std::string, int> names;
  for (const auto& e : doc.at("traceEvents")) {
    ASSERT_TRUE(e.contains("ph") && e.contains("pid") && e.contains("tid")) << e.dump();
    if (e.at("ph").get<std::string>() == "X") {
      ASSERT_TRUE(e.contains("ts") && e.contains("dur") && e.contains("name"));
      EXPECT_GE(e.at("dur").get<double>(), 0.0);
      ++names[e.at("name").get<std::string>()];
    }
  }
  EXPECT_EQ(names["send_message"], 8);
  EXPECT_GE(names["deliver"], 7);
  EXPECT_EQ(names["packet"], 16);
  EXPECT_GE(names["DMA"], 14); // payload and completion record per delivery
}

TEST(System, SameInputsSameTraceHash) {
  const sim::EchoResult a = echo(0), b = echo(0);
  EXPECT_EQ(a.trace_hash, b.trace_hash);
  EXPECT_EQ(a.simulated, b.simulated);
  EXPECT_EQ(a.rejected, 0u);
}

TEST(System, EchoLatencyBreakdownAddsUp) {
  const sim::EchoResult r = echo(0);
  for (const auto& s : r.sizes) {
    const auto& b = s.breakdown;
    EXPECT_EQ(b.host_send + b.pci_send + b.cpu_send + b.wire + b.network + b.cpu_recv +
                  b.dma_recv + b.host_recv,
              b.total)
        << s.bytes;
    EXPECT_GT(b.cpu_send, 0);
    EXPECT_GT(b.dma_recv, 0);
    EXPECT_GT(s.send_insns, 10u);
    EXPECT_GT(s.recv_insns, 10u);
    // The measured one-way time (half a round trip) is the same message path.
    EXPECT_NEAR(double(s.median), double(b.total), 0.05 * double(b.total)) << s.bytes;
  }
}

// The blast firmware's control block (tests/chip/fw/blast.c).
struct Blast {
  sim::Cluster& c;
  static constexpr uint32_t kCtl = 0x10000;
  void put(uint32_t node, uint32_t off, uint32_t v) {
    const uint8_t b[4] = {uint8_t(v >> 24), uint8_t(v >> 16), uint8_t(v >> 8), uint8_t(v)};
    c.node(node).chip().host_write_sram(kCtl + off, b);
  }
  uint32_t get(uint32_t node, uint32_t off) {
    uint8_t b[4];
    c.node(node).chip().host_read_sram(kCtl + off, b);
    return uint32_t(b[0]) << 24 | uint32_t(b[1]) << 16 | uint32_t(b[2]) << 8 | b[3];
  }
  void load_all() {
    static const assembler::FirmwareImage img = test::build_firmware({test::source("tests/chip/fw/blast.c")});
    for (uint32_t i = 0; i < c.size(); ++i) {
      c.node(i).load(img);
      put(i, 24, i);
    }
  }
  void source(uint32_t node, uint32_t dest, uint32_t packets, uint32_t bytes) {
    put(node, 0, 1);
    put(node, 4, packets);
    put(node, 8, bytes);
    const auto& route = c.network().route(node, dest);
    put(node, 12, uint32_t(route.size()));
    c.node(node).chip().host_write_sram(kCtl + 16, route);
  }
  void sink(uint32_t node, uint32_t delay) {
    put(node, 0, 2);
    put(node, 20, delay);
  }
  uint32_t sent(uint32_t n) { return get(n, 32); }
  uint32_t received(uint32_t n) { return get(n, 36); }
  uint32_t rx_bytes(uint32_t n) { return get(n, 40); }
  uint32_t bad(uint32_t n) { return get(n, 44); }
  uint32_t crc_bad(uint32_t n) { return get(n, 48); }
};

void run(sim::Cluster& c, const std::function<bool()>& done, Time limit = 200 * sim::kMillisecond) {
  for (uint32_t i = 0; i < c.size(); ++i)
    c.node(i).chip().on_stop([](vm::Chip& chip) {
      if (chip.cpu().fault()) ADD_FAILURE() << chip.name() << ":\n" << chip.cpu().fault_report();
    });
  while (!done() && c.kernel().now() < limit) c.kernel().run_until(c.kernel().now() + 100 * sim::kMicrosecond);
  EXPECT_TRUE(done()) << "not finished by " << limit << " ps";
}

TEST(System, ManyToOneBackPressureLosesNoByte) {
  sim::Cluster c(vmmc(4));
  Blast b{c};
  b.load_all();
  b.sink(0, 300); // a slow receiver: ~1000 cycles per packet
  for (uint32_t s = 1; s <= 3; ++s) b.source(s, 0, 25, 1024);
  for (uint32_t i = 0; i < 4; ++i) c.node(i).start();
  run(c, [&] { return b.received(0) + b.bad(0) + b.crc_bad(0) == 75; });
  EXPECT_EQ(b.received(0), 75u);
  EXPECT_EQ(b.bad(0), 0u);
  EXPECT_EQ(b.rx_bytes(0), 75u * 1024);
  // The network did back up: the receiver's link was stopped, senders were held.
  const net::LinkCounters& into0 = c.network().node_rx(0).counters();
  EXPECT_GT(into0.stops, 0u);
  uint64_t held = 0;
  for (uint32_t s = 1; s <= 3; ++s) held += c.network().node_tx(s).counters().stops;
  EXPECT_GT(held, 0u);
  EXPECT_GT(c.node(0).chip().counters().receive_stalls, 0u);
}

// A dozing receiver takes the middle chunks of a packet held back by its link, without an
// event each (net::Link::set_sink_takes_promised). Everything anyone can read is as if every
// chunk were an event: a host process reads RMP, words of the receive buffer and the byte
// counts by PIO at odd times while 1500-byte packets stream in from two senders (one of
// them faulty: corrupted packets, dropped ones, delays), and the test compares every value
// it read, and when, the firmware's results and every counter with the eager model's.
struct HeldRun {
  std::vector<uint64_t> seen; // (time, value) pairs the reader saw, then results and counters
  uint64_t events = 0;
};

HeldRun held_receive(bool take_held) {
  sim::Cluster c(vmmc(3));
  net::FaultPlan f;
  f.seed = 3;
  f.corrupt_probability = 0.1;
  f.drop_probability = 0.05;
  f.delay_probability = 0.2;
  f.extra_delay_ps = 3 * sim::kMicrosecond;
  c.network().node_tx(2).set_faults(f);
  Blast b{c};
  b.load_all();
  b.sink(0, 40);
  b.source(1, 0, 30, 1500);
  b.source(2, 0, 30, 1500);
  c.node(0).chip().set_take_held(take_held);
  HeldRun out;
  c.node(0).spawn("reader", [&](host::Process& p) -> host::Task {
    // Rounds: wait (reading RMP) for a packet to be half in; a few chunks later read the
    // link's counts (first: a read of the chip's would bring the link up to date), ring the
    // doorbell (the firmware, woken, logs a word of the buffer and RMP), read the word
    // where the next chunks land, and the byte counts again.
    auto log = [&](uint32_t v) {
      out.seen.push_back(uint64_t(p.local()));
      out.seen.push_back(v);
    };
    for (uint32_t k = 0; k < 60; ++k) {
      uint32_t rmp = 0;
      for (int tries = 0; tries < 2000 && !(rmp > 0x30000 + 64 && rmp < 0x30000 + 1200); ++tries) {
        p.advance(Time(100 + (k * 7919 + tries * 31) % 400) * sim::kNanosecond);
        co_await c.node(0).pio_read_reg(p, vm::regs::RMP, rmp);
      }
      log(rmp);
      p.advance(Time(200 + (k * 131) % 300) * sim::kNanosecond);
      co_await p.sync(); // the kernel at the process's time: chunks came meanwhile
      log(uint32_t(c.network().node_rx(0).counters().bytes_received));
      log(uint32_t(c.network().node_rx(0).counters().max_buffered_bytes));
      c.node(0).pio_write_reg(p, vm::regs::HOST_SIG, k);
      p.advance(Time(1 + (k * 557) % 900) * sim::kNanosecond);
      uint32_t v = 0;
      co_await c.node(0).pio_read_word(p, std::min<uint32_t>(rmp + 40, 0x30000 + 1500) & ~3u, v);
      log(v);
      p.advance(Time(1 + (k * 211) % 700) * sim::kNanosecond);
      co_await p.sync(); // the kernel at the process's time
      log(uint32_t(c.network().node_rx(0).counters().bytes_received));
      log(uint32_t(c.node(0).chip().counters().bytes_received));
    }
  });
  for (uint32_t i = 0; i < 3; ++i) c.node(i).start();
  run(c, [&] { return b.sent(1) == 30 && b.sent(2) == 30 && c.kernel().now() > 2 * sim::kMillisecond; });
  for (uint64_t v : {b.received(0), b.bad(0), b.crc_bad(0), b.rx_bytes(0)}) out.seen.push_back(v);
  const uint32_t peeks = b.get(0, 56);
  out.seen.push_back(peeks);
  for (uint32_t k = 0; k < 64; ++k) out.seen.push_back(b.get(0, 0x100 + 4 * k));
  const vm::ChipCounters& cc = c.node(0).chip().counters();
  for (uint64_t v : {cc.bytes_received, cc.packets_received, cc.receive_stalls, cc.crc_errors,
                     uint64_t(cc.receive_busy_ps), c.node(0).chip().cpu().instructions()})
    out.seen.push_back(v);
  const net::LinkCounters lc = c.network().node_rx(0).counters();
  for (uint64_t v : {lc.bytes_received, lc.packets_received, lc.crc_errors, lc.stops,
                     uint64_t(lc.max_buffered_bytes)})
    out.seen.push_back(v);
  out.events = c.kernel().events_run();
  return out;
}

TEST(System, AReceiverTakesHeldChunksAsTheEagerModelDelivers) {
  const HeldRun eager = held_receive(false), held = held_receive(true);
  ASSERT_EQ(eager.seen.size(), held.seen.size());
  for (size_t i = 0; i < eager.seen.size(); ++i) EXPECT_EQ(eager.seen[i], held.seen[i]) << "item " << i;
  // Packets did arrive (and some were bad), and the receiver took many chunks held back.
  EXPECT_GT(eager.seen[eager.seen.size() - 80], 30u);
  EXPECT_GT(eager.seen[eager.seen.size() - 76], 20u); // the firmware logged doorbells
  EXPECT_LT(held.events + 500, eager.events);
}

TEST(System, CorruptedPacketsAreFlaggedByCrcAndCounted) {
  sim::Cluster c(vmmc(2));
  net::FaultPlan f;
  f.corrupt_packets = {3, 7};
  c.network().node_tx(1).set_faults(f);
  Blast b{c};
  b.load_all();
  b.sink(0, 0);
  b.source(1, 0, 10, 256);
  c.node(0).start();
  c.node(1).start();
  run(c, [&] { return b.received(0) + b.bad(0) + b.crc_bad(0) == 10; });
  EXPECT_EQ(b.crc_bad(0), 2u);
  EXPECT_EQ(b.received(0), 8u);
  EXPECT_EQ(b.bad(0), 0u);
  EXPECT_EQ(c.node(0).chip().counters().crc_errors, 2u);
  EXPECT_EQ(c.node(0).chip().peek(vm::regs::CRC_ERRORS), 2u);
  EXPECT_NE(c.node(0).chip().isr() & vm::regs::CRC_INT_BIT, 0u);
}

TEST(System, PoweredOffNodeMakesTheSwitchDiscardItsPackets) {
  sim::Cluster c(vmmc(4));
  Blast b{c};
  b.load_all();
  b.sink(0, 0);
  b.source(1, 2, 5, 512); // to the dead node
  b.source(3, 0, 6, 512); // unaffected traffic
  c.set_powered(2, false);
  for (uint32_t i : {0u, 1u, 3u}) c.node(i).start();
  run(c, [&] { return b.received(0) == 6 && b.sent(1) == 5 && c.node(1).chip().isr() & vm::regs::SEND_INT_BIT; });
  EXPECT_EQ(b.bad(0), 0u);
  EXPECT_EQ(c.network().switch_at(0).counters().discarded_by_port.at(2), 5u);
  EXPECT_EQ(c.node(2).chip().counters().packets_received, 0u);
  EXPECT_THROW(c.node(2).start(), std::logic_error);
}

} // namespace
} // namespace lanaikit
