// The NIC a cluster carries is the experiment's explicit choice (sim/cluster.h): the
// platform's own `nic`, another platform's, or explicit parameters; a platform with no
// LANai and no choice is an error saying what to pass.
#include "sim/cluster.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>

using namespace lanaikit::sim;

namespace {

Platform platform(const std::string& name) {
  return load_platform(std::string(LANAIKIT_SOURCE_DIR) + "/lua-scripts/platforms/" + name +
                       ".lua");
}

std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ClusterParams, PlatformWithoutNicNeedsAnExplicitChoice) {
  const Platform dart = platform("dart");
  const std::string msg = error_of([&] { cluster_params(dart, 2); });
  EXPECT_NE(msg.find("platform 'dart' describes no LANai-style NIC (no `nic` section)"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("NicChoice::of(load_platform(\"vmmc.lua\"))"), std::string::npos) << msg;
  EXPECT_NE(
      error_of([&] { cluster_params(platform("udm"), 8); }).find("platform 'udm' describes no"),
      std::string::npos);
}

TEST(ClusterParams, DartOnVmmcsLanaiTakesItsChipAndItsPci) {
  const Platform vmmc = platform("vmmc");
  const ClusterParams c = cluster_params(platform("dart"), 2, NicChoice::of(vmmc));
  EXPECT_EQ(c.node.chip.clock_hz, 33000000u);
  EXPECT_EQ(c.node.chip.sram_bytes, 256u * 1024);
  EXPECT_EQ(c.node.pci.pio_read_latency, vmmc.pci->pio_read_latency); // the card's bus
  // DART's testbed has no Myrinet link or switch: the structs' defaults, listed.
  EXPECT_NE(std::find(c.defaulted.begin(), c.defaulted.end(), "link"), c.defaulted.end());
  EXPECT_NE(std::find(c.defaulted.begin(), c.defaulted.end(), "switch"), c.defaulted.end());
  Cluster cluster(c); // and it builds
  EXPECT_EQ(cluster.node(1).chip().params().clock_hz, 33000000u);
}

TEST(ClusterParams, AnotherTestbedsNicOnThisPlatform) {
  const Platform vmmc = platform("vmmc");
  const ClusterParams c = cluster_params(vmmc, 2, NicChoice::of(platform("hamlyn")));
  EXPECT_EQ(c.node.chip.clock_hz, 40000000u); // Hamlyn's LANai 4.0
  EXPECT_EQ(c.node.chip.sram_bytes, 512u * 1024);
  EXPECT_EQ(c.node.pci.pio_read_latency,
            vmmc.pci->pio_read_latency); // the platform's own PCI first
  EXPECT_TRUE(c.defaulted.empty());
  // The platform's own nic is the same as choosing it explicitly.
  const ClusterParams own = cluster_params(vmmc, 2);
  const ClusterParams chosen = cluster_params(vmmc, 2, NicChoice::of(vmmc));
  EXPECT_EQ(own.node.chip.clock_hz, chosen.node.chip.clock_hz);
  EXPECT_EQ(own.node.chip.sram_bytes, chosen.node.chip.sram_bytes);
}

TEST(ClusterParams, ExplicitNicBringsNoPci) {
  NicParams nic;
  nic.clock_hz = 50'000'000;
  nic.sram_bytes = 1 << 20;
  const ClusterParams c =
      cluster_params(platform("vmmc"), 2, NicChoice::explicit_nic(nic, "a 50 MHz LANai"));
  EXPECT_EQ(c.node.chip.clock_hz, 50000000u);
  const std::string msg = error_of(
      [&] { cluster_params(platform("dart"), 2, NicChoice::explicit_nic(nic, "a 50 MHz LANai")); });
  EXPECT_NE(msg.find("platform 'dart' has no `pci` section and a 50 MHz LANai brings none"),
            std::string::npos)
      << msg;
}

} // namespace
