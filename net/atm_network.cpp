#include "net/atm_network.h"

#include <stdexcept>
#include <string>

namespace lanaikit::net {

AtmNetwork::AtmNetwork(sim::Kernel& kernel, uint32_t nodes, const AtmNetworkConfig& config)
    : config_(config) {
  CellLinkConfig to_node = config.link;
  to_node.deliver_cells = true; // a node's cell interface takes cells, not frames
  auto add = [&](const CellLinkConfig& c, std::string name) {
    links_.push_back(std::make_unique<CellLink>(kernel, c, std::move(name)));
    return links_.back().get();
  };
  if (!config.cell_switch) {
    if (nodes != 2)
      throw std::invalid_argument("an ATM network without a cell switch joins exactly 2 nodes, not " +
                                  std::to_string(nodes));
    // Each fibre ends at a node, so both deliver cells.
    tx_ = {add(to_node, "atm0->1"), add(to_node, "atm1->0")};
    rx_ = {tx_[1], tx_[0]};
    return;
  }
  if (nodes == 0 || nodes > config.cell_switch->ports)
    throw std::invalid_argument("an ATM cell switch of " + std::to_string(config.cell_switch->ports) +
                                " ports cannot take " + std::to_string(nodes) + " nodes");
  switch_ = std::make_unique<CellSwitch>(kernel, *config.cell_switch, "atm-switch");
  for (uint32_t i = 0; i < nodes; ++i) {
    const std::string n = std::to_string(i);
    tx_.push_back(add(to_node, "atm" + n + "->switch")); // a switch input delivers cells too
    rx_.push_back(add(to_node, "atm-switch->" + n));
    switch_->attach_input(i, *tx_.back());
    switch_->attach_output(i, *rx_.back());
  }
}

AtmNetwork::~AtmNetwork() = default;

void AtmNetwork::connect(uint32_t src, uint16_t src_vci, uint32_t dst, uint16_t dst_vci) {
  auto fail = [&](const std::string& why) {
    throw std::invalid_argument("ATM circuit " + std::to_string(src) + ":" + std::to_string(src_vci) +
                                " -> " + std::to_string(dst) + ":" + std::to_string(dst_vci) + ": " + why);
  };
  if (src >= nodes() || dst >= nodes())
    fail("the network has " + std::to_string(nodes()) + " nodes");
  if (src == dst) fail("a node's cells do not come back to it");
  if (!switch_) {
    if (src_vci != dst_vci) fail("a plain fibre does not translate VCIs");
    return; // the fibre goes to the other node already
  }
  switch_->connect(src, src_vci, dst, dst_vci);
}

} // namespace lanaikit::net
