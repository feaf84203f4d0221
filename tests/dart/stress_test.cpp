// DART under load (issue 14, "Safety and load"): N nodes on a cell switch, every node's
// process issuing random operations to random peers (32-byte WRITEs into its own region
// of the peer's endpoint, READs of what it wrote there, fetch-and-add on the peers'
// shared counters, compare-and-swap on their locks) while the endpoints' pages reach the
// cards' TLBs only through misses (a storm of them at the start), and everything checked
// against a model: every answer as it arrives, the final counters and every byte of every
// endpoint.
//
// The message count is LK_DART_STRESS_MESSAGES (cells sent, all nodes together; default
// 3,000 here). The million-message runs are made by hand:
//   LK_DART_STRESS_MESSAGES=1000000 build/tests/dart/dart_stress_tests
#include "dart_setup.h"

#include "base/bytes.h"
#include "host/dart/ops.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <random>
#include <set>

namespace lanaikit {
namespace {

using dart::Amode;
using dart::Cell;
using dart::Op;

constexpr uint32_t kBlocks = 32;           // 32-byte blocks per writer's region at each peer
constexpr uint32_t kStride = 1024;         // spread over 8 pages: a storm of first-touch misses
constexpr uint32_t kRegion = kBlocks * kStride;
constexpr uint32_t kCounters = 4;          // registers per node that every peer's window shares
constexpr uint32_t kLock = 3;              // the counter that compare-and-swap takes turns on

uint64_t messages_wanted() {
  const char* v = std::getenv("LK_DART_STRESS_MESSAGES");
  return v ? std::strtoull(v, nullptr, 10) : 3000;
}

struct Stress {
  uint32_t nodes;
  std::unique_ptr<sim::Cluster> cluster;
  std::unique_ptr<kit::ImageView> view;
  std::vector<std::unique_ptr<host::AddressSpace>> space;
  std::unique_ptr<dart::Driver> driver;
  std::vector<dart::Endpoint> ep;
  std::vector<uint32_t> counters;                        // each node's first shared register
  std::vector<std::vector<dart::Connection>> conn;       // conn[i][j]: i's connection to j (i is a)
  // Layout of every endpoint: writer s's region at s * kRegion; then read landing areas,
  // then the Ops' scratch, one per peer.
  uint32_t read_area() const { return nodes * kRegion; }
  uint32_t scratch(uint32_t peer) const { return read_area() + 64 * nodes + peer * dart::Ops::kScratchBytes; }
  uint32_t endpoint_bytes() const { return (scratch(nodes) + 4095) & ~4095u; }

  // The model.
  std::vector<std::vector<std::vector<std::array<uint8_t, 32>>>> blocks; // [dest][writer][block]
  std::vector<std::array<uint64_t, kCounters>> counter_sum;              // [node][counter]
  std::vector<std::set<uint32_t>> fetched_one;                           // old values of +1 adds on counter 0
  uint64_t cas_won = 0, cas_lost = 0, reads = 0, writes = 0, fetches = 0;
  uint64_t mismatches = 0;

  explicit Stress(uint32_t n) : nodes(n) {
    cluster = std::make_unique<sim::Cluster>(test::dart_cluster(true, -1, n));
    view = std::make_unique<kit::ImageView>(test::image(), "dart");
    kit::load(*cluster, test::image());
    driver = std::make_unique<dart::Driver>(*cluster, *view);
    for (uint32_t i = 0; i < n; ++i) {
      space.push_back(std::make_unique<host::AddressSpace>(cluster->node(i).memory()));
      ep.push_back(driver->open_endpoint(i, *space[i], endpoint_bytes()));
      counters.push_back(driver->alloc_registers(i, kCounters));
    }
    conn.assign(n, std::vector<dart::Connection>(n));
    for (uint32_t i = 0; i < n; ++i)
      for (uint32_t j = i + 1; j < n; ++j) {
        conn[i][j] = driver->connect(ep[i], ep[j], kCounters, {.at_a = counters[i], .at_b = counters[j]});
        conn[j][i] = conn[i][j];
      }
    blocks.assign(n, std::vector<std::vector<std::array<uint8_t, 32>>>(n, std::vector<std::array<uint8_t, 32>>(kBlocks)));
    counter_sum.assign(n, {});
    fetched_one.resize(n);
    for (uint32_t i = 0; i < n; ++i)
      cluster->node(i).chip().on_stop([](vm::Chip& c) {
        if (c.cpu().fault()) ADD_FAILURE() << c.cpu().fault_report();
      });
  }

