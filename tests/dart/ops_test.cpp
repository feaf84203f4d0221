// DART's library calls over the driver and the firmware (host/dart/ops.h, barrier.h,
// delayed_queue.h): fetch-and-add, swap, compare-and-swap and remote reads as blocking
// calls answered by the remote card; an N-node barrier; delayed-action queues that
// accumulate entries from several posters without an interrupt and warn their owner when
// nearly full.
#include "dart_setup.h"

#include "base/bytes.h"
#include "host/dart/barrier.h"
#include "host/dart/delayed_queue.h"
#include "host/dart/ops.h"

#include <gtest/gtest.h>

namespace lanaikit {
namespace {

using dart::Cell;

constexpr uint32_t kEndpointBytes = 4 * 4096;
constexpr uint32_t kScratch = 0x3000; // each Ops' scratch area, in the last page

struct World {
  std::unique_ptr<sim::Cluster> cluster;
  std::unique_ptr<kit::ImageView> view;
  std::vector<std::unique_ptr<host::AddressSpace>> space;
  std::unique_ptr<dart::Driver> driver;
  std::vector<dart::Endpoint> ep;

  explicit World(uint32_t nodes, bool with_switch = true) {
    cluster = std::make_unique<sim::Cluster>(test::dart_cluster(with_switch || nodes > 2, -1, nodes));
    view = std::make_unique<kit::ImageView>(test::image(), "dart");
    kit::load(*cluster, test::image());
    driver = std::make_unique<dart::Driver>(*cluster, *view);
    for (uint32_t n = 0; n < nodes; ++n) {
      space.push_back(std::make_unique<host::AddressSpace>(cluster->node(n).memory()));
      ep.push_back(driver->open_endpoint(n, *space[n], kEndpointBytes));
    }
    for (uint32_t n = 0; n < nodes; ++n)
      cluster->node(n).chip().on_stop([](vm::Chip& c) {
        if (c.cpu().fault()) ADD_FAILURE() << c.cpu().fault_report();
      });
  }
  uint32_t word(uint32_t n, uint32_t offset) { return space[n]->read32(ep[n].base + offset); }
  uint32_t be_word(uint32_t n, uint32_t offset) {
    std::array<uint8_t, 4> b{};
    space[n]->copy_out(ep[n].base + offset, b);
    return load_be32(b.data());
  }
  void run(const std::function<bool()>& done, sim::Time limit = 200 * sim::kMillisecond) {
    while (!done() && cluster->kernel().now() < limit)
      cluster->kernel().run_until(cluster->kernel().now() + 10 * sim::kMicrosecond);
    EXPECT_TRUE(done());
  }
  uint64_t counter(uint32_t n, const std::string& name) {
    return kit::peek(cluster->node(n), view->ref("dart.counters." + name));
  }
};

TEST(DartOps, FetchAndAddSwapAndCompareAndSwapReturnTheOldValue) {
  World w(2, false);
  const dart::Connection c = w.driver->connect(w.ep[0], w.ep[1], 4);
  w.driver->set_register(1, c.regs_b + 2, 100);
  w.driver->go();
  std::vector<uint32_t> got;
  bool done = false;
  w.cluster->node(0).spawn("ops", [&](host::Process& p) -> host::Task {
    dart::Ops ops(*w.driver, *w.space[0], c, true, kScratch);
    got.push_back(co_await ops.fetch_and_add(p, 2, 5));          // 100 -> 105
    got.push_back(co_await ops.fetch_and_add(p, 2, uint32_t(-1))); // 105 -> 104
    got.push_back(co_await ops.swap(p, 2, 7));                   // 104 -> 7
    got.push_back(co_await ops.compare_and_swap(p, 2, 7, 8));    // 7 -> 8: swapped
    got.push_back(co_await ops.compare_and_swap(p, 2, 7, 9));    // 8 stays: failed
    got.push_back(co_await ops.read_register(p, 2));
    done = true;
  });
  w.run([&] { return done; });
  EXPECT_EQ(got, (std::vector<uint32_t>{100, 105, 104, 7, 8, 8}));
  EXPECT_EQ(w.driver->register_value(1, c.regs_b + 2), 8u);
  EXPECT_EQ(w.counter(1, "fetches"), 6u);
  EXPECT_EQ(w.counter(1, "swaps_failed"), 1u);
}

TEST(DartOps, RemoteReadsOfWordsAndOfABlock) {
  World w(2);
  const dart::Connection c = w.driver->connect(w.ep[0], w.ep[1], 1);
  std::vector<uint8_t> data(5000);
  for (size_t i = 0; i < data.size(); ++i) data[i] = uint8_t(i * 31 + (i >> 7));
  w.space[1]->copy_in(w.ep[1].base + 0x100, data);
  w.driver->go();
  bool done = false;
  w.cluster->node(0).spawn("reader", [&](host::Process& p) -> host::Task {
    dart::Ops ops(*w.driver, *w.space[0], c, true, kScratch);
    co_await ops.read(p, 0x100, 20, 0x40);          // 5 words
    co_await ops.read_block(p, 0x100, 4000, 0x1000); // a block across pages, then the tag
    done = true;
  });
  w.run([&] { return done; });
  std::vector<uint8_t> words(20), block(4000);
  w.space[0]->copy_out(w.ep[0].base + 0x40, words);
  w.space[0]->copy_out(w.ep[0].base + 0x1000, block);
  EXPECT_EQ(words, std::vector<uint8_t>(data.begin(), data.begin() + 20));
  EXPECT_EQ(block, std::vector<uint8_t>(data.begin(), data.begin() + 4000));
  EXPECT_EQ(w.counter(1, "read_blocks"), 1u);
  // Node 1's host heard only of its first-touch misses (the driver's interrupts).
  for (const dart::Event& e : w.driver->events(1)) EXPECT_EQ(e.kind, w.view->constant32("DartEventKind.TLB_MISS"));
}

// Every member counts its passages; no member may pass episode e before every member has
// arrived at it.
TEST(DartOps, AnNNodeBarrierHoldsEveryMemberUntilAllHaveArrived) {
  for (const uint32_t nodes : {2u, 4u}) {
    World w(nodes);
    std::vector<dart::Barrier::Member> members;
    for (uint32_t n = 0; n < nodes; ++n) members.push_back({w.ep[n], w.space[n].get()});
    dart::Barrier barrier(*w.driver, *w.cluster, members, 0x2000);
    w.driver->go();
    constexpr uint32_t kEpisodes = 5;
    std::vector<uint32_t> arrived(nodes, 0), passed(nodes, 0);
    bool violated = false;
    for (uint32_t n = 0; n < nodes; ++n)
      w.cluster->node(n).spawn("member", [&, n](host::Process& p) -> host::Task {
        for (uint32_t e = 1; e <= kEpisodes; ++e) {
          p.advance(sim::Time(1 + 3 * n + 7 * e) * sim::kMicrosecond); // arrive at staggered times
          arrived[n] = e;
          co_await barrier.arrive(p, n);
          for (uint32_t m = 0; m < nodes; ++m) violated |= arrived[m] < e;
          passed[n] = e;
        }
      });
    w.run([&] { return std::all_of(passed.begin(), passed.end(), [](uint32_t e) { return e == kEpisodes; }); });
    EXPECT_FALSE(violated) << nodes << " nodes";
    EXPECT_EQ(w.driver->register_value(0, barrier.counter_register()), kEpisodes * (nodes - 1));
    EXPECT_GT(barrier.counter_polls(), 0u);
  }
}

// Two posters fill one owner's queue; the owner drains when it chooses: every entry, in
// each poster's order, no interrupt but the warning when the ring nears full.
TEST(DartOps, ADelayedActionQueueAccumulatesUntilTheOwnerDrainsIt) {
  World w(3);
  dart::DelayedQueue q(*w.driver, w.ep[0], *w.space[0], 0x1000, 16, 4);
  const dart::Connection c1 = q.attach(w.ep[1]);
  const dart::Connection c2 = q.attach(w.ep[2]);
  w.driver->go();
  uint32_t posted = 0;
  for (uint32_t n : {1u, 2u})
    w.cluster->node(n).spawn("poster", [&, n](host::Process& p) -> host::Task {
      dart::Ops ops(*w.driver, *w.space[n], n == 1 ? c1 : c2, true, kScratch);
      for (uint32_t i = 0; i < 6; ++i) {
        const std::vector<uint32_t> entry{n, i, n * 100 + i}; // named: GCC 12, braced lists and co_await
        co_await q.post(p, ops, entry, 0x55);
        ++posted;
      }
    });
  w.run([&] { return posted == 12 && w.counter(0, "writes") == 12; });
  const uint64_t warnings_before = w.counter(0, "conds");
  std::vector<dart::DelayedQueue::Entry> got;
  bool drained = false;
  w.cluster->node(0).spawn("owner", [&](host::Process& p) -> host::Task {
    got = co_await q.drain(p);
    drained = true;
  });
  w.run([&] { return drained; });
  ASSERT_EQ(got.size(), 12u);
  std::vector<uint32_t> next(3, 0);
  for (const auto& e : got) {
    ASSERT_TRUE(e[0] == 1 || e[0] == 2);
    EXPECT_EQ(e[1], next[e[0]]++) << "poster " << e[0] << "'s entries in its order";
    EXPECT_EQ(e[2], e[0] * 100 + e[1]);
  }
  // 12 entries in a ring of 16 with slack 4: the tail reached the warning position once.
  EXPECT_EQ(warnings_before, 1u);
  EXPECT_EQ(w.driver->register_value(0, q.tail_register()), 0x1000u + 12 * 32);
  EXPECT_EQ(w.counter(0, "bad_bound"), 0u);
}

// Priority queueing: one delayed-action queue per priority at the owner, each poster
// attached to both; the owner drains the higher one first, whatever the arrival order.
TEST(DartOps, PriorityQueueingIsOneQueuePerPriorityDrainedHighestFirst) {
  World w(2, false);
  dart::DelayedQueue high(*w.driver, w.ep[0], *w.space[0], 0x1000, 8, 2);
  dart::DelayedQueue low(*w.driver, w.ep[0], *w.space[0], 0x2000, 8, 2);
  const dart::Connection ch = high.attach(w.ep[1]);
  const dart::Connection cl = low.attach(w.ep[1]);
  w.driver->go();
  bool posted = false;
  w.cluster->node(1).spawn("poster", [&](host::Process& p) -> host::Task {
    dart::Ops to_high(*w.driver, *w.space[1], ch, true, kScratch);
    dart::Ops to_low(*w.driver, *w.space[1], cl, true, kScratch + dart::Ops::kScratchBytes);
    for (uint32_t i = 0; i < 6; ++i) {
      const std::vector<uint32_t> entry{i};
      if (i % 3 == 0) co_await high.post(p, to_high, entry);
      else co_await low.post(p, to_low, entry);
    }
    posted = true;
  });
  w.run([&] { return posted && w.counter(0, "writes") == 6; });
  std::vector<uint32_t> order;
  bool drained = false;
  w.cluster->node(0).spawn("owner", [&](host::Process& p) -> host::Task {
    for (dart::DelayedQueue* q : {&high, &low})
      for (const auto& e : co_await q->drain(p)) order.push_back(e[0]);
    drained = true;
  });
  w.run([&] { return drained; });
  EXPECT_EQ(order, (std::vector<uint32_t>{0, 3, 1, 2, 4, 5}));
}

// The driver's handlers for what the card reports to the host: a conditional that fires
// and a software exception reach the handler of the receiving node, in order, and a
// process waiting on event_watch wakes.
TEST(DartOps, ConditionalsAndExceptionsReachTheDriversHandler) {
  World w(2, false);
  const dart::Connection c = w.driver->connect(w.ep[0], w.ep[1], 2);
  std::vector<std::pair<uint32_t, dart::Event>> seen;
  w.driver->on_event([&](uint32_t node, const dart::Event& e) { seen.push_back({node, e}); });
  w.driver->go();
  bool woke = false;
  w.cluster->node(1).spawn("waiter", [&](host::Process& p) -> host::Task {
    const std::function<bool()> two = [&] { return seen.size() >= 2; };
    co_await p.wait(w.driver->event_watch(1), two);
    woke = true;
  });
  w.cluster->node(0).spawn("sender", [&](host::Process& p) -> host::Task {
    dart::Ops ops(*w.driver, *w.space[0], c, true, kScratch);
    const std::vector<uint32_t> none; // (named: GCC 12, braced lists and co_await)
    // NOP: <i> += 5, then if <i> >= 5 interrupt; then an exception with operand 0x77.
    co_await ops.send(p, Cell::make(dart::Op::Nop, 0, dart::Amode::Direct, 5)
                             .regs(0)
                             .reg_ops(dart::RegOp::Add, dart::Sel::I, dart::Src::Operand)
                             .cond(dart::Cmp::Geu, dart::Sel::I, dart::Src::Operand),
                      none);
    const std::vector<uint32_t> value{0x1234};
    co_await ops.send(p, Cell::make(dart::Op::Exception, 0, dart::Amode::Direct, 0x77), value);
  });
  w.run([&] { return woke; });
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].first, 1u);
  EXPECT_EQ(seen[0].second.kind, w.view->constant32("DartEventKind.COND"));
  EXPECT_EQ(seen[0].second.a, 5u); // the register's value
  EXPECT_EQ(seen[1].second.kind, w.view->constant32("DartEventKind.EXCEPTION"));
  EXPECT_EQ(seen[1].second.a, 0x77u);
  EXPECT_EQ(seen[1].second.b, 0x1234u);
}

} // namespace
} // namespace lanaikit
