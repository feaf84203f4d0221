// Hexadecimal spellings of addresses and values in messages, listings and reports: the
// one definition the whole tree uses (the chip's faults, the linker's and ELF reader's
// errors, the language's diagnostics, the debugger, the host model).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace lanaikit {

// "0x1f": lowercase, no padding.
inline std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// "0x0001f000": at least eight digits, for 32-bit addresses lined up in columns (a range's
// end may be 0x100000000).
inline std::string hex32(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%08llx", static_cast<unsigned long long>(v));
  return buf;
}

} // namespace lanaikit
