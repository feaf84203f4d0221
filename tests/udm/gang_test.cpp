// UDM's gang scheduler on emulated FUGU nodes (firmware/udm/sched.c, docs/udm.md "The gang
// scheduler"): two applications multiprogrammed on two nodes, switched on each node's timer
// with a per-node skew. Messages that arrive for the application not running take the
// buffered path; every message reaches its own application (GID isolation), once, in
// order; a sender of a GID no application has on the receiving node is dropped and counted.
#include "udm_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <cstdlib>
#include <random>
#include <vector>

namespace lanaikit {
namespace {

constexpr uint32_t kCtl = 0x30000;
enum Scenario : uint32_t { GANG = 20, GANG_NULL = 21, INTRUDER = 22 };
enum Result : uint32_t { R_HANDLED_A = 0, R_ERRORS_A = 1, R_HANDLED_B = 2, R_ERRORS_B = 3,
                         R_NULL_SAW = 4, R_CAUSE = 9 };
enum AppField : uint32_t { A_PAGES = 11, A_MESSAGES = 12, A_INSERTED = 13, A_EMULATED = 15,
                           A_TO_BUFFERED = 17, A_MAX_PAGES = 19 };

const assembler::FirmwareImage& image() {
  static const assembler::FirmwareImage img = test::udm::build({"tests/udm/fw/udm_gang.c"});
  return img;
}

uint32_t sym(const char* name) { return test::udm::symbol(image(), name); }
using test::udm::read_word;

struct NodeOutcome {
  bool halted = false;
  uint32_t result[96] = {};
  uint32_t a[21] = {}, b[21] = {};
  uint32_t quanta = 0, switches = 0, unknown_gid = 0;
};

// The firmware's record of its last 8 traps (udm_gang.c, remember()).
std::string trap_ring(sim::Cluster& c, uint32_t node) {
  std::string out;
  const uint32_t next = read_word(c, node, kCtl + 64 + 4 * 23);
  for (uint32_t k = 0; k < 16; ++k) {
    const uint32_t idx = (next + k) & 15;
    const uint32_t what = read_word(c, node, kCtl + 64 + 4 * (24 + 4 * idx));
    const uint32_t epc = read_word(c, node, kCtl + 64 + 4 * (25 + 4 * idx));
    const uint32_t fp = read_word(c, node, kCtl + 64 + 4 * (26 + 4 * idx));
    const uint32_t sp = read_word(c, node, kCtl + 64 + 4 * (27 + 4 * idx));
    const auto* f = image().symbol_at(epc);
    char buf[160];
    std::snprintf(buf, sizeof buf, "\n  %s cause %u gid %u buffered %u upcall %u uac %x at %x (%s) fp %x sp %x",
                  what >> 31 ? "exit " : "entry", what & 0xFF, (what >> 8) & 0xFF, (what >> 16) & 1,
                  (what >> 17) & 1, (what >> 20) & 0xF, epc, f ? f->name.c_str() : "?", fp, sp);
    out += buf;
  }
  return out;
}

struct Params {
  Scenario scenario = GANG;
  uint32_t nodes = 2;
  uint32_t messages = 150, gap = 150; // per application per node; spin iterations (mean)
  uint32_t slice_ticks = 400;         // 200 us: 20,000 cycles at 100 MHz
  uint32_t skew_ticks = 100;          // node 1's switches this much later (2 nodes)
  std::vector<uint32_t> skews;        // or each node's skew
  uint32_t seed = 1;
  uint32_t timeout = 2000, c_only = 0;
  sim::Time limit = 500 * sim::kMillisecond;
};

std::vector<NodeOutcome> run(const Params& p) {
  sim::Cluster c(test::udm::fugu_cluster(p.nodes));
  for (uint32_t i = 0; i < p.nodes; ++i) {
    sim::Node& n = c.node(i);
    n.load(image());
    const uint32_t skew = p.skews.empty() ? (i == 1 ? p.skew_ticks : 0) : p.skews.at(i);
    const uint32_t ctl[8] = {p.scenario, p.messages, p.gap, p.slice_ticks, skew, p.seed, p.timeout, p.c_only};
    for (uint32_t k = 0; k < 8; ++k) test::udm::write_word(n, kCtl + 4 * k, ctl[k]);
    n.start();
  }
  c.kernel().run_until(p.limit);
  std::vector<NodeOutcome> out(p.nodes);
  for (uint32_t i = 0; i < p.nodes; ++i) {
    NodeOutcome& o = out[i];
    if (c.node(i).chip().cpu().fault()) {
      const uint32_t pc = c.node(i).chip().cpu().pc();
      const auto* f = image().symbol_at(pc);
      ADD_FAILURE() << "node " << i << " in " << (f ? f->name : "?") << ": " << c.node(i).chip().cpu().fault_report()
                    << "last traps:" << trap_ring(c, i);
    }
    o.halted = c.node(i).chip().cpu().halted();
    for (uint32_t k = 0; k < 96; ++k) o.result[k] = read_word(c, i, kCtl + 64 + 4 * k);
    const uint32_t a = read_word(c, i, sym("app_a")), b = read_word(c, i, sym("app_b"));
    for (uint32_t k = 0; k < 21; ++k) {
      o.a[k] = read_word(c, i, a + 4 * k);
      o.b[k] = read_word(c, i, b + 4 * k);
    }
    o.quanta = read_word(c, i, sym("udm_sched_counters"));
    o.switches = read_word(c, i, sym("udm_sched_counters") + 4);
    o.unknown_gid = read_word(c, i, sym("udm_kernel_counters") + 4);
    if (p.nodes <= 2)
      std::printf("  node %u: quanta %u switches %u; A inserted %u (max pages %u, to buffered %u); "
                "B inserted %u; unknown GID %u\n",
                i, o.quanta, o.switches, o.a[A_INSERTED], o.a[A_MAX_PAGES], o.a[A_TO_BUFFERED],
                o.b[A_INSERTED], o.unknown_gid);
  }
  return out;
}

// A node halts only when each of its applications has handled every message the others'
// generators address to it (each replays them); the handlers check tag and order.
void expect_exactly_once(const NodeOutcome& o, uint32_t messages, bool b_traffic) {
  EXPECT_TRUE(o.halted);
  EXPECT_EQ(o.result[R_CAUSE], 0u) << "at " << std::hex << o.result[16] << " ("
                                  << (image().symbol_at(o.result[16]) ? image().symbol_at(o.result[16])->name : "?")
                                  << ") tval " << o.result[17];
  if (messages) {
    EXPECT_EQ(o.result[R_HANDLED_A], messages);
  }
  EXPECT_EQ(o.result[R_ERRORS_A], 0u) << "A got another's message, out of order or twice";
  if (b_traffic) {
    if (messages) {
      EXPECT_EQ(o.result[R_HANDLED_B], messages);
    }
    EXPECT_EQ(o.result[R_ERRORS_B], 0u);
  }
  if (o.result[R_ERRORS_A] || o.result[R_ERRORS_B])
    ADD_FAILURE() << "first error: len " << o.result[10] << " src " << o.result[11] << " seq "
                  << o.result[12] << " expected " << o.result[13] << " tag " << std::hex
                  << o.result[14];
  EXPECT_EQ(o.result[R_NULL_SAW], 0u) << "the null application saw a message";
  EXPECT_EQ(o.a[A_MESSAGES], 0u);
  EXPECT_EQ(o.a[A_EMULATED], o.a[A_INSERTED]);
}

TEST(UdmGang, TwoApplicationsMultiprogrammedEachGetsItsOwnMessagesOnceInOrder) {
  Params p;
  const auto out = run(p);
  uint32_t buffered = 0;
  for (const NodeOutcome& o : out) {
    expect_exactly_once(o, p.messages, true);
    EXPECT_GE(o.switches, 5u) << "the applications were not multiprogrammed";
    buffered += o.a[A_INSERTED] + o.b[A_INSERTED];
  }
  EXPECT_GT(buffered, 0u) << "skewed schedules buffered nothing";
}

TEST(UdmGang, AgainstANullApplication) {
  Params p;
  p.scenario = GANG_NULL;
  const auto out = run(p);
  for (const NodeOutcome& o : out) {
    expect_exactly_once(o, p.messages, false);
    EXPECT_GE(o.switches, 5u);
    EXPECT_EQ(o.b[A_INSERTED], 0u) << "nothing is sent to the null application";
  }
}

TEST(UdmGang, MoreSkewBuffersMore) {
  Params p;
  p.scenario = GANG_NULL;
  uint32_t last = 0;
  for (uint32_t skew : {0u, 100u, 200u}) {
    p.skew_ticks = skew;
    const auto out = run(p);
    const uint32_t buffered = out[0].a[A_INSERTED] + out[1].a[A_INSERTED];
    for (const NodeOutcome& o : out) expect_exactly_once(o, p.messages, false);
    EXPECT_GE(buffered, last) << "skew " << skew;
    last = buffered;
  }
  EXPECT_GT(last, 0u);
}

TEST(UdmGang, ASenderOfAnotherGidReachesNoApplication) {
  Params p;
  p.scenario = INTRUDER;
  p.messages = 60;
  const auto out = run(p);
  EXPECT_EQ(out[1].unknown_gid, p.messages) << "the intruder's messages were not dropped";
  EXPECT_EQ(out[0].unknown_gid, 0u);
  for (const NodeOutcome& o : out) {
    EXPECT_TRUE(o.halted);
    EXPECT_EQ(o.result[R_CAUSE], 0u);
    EXPECT_EQ(o.result[R_HANDLED_A], p.messages) << "A handled a message of another GID, or lost one";
    EXPECT_EQ(o.result[R_ERRORS_A], 0u);
    EXPECT_EQ(o.result[R_NULL_SAW], 0u);
  }
}

// The stress of issue 15, short: 8 nodes, two applications sending to random peers, random
// skews; buffered mode through buffered.s and wholly in C. LANAIKIT_UDM_STRESS_MESSAGES sets
// the messages per application per node for the long run (62,500: a million messages in
// all), LANAIKIT_UDM_STRESS_SEED the generators' and skews' seed.
class UdmGangStress : public ::testing::TestWithParam<uint32_t> {};
INSTANTIATE_TEST_SUITE_P(AsmAndC, UdmGangStress, ::testing::Values(0u, 1u),
                         test::udm::buffered_mode_name);

TEST_P(UdmGangStress, EightNodesRandomSkewEveryMessageOnceInOrder) {
  Params p;
  p.c_only = GetParam();
  p.nodes = 8;
  p.messages = 400;
  p.gap = 40;
  if (const char* m = std::getenv("LANAIKIT_UDM_STRESS_MESSAGES")) p.messages = uint32_t(std::atol(m));
  p.limit = sim::Time(p.messages) * 100 * sim::kMicrosecond + 100 * sim::kMillisecond;
  if (const char* sd = std::getenv("LANAIKIT_UDM_STRESS_SEED")) p.seed = uint32_t(std::atol(sd));
  std::mt19937 rng(2026 + p.seed - 1);
  for (uint32_t i = 0; i < p.nodes; ++i) p.skews.push_back(rng() % p.slice_ticks);
  const auto out = run(p);
  uint64_t handled = 0, buffered = 0, switches = 0;
  uint32_t max_pages = 0;
  for (const NodeOutcome& o : out) {
    expect_exactly_once(o, 0, true);
    handled += uint64_t(o.result[R_HANDLED_A]) + o.result[R_HANDLED_B];
    buffered += uint64_t(o.a[A_INSERTED]) + o.b[A_INSERTED];
    switches += o.switches;
    max_pages = std::max({max_pages, o.a[A_MAX_PAGES], o.b[A_MAX_PAGES]});
  }
  EXPECT_EQ(handled, uint64_t(p.nodes) * 2 * p.messages) << "messages lost or duplicated";
  EXPECT_GT(buffered, 0u);
  std::printf("  stress: %llu messages on %u nodes, %llu buffered (%.1f%%), %llu switches, max pages %u\n",
              (unsigned long long)handled, p.nodes, (unsigned long long)buffered,
              100.0 * double(buffered) / double(handled), (unsigned long long)switches, max_pages);
}

} // namespace
} // namespace lanaikit
