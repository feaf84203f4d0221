// DART's driver and sending library (host/dart/driver.h, sender.h) over the firmware:
// endpoints in processes' address spaces whose pages reach the card's TLB only through
// misses the driver serves, connections with circuits and register windows at both ends,
// user-level sends of 32-byte WRITEs and of a remote READ, and a burst that fills the send
// slot's queue without a single refused send.
#include "dart_setup.h"

#include "host/dart/driver.h"
#include "host/dart/sender.h"

#include <gtest/gtest.h>

namespace lanaikit {
namespace {

using dart::Amode;
using dart::Cell;
using dart::Op;

struct World {
  std::unique_ptr<sim::Cluster> cluster;
  std::unique_ptr<kit::ImageView> view;
  std::unique_ptr<host::AddressSpace> space[2];
  std::unique_ptr<dart::Driver> driver;
  dart::Endpoint ep[2];
  dart::Connection conn;

  explicit World(bool with_switch = false) {
    cluster = std::make_unique<sim::Cluster>(test::dart_cluster(with_switch));
    view = std::make_unique<kit::ImageView>(test::image(), "dart");
    kit::load(*cluster, test::image());
    driver = std::make_unique<dart::Driver>(*cluster, *view);
    for (uint32_t n = 0; n < 2; ++n) {
      space[n] = std::make_unique<host::AddressSpace>(cluster->node(n).memory());
      ep[n] = driver->open_endpoint(n, *space[n], 4 * 4096);
    }
    conn = driver->connect(ep[0], ep[1], 8);
    driver->go();
    cluster->node(0).chip().on_stop([](vm::Chip& c) {
      if (c.cpu().fault()) ADD_FAILURE() << c.cpu().fault_report();
    });
  }
  std::vector<uint8_t> read(uint32_t n, uint32_t offset, uint32_t len) {
    std::vector<uint8_t> v(len);
    space[n]->copy_out(ep[n].base + offset, v);
    return v;
  }
  void run(const std::function<bool()>& done, sim::Time limit = 50 * sim::kMillisecond) {
    while (!done() && cluster->kernel().now() < limit)
      cluster->kernel().run_until(cluster->kernel().now() + 10 * sim::kMicrosecond);
    EXPECT_TRUE(done());
  }
};

std::vector<uint8_t> message(uint32_t seed) {
  std::vector<uint8_t> v(32);
  for (uint32_t i = 0; i < 32; ++i) v[i] = uint8_t(seed * 7 + i);
  return v;
}

// Node 0 writes 32-byte blocks into node 1's endpoint, one page after another: the first
// block on each page (at either end) is a TLB miss the driver serves; none is lost.
TEST(DartDriver, FirstTouchesMissTheCardsTlbAndTheDriverServesThem) {
  World w;
  bool done = false;
  w.cluster->node(0).spawn("writer", [&](host::Process& p) -> host::Task {
    dart::Sender s(*w.driver, *w.space[0], w.conn, true);
    for (uint32_t m = 0; m < 8; ++m) {
      const uint32_t off = (m / 2) * 4096 + (m % 2) * 64; // two blocks per page
      w.space[0]->copy_in(w.ep[0].base + 0x800, message(m)); // the source: one block
      co_await p.sync();
      co_await s.send(p, Cell::make(Op::Write, 0xFF, Amode::Direct, off), 0x800, 32);
      // Wait for the deposit before reusing the source block.
      co_await p.wait(w.cluster->node(1).memory_watch(), [&] { return w.read(1, off, 32) == message(m); });
    }
    done = true;
  });
  w.run([&] { return done; });
  EXPECT_EQ(w.driver->misses_served(1), 4u); // four pages at the receiver
  EXPECT_EQ(w.driver->misses_served(0), 1u); // the one source page at the sender
  for (uint32_t m = 0; m < 8; ++m) EXPECT_EQ(w.read(1, (m / 2) * 4096 + (m % 2) * 64, 32), message(m)) << m;
  EXPECT_EQ(w.view->constant32("DartEventKind.TLB_MISS"), w.driver->events(1).at(0).kind);
}

// A remote read: node 0 asks for 16 bytes of node 1's endpoint; the answer lands in node
// 0's endpoint at the offset its request carried, with neither host interrupted beyond
// the driver's first-touch misses.
TEST(DartDriver, ARemoteReadThroughTheLibrary) {
  World w(true);
  w.space[1]->copy_in(w.ep[1].base + 0x1230, message(5));
  bool done = false;
  w.cluster->node(0).spawn("reader", [&](host::Process& p) -> host::Task {
    dart::Sender s(*w.driver, *w.space[0], w.conn, true);
    std::vector<uint8_t> where(4);
    store_be32(where.data(), 0x600); // data word 0: where the answer goes in my endpoint
    w.space[0]->copy_in(w.ep[0].base + 0x40, where);
    co_await p.sync();
    co_await s.send(p, Cell::make(Op::Read, 0x0F, Amode::Direct, 0x1230), 0x40, 4);
    const std::vector<uint8_t> all = message(5);
    const std::vector<uint8_t> want(all.begin(), all.begin() + 16);
    co_await p.wait(w.cluster->node(0).memory_watch(), [&] { return w.read(0, 0x600, 16) == want; });
    done = true;
  });
  w.run([&] { return done; });
  EXPECT_EQ(w.read(0, 0x610, 16), std::vector<uint8_t>(16, 0)); // only the selected words
}

// More sends than a slot queues, back to back: the library reads SENT only when four may
// be outstanding, and the card refuses none.
TEST(DartDriver, ABurstNeverOverrunsTheSendSlot) {
  World w;
  bool done = false;
  w.cluster->node(0).spawn("burst", [&](host::Process& p) -> host::Task {
    dart::Sender s(*w.driver, *w.space[0], w.conn, true);
    w.space[0]->copy_in(w.ep[0].base, message(9));
    co_await p.sync();
    for (uint32_t m = 0; m < 40; ++m)
      co_await s.send(p, Cell::make(Op::Write, 0xFF, Amode::Direct, (m % 64) * 32), 0, 32);
    co_await p.wait(w.cluster->node(1).memory_watch(), [&] { return w.read(1, 39 * 32, 32) == message(9); });
    EXPECT_GT(s.waits(), 0u); // the queue did fill
    done = true;
  });
  w.run([&] { return done; });
  EXPECT_EQ(w.driver->send_registers(0).busy_refused(), 0u);
  EXPECT_EQ(kit::peek(w.cluster->node(0), w.view->ref("dart.counters.sends")), 40u);
  for (uint32_t m = 0; m < 40; ++m) EXPECT_EQ(w.read(1, m * 32, 32), message(9)) << m;
}

// A block through the library: WRITE_MULTIPLE from one endpoint into the other, its bytes
// fetched across pages at the sender and deposited across pages at the receiver.
TEST(DartDriver, ABlockTransferThroughTheSendRegisters) {
  World w;
  std::vector<uint8_t> block(3000);
  for (uint32_t i = 0; i < block.size(); ++i) block[i] = uint8_t(i * 31 + (i >> 7));
  w.space[0]->copy_in(w.ep[0].base + 0xC00, block); // 0xC00 .. 0x17B8: two pages
  bool done = false;
  w.cluster->node(0).spawn("block", [&](host::Process& p) -> host::Task {
    dart::Sender s(*w.driver, *w.space[0], w.conn, true);
    co_await p.sync();
    co_await s.send(p, Cell::make(Op::WriteMultiple, 0, Amode::Direct, 0x2F00), 0xC00, 3000);
    co_await p.wait(w.cluster->node(1).memory_watch(), [&] { return w.read(1, 0x2F00, 3000) == block; });
    done = true;
  });
  w.run([&] { return done; });
  EXPECT_EQ(kit::peek(w.cluster->node(1), w.view->ref("dart.counters.blocks")), 1u);
  EXPECT_EQ(kit::peek(w.cluster->node(1), w.view->ref("dart.counters.bad_block")), 0u);
  EXPECT_EQ(w.read(1, 0x2F00 - 4, 4), std::vector<uint8_t>(4, 0));
  EXPECT_EQ(w.read(1, 0x2F00 + 3000, 4), std::vector<uint8_t>(4, 0));
}

} // namespace
} // namespace lanaikit

