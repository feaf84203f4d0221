// What the DART tests share: DART's image (built once, with line tables for per-line
// profiles) and a two-node cluster on DART's platform with VMMC's LANai and PCI (the
// paper gives none: borrowed, as docs/dart.md says) and an ATM network of the testbed's
// link or a projected one.
#pragma once

#include "../kit/lcp_bench.h"

#include "net/atm_network.h"
#include "sim/cluster.h"
#include "sim/platform.h"

#include <algorithm>

namespace lanaikit::test {

inline const assembler::FirmwareImage& image() {
  static const assembler::FirmwareImage built =
      build_firmware({source("firmware/dart/dart.fw")}, {}, true);
  return built;
}

// `link`: -1 the testbed's 140 Mb/s link, else the platform's projected link of that index
// (0: OC-3c, 1: OC-12c). More than two nodes need the switch.
inline sim::ClusterParams dart_cluster(bool with_switch = false, int link = -1, uint32_t nodes = 2) {
  const sim::Platform dart = sim::load_platform(source("lua-scripts/platforms/dart.lua"));
  const sim::Platform vmmc = sim::load_platform(source("lua-scripts/platforms/vmmc.lua"));
  sim::ClusterParams cp = sim::cluster_params(dart, nodes, sim::NicChoice::of(vmmc));
  net::AtmNetworkConfig atm;
  atm.link = link < 0 ? dart.cells->link : dart.cells->projected.at(size_t(link));
  if (with_switch) {
    atm.cell_switch = net::CellSwitchConfig{};
    atm.cell_switch->ports = std::max<uint32_t>(atm.cell_switch->ports, nodes);
  }
  cp.atm = atm;
  return cp;
}

} // namespace lanaikit::test
