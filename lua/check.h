// The typed argument layer of the Lua bindings: every C function reads its arguments
// through Args, and every mismatch becomes an ArgError whose message names the function,
// the argument and what was expected:
//   "lk.cluster: argument 1 field 'nodes': expected a positive integer, got string".
//
// Errors are C++ exceptions, never Lua errors: a Lua error is a longjmp, which must not
// cross C++ frames with live objects. The function wrapper (lua/internal.h) turns the
// exception into a Lua error after every C++ object of the call is gone.
//
// Table fields are read raw (no metamethods), so reading an argument never runs Lua code.
#pragma once

#include "event/time.h"

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

struct lua_State;

namespace lanaikit::sim::lua {

// Pops one value when the scope ends, however it ends (a return, an ArgError): for a value
// pushed to be read, e.g. `t.push("costs"); PopOnExit pop{L};`.
struct PopOnExit {
  lua_State* L;
  ~PopOnExit();
};

struct ArgError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// What a Lua value is, for messages: "string", "nil", "number 1.5", "Node".
std::string describe(lua_State* L, int index);

class TableArg;

class Args {
public:
  // `fn` as the user writes it ("lk.cluster", "Cluster:run"). `self` = 1 for methods:
  // then argument k (as numbered in messages) is at stack index k + 1.
  Args(lua_State* L, std::string fn, int self = 0) : L_(L), fn_(std::move(fn)), self_(self) {}

  lua_State* state() const { return L_; }
  const std::string& fn() const { return fn_; }
  int index(int arg) const { return arg + self_; }
  int count() const; // user arguments passed

  [[noreturn]] void fail(int arg, const std::string& what) const;
  [[noreturn]] void fail_message(const std::string& message) const; // "fn: message"

  bool none(int arg) const; // absent or nil
  double number(int arg) const;
  int64_t integer(int arg) const;
  int64_t integer_in(int arg, int64_t lo, int64_t hi, const char* expected) const;
  uint32_t u32(int arg) const;            // 0 .. 2^32-1
  uint64_t positive(int arg) const;       // > 0
  std::string string(int arg) const;
  // The same string argument without a copy: valid while it stays on the Lua stack (the
  // function's own arguments do, until it returns).
  std::string_view string_view(int arg) const;
  bool boolean(int arg) const;
  Time time_ns(int arg) const;            // non-negative ns -> ps
  void function(int arg) const;           // checks a function is there
  TableArg table(int arg) const;

  std::optional<int64_t> opt_integer(int arg) const;
  std::optional<std::string> opt_string(int arg) const;
  std::optional<Time> opt_time_ns(int arg) const;

  // A userdata of our type `tname` (a metatable registered with luaL_newmetatable).
  template <class T> T& udata(int arg, const char* tname) const {
    return *static_cast<T*>(udata_ptr(arg, tname));
  }
  // The receiver of a method ("Cluster:run: expected a Cluster as self ...").
  template <class T> T& self(const char* tname) const {
    return *static_cast<T*>(self_ptr(tname));
  }

private:
  friend class TableArg;
  void* udata_ptr(int arg, const char* tname) const;
  void* self_ptr(const char* tname) const;
  lua_State* L_;
  std::string fn_;
  int self_;
};

// A table argument (or a table inside one). `path` is what messages call it
// ("field 'link'", "field 'faults.drop[2]'"); empty for the argument itself.
class TableArg {
public:
  TableArg(const Args& args, int arg, int abs_index, std::string path)
      : a_(args), arg_(arg), idx_(abs_index), path_(std::move(path)) {}

  int stack_index() const { return idx_; }
  bool has(const char* key) const;
  [[noreturn]] void fail(const std::string& key, const std::string& what) const;

  double number(const char* key) const;
  int64_t integer(const char* key) const;
  uint64_t positive(const char* key) const;
  uint32_t u32(const char* key) const;
  std::string string(const char* key) const;
  bool boolean(const char* key) const;
  Time time_ns(const char* key) const;
  double probability(const char* key) const;

  std::optional<double> opt_number(const char* key) const;
  std::optional<int64_t> opt_integer(const char* key) const;
  std::optional<uint64_t> opt_positive(const char* key) const;
  std::optional<std::string> opt_string(const char* key) const;
  std::optional<bool> opt_boolean(const char* key) const;
  std::optional<Time> opt_time_ns(const char* key) const;
  // A string or a list of strings (`sources = "a.c"` or `sources = {"a.c", "b.s"}`).
  std::optional<std::vector<std::string>> opt_strings(const char* key) const;
  std::optional<std::vector<int64_t>> opt_integers(const char* key) const;

  // Fails on a string key not in `allowed` (catches typos).
  void only(const std::vector<std::string>& allowed) const;

  // Pushes t[key] (raw) and returns its Lua type; the caller pops.
  int push(const char* key) const;

private:
  std::string where(const std::string& key) const;
  const Args& a_;
  int arg_;
  int idx_;
  std::string path_;
};

// ns (a Lua number, fractional allowed) -> ps, rounded to the nearest ps.
Time ns_to_ps(double ns);
double ps_to_ns(Time ps);

} // namespace lanaikit::sim::lua
