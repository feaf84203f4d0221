#include "net/topology.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace lanaikit::net {

Link& Network::add_link(const LinkConfig& config, std::string name) {
  links_.push_back(std::make_unique<Link>(kernel_, config, std::move(name)));
  return *links_.back();
}

Switch& Network::add_switch(const SwitchConfig& config, std::string name) {
  switches_.push_back(std::make_unique<Switch>(kernel_, config, std::move(name)));
  return *switches_.back();
}

uint32_t Network::attach_node(Switch& sw, uint32_t port, const LinkConfig& config) {
  const uint32_t n = nodes();
  const std::string where = sw.name() + "." + std::to_string(port);
  Link& tx = add_link(config, "node" + std::to_string(n) + "->" + where);
  Link& rx = add_link(config, where + "->node" + std::to_string(n));
  sw.attach_input(port, tx);
  sw.attach_output(port, rx);
  node_tx_.push_back(&tx);
  node_rx_.push_back(&rx);
  node_port_.emplace_back(&sw, port);
  return n;
}

void Network::connect(Switch& a, uint32_t port_a, Switch& b, uint32_t port_b,
                      const LinkConfig& config) {
  const std::string an = a.name() + "." + std::to_string(port_a);
  const std::string bn = b.name() + "." + std::to_string(port_b);
  Link& ab = add_link(config, an + "->" + bn);
  Link& ba = add_link(config, bn + "->" + an);
  a.attach_output(port_a, ab);
  b.attach_input(port_b, ab);
  b.attach_output(port_b, ba);
  a.attach_input(port_a, ba);
}

Packet Network::make_packet(uint32_t src, uint32_t dst, uint64_t id,
                            const std::vector<uint8_t>& payload) const {
  Packet p;
  p.id = id;
  p.bytes = route(src, dst);
  p.bytes.insert(p.bytes.end(), payload.begin(), payload.end());
  return p;
}

void Network::set_node_powered(uint32_t node, bool on) {
  auto [sw, port] = node_port_.at(node);
  sw->set_port_down(port, !on);
}

std::unique_ptr<Network> build_single_switch(sim::Kernel& kernel, uint32_t nodes,
                                             const LinkConfig& link,
                                             const SwitchConfig& switch_config) {
  if (nodes > switch_config.ports)
    throw std::invalid_argument("single switch: " + std::to_string(nodes) + " nodes need " +
                                "that many ports, the switch has " +
                                std::to_string(switch_config.ports));
  auto net = std::make_unique<Network>(kernel);
  Switch& sw = net->add_switch(switch_config, "sw0");
  for (uint32_t i = 0; i < nodes; ++i) net->attach_node(sw, i, link);
  auto& r = net->routes();
  r.assign(nodes, std::vector<std::vector<uint8_t>>(nodes));
  for (uint32_t s = 0; s < nodes; ++s)
    for (uint32_t d = 0; d < nodes; ++d) r[s][d] = {uint8_t(d)};
  return net;
}

std::unique_ptr<Network> build_switch_chain(sim::Kernel& kernel, uint32_t switches,
                                            uint32_t nodes_per_switch, const LinkConfig& link,
                                            SwitchConfig switch_config) {
  if (switches == 0) throw std::invalid_argument("switch chain: need at least one switch");
  const uint32_t m = nodes_per_switch;
  switch_config.ports = std::max(switch_config.ports, m + 2);
  if (switch_config.ports > 256) throw std::invalid_argument("switch chain: too many ports");
  auto net = std::make_unique<Network>(kernel);
  for (uint32_t s = 0; s < switches; ++s) net->add_switch(switch_config, "sw" + std::to_string(s));
  for (uint32_t s = 0; s < switches; ++s)
    for (uint32_t p = 0; p < m; ++p) net->attach_node(net->switch_at(s), p, link);
  for (uint32_t s = 0; s + 1 < switches; ++s)
    net->connect(net->switch_at(s), m + 1, net->switch_at(s + 1), m, link);
  const uint32_t n = switches * m;
  auto& r = net->routes();
  r.assign(n, std::vector<std::vector<uint8_t>>(n));
  for (uint32_t src = 0; src < n; ++src)
    for (uint32_t dst = 0; dst < n; ++dst) {
      const uint32_t a = src / m, b = dst / m;
      std::vector<uint8_t>& route = r[src][dst];
      for (uint32_t s = a; s < b; ++s) route.push_back(uint8_t(m + 1));
      for (uint32_t s = b; s < a; ++s) route.push_back(uint8_t(m));
      route.push_back(uint8_t(dst % m));
    }
  return net;
}

std::vector<std::vector<uint8_t>> Network::paths(uint32_t src, uint32_t dst) const {
  std::vector<std::vector<uint8_t>> all{route(src, dst)};
  if (src < alternatives_.size() && dst < alternatives_[src].size())
    for (const auto& a : alternatives_[src][dst]) all.push_back(a);
  return all;
}

std::unique_ptr<Network> build_two_level_clos(sim::Kernel& kernel, uint32_t leaves,
                                              uint32_t nodes_per_leaf, uint32_t spines,
                                              const LinkConfig& link, SwitchConfig switch_config) {
  const uint32_t m = nodes_per_leaf;
  if (leaves == 0 || spines == 0 || m == 0)
    throw std::invalid_argument("two-level Clos: need leaves, spines and nodes per leaf >= 1");
  if (m + spines > 256 || leaves > 256)
    throw std::invalid_argument("two-level Clos: a switch would need more than 256 ports");
  auto net = std::make_unique<Network>(kernel);
  SwitchConfig leaf = switch_config, spine = switch_config;
  leaf.ports = std::max(switch_config.ports, m + spines);
  spine.ports = std::max(switch_config.ports, leaves);
  for (uint32_t l = 0; l < leaves; ++l) net->add_switch(leaf, "leaf" + std::to_string(l));
  for (uint32_t s = 0; s < spines; ++s) net->add_switch(spine, "spine" + std::to_string(s));
  for (uint32_t l = 0; l < leaves; ++l)
    for (uint32_t p = 0; p < m; ++p) net->attach_node(net->switch_at(l), p, link);
  for (uint32_t l = 0; l < leaves; ++l)
    for (uint32_t s = 0; s < spines; ++s)
      net->connect(net->switch_at(l), m + s, net->switch_at(leaves + s), l, link);
  const uint32_t n = leaves * m;
  auto& r = net->routes();
  r.assign(n, std::vector<std::vector<uint8_t>>(n));
  auto& alt = net->alternatives();
  alt.assign(n, std::vector<std::vector<std::vector<uint8_t>>>(n));
  for (uint32_t src = 0; src < n; ++src)
    for (uint32_t dst = 0; dst < n; ++dst) {
      if (src / m == dst / m) {
        r[src][dst] = {uint8_t(dst % m)};
        continue;
      }
      const uint32_t s0 = (src + dst) % spines;
      r[src][dst] = {uint8_t(m + s0), uint8_t(dst / m), uint8_t(dst % m)};
      for (uint32_t k = 1; k < spines; ++k)
        alt[src][dst].push_back({uint8_t(m + (s0 + k) % spines), uint8_t(dst / m), uint8_t(dst % m)});
    }
  return net;
}

} // namespace lanaikit::net
