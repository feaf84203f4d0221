// A cluster: nodes (sim/node.h) on a network (net/topology.h), sharing one kernel.
//
// The cluster also sets the kernel's lookahead for the chips' run-ahead (docs/sim.md):
// the shortest time in which anything one chip does can change what another chip sees.
// Every such path crosses at least one link into the switch and one out of it (data), or
// two links (a STOP/GO signal travelling back), so the lookahead is twice the smallest link
// latency when the network has a switch, and one link latency otherwise.
#pragma once

#include "net/topology.h"
#include "event/kernel.h"
#include "sim/node.h"
#include "sim/platform.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace lanaikit::sim {

enum class Topology { SingleSwitch, Chain, Clos };

struct ClusterParams {
  uint32_t nodes = 2;
  NodeParams node;
  net::LinkConfig link;
  net::SwitchConfig switch_config;
  Topology topology = Topology::SingleSwitch;
  uint32_t nodes_per_switch = 4; // Chain and Clos
  uint32_t spines = 2;           // Clos
};

// A cluster of `nodes` on the platform's hardware: the NIC, PCI, link and switch sections
// (each missing section takes lanaikit's defaults: say so in reports). Throws
// std::invalid_argument if the platform describes no LANai-style NIC.
ClusterParams cluster_params(const Platform& platform, uint32_t nodes);

class Cluster {
public:
  explicit Cluster(ClusterParams params);
  ~Cluster();
  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;

  Kernel& kernel() { return kernel_; }
  const ClusterParams& params() const { return params_; }
  uint32_t size() const { return uint32_t(nodes_.size()); }
  Node& node(uint32_t i) { return *nodes_.at(i); }
  net::Network& network() { return *network_; }

  // A node powered off stops its chip; its switch port is marked down, so packets
  // addressed to it are discarded instead of blocking the network.
  void set_powered(uint32_t node, bool on);

private:
  ClusterParams params_;
  Kernel kernel_;
  std::unique_ptr<net::Network> network_;
  std::vector<std::unique_ptr<Node>> nodes_;
};

} // namespace lanaikit::sim
