// Topology builders: a network of switches and links with nodes at its edge, and the
// source routes between nodes.
//
// Node n sends on node_tx(n) and receives on node_rx(n); whoever models the node (a NIC's
// DMA engines, a test) sends packets whose leading bytes are route(src, dst) and sets
// itself as node_rx(n)'s sink. A route is one byte per switch crossed: the output port.
#pragma once

#include "net/link.h"
#include "net/switch.h"
#include "event/kernel.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace lanaikit::net {

class Network {
public:
  explicit Network(sim::Kernel& kernel) : kernel_(kernel) {}

  Link& add_link(const LinkConfig& config, std::string name);
  Switch& add_switch(const SwitchConfig& config, std::string name);
  // Two links (node -> switch port, switch port -> node) for a new node; returns its index.
  uint32_t attach_node(Switch& sw, uint32_t port, const LinkConfig& config);
  // Two links joining port a of one switch to port b of another, one per direction.
  void connect(Switch& a, uint32_t port_a, Switch& b, uint32_t port_b, const LinkConfig& config);

  uint32_t nodes() const { return uint32_t(node_tx_.size()); }
  Link& node_tx(uint32_t node) { return *node_tx_.at(node); }
  Link& node_rx(uint32_t node) { return *node_rx_.at(node); }
  Switch& switch_at(uint32_t i) { return *switches_.at(i); }
  size_t switch_count() const { return switches_.size(); }
  size_t link_count() const { return links_.size(); }
  Link& link_at(size_t i) { return *links_.at(i); }

  // Source route from node src to node dst, set by the builder.
  const std::vector<uint8_t>& route(uint32_t src, uint32_t dst) const {
    return routes_.at(src).at(dst);
  }
  // Every route from src to dst, the default one (route()) first: the alternatives a
  // multi-path network offers (a Clos: one per spine), for control programs that spread a
  // message's packets over them (adaptive routing; they may then arrive out of order).
  // A network whose builder set none has one path per pair, route().
  std::vector<std::vector<uint8_t>> paths(uint32_t src, uint32_t dst) const;
  // Alternatives beyond route(), [src][dst] (builders of multi-path networks fill it).
  std::vector<std::vector<std::vector<std::vector<uint8_t>>>>& alternatives() { return alternatives_; }

  // A packet from src to dst: route bytes then payload.
  Packet make_packet(uint32_t src, uint32_t dst, uint64_t id,
                     const std::vector<uint8_t>& payload) const;
  // The switch and port node n is attached to; powering a node off marks that port down.
  void set_node_powered(uint32_t node, bool on);

  // The route table [src][dst], filled by the builders (or by hand for a custom network).
  std::vector<std::vector<std::vector<uint8_t>>>& routes() { return routes_; }

private:
  sim::Kernel& kernel_;
  std::vector<std::unique_ptr<Link>> links_;
  std::vector<std::unique_ptr<Switch>> switches_;
  std::vector<Link*> node_tx_, node_rx_;
  std::vector<std::pair<Switch*, uint32_t>> node_port_;
  std::vector<std::vector<std::vector<uint8_t>>> routes_; // [src][dst]
  std::vector<std::vector<std::vector<std::vector<uint8_t>>>> alternatives_; // [src][dst][k]
};

// One switch with `nodes` nodes, node i on port i. Needs nodes <= switch_config.ports.
std::unique_ptr<Network> build_single_switch(sim::Kernel& kernel, uint32_t nodes,
                                             const LinkConfig& link,
                                             const SwitchConfig& switch_config);

// `switches` switches in a line, `nodes_per_switch` nodes on each. On every switch, ports
// 0 .. nodes_per_switch-1 hold nodes (node s*nodes_per_switch + p sits on switch s, port p),
// port nodes_per_switch leads left (to switch s-1), port nodes_per_switch+1 leads right.
// switch_config.ports is raised to nodes_per_switch + 2 if smaller.
std::unique_ptr<Network> build_switch_chain(sim::Kernel& kernel, uint32_t switches,
                                            uint32_t nodes_per_switch, const LinkConfig& link,
                                            SwitchConfig switch_config);

// A two-level Clos network: `leaves` leaf switches with `nodes_per_leaf` nodes each (node
// l*nodes_per_leaf + p on leaf l, port p) and one uplink from every leaf to each of `spines`
// spine switches (leaf port nodes_per_leaf + s to spine s, port l). Nodes on one leaf talk
// through it alone; otherwise the route is {up to spine s, down to the leaf, node port} with
// s = (src + dst) % spines, a fixed spread of pairs over the spines; paths() lists the
// routes through every spine, that one first.
std::unique_ptr<Network> build_two_level_clos(sim::Kernel& kernel, uint32_t leaves,
                                              uint32_t nodes_per_leaf, uint32_t spines,
                                              const LinkConfig& link, SwitchConfig switch_config);

} // namespace lanaikit::net
