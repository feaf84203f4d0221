// BIP's host library (host/bip/) against the real MCP (firmware/bip/bip.fw) on BIP's
// platform: short and long messages byte-exact over non-contiguous pages with different
// alignments at each end, truncation, the API's refusals, ready mode violated, full tag
// queues on both sides, a corrupted packet, a node powered off, the pipeline model against
// measured transfers, determinism.
#include "../chip/firmware.h"
#include "../kit/payload.h"
#include "host/bip/bip.h"
#include "sim/cluster.h"
#include "sim/platform.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

namespace lanaikit::bip {
namespace {

using host::Process;
using host::Task;
using sim::kMicrosecond;
using sim::kMillisecond;
using sim::Time;

const sim::Platform& platform() {
  static const sim::Platform p = sim::load_platform(test::source("lua-scripts/platforms/bip.lua"));
  return p;
}

const assembler::FirmwareImage& mcp() {
  static const assembler::FirmwareImage img = test::build_firmware({test::source("firmware/bip/bip.fw")});
  return img;
}

using test::difference;
using test::pattern;

// A cluster on BIP's platform with the MCP loaded; test processes stop the run when the last
// of them finishes.
struct Rig {
  sim::Cluster cluster;
  Bip bip;
  int running = 0;

  explicit Rig(uint32_t nodes = 2, Options o = {})
      : cluster(sim::cluster_params(platform(), nodes)), bip(cluster, mcp(), costs_from_platform(platform()), o) {}

