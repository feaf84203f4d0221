#include "sim/platform_section.h"

#include <cmath>
#include <mutex>

namespace lanaikit::sim {

namespace {

std::string range(double min, double max) {
  auto text = [](double v) {
    std::string s = std::to_string(v);
    if (v == std::floor(v) && std::fabs(v) < 1e18) s = std::to_string(int64_t(v));
    return s;
  };
  return text(min) + " .. " + text(max);
}

struct Registry {
  std::mutex mutex;
  std::map<std::string, PlatformSectionCheck> checks;
};
Registry& registry() {
  static Registry r;
  return r;
}

} // namespace

double PlatformSection::number(const std::string& key, double min, double max) const {
  const double v = table_.number(key);
  if (!std::isfinite(v) || v < min || v > max)
    fail(key, "expected a number " + range(min, max) + ", got " + std::to_string(v));
  return v;
}

uint64_t PlatformSection::integer(const std::string& key, uint64_t min, uint64_t max) const {
  const int64_t v = table_.integer(key);
  if (v < 0 || uint64_t(v) < min || uint64_t(v) > max)
    fail(key, "expected an integer " + std::to_string(min) + " .. " + std::to_string(max) +
                  ", got " + std::to_string(v));
  return uint64_t(v);
}

sim::Time PlatformSection::ns(const std::string& key) const {
  const double v = number(key, 0, 1e15);
  return sim::Time(std::llround(v * double(sim::kNanosecond)));
}

PlatformSection PlatformSection::section(const std::string& key) const {
  return PlatformSection(file_, table_.table(key));
}

std::optional<uint64_t> PlatformSection::integer_if(const std::string& key, uint64_t min,
                                                    uint64_t max) const {
  if (!has(key)) return std::nullopt;
  return integer(key, min, max);
}

std::optional<PlatformSection> PlatformSection::section_if(const std::string& key) const {
  if (!has(key)) return std::nullopt;
  return section(key);
}

std::map<std::string, uint64_t> PlatformSection::named_integers(const std::string& key,
                                                                uint64_t min, uint64_t max) const {
  const PlatformSection t = section(key);
  if (t.table_.length() != 0) t.fail("[1]", "expected named entries only (name = value)");
  std::map<std::string, uint64_t> out;
  for (const std::string& k : t.keys())
    out[k] = t.integer(k, min, max);
  return out;
}

bool register_platform_section(const std::string& protocol, PlatformSectionCheck check) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  r.checks[protocol] = check;
  return true;
}

PlatformSectionCheck platform_section_check(const std::string& protocol) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  const auto it = r.checks.find(protocol);
  return it == r.checks.end() ? nullptr : it->second;
}

} // namespace lanaikit::sim
