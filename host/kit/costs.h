// Host software costs from the platform (docs/protocols.md, "Costs"): one place where a
// protocol library takes the costs its paper states (`host.costs` in the platform file,
// ns) and falls back to lanaikit's estimate for the ones it does not, recording which, so a
// report can say which numbers are not the paper's.
//
//   kit::CostTable t(platform);
//   c.send_post = t.take("send_post", 0);
//   c.signal = t.take("signal", 10 * sim::kMicrosecond); // lanaikit's estimate
//   c.defaulted = t.defaulted();
#pragma once

#include "event/time.h"
#include "sim/platform.h"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace lanaikit::kit {

class CostTable {
public:
  explicit CostTable(const sim::Platform& platform);
  explicit CostTable(std::map<std::string, sim::Time> costs) : have_(std::move(costs)) {}

  // The platform's cost of that name, else `fallback` (and the name is recorded).
  sim::Time take(std::string_view name, sim::Time fallback);
  bool has(std::string_view name) const { return have_.find(std::string(name)) != have_.end(); }
  const std::vector<std::string>& defaulted() const { return defaulted_; }

private:
  std::map<std::string, sim::Time> have_;
  std::vector<std::string> defaulted_;
};

} // namespace lanaikit::kit
