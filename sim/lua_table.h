// A small typed view of Lua 5.4 data, for configuration read from Lua files (platform
// descriptions now, experiment scripts later).
//
// A LuaFile runs a Lua chunk that returns a table; LuaTable reads fields with the type the
// caller expects and reports every mismatch with the file and the full path of the field
// ("vmmc.lua: pci.dma_bandwidth[2].mb_per_s: expected a number, got a string"). Errors are
// LuaError exceptions carrying that message; nothing is silently defaulted unless the
// caller asks for a default.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

struct lua_State;

namespace lanaikit::sim {

struct LuaError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class LuaFile;

// A table inside a LuaFile, with the path it was reached by. Valid while the file lives.
class LuaTable {
public:
  const std::string& path() const { return path_; }

  bool has(const std::string& key) const;
  bool is_number(const std::string& key) const; // present and a number
  bool is_table(const std::string& key) const;  // present and a table
  std::vector<std::string> keys() const; // string keys, sorted

  // Required fields: a missing field or a wrong type is a LuaError naming the field.
  double number(const std::string& key) const;
  int64_t integer(const std::string& key) const; // a number with an integral value
  uint64_t positive(const std::string& key) const; // an integer > 0
  std::string string(const std::string& key) const;
  bool boolean(const std::string& key) const;
  LuaTable table(const std::string& key) const;

  // Optional fields: the default when absent, a LuaError when present with a wrong type.
  double number_or(const std::string& key, double fallback) const;
  int64_t integer_or(const std::string& key, int64_t fallback) const;
  std::optional<LuaTable> table_if(const std::string& key) const;

  // The array part: t[1] .. t[n].
  size_t length() const;
  LuaTable table_at(size_t index) const; // 1-based, as in Lua
  double number_at(size_t index) const;

  // Fails unless every string key of the table is one of `allowed` (catches typos).
  void only(const std::vector<std::string>& allowed) const;

  [[noreturn]] void fail(const std::string& key, const std::string& what) const;

private:
  friend class LuaFile;
  LuaTable(const LuaFile* file, int ref, std::string path) : file_(file), ref_(ref), path_(std::move(path)) {}
  void push_field(const std::string& key) const; // pushes t[key]
  void push_index(size_t index) const;           // pushes t[index]
  // Reads t[key] if it has Lua type `type`, through `get`; else fails with `expected`.
  template <class Get>
  auto read(const std::string& key, int type, const char* expected, Get get) const;
  const LuaFile* file_;
  int ref_; // registry reference to the table
  std::string path_;
};

class LuaFile {
public:
  // Runs the file in a fresh Lua state with the standard libraries; it must return a
  // table. Syntax and runtime errors become LuaError with Lua's message and traceback.
  explicit LuaFile(const std::string& path);
  ~LuaFile();
  LuaFile(const LuaFile&) = delete;
  LuaFile& operator=(const LuaFile&) = delete;

  const LuaTable& root() const { return *root_; }
  const std::string& name() const { return name_; } // the file name, for messages

private:
  friend class LuaTable;
  lua_State* L_ = nullptr;
  std::string name_;
  std::unique_ptr<LuaTable> root_;
};

} // namespace lanaikit::sim