  // Node i's process: `count` operations, each one cell (a READ or an answered operation
  // is one cell out and one back; counted once, as one message sent).
  host::Task body(host::Process& p, uint32_t i, uint64_t count, uint64_t seed, uint64_t& done) {
    std::mt19937_64 rng(seed);
    std::vector<std::unique_ptr<dart::Ops>> ops(nodes);
    for (uint32_t j = 0; j < nodes; ++j)
      if (j != i) ops[j] = std::make_unique<dart::Ops>(*driver, *space[i], conn[i][j], i < j, scratch(j));
    uint32_t lock_seen = 0;
    for (uint64_t m = 0; m < count; ++m) {
      uint32_t j = uint32_t(rng() % (nodes - 1));
      j += j >= i;
      const uint32_t kind = uint32_t(rng() % 10);
      const uint32_t block = uint32_t(rng() % kBlocks);
      if (kind < 5) { // WRITE 32 bytes into my region at j
        std::vector<uint32_t> words(8);
        for (uint32_t& w : words) w = uint32_t(rng());
        co_await ops[j]->send(p, Cell::make(Op::Write, 0xFF, Amode::Direct, i * kRegion + block * kStride), words);
        for (uint32_t w = 0; w < 8; ++w) store_be32(blocks[j][i][block].data() + 4 * w, words[w]);
        ++writes;
      } else if (kind < 7) { // READ back 28 bytes of it: my writes before it arrived first
        const uint32_t landing = read_area() + 64 * j;
        co_await ops[j]->read(p, i * kRegion + block * kStride, 28, landing);
        std::array<uint8_t, 28> got{};
        space[i]->copy_out(ep[i].base + landing, got);
        if (!std::equal(got.begin(), got.end(), blocks[j][i][block].begin())) ++mismatches;
        ++reads;
      } else if (kind < 9) { // fetch-and-add on one of j's counters (counter 0: always +1)
        const uint32_t c = uint32_t(rng() % (kCounters - 1));
        const uint32_t delta = c == 0 ? 1 : uint32_t(rng() % 1000);
        const uint32_t old = co_await ops[j]->fetch_and_add(p, c, delta);
        counter_sum[j][c] += delta;
        if (c == 0 && !fetched_one[j].insert(old).second) ++mismatches; // two callers saw one value
        ++fetches;
      } else { // compare-and-swap on j's lock: from what I last saw to one more
        const uint32_t old = co_await ops[j]->compare_and_swap(p, kLock, lock_seen, lock_seen + 1);
        if (old == lock_seen) {
          ++cas_won;
          lock_seen = old + 1;
        } else {
          ++cas_lost;
          lock_seen = old;
        }
      }
    }
    ++done;
  }

  void check_final() {
    for (uint32_t j = 0; j < nodes; ++j) {
      for (uint32_t c = 0; c + 1 < kCounters; ++c)
        EXPECT_EQ(driver->register_value(j, counters[j] + c), uint32_t(counter_sum[j][c])) << "node " << j << " counter " << c;
      for (uint32_t w = 0; w < nodes; ++w) {
        if (w == j) continue;
        std::vector<uint8_t> got(kRegion);
        space[j]->copy_out(ep[j].base + w * kRegion, got);
        for (uint32_t b = 0; b < kBlocks; ++b)
          ASSERT_TRUE(std::equal(blocks[j][w][b].begin(), blocks[j][w][b].end(), got.begin() + b * kStride))
              << "node " << j << ", writer " << w << ", block " << b;
      }
    }
    uint64_t lock_total = 0;
    for (uint32_t j = 0; j < nodes; ++j) lock_total += driver->register_value(j, counters[j] + kLock);
    EXPECT_EQ(lock_total, cas_won); // each won swap added one to some lock
  }
};

void run_stress(uint32_t nodes) {
  Stress s(nodes);
  s.driver->go();
  const uint64_t total = messages_wanted();
  uint64_t done = 0;
  for (uint32_t i = 0; i < nodes; ++i)
    s.cluster->node(i).spawn("stress", [&s, i, total, nodes, &done](host::Process& p) {
      return s.body(p, i, total / nodes, 0x5EED0000 + i, done);
    });
  const auto wall0 = std::chrono::steady_clock::now();
  while (done < nodes && s.cluster->kernel().now() < sim::Time(3600) * sim::kSecond)
    s.cluster->kernel().run_until(s.cluster->kernel().now() + 100 * sim::kMicrosecond);
  ASSERT_EQ(done, nodes);
  // The last WRITEs may still be on their way: every cell deposited is a WRITE at its
  // destination (the answers too), so the run is over when the cards have counted them all.
  const uint64_t deposits = s.writes + s.reads + s.fetches + s.cas_won + s.cas_lost;
  auto deposited = [&] {
    uint64_t n = 0;
    for (uint32_t i = 0; i < nodes; ++i) n += kit::peek(s.cluster->node(i), s.view->ref("dart.counters.writes"));
    return n;
  };
  const sim::Time drain_limit = s.cluster->kernel().now() + 10 * sim::kMillisecond;
  while (deposited() < deposits && s.cluster->kernel().now() < drain_limit)
    s.cluster->kernel().run_until(s.cluster->kernel().now() + 10 * sim::kMicrosecond);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  EXPECT_EQ(deposited(), deposits);
  EXPECT_EQ(s.mismatches, 0u);
  s.check_final();
  uint64_t misses = 0, refused = 0;
  for (uint32_t i = 0; i < nodes; ++i) {
    misses += s.driver->misses_served(i);
    for (const char* c : {"bad_vci", "bad_reg", "bad_bound", "bad_mask", "bad_op", "bad_send", "events_lost", "rx_drops"})
      refused += kit::peek(s.cluster->node(i), s.view->ref(std::string("dart.counters.") + c));
  }
  EXPECT_EQ(refused, 0u);
  EXPECT_GT(misses, 0u); // the start's storm: every page's first touch at either end
  std::printf("DART stress, %u nodes: %llu messages (%llu writes, %llu reads, %llu fetch-and-adds, %llu CAS: %llu won), "
              "%llu TLB misses served, %.3f ms simulated, %.2f s wall\n",
              nodes, (unsigned long long)(s.writes + s.reads + s.fetches + s.cas_won + s.cas_lost),
              (unsigned long long)s.writes, (unsigned long long)s.reads, (unsigned long long)s.fetches,
              (unsigned long long)(s.cas_won + s.cas_lost), (unsigned long long)s.cas_won, (unsigned long long)misses,
              double(s.cluster->kernel().now()) / 1e9, wall);
}

TEST(DartStress, FourNodesOfRandomOperationsMatchTheModel) { run_stress(4); }
TEST(DartStress, EightNodesOfRandomOperationsMatchTheModel) { run_stress(8); }

} // namespace
} // namespace lanaikit
