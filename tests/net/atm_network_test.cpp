// The ATM side of a cluster: two nodes back to back or N on one cell switch, every link
// that ends at a node delivering cells one by one, circuits with VCI translation only where
// a switch can do it, exact timing through the switch, and misconfiguration refused.
#include "net/atm_network.h"

#include "test_sinks.h"

#include <gtest/gtest.h>

using namespace lanaikit::net;
using lanaikit::net::testing::Collector;
using lanaikit::sim::Kernel;
using lanaikit::sim::kMicrosecond;
using lanaikit::sim::Time;

namespace {

std::array<uint8_t, kCellPayloadBytes> payload(uint8_t seed) {
  std::array<uint8_t, kCellPayloadBytes> p{};
  for (size_t i = 0; i < p.size(); ++i) p[i] = uint8_t(seed + i);
  return p;
}

} // namespace

TEST(AtmNetwork, TwoNodesBackToBackShareTheirFibres) {
  Kernel k;
  AtmNetwork net(k, 2, AtmNetworkConfig{});
  EXPECT_EQ(&net.node_tx(0), &net.node_rx(1));
  EXPECT_EQ(&net.node_tx(1), &net.node_rx(0));
  EXPECT_TRUE(net.node_rx(0).config().deliver_cells);
  EXPECT_EQ(net.cell_switch(), nullptr);
  Collector at1(k);
  net.node_rx(1).set_sink(&at1);
  net.connect(0, 33, 1, 33);
  net.node_tx(0).send_cell(33, payload(1), 7, kPtiEndOfSdu);
  k.run_until(kMicrosecond * 10);
  ASSERT_EQ(at1.packets.size(), 1u);
  EXPECT_EQ(cell_header_vci(at1.packets[0].bytes.data()), 33u);
  EXPECT_EQ(at1.packets[0].tail_ps,
            net.node_tx(0).cells_time(1) + net.node_tx(0).config().latency_ps);
}

TEST(AtmNetwork, ThroughTheSwitchACircuitTranslatesTheVciAndAddsTransitAndALink) {
  Kernel k;
  AtmNetworkConfig c;
  c.cell_switch = CellSwitchConfig{};
  AtmNetwork net(k, 4, c);
  ASSERT_NE(net.cell_switch(), nullptr);
  Collector at3(k), at1(k);
  net.node_rx(3).set_sink(&at3);
  net.node_rx(1).set_sink(&at1);
  net.connect(0, 40, 3, 41);
  net.node_tx(0).send_cell(40, payload(2), 7, kPtiEndOfSdu);
  net.node_tx(0).send_cell(99, payload(3), 8, kPtiEndOfSdu); // no circuit: discarded
  k.run_until(kMicrosecond * 20);
  ASSERT_EQ(at3.packets.size(), 1u);
  EXPECT_TRUE(at1.packets.empty());
  EXPECT_EQ(cell_header_vci(at3.packets[0].bytes.data()), 41u);
  const Time cell = net.node_tx(0).cells_time(1), lat = c.link.latency_ps;
  EXPECT_EQ(at3.packets[0].tail_ps, cell + lat + c.cell_switch->transit_ps + cell + lat);
  EXPECT_EQ(net.cell_switch()->counters().unknown_vci, 1u);
}

TEST(AtmNetwork, MisconfigurationIsRefusedNamingTheProblem) {
  Kernel k;
  auto what = [](auto f) -> std::string {
    try {
      f();
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "(no error)";
  };
  EXPECT_EQ(what([&] { AtmNetwork(k, 3, AtmNetworkConfig{}); }),
            "an ATM network without a cell switch joins exactly 2 nodes, not 3");
  AtmNetworkConfig sw;
  sw.cell_switch = CellSwitchConfig{};
  EXPECT_EQ(what([&] { AtmNetwork(k, 5, sw); }), "an ATM cell switch of 4 ports cannot take 5 nodes");
  AtmNetwork pair(k, 2, AtmNetworkConfig{});
  EXPECT_EQ(what([&] { pair.connect(0, 1, 1, 2); }),
            "ATM circuit 0:1 -> 1:2: a plain fibre does not translate VCIs");
  EXPECT_EQ(what([&] { pair.connect(0, 1, 0, 1); }),
            "ATM circuit 0:1 -> 0:1: a node's cells do not come back to it");
  EXPECT_EQ(what([&] { pair.connect(0, 1, 2, 1); }), "ATM circuit 0:1 -> 2:1: the network has 2 nodes");
}
