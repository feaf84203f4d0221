#include "host/kit/costs.h"

namespace lanaikit::kit {

CostTable::CostTable(const sim::Platform& platform) {
  if (platform.host) have_ = platform.host->costs;
}

sim::Time CostTable::take(std::string_view name, sim::Time fallback) {
  const auto it = have_.find(std::string(name));
  if (it != have_.end()) return it->second;
  defaulted_.emplace_back(name);
  return fallback;
}

} // namespace lanaikit::kit
