// The values of lanaikit's options that CLI11 (tools/cli.h) does not read by itself: counts
// and sizes with K/M/G suffixes, comma-separated lists, and the error for a value that does
// not fit (also used by `lanaikit debug`'s own commands).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace lanaikit::tools {

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Parses a non-negative integer (decimal, 0x hex, or with a K/M/G suffix for sizes).
inline uint64_t parse_count(std::string_view flag, std::string_view text) {
  uint64_t multiplier = 1;
  std::string digits(text);
  if (!digits.empty()) {
    const char last = digits.back();
    if (last == 'K' || last == 'k') multiplier = 1024;
    if (last == 'M' || last == 'm') multiplier = 1024 * 1024;
    if (last == 'G' || last == 'g') multiplier = 1024ull * 1024 * 1024;
    if (multiplier != 1) digits.pop_back();
  }
  size_t used = 0;
  uint64_t value = 0;
  try {
    if (digits.empty() || digits[0] == '-') throw std::invalid_argument("negative");
    value = std::stoull(digits, &used, 0);
  } catch (const std::exception&) {
    used = std::string::npos;
  }
  if (used != digits.size())
    throw UsageError("option " + std::string(flag) + " expects a non-negative integer, got '" +
                     std::string(text) + "'");
  return value * multiplier;
}

// The non-empty items of a `sep`-separated option value ("4,64,1024").
inline std::vector<std::string> split_list(const std::string& list, char sep = ',') {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(sep, start);
    if (end == std::string::npos) end = list.size();
    if (end > start) out.push_back(list.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

} // namespace lanaikit::tools
