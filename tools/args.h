// A small command-line reader shared by the subcommands: flags, flags with values, and
// positional arguments, with errors that name the offending argument.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace lanaikit::tools {

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Args {
public:
  Args(int argc, char** argv, int first) {
    for (int i = first; i < argc; ++i) rest_.emplace_back(argv[i]);
  }
  bool empty() const { return pos_ >= rest_.size(); }
  std::string_view peek() const { return rest_[pos_]; }
  std::string next() { return rest_[pos_++]; }
  // The value after a flag such as `-o FILE` or `--max-insns N`.
  std::string value_for(std::string_view flag) {
    if (empty()) throw UsageError("option " + std::string(flag) + " needs a value");
    return next();
  }

private:
  std::vector<std::string> rest_;
  size_t pos_ = 0;
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

// "lanaikit CMD: message" and a pointer to --help, on stderr; returns the usage status 2.
inline int report_usage_error(const char* command, const UsageError& e) {
  std::fprintf(stderr, "lanaikit %s: %s\n(see 'lanaikit %s --help')\n", command, e.what(), command);
  return 2;
}

} // namespace lanaikit::tools
