#include "sim/cluster.h"

#include <algorithm>
#include <stdexcept>

namespace lanaikit::sim {

NicChoice NicChoice::of(const Platform& platform) {
  if (!platform.nic)
    throw std::invalid_argument(
        "platform '" + platform.name +
        "' describes no LANai-style NIC (no `nic` section): choose the NIC the experiment runs "
        "on, e.g. lk.cluster{ platform = \"" + platform.name +
        "\", nic = \"vmmc\" } in Lua, or cluster_params(platform, nodes, "
        "NicChoice::of(load_platform(\"vmmc.lua\"))) in C++");
  NicChoice c;
  c.nic = *platform.nic;
  c.pci = platform.pci;
  c.source = platform.name + ".lua's nic";
  return c;
}

NicChoice NicChoice::explicit_nic(NicParams nic, std::string source) {
  NicChoice c;
  c.nic = nic;
  c.source = std::move(source);
  return c;
}

ClusterParams cluster_params(const Platform& platform, uint32_t nodes) {
  return cluster_params(platform, nodes, NicChoice::of(platform));
}

ClusterParams cluster_params(const Platform& platform, uint32_t nodes, const NicChoice& nic) {
  ClusterParams c;
  c.nodes = nodes;
  c.node.chip.clock_hz = nic.nic.clock_hz;
  c.node.chip.sram_bytes = nic.nic.sram_bytes;
  c.node.chip.costs = nic.nic.costs;
  if (platform.pci) c.node.pci = *platform.pci;
  else if (nic.pci) c.node.pci = *nic.pci;
  else
    throw std::invalid_argument("platform '" + platform.name + "' has no `pci` section and " +
                                nic.source +
                                " brings none: give the platform a `pci` section or choose the "
                                "NIC by a platform that has one");
  if (platform.host && platform.host->interrupt_latency)
    c.node.interrupt_latency = *platform.host->interrupt_latency;
  if (platform.link) c.link = *platform.link;
  else c.defaulted.push_back("link");
  if (platform.net_switch) c.switch_config = *platform.net_switch;
  else c.defaulted.push_back("switch");
  if (nodes > c.switch_config.ports) {
    c.topology = Topology::Clos;
    c.nodes_per_switch = c.switch_config.ports / 2;
  }
  return c;
}

Cluster::Cluster(ClusterParams params) : params_(std::move(params)) {
  const uint32_t n = params_.nodes;
  if (n == 0) throw std::invalid_argument("a cluster needs at least one node");
  switch (params_.topology) {
  case Topology::SingleSwitch:
    network_ = net::build_single_switch(kernel_, n, params_.link, params_.switch_config);
    break;
  case Topology::Chain: {
    const uint32_t per = params_.nodes_per_switch;
    if (per == 0 || n % per) throw std::invalid_argument("chain: nodes must be a multiple of nodes_per_switch");
    network_ = net::build_switch_chain(kernel_, n / per, per, params_.link, params_.switch_config);
    break;
  }
  case Topology::Clos: {
    const uint32_t per = params_.nodes_per_switch;
    if (per == 0 || n % per) throw std::invalid_argument("clos: nodes must be a multiple of nodes_per_switch");
    network_ = net::build_two_level_clos(kernel_, n / per, per, params_.spines, params_.link,
                                         params_.switch_config);
    break;
  }
  }
  for (uint32_t i = 0; i < n; ++i) {
    nodes_.push_back(std::make_unique<Node>(kernel_, params_.node, i, "node" + std::to_string(i)));
    if (params_.fugu) {
      auto ni = std::make_unique<vm::FuguInterface>(network_->node_tx(i), network_->node_rx(i), i,
                                                     network_->routes().at(i), *params_.fugu);
      fugu_interfaces_.push_back(ni.get());
      nodes_.back()->chip().attach_block(vm::kFuguInterfaceBase, std::move(ni));
      // The kernel's timer (IT0, for the gang scheduler) interrupts the node's CPU.
      nodes_.back()->chip().route_interrupt_to_cpu(vm::FuguInterface::kLineChip);
    } else {
      nodes_.back()->chip().attach_links(&network_->node_tx(i), &network_->node_rx(i));
    }
  }
  Time min_latency = -1;
  for (size_t i = 0; i < network_->link_count(); ++i) {
    const Time l = network_->link_at(i).config().latency_ps;
    if (min_latency < 0 || l < min_latency) min_latency = l;
  }
  if (min_latency < 0) min_latency = 0;
  Time lookahead = network_->switch_count() > 0 ? 2 * min_latency : min_latency;
  if (params_.atm) {
    atm_ = std::make_unique<net::AtmNetwork>(kernel_, n, *params_.atm);
    for (uint32_t i = 0; i < n; ++i) {
      auto iface = std::make_unique<vm::CellInterface>(atm_->node_tx(i), vm::CellInterface::Config{});
      cell_interfaces_.push_back(iface.get());
      atm_->node_rx(i).set_sink(iface.get());
      nodes_[i]->chip().attach_block(vm::kCellInterfaceBase, std::move(iface));
    }
    lookahead = std::min(lookahead, atm_->min_latency());
  }
  kernel_.set_lookahead(lookahead);
  // A switch's inner events reach a chip over one link at least.
  kernel_.set_distant_reach(min_latency);
}

vm::CellInterface* Cluster::cell_interface(uint32_t node) {
  return atm_ ? cell_interfaces_.at(node) : nullptr;
}

vm::FuguInterface* Cluster::fugu_interface(uint32_t node) {
  return params_.fugu ? fugu_interfaces_.at(node) : nullptr;
}

Cluster::~Cluster() {
  // Chips detach from the links before the network goes away.
  for (auto& n : nodes_) n->chip().attach_links(nullptr, nullptr);
  // The cell interfaces die with their chips, before the links that feed them.
  nodes_.clear();
  cell_interfaces_.clear();
  fugu_interfaces_.clear();
  atm_.reset();
}

void Cluster::set_powered(uint32_t node, bool on) {
  nodes_.at(node)->chip().set_powered(on);
  network_->set_node_powered(node, on);
}

} // namespace lanaikit::sim
