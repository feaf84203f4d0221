#include "host/kit/setup.h"

#include "host/kit/driver.h"
#include "host/kit/sram.h"

#include <algorithm>
#include <memory>
#include <vector>

namespace lanaikit::kit {

void load(sim::Cluster& cluster, const assembler::FirmwareImage& image) {
  // One copy shared by the nodes, so that their fault reports name functions and lines.
  const auto shared = std::make_shared<const assembler::FirmwareImage>(image);
  for (uint32_t i = 0; i < cluster.size(); ++i)
    cluster.node(i).load(shared);
}

namespace {
// One route into a table entry: right-aligned hops and the hop count, or kNoRoute.
void put_route(sim::Node& nd, const Ref& entry, const std::vector<uint8_t>* route) {
  const Ref len = entry.field("len"), hops = entry.field("hops");
  if (route && route->size() <= hops.size()) {
    std::vector<uint8_t> bytes(hops.size(), 0); // right-aligned
    std::copy(route->begin(), route->end(), bytes.end() - ptrdiff_t(route->size()));
    poke(nd, len, route->size());
    nd.chip().host_write_sram(hops.addr(), bytes);
  } else {
    poke(nd, len, kNoRoute);
  }
}
} // namespace

void write_routes(sim::Cluster& cluster, uint32_t node, const Ref& table) {
  const uint32_t n = cluster.size();
  const uint32_t entries = table.count();
  if (n > entries)
    throw KitError(table.path() + " holds routes to " + std::to_string(entries) +
                   " nodes, the cluster has " + std::to_string(n));
  sim::Node& nd = cluster.node(node);
  for (uint32_t j = 0; j < entries; ++j)
    put_route(nd, table[j], j < n ? &cluster.network().route(node, j) : nullptr);
}

void write_paths(sim::Cluster& cluster, uint32_t node, const Ref& table, uint32_t per_node) {
  const uint32_t n = cluster.size();
  const uint32_t entries = table.count();
  if (per_node == 0 || uint64_t(n) * per_node > entries)
    throw KitError(table.path() + " holds " + std::to_string(entries) + " routes, the cluster needs " +
                   std::to_string(uint64_t(n) * per_node) + " (" + std::to_string(per_node) + " per node)");
  sim::Node& nd = cluster.node(node);
  for (uint32_t j = 0; j < entries / per_node; ++j) {
    const auto paths = j < n ? cluster.network().paths(node, j) : std::vector<std::vector<uint8_t>>{};
    for (uint32_t k = 0; k < per_node; ++k)
      put_route(nd, table[j * per_node + k], paths.empty() ? nullptr : &paths[k % paths.size()]);
  }
}

void start(sim::Cluster& cluster, Driver* driver) {
  for (uint32_t i = 0; i < cluster.size(); ++i) {
    cluster.node(i).start();
    if (driver) driver->start(i);
  }
}

std::optional<uint32_t> node_of(sim::Cluster& cluster, const host::Process& p) {
  for (uint32_t i = 0; i < cluster.size(); ++i)
    for (const auto& q : cluster.node(i).processes())
      if (q.get() == &p) return i;
  return std::nullopt;
}

} // namespace lanaikit::kit
