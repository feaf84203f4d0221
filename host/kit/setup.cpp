#include "host/kit/setup.h"

#include "host/kit/driver.h"
#include "host/kit/sram.h"

#include <algorithm>
#include <vector>

namespace lanaikit::kit {

void load(sim::Cluster& cluster, const assembler::FirmwareImage& image) {
  for (uint32_t i = 0; i < cluster.size(); ++i)
    cluster.node(i).load(image);
}

void write_routes(sim::Cluster& cluster, uint32_t node, const Ref& table) {
  const uint32_t n = cluster.size();
  const uint32_t entries = table.count();
  if (n > entries)
    throw KitError(table.path() + " holds routes to " + std::to_string(entries) +
                   " nodes, the cluster has " + std::to_string(n));
  sim::Node& nd = cluster.node(node);
  for (uint32_t j = 0; j < entries; ++j) {
    const Ref entry = table[j];
    const Ref len = entry.field("len"), hops = entry.field("hops");
    const std::vector<uint8_t>* route = j < n ? &cluster.network().route(node, j) : nullptr;
    if (route && route->size() <= hops.size()) {
      std::vector<uint8_t> bytes(hops.size(), 0); // right-aligned
      std::copy(route->begin(), route->end(), bytes.end() - ptrdiff_t(route->size()));
      poke(nd, len, route->size());
      nd.chip().host_write_sram(hops.addr(), bytes);
    } else {
      poke(nd, len, kNoRoute);
    }
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
