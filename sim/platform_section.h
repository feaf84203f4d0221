// A protocol's own section of a platform file, e.g.
//
//   protocol = { dart = { data_bytes = 32, control_bytes = 16, max_ops_per_message = 4 } }
//
// The generic loader (sim/platform.h) knows nothing of DART's cell format or FUGU's send
// buffer: it keeps each `protocol.<name>` table as raw data, and the protocol's own C++
// reads and checks it through this typed reader. Errors name the file and the field
// exactly as the generic ones do ("dart.lua: protocol.dart.data_bytes: expected an
// integer 0 .. 48, got 64"). A protocol calls only({...}) on its section so a typo in it
// is an error, as everywhere else in the file.
#pragma once

#include "sim/lua_table.h"
#include "event/time.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace lanaikit::sim {

class PlatformSection {
public:
  PlatformSection(std::shared_ptr<const LuaFile> file, LuaTable table)
      : file_(std::move(file)), table_(std::move(table)) {}

  const std::string& path() const { return table_.path(); } // "protocol.dart"
  bool has(const std::string& key) const { return table_.has(key); }
  std::vector<std::string> keys() const { return table_.keys(); }
  // Fails unless every field is one of `allowed`.
  void only(const std::vector<std::string>& allowed) const { table_.only(allowed); }

  // Required fields, range-checked (inclusive).
  double number(const std::string& key, double min, double max) const;
  uint64_t integer(const std::string& key, uint64_t min, uint64_t max) const;
  sim::Time ns(const std::string& key) const; // a duration in ns, to the picosecond
  PlatformSection section(const std::string& key) const;
  // Optional fields: nullopt when absent, an error when present and wrong.
  std::optional<uint64_t> integer_if(const std::string& key, uint64_t min, uint64_t max) const;
  std::optional<PlatformSection> section_if(const std::string& key) const;
  // A table of named integers ({ miss_penalty = 10, ... }), each in [min, max].
  std::map<std::string, uint64_t> named_integers(const std::string& key, uint64_t min,
                                                 uint64_t max) const;

  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    table_.fail(key, what);
  }

private:
  std::shared_ptr<const LuaFile> file_; // keeps table_ valid
  LuaTable table_;
};

// A protocol's check of its section, run by load_platform on every file that has one, so
// a mistake there is found when the platform is loaded, like a generic one. Protocols
// register it from a static initializer in their own code; the result is ignored.
using PlatformSectionCheck = void (*)(const PlatformSection&);
bool register_platform_section(const std::string& protocol, PlatformSectionCheck check);
// The registered check, or null.
PlatformSectionCheck platform_section_check(const std::string& protocol);

} // namespace lanaikit::sim
