// The sweep's grid: parsing --grid and numbering its points (tools/sweep_grid.h).
#include "tools/sweep_grid.h"

#include "tools/option_values.h"

#include <cstdio>
#include <set>

namespace lanaikit::tools::sweep {

namespace {

constexpr uint64_t kMaxPoints = 1000000;

bool is_identifier(const std::string& s) {
  if (s.empty()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    const bool digit = c >= '0' && c <= '9';
    if (!(alpha || (i > 0 && digit))) return false;
  }
  return true;
}

bool plain_in_stem(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '+' || c == '-' || c == '=';
}

} // namespace

uint64_t Grid::size() const {
  uint64_t n = 1;
  for (const auto& p : parameters) n *= p.values.size();
  return parameters.empty() ? 0 : n;
}

std::vector<std::string> Grid::point(uint64_t index) const {
  std::vector<std::string> out(parameters.size());
  for (size_t k = parameters.size(); k-- > 0;) {
    const auto& v = parameters[k].values;
    out[k] = v[index % v.size()];
    index /= v.size();
  }
  return out;
}

std::string Grid::stem(uint64_t index) const {
  const std::vector<std::string> values = point(index);
  std::string s;
  for (size_t k = 0; k < parameters.size(); ++k) {
    if (k) s += ',';
    s += parameters[k].name + '=';
    for (const unsigned char c : values[k]) {
      if (plain_in_stem(char(c))) {
        s += char(c);
      } else {
        char buf[4];
        std::snprintf(buf, sizeof buf, "%%%02X", c);
        s += buf;
      }
    }
  }
  if (s.size() > 200) s = "point-" + std::to_string(index);
  return s;
}

std::vector<std::string> Grid::names() const {
  std::vector<std::string> out;
  for (const auto& p : parameters) out.push_back(p.name);
  return out;
}

Parameter parse_parameter(const std::string& text) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos) throw UsageError("--grid '" + text + "': expected NAME=V1,V2,...");
  Parameter p;
  p.name = text.substr(0, eq);
  if (!is_identifier(p.name))
    throw UsageError("--grid '" + text + "': the name '" + p.name +
                     "' is not an identifier (letters, digits, '_', not starting with a digit)");
  std::set<std::string> seen;
  size_t start = eq + 1;
  while (true) {
    const size_t comma = text.find(',', start);
    std::string v = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (v.empty()) throw UsageError("--grid '" + text + "': an empty value");
    if (!seen.insert(v).second) throw UsageError("--grid '" + text + "': the value '" + v + "' is given twice");
    p.values.push_back(std::move(v));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return p;
}

void add_parameter(Grid& grid, Parameter p) {
  for (const auto& q : grid.parameters)
    if (q.name == p.name) throw UsageError("--grid: the parameter '" + p.name + "' is given twice");
  uint64_t n = p.values.size();
  for (const auto& q : grid.parameters) n *= q.values.size();
  if (n > kMaxPoints)
    throw UsageError("--grid: " + std::to_string(n) + " points is more than " + std::to_string(kMaxPoints));
  grid.parameters.push_back(std::move(p));
}

} // namespace lanaikit::tools::sweep
