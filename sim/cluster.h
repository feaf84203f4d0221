// A cluster: nodes (sim/node.h) on a network (net/topology.h), sharing one kernel.
//
// The cluster also sets the kernel's lookahead for the chips' run-ahead (docs/sim.md):
// the shortest time in which anything one chip does can change what another chip sees.
// Every such path crosses at least one link into the switch and one out of it (data), or
// two links (a STOP/GO signal travelling back), so the lookahead is twice the smallest link
// latency when the network has a switch, and one link latency otherwise; an ATM network
// (no back-pressure) allows one cell link latency.
#pragma once

#include "net/atm_network.h"
#include "vm/fugu_interface.h"
#include "net/topology.h"
#include "event/kernel.h"
#include "sim/node.h"
#include "sim/platform.h"
#include "vm/cell_interface.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
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
  // An ATM network besides the source-routed one (DART): every node's chip gets a cell
  // interface (vm/cell_interface.h) at vm::kCellInterfaceBase on it.
  std::optional<net::AtmNetworkConfig> atm;
  // FUGU nodes (UDM): the source-routed network feeds a FUGU network interface
  // (vm/fugu_interface.h) at vm::kFuguInterfaceBase on every chip instead of the LANai's
  // send and receive engines.
  std::optional<vm::FuguInterface::Config> fugu;
  // Sections the platform did not give that took a struct's defaults ("link", "switch").
  std::vector<std::string> defaulted;
};

// The NIC a cluster's nodes carry: an experiment's explicit choice. DART's and UDM's
// testbeds have no LANai (no `nic` section), so their experiments pick one, e.g. "DART's
// operation logic on vmmc.lua's LANai 4.1": NicChoice::of(load_platform(".../vmmc.lua")).
struct NicChoice {
  NicParams nic;
  // The card's host bus, used when the experiment's platform has no `pci` section (a
  // LANai card comes with the PCI it was measured on). Unset for an explicit table.
  std::optional<host::PciParams> pci;
  std::string source; // "vmmc.lua's nic", for messages and reports

  // The platform's `nic` (and its `pci`). Throws std::invalid_argument if it has none.
  static NicChoice of(const Platform& platform);
  // An explicit NIC (no PCI comes with it).
  static NicChoice explicit_nic(NicParams nic, std::string source = "an explicit nic");
};

// A cluster of `nodes` on the platform's hardware: its NIC, PCI, link and switch sections.
// The first form takes the platform's own `nic`, the second the chosen one. A platform
// without `pci` takes the chosen card's; neither is an error naming what to pass. Missing
// `link` and `switch` sections take net::LinkConfig's and net::SwitchConfig's defaults
// and are listed in ClusterParams::defaulted. Throws std::invalid_argument if the platform
// describes no LANai-style NIC and none was chosen.
ClusterParams cluster_params(const Platform& platform, uint32_t nodes);
ClusterParams cluster_params(const Platform& platform, uint32_t nodes, const NicChoice& nic);

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
  // The ATM network and node i's cell interface; null without params().atm.
  net::AtmNetwork* atm() { return atm_.get(); }
  vm::CellInterface* cell_interface(uint32_t node);
  // Node i's FUGU network interface; null without params().fugu.
  vm::FuguInterface* fugu_interface(uint32_t node);

  // A node powered off stops its chip; its switch port is marked down, so packets
  // addressed to it are discarded instead of blocking the network.
  void set_powered(uint32_t node, bool on);

private:
  ClusterParams params_;
  Kernel kernel_;
  std::unique_ptr<net::Network> network_;
  std::unique_ptr<net::AtmNetwork> atm_;
  std::vector<vm::CellInterface*> cell_interfaces_; // owned by the chips
  std::vector<vm::FuguInterface*> fugu_interfaces_; // owned by the chips
  std::vector<std::unique_ptr<Node>> nodes_;
};

} // namespace lanaikit::sim