namespace lanaikit {
namespace {

// Two processes on node 0, each with its own address space, endpoint and connection to
// node 1: neither can be given the other's send slot, and a store to the other's Send
// Register page faults without reaching the card; the owner's sends are unharmed.
TEST(DartDriver, AProcessCannotWriteAnotherConnectionsSendRegisters) {
  World w;
  host::AddressSpace intruder_space(w.cluster->node(0).memory());
  const dart::Endpoint intruder_ep = w.driver->open_endpoint(0, intruder_space, 4096);
  const dart::Connection intruder_conn = w.driver->connect(intruder_ep, w.ep[1], 1);
  EXPECT_THROW(dart::Sender(*w.driver, intruder_space, w.conn, true), std::invalid_argument);
  EXPECT_THROW(dart::Sender(*w.driver, *w.space[0], intruder_conn, true), std::invalid_argument);
  const uint32_t victim_page = w.driver->map_send_slot(w.conn, true, *w.space[0]);
  uint32_t faults_seen = 0;
  bool done = false;
  w.cluster->node(0).spawn("intruder", [&](host::Process& p) -> host::Task {
    // Its own slot's page is mapped for it; the victim's page (the same virtual address
    // in the victim's space) and every other device page are not.
    dart::Sender mine(*w.driver, intruder_space, intruder_conn, true);
    for (const uint32_t vaddr : {victim_page + dart::SendRegisters::SIZE, victim_page + dart::SendRegisters::OP,
                                 dart::Driver::kSendPages + 15 * 4096u}) {
      try {
        w.driver->send_register_write(p, 0, intruder_space, vaddr, 32);
      } catch (const host::PageFault&) {
        ++faults_seen;
      }
    }
    co_await p.sync();
  });
  w.cluster->node(0).spawn("owner", [&](host::Process& p) -> host::Task {
    dart::Sender s(*w.driver, *w.space[0], w.conn, true);
    w.space[0]->copy_in(w.ep[0].base + 0x800, message(3));
    co_await p.sync();
    co_await s.send(p, Cell::make(Op::Write, 0xFF, Amode::Direct, 0x40), 0x800, 32);
    co_await p.wait(w.cluster->node(1).memory_watch(), [&] { return w.read(1, 0x40, 32) == message(3); });
    done = true;
  });
  w.run([&] { return done; });
  EXPECT_EQ(faults_seen, 3u);
  EXPECT_EQ(w.driver->protection_faults(0), 3u);
  EXPECT_EQ(w.driver->send_registers(0).busy_refused(), 0u);
  EXPECT_EQ(kit::peek(w.cluster->node(0), w.view->ref("dart.counters.sends")), 1u); // the owner's only
  EXPECT_EQ(kit::peek(w.cluster->node(1), w.view->ref("dart.counters.writes")), 1u);
}

} // namespace
} // namespace lanaikit
