// The ATM side of a cluster (for DART): every node's pair of cell links, either two nodes
// joined back to back by a fibre each way, or up to `ports` nodes on one cell switch
// (net/cell_switch.h), and the virtual circuits between them.
//
// Links that end at a node deliver every cell on its own (CellLinkConfig::deliver_cells):
// the node's cell interface (vm/cell_interface.h) takes cells, and reassembly is its
// firmware's. A circuit says which VCI a node's cells are sent on and which VCI they
// arrive on at the other end: on a plain fibre the two are the same VCI (nothing
// translates it) and the far end is the only other node; through the switch the circuit is
// the switch's, set per (input port, VCI). Circuits are set up before or during a run, as
// a driver's signalling would; the model has no signalling delay.
#pragma once

#include "net/atm.h"
#include "net/cell_switch.h"
#include "event/kernel.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace lanaikit::net {

struct AtmNetworkConfig {
  CellLinkConfig link;                     // every link, node to node or node to switch
  std::optional<CellSwitchConfig> cell_switch; // unset: two nodes back to back
};

class AtmNetwork {
public:
  // Throws std::invalid_argument for a back-to-back network of other than two nodes, or
  // more nodes than the switch has ports.
  AtmNetwork(sim::Kernel& kernel, uint32_t nodes, const AtmNetworkConfig& config);
  ~AtmNetwork();
  AtmNetwork(const AtmNetwork&) = delete;
  AtmNetwork& operator=(const AtmNetwork&) = delete;

  uint32_t nodes() const { return uint32_t(tx_.size()); }
  CellLink& node_tx(uint32_t node) { return *tx_.at(node); }
  CellLink& node_rx(uint32_t node) { return *rx_.at(node); }
  CellSwitch* cell_switch() { return switch_.get(); }
  // Every link once (node to node, or node to switch and switch to node).
  size_t link_count() const { return links_.size(); }
  CellLink& link_at(size_t i) { return *links_.at(i); }
  // The shortest time from a cell handed to a link to its arrival anywhere: the lookahead
  // this network allows the chips (a link's latency; its wire time only adds to it).
  sim::Time min_latency() const { return config_.link.latency_ps; }

  // Cells `src` sends on `src_vci` arrive at `dst` on `dst_vci`. Throws
  // std::invalid_argument naming the problem for a node out of range, a circuit to itself,
  // or (back to back) a VCI translation or a destination that is not the other node.
  void connect(uint32_t src, uint16_t src_vci, uint32_t dst, uint16_t dst_vci);

private:
  AtmNetworkConfig config_;
  std::vector<std::unique_ptr<CellLink>> links_; // every link
  std::vector<CellLink*> tx_, rx_;              // back to back: rx_[i] is tx_[1 - i]
  std::unique_ptr<CellSwitch> switch_;
};

} // namespace lanaikit::net
