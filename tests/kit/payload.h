// Test payloads for protocol tests: a deterministic byte pattern per seed, and a readable
// comparison (where two buffers first differ and how many bytes do), so a failed
// megabyte transfer says more than "not equal".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace lanaikit::test {

inline std::vector<uint8_t> pattern(size_t n, uint32_t seed) {
  std::vector<uint8_t> v(n);
  uint32_t x = seed * 2654435761u + 12345;
  for (auto& b : v) {
    x = x * 1103515245u + 12345;
    b = uint8_t(x >> 16);
  }
  return v;
}

// "" if equal, else where and how they first differ.
inline std::string difference(const std::vector<uint8_t>& got, const std::vector<uint8_t>& want) {
  if (got.size() != want.size()) return "sizes " + std::to_string(got.size()) + " and " + std::to_string(want.size());
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i]) {
      size_t n = 0;
      for (size_t j = i; j < got.size(); ++j) n += got[j] != want[j];
      return "first difference at byte " + std::to_string(i) + " (got " + std::to_string(got[i]) + ", want " +
             std::to_string(want[i]) + "), " + std::to_string(n) + " bytes differ";
    }
  return "";
}

} // namespace lanaikit::test