  void spawn(uint32_t node, std::string name, std::function<Task(Process&)> body) {
    ++running;
    cluster.node(node).spawn(std::move(name), std::move(body));
  }
  void finished() {
    if (--running == 0) cluster.kernel().stop();
  }
  bool run(Time limit = 500 * kMillisecond) {
    cluster.kernel().run_until(limit);
    return running == 0;
  }
};

// `pages` virtually contiguous pages of `e` whose physical frames are not: another address
// space on the node takes a frame between each two.
VirtAddr scattered(Endpoint& e, uint32_t pages) {
  host::AddressSpace other(e.node().memory());
  const VirtAddr first = e.alloc(host::kPageSize);
  for (uint32_t i = 1; i < pages; ++i) {
    (void)other.map(host::kPageSize);
    const VirtAddr v = e.alloc(host::kPageSize);
    EXPECT_EQ(v, first + i * host::kPageSize) << "the address space left a gap";
  }
  EXPECT_NE(e.space().translate(first) + host::kPageSize, e.space().translate(first + host::kPageSize));
  return first;
}

class BipLibrary : public ::testing::Test {
protected:
  void SetUp() override {
    if (mcp().segments.empty()) GTEST_SKIP() << "firmware/bip/bip.fw did not build";
  }
};

TEST(BipCosts, FromThePlatform) {
  const Costs c = costs_from_platform(platform());
  EXPECT_EQ(c.pin.per_call, 5 * kMicrosecond);
  EXPECT_EQ(c.pin.per_page, 1 * kMicrosecond);
  EXPECT_DOUBLE_EQ(c.copy_mb_per_s, 50);
  EXPECT_EQ(c.copy(50), 1 * kMicrosecond);
  EXPECT_EQ(c.defaulted, (std::vector<std::string>{"send_post", "recv_post"}));
}

TEST_F(BipLibrary, LimitsComeFromTheLayoutTable) {
  Rig rig;
  const Bip::Limits& l = rig.bip.limits();
  EXPECT_EQ(l.max_nodes, 64u);
  EXPECT_EQ(l.max_tags, 8u);
  EXPECT_EQ(l.short_max, 1024u);
  EXPECT_EQ(l.max_pkt, 4096u);
  EXPECT_EQ(l.send_slots, 4u);
  EXPECT_EQ(l.credits, 8u);
}

// Every size class (empty, copied, DMAed short, direct and ring receive, one-packet and
// many-packet long) arrives byte for byte, in order, with the sender's buffer at one
// alignment and the receiver's at another, each spanning several pages.
TEST_F(BipLibrary, EverySizeArrivesIntactAtAnyAlignment) {
  Rig rig;
  Endpoint& a = rig.bip.endpoint(0);
  Endpoint& b = rig.bip.endpoint(1);
  const std::vector<uint32_t> sizes = {0, 4, 28, 32, 400, 1024, 1028, 4096, 5000, 65536 + 12, 300000};
  const uint32_t kMax = 300000;
  const uint32_t pages = kMax / host::kPageSize + 2;
  const VirtAddr sbuf = scattered(a, pages) + 100;    // 100 bytes into a page
  const VirtAddr rbuf = scattered(b, pages) + 2004;   // another alignment
  std::vector<std::string> errors;
  rig.spawn(1, "rx", [&](Process& p) -> Task {
    // "ready": the first receive is posted before the sender starts.
    co_await b.irecv(p, 3, rbuf, kMax);
    co_await b.send(p, 0, 1, rbuf, 4);
    for (size_t k = 0; k < sizes.size(); ++k) {
      const RecvResult r = co_await b.wait_recv(p);
      if (!r.ok || r.len != sizes[k] || r.src != 0 || r.truncated)
        errors.push_back("message " + std::to_string(k) + ": " + r.error + " len " + std::to_string(r.len));
      const std::string d = difference(b.read(rbuf, sizes[k]), pattern(sizes[k], uint32_t(k)));
      if (!d.empty()) errors.push_back("size " + std::to_string(sizes[k]) + ": " + d);
      if (k + 1 < sizes.size()) co_await b.irecv(p, 3, rbuf, kMax);
      co_await b.send(p, 0, 1, rbuf, 4); // the next may go: its receive is posted
    }
    rig.finished();
  });
  rig.spawn(0, "tx", [&](Process& p) -> Task {
    const VirtAddr ack = a.alloc(4096);
    for (size_t k = 0; k < sizes.size(); ++k) {
      (void)co_await a.recv(p, 1, ack, 4);
      a.write(sbuf, pattern(sizes[k], uint32_t(k)));
      const SendResult s = co_await a.send(p, 1, 3, sbuf, sizes[k]);
      if (!s.ok) errors.push_back("send " + std::to_string(k) + ": " + s.error);
      EXPECT_EQ(s.copied, sizes[k] <= rig.bip.limits().copy_max) << sizes[k];
      EXPECT_EQ(s.packet != 0, sizes[k] > 1024) << sizes[k];
    }
    (void)co_await a.recv(p, 1, ack, 4);
    rig.finished();
  });
  ASSERT_TRUE(rig.run());
  for (const auto& e : errors) ADD_FAILURE() << e;
  const auto ka = a.counters(), kb = b.counters();
  EXPECT_EQ(kb.long_msgs, 5u);
  EXPECT_EQ(kb.bad_len + kb.bad_crc + kb.lost + kb.not_posted + ka.nacked, 0u);
  EXPECT_GT(a.pinned_pages(), 70u);            // 300 KB of send buffer
  EXPECT_LE(a.pin_calls(), sizes.size());      // pinned on first use (the new pages of each
  EXPECT_GE(a.pin_calls(), 2u);                //   larger message), the translations kept
}

// Truncation: a message longer than the receive's maxlen fills maxlen bytes, says how long
// it was, and writes nothing beyond maxlen; for each way a message arrives.
TEST_F(BipLibrary, TruncationFillsMaxlenAndNothingBeyond) {
  Rig rig;
  Endpoint& a = rig.bip.endpoint(0);
  Endpoint& b = rig.bip.endpoint(1);
  const VirtAddr sbuf = a.alloc(3 * 4096);
  const VirtAddr rbuf = b.alloc(3 * 4096);
  a.write(sbuf, pattern(3 * 4096, 7));
  b.write(rbuf, std::vector<uint8_t>(3 * 4096, 0xEE));
  struct Case { uint32_t len, maxlen; bool posted; };
  const std::vector<Case> cases = {{8, 4, false}, {600, 100, true}, {600, 100, false}, {9000, 2000, true}};
  std::vector<RecvResult> got;
  rig.spawn(1, "rx", [&](Process& p) -> Task {
    for (const Case& c : cases) {
      if (c.posted) {
        co_await b.irecv(p, 2, rbuf, c.maxlen);
        co_await b.send(p, 0, 1, rbuf + 8192, 4);
        got.push_back(co_await b.wait_recv(p));
      } else {
        co_await b.send(p, 0, 1, rbuf + 8192, 4);
        while (!b.probe(2)) co_await p.sync(), p.advance(kMicrosecond);
        got.push_back(co_await b.recv(p, 2, rbuf, c.maxlen));
      }
      const auto data = b.read(rbuf, 8192);
      auto want = pattern(3 * 4096, 7);
      want.resize(8192);
      std::fill(want.begin() + c.maxlen, want.end(), 0xEE);
      const std::string d = difference(data, want);
      EXPECT_TRUE(d.empty()) << c.len << "/" << c.maxlen << ": " << d;
      b.write(rbuf, std::vector<uint8_t>(8192, 0xEE));
    }
    rig.finished();
  });
  rig.spawn(0, "tx", [&](Process& p) -> Task {
    const VirtAddr ack = a.alloc(4096);
    for (const Case& c : cases) {
      (void)co_await a.recv(p, 1, ack, 4);
      (void)co_await a.send(p, 1, 2, sbuf, c.len);
    }
    rig.finished();
  });
  ASSERT_TRUE(rig.run());
  ASSERT_EQ(got.size(), cases.size());
  for (size_t k = 0; k < cases.size(); ++k) {
    EXPECT_TRUE(got[k].ok) << got[k].error;
    EXPECT_TRUE(got[k].truncated);
    EXPECT_EQ(got[k].len, cases[k].len);
    EXPECT_EQ(got[k].received, cases[k].maxlen);
  }
}

// The API refuses what BIP does not allow, and posts nothing.
TEST_F(BipLibrary, MisuseIsRefusedWithAClearError) {
  Rig rig;
  Endpoint& a = rig.bip.endpoint(0);
  const VirtAddr buf = a.alloc(8192);
  std::vector<std::string> msgs;
  rig.spawn(0, "tx", [&](Process& p) -> Task {
    auto expect_error = [&](std::function<host::Op<void>()> f) -> host::Op<void> {
      try {
        co_await f();
        msgs.push_back("(no error)");
      } catch (const BipError& e) {
        msgs.push_back(e.what());
      }
    };
    co_await expect_error([&]() -> host::Op<void> { (void)co_await a.send(p, 1, 8, buf, 4); });
    co_await expect_error([&]() -> host::Op<void> { (void)co_await a.send(p, 1, 0, buf + 2, 4); });
    co_await expect_error([&]() -> host::Op<void> { (void)co_await a.send(p, 1, 0, buf, 6); });
    co_await expect_error([&]() -> host::Op<void> { (void)co_await a.send(p, 5, 0, buf, 4); });
    co_await expect_error([&]() -> host::Op<void> { (void)co_await a.send(p, 1, 0, 0x70000000, 4); });
    co_await expect_error([&]() -> host::Op<void> { co_await a.irecv(p, 9, buf, 4); });
    co_await a.irecv(p, 0, buf, 4);
    co_await expect_error([&]() -> host::Op<void> { co_await a.irecv(p, 1, buf, 4); });
    rig.finished();
  });
  rig.run(10 * kMillisecond);
  ASSERT_EQ(msgs.size(), 7u);
  EXPECT_NE(msgs[0].find("tag 8 (tags are 0..7)"), std::string::npos) << msgs[0];
  EXPECT_NE(msgs[1].find("4-byte aligned"), std::string::npos) << msgs[1];
  EXPECT_NE(msgs[2].find("multiple of 4"), std::string::npos) << msgs[2];
  EXPECT_NE(msgs[3].find("node 5, there are 2"), std::string::npos) << msgs[3];
  EXPECT_NE(msgs[4].find("not mapped"), std::string::npos) << msgs[4];
  EXPECT_NE(msgs[5].find("tag 9"), std::string::npos) << msgs[5];
  EXPECT_NE(msgs[6].find("a receive is still pending"), std::string::npos) << msgs[6];
  EXPECT_EQ(a.counters().bad_send, 0u); // nothing reached the MCP
}

// Ready mode violated: a long message with no receive posted is refused by the receiving
// MCP (counted, the sender told), nothing lands in the receiver's memory, and the next
// exchange works.
TEST_F(BipLibrary, ALongMessageWithNoReceivePostedIsRefusedAndReported) {
  Rig rig;
  Endpoint& a = rig.bip.endpoint(0);
  Endpoint& b = rig.bip.endpoint(1);
  const VirtAddr sbuf = a.alloc(16384);
  const VirtAddr rbuf = b.alloc(16384);
  a.write(sbuf, pattern(16384, 3));
  b.write(rbuf, std::vector<uint8_t>(16384, 0x55));
  SendResult refused, after;
  RecvResult later;
  rig.spawn(0, "tx", [&](Process& p) -> Task {
    refused = co_await a.send(p, 1, 4, sbuf, 12000);    // nobody posted tag 4
    co_await p.sync();
    p.advance(200 * kMicrosecond);                       // the NACK comes back meanwhile
    after = co_await a.send(p, 1, 5, sbuf, 64);          // short: always buffered
    rig.finished();
  });
  rig.spawn(1, "rx", [&](Process& p) -> Task {
    co_await p.sync();
    p.advance(300 * kMicrosecond);
    later = co_await b.recv(p, 5, rbuf, 64);
    rig.finished();
  });
  ASSERT_TRUE(rig.run());
  const auto ka = a.counters(), kb = b.counters();
  EXPECT_EQ(kb.not_posted, 1u);
  EXPECT_EQ(ka.nacked, 1u);
  EXPECT_GT(kb.dropped, 0u);                             // its other packets
  EXPECT_TRUE(after.ok);
  EXPECT_TRUE(later.ok) << later.error;
  EXPECT_EQ(later.len, 64u);
  auto rest = b.read(rbuf + 64, 16384 - 64);
  EXPECT_TRUE(std::all_of(rest.begin(), rest.end(), [](uint8_t v) { return v == 0x55; }));
}

// Both nodes fill each other's ring for one tag (no receives at all), so sends wait for
// credit on both sides; then both receive everything: no deadlock, all in order.
TEST_F(BipLibrary, FullTagQueuesOnBothSidesDoNotDeadlock) {
  Rig rig(2, Options{.credits = 2});
  const int kMessages = 12;
  std::vector<int> order[2];
  for (uint32_t me = 0; me < 2; ++me) {
    rig.spawn(me, "peer" + std::to_string(me), [&, me](Process& p) -> Task {
      Endpoint& e = rig.bip.endpoint(me);
      const VirtAddr buf = e.alloc(8192);
      int sent = 0, got = 0;
      while (sent < kMessages || got < kMessages) {
        bool progress = false;
        if (sent < kMessages && e.sends_in_flight() == 0) {
          e.write(buf, std::vector<uint8_t>{0, 0, 0, uint8_t(sent)});
          (void)co_await e.isend(p, 1 - me, 0, buf, 4);
          ++sent;
          progress = true;
        }
        // Receive only once this node's sends wait for credit (its peer's ring is full)
        // and the peer's do too (this ring is full): both queues full at once.
        const bool both_full = e.counters().credit_waits > 0 && rig.bip.endpoint(1 - me).counters().credit_waits > 0;
        if ((both_full || sent == kMessages) && e.probe(0)) {
          const RecvResult r = co_await e.recv(p, 0, buf + 4096, 4);
          order[me].push_back(e.read(buf + 4096, 4)[3]);
          EXPECT_TRUE(r.ok);
          ++got;
          progress = true;
        }
        if (!progress) {
          co_await p.sync();
          p.advance(2 * kMicrosecond);
        }
      }
      rig.finished();
    });
  }
  ASSERT_TRUE(rig.run()) << "deadlock";
  for (int me = 0; me < 2; ++me) {
    ASSERT_EQ(order[me].size(), size_t(kMessages));
    for (int k = 0; k < kMessages; ++k) EXPECT_EQ(order[me][k], k);
    EXPECT_GT(rig.bip.endpoint(me).counters().credit_waits, 0u);
  }
}

// A corrupted packet is dropped and counted; a short message on it is lost (its credit comes
// back with the next), a long message with it fails visibly; the traffic after is intact.
TEST_F(BipLibrary, ACorruptedPacketFailsItsMessageOnly) {
  Rig rig;
  Endpoint& a = rig.bip.endpoint(0);
  Endpoint& b = rig.bip.endpoint(1);
  net::FaultPlan f;
  f.corrupt_packets = {1, 5}; // node 0's packets from 0: short 1; the long message's third
  rig.cluster.network().node_tx(0).set_faults(f);
  const VirtAddr sbuf = a.alloc(16384), rbuf = b.alloc(16384);
  a.write(sbuf, pattern(16384, 9));
  std::vector<uint32_t> shorts;
  RecvResult lng, last;
  rig.spawn(1, "rx", [&](Process& p) -> Task {
    co_await b.irecv(p, 3, rbuf, 16384);                  // for the long one
    co_await b.send(p, 0, 1, rbuf, 4);                    // ready
    lng = co_await b.wait_recv(p);
    for (int k = 0; k < 2; ++k) {
      const RecvResult r = co_await b.recv(p, 2, rbuf, 64);
      shorts.push_back(r.ok ? b.read(rbuf, 4)[3] : 255);
    }
    co_await b.irecv(p, 3, rbuf, 16384);
    co_await b.send(p, 0, 1, rbuf, 4);
    last = co_await b.wait_recv(p);
    rig.finished();
  });
  rig.spawn(0, "tx", [&](Process& p) -> Task {
    const VirtAddr ack = a.alloc(4096);
    (void)co_await a.recv(p, 1, ack, 4);
    for (uint8_t k = 0; k < 3; ++k) {                      // packets 0, 1, 2: shorts 0, 1, 2
      a.write(sbuf, std::vector<uint8_t>{0, 0, 0, k});
      (void)co_await a.send(p, 1, 2, sbuf, 4);
    }
    a.write(sbuf, pattern(16384, 9));
    (void)co_await a.send(p, 1, 3, sbuf, 12288);           // packets 3.. (several)
    (void)co_await a.recv(p, 1, ack, 4);
    (void)co_await a.send(p, 1, 3, sbuf, 12288);
    rig.finished();
  });
  ASSERT_TRUE(rig.run());
  const auto kb = b.counters();
  EXPECT_EQ(kb.bad_crc, 2u);
  EXPECT_EQ(kb.lost, 2u);
  EXPECT_EQ(shorts, (std::vector<uint32_t>{0, 2}));      // short 1 was lost
  EXPECT_FALSE(lng.ok);
  EXPECT_NE(lng.error.find("lost a packet"), std::string::npos) << lng.error;
  EXPECT_TRUE(last.ok) << last.error;
  EXPECT_TRUE(difference(b.read(rbuf, 12288), pattern(12288, 9)).empty());
}

// A sender powered off in the middle of a long message: the receiver's receive fails
// (Rv.LOST after the MCP's timeout) instead of waiting for ever; the third node's traffic
// to the receiver goes on.
TEST_F(BipLibrary, ASenderPoweredOffMidMessageFailsTheReceiveOnly) {
  Rig rig(3);
  Endpoint& a = rig.bip.endpoint(0);
  Endpoint& b = rig.bip.endpoint(1);
  Endpoint& c = rig.bip.endpoint(2);
  const VirtAddr sbuf = a.alloc(1 << 20), rbuf = b.alloc(1 << 20), cbuf = c.alloc(4096);
  RecvResult lng, after;
  rig.spawn(1, "rx", [&](Process& p) -> Task {
    co_await b.irecv(p, 3, rbuf, 1 << 20);
    co_await b.send(p, 0, 1, rbuf, 4);
    lng = co_await b.wait_recv(p);
    after = co_await b.recv(p, 2, rbuf, 64);
    rig.finished();
  });
  rig.spawn(0, "tx", [&](Process& p) -> Task {
    const VirtAddr ack = a.alloc(4096);
    (void)co_await a.recv(p, 1, ack, 4);
    (void)co_await a.isend(p, 1, 3, sbuf, 1 << 20);
    rig.finished();                                       // never waits: it is powered off
  });
  rig.spawn(2, "other", [&](Process& p) -> Task {
    co_await p.sync();
    p.advance(3 * kMillisecond);
    (void)co_await c.send(p, 1, 2, cbuf, 16);
    rig.finished();
  });
  rig.cluster.kernel().run_until(2 * kMillisecond);       // about a quarter of the message
  rig.cluster.set_powered(0, false);
  ASSERT_TRUE(rig.run(100 * kMillisecond));
  EXPECT_FALSE(lng.ok);
  EXPECT_NE(lng.error.find("lost a packet (or its sender stopped)"), std::string::npos) << lng.error;
  EXPECT_TRUE(after.ok) << after.error;
  EXPECT_EQ(after.src, 2u);
}

// The packet-size model against simulated transfers: one-way times of long messages, with
// the model's packet and with fixed ones, within 10%; and its choice is the fastest.
TEST_F(BipLibrary, ThePipelineModelPredictsTransferTimes) {
  struct Cell { uint32_t len, packet; };
  const std::vector<Cell> cells = {{4096, 1024}, {4096, 2048}, {16384, 512}, {65536, 2048}, {262144, 4096}};
  for (const Cell& cell : cells) {
    Rig rig(2, Options{.packet = cell.packet});
    Endpoint& a = rig.bip.endpoint(0);
    Endpoint& b = rig.bip.endpoint(1);
    const VirtAddr sa = a.alloc(cell.len), ra = a.alloc(cell.len), rb = b.alloc(cell.len);
    std::vector<Time> one_way;
    rig.spawn(1, "pong", [&](Process& p) -> Task {
      co_await b.irecv(p, 0, rb, cell.len);
      co_await b.send(p, 0, 2, rb, 4);
      for (int k = 0; k < 3; ++k) {
        (void)co_await b.wait_recv(p);
        if (k < 2) co_await b.irecv(p, 0, rb, cell.len);
        (void)co_await b.send(p, 0, 1, rb, cell.len);
      }
      rig.finished();
    });
    rig.spawn(0, "ping", [&](Process& p) -> Task {
      (void)co_await a.recv(p, 2, ra, 4);
      for (int k = 0; k < 3; ++k) {
        co_await a.irecv(p, 1, ra, cell.len);
        const Time t0 = p.local();
        (void)co_await a.send(p, 1, 0, sa, cell.len);
        (void)co_await a.wait_recv(p);
        one_way.push_back((p.local() - t0) / 2);
      }
      rig.finished();
    });
    ASSERT_TRUE(rig.run());
    std::sort(one_way.begin(), one_way.end());
    const double measured = double(one_way[1]) / double(sim::kNanosecond);
    const double model = rig.bip.model().time_ns(cell.len, cell.packet);
    EXPECT_NEAR(model / measured, 1.0, 0.10) << cell.len << " bytes in " << cell.packet << "-byte packets: model "
                                             << model << " ns, measured " << measured << " ns";
  }
}

// Same inputs, same run: the event trace hash of a mixed exchange twice.
TEST_F(BipLibrary, RunsAreDeterministic) {
  auto once = [] {
    Rig rig;
    Endpoint& a = rig.bip.endpoint(0);
    Endpoint& b = rig.bip.endpoint(1);
    const VirtAddr sa = a.alloc(65536), rb = b.alloc(65536);
    rig.spawn(1, "rx", [&](Process& p) -> Task {
      for (uint32_t len : {4u, 512u, 8192u}) {
        co_await b.irecv(p, 0, rb, 65536);
        co_await b.send(p, 0, 1, rb, 4);
        const RecvResult r = co_await b.wait_recv(p);
        EXPECT_EQ(r.len, len);
      }
      rig.finished();
    });
    rig.spawn(0, "tx", [&](Process& p) -> Task {
      const VirtAddr ack = a.alloc(4096);
      for (uint32_t len : {4u, 512u, 8192u}) {
        (void)co_await a.recv(p, 1, ack, 4);
        (void)co_await a.send(p, 1, 0, sa, len);
      }
      rig.finished();
    });
    EXPECT_TRUE(rig.run());
    return std::make_pair(rig.cluster.kernel().trace_hash(), rig.cluster.kernel().now());
  };
  EXPECT_EQ(once(), once());
}

} // namespace
} // namespace lanaikit::bip
