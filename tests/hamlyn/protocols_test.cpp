// Hamlyn's upper level (host/hamlyn/protocols.h) on the real control program: tagged remote
// write (fast mode, tags by arrival or by name), datagrams with a reply ticket carried in
// the metadata, and a stream under load (small sends coalesced, large ones zero-copy, the
// sender blocking on tickets and ring space, every byte checked in order).
#include "../chip/firmware.h"
#include "../kit/payload.h"

#include "host/hamlyn/protocols.h"

#include <gtest/gtest.h>

namespace lanaikit {
namespace {

using namespace hamlyn;

const assembler::FirmwareImage& image() {
  static const assembler::FirmwareImage img = test::build_firmware({test::source("firmware/hamlyn/hamlyn.fw")});
  return img;
}

struct World {
  World()
      : platform(sim::load_platform(test::source("lua-scripts/platforms/hamlyn.lua"))),
        cluster(sim::cluster_params(platform, 2)), h(cluster, image(), costs_from_platform(platform)),
        a(h.open(0)), b(h.open(1)), ma(a), mb(b) {}
  void run_until(const std::function<bool()>& done, sim::Time limit = 500 * sim::kMillisecond) {
    while (!done() && cluster.kernel().now() < limit)
      cluster.kernel().run_until(cluster.kernel().now() + 20 * sim::kMicrosecond);
    ASSERT_TRUE(done()) << "not done by " << limit << " ps";
  }
  std::vector<uint8_t> mem(uint32_t n, uint64_t at, uint32_t len) {
    std::vector<uint8_t> v(len);
    cluster.node(n).memory().read(at, v);
    return v;
  }
  sim::Platform platform;
  sim::Cluster cluster;
  Hamlyn h;
  Application &a, &b;
  Manager ma, mb;
};

TEST(HamlynProtocols, TaggedRemoteWrite) {
  World w;
  TrwReceiver r(w.mb, 4096);
  TrwSender s(w.ma);
  const Ticket t = r.ticket(1024, 1024);
  const uint64_t src = w.ma.alloc(64);
  const auto data = test::pattern(64, 1);
  w.cluster.node(0).memory().write(src, data);
  std::vector<uint32_t> tags;
  bool got_specific = false;
  w.cluster.node(0).spawn("tx", [&](host::Process& p) -> host::Task {
    for (uint32_t i = 0; i < 4; ++i) co_await s.send(p, t, src + 16 * i, 16, 16 * i, 100 + i);
  });
  w.cluster.node(1).spawn("rx", [&](host::Process& p) -> host::Task {
    got_specific = co_await r.get_specific_tag(p, 102, sim::kMillisecond);  // the others stay queued
    for (int i = 0; i < 3; ++i) {
      auto tag = co_await r.get_tag(p, sim::kMillisecond);
      if (tag) tags.push_back(*tag);
    }
  });
  w.run_until([&] { return tags.size() == 3; });
  EXPECT_TRUE(got_specific);
  EXPECT_EQ(tags, (std::vector<uint32_t>{100, 101, 103}));
  EXPECT_EQ(w.mem(1, r.area() + 1024, 64), data);
  // Fast mode: no metadata entry, one packet each.
  uint64_t packets = 0;
  for (const auto& [k, v] : w.h.counters(1))
    if (k == "packets_in") packets = v;
  EXPECT_EQ(packets, 4u);
}

TEST(HamlynProtocols, DatagramWithAReplyTicket) {
  World w;
  DatagramReceiver rb(w.mb, 8192, 2), ra(w.ma, 8192, 1);
  DatagramSender sa(w.ma), sb(w.mb);
  const uint64_t src = w.ma.alloc(1000), back = w.mb.alloc(1000);
  const auto ping = test::pattern(1000, 2), pong = test::pattern(300, 3);
  w.cluster.node(0).memory().write(src, ping);
  w.cluster.node(1).memory().write(back, pong);
  std::optional<Datagram> answer;
  w.cluster.node(0).spawn("client", [&](host::Process& p) -> host::Task {
    co_await sa.send(p, rb.ticket(1, 2048, 1000), src, 1000, ra.ticket(0, 0, 4096));
    answer = co_await ra.receive(p, 0, 10 * sim::kMillisecond);
  });
  w.cluster.node(1).spawn("server", [&](host::Process& p) -> host::Task {
    std::optional<Datagram> d = co_await rb.receive(p, 1, 10 * sim::kMillisecond);
    if (!d || !d->reply) co_return;
    EXPECT_EQ(d->offset, 2048u);
    EXPECT_EQ(d->len, 1000u);
    EXPECT_FALSE(rb.ready(0));
    co_await sb.send(p, *d->reply, back, 300);
  });
  w.run_until([&] { return answer.has_value(); });
  EXPECT_EQ(test::difference(w.mem(1, rb.area() + 2048, 1000), ping), "");
  EXPECT_EQ(answer->len, 300u);
  EXPECT_EQ(test::difference(w.mem(0, ra.area() + answer->offset, 300), pong), "");
}

TEST(HamlynProtocols, StreamDeliversInOrderAndBlocksOnTickets) {
  World w;
  // A small ring and 4 tickets: the sender must wait for releases.
  StreamReceiver r(w.mb, 16384, 4);
  StreamSender s(w.ma, r.make_seed(), 256, 2048);
  r.accept(s.ack_ticket());
  const uint32_t records = 120;
  std::vector<std::vector<uint8_t>> sent;
  std::vector<uint8_t> stream_sent, stream_got;
  uint64_t src = w.ma.alloc(8192);
  uint32_t x = 7;
  for (uint32_t i = 0; i < records; ++i) {
    x = x * 1103515245u + 12345;
    const uint32_t len = (x >> 16) % 4 == 0 ? 1024 + (x >> 8) % 3000 : 4 + (x >> 8) % 200;
    sent.push_back(test::pattern(len, i));
  }
  for (const auto& m : sent) stream_sent.insert(stream_sent.end(), m.begin(), m.end());
  bool done = false, tx_done = false;
  w.cluster.node(0).spawn("tx", [&](host::Process& p) -> host::Task {
    for (const auto& m : sent) {
      w.cluster.node(0).memory().write(src, m);
      co_await s.send(p, src, uint32_t(m.size()));
      // A small send was copied (src is free at once); a large one is zero-copy: its
      // buffer is the application's again once the card has sent it.
      if (m.size() >= 256) {
        const std::function<bool()> free = [&] { return w.a.sent() == w.a.posted(); };
        co_await p.sync();
        if (!free()) co_await p.wait(w.cluster.node(0).memory_watch(), free);
      }
    }
    co_await s.flush(p);
    // Drained: every record released (the releases reach the sender through its manager).
    while (s.released() < s.messages()) {
      const bool got = co_await w.ma.poll(p, 20 * sim::kMillisecond);
      if (!got) break;
    }
    tx_done = true;
  });
  w.cluster.node(1).spawn("rx", [&](host::Process& p) -> host::Task {
    uint32_t seq = 0;
    while (stream_got.size() < stream_sent.size()) {
      std::optional<Record> rec = co_await r.receive(p, 20 * sim::kMillisecond);
      if (!rec) break;
      EXPECT_EQ(rec->seq, ++seq);
      std::vector<uint8_t> b(rec->len);
      w.cluster.node(1).memory().read(rec->start, b);
      stream_got.insert(stream_got.end(), b.begin(), b.end());
      co_await r.release(p, rec->seq);
    }
    done = true;
  });
  w.run_until([&] { return done && tx_done; });
  EXPECT_EQ(test::difference(stream_got, stream_sent), "");
  EXPECT_EQ(s.released(), s.messages());
  EXPECT_GT(s.blocked(), 0u) << "4 tickets for 120 records: the sender must have waited";
  EXPECT_LT(s.messages(), records) << "small sends were coalesced";
}

} // namespace
} // namespace lanaikit
