// The binding kit (docs/protocols.md, "The Lua binding"): what a protocol's Lua binding
// (lua/<p>.cpp, wired in by its lanaikit_protocol() call) needs beyond lua/internal.h, so a
// binding is its protocol's own code only.
//
//   library_call(a, [&] { return lib.open(node); })   C++ exceptions -> "fn: message"
//   node_arg(a, 1, box)                                a Node or a node index of that cluster
//   vaddr32_arg(a, 2)                                   a 32-bit virtual address
//   word_waits_arg(a, 2)                                {va, value} / {va, test, value}
//                                                       conditions for kit::wait_words
//   caller_on(a, 1, box, node)                          the calling process, on that node
//   push_fields(L, kit::read_fields(node, ref))        a firmware struct as a Lua table
//   call_callback(box, ref, push_args, "what")         a Lua function called from inside
//                                                       the simulation, with a traceback
//   ClusterAnchor anchor("lanaikit.vmmc")               one library per cluster, anchored
//   library_args(a) / push_library<UD, State>(...)      lk.<p>(cluster, fw, ...): checked
//                                                       arguments, then the library built,
//                                                       pushed and anchored
//   costs_platform(L, idx, cluster, fail)               a `costs` value: a platform, or
//                                                       nullopt for a table of cost fields
#pragma once

#include "lua/internal.h"

#include "host/kit/word_wait.h"
#include "host/model/address_space.h"
#include "sim/platform.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace lanaikit::sim::lua {

// Runs a library call; its exceptions (the protocol's errors, host::HostError, kit errors)
// become "fn: message" at the caller's line. Argument errors pass through unchanged.
template <class F> auto library_call(const Args& a, F f) -> decltype(f()) {
  try {
    return f();
  } catch (const ArgError&) {
    throw;
  } catch (const std::exception& e) {
    a.fail_message(e.what());
  }
}

// A Node of `box`'s cluster or a node index in 0..size-1.
uint32_t node_arg(const Args& a, int arg, const ClusterBox& box);
// A virtual address of a 32-bit process address space.
host::VirtAddr vaddr32_arg(const Args& a, int arg);
// A list of word conditions for kit::wait_words: each {va, value} (equal) or {va, test,
// value} with test "==", "~=", ">=" or "<"; va a multiple of 4, values 32-bit unsigned.
std::vector<kit::WordWait> word_waits_arg(const Args& a, int arg);
// The calling process (argument `arg`, see own_process), which must belong to `box`'s
// cluster and run on node `node`.
LuaProc& caller_on(const Args& a, int arg, const ClusterBox& box, uint32_t node);

// A protocol endpoint's process memory, the same three methods in every binding (untimed
// set-up, as the process's CPU would): ep:alloc(bytes) -> virtual address of fresh zeroed
// pages, ep:write(va, string), ep:read(va, n) -> string. `arg` is the first argument after
// the endpoint; each returns the number of results it pushed.
int space_alloc(const Args& a, int arg, host::AddressSpace& space);
int space_write(const Args& a, int arg, host::AddressSpace& space);
int space_read(const Args& a, int arg, host::AddressSpace& space);

// Pushes a table of name -> integer (a firmware struct's fields: kit::read_fields).
void push_fields(lua_State* L, const std::vector<std::pair<std::string, uint64_t>>& fields);

// Calls the Lua function at registry `ref` from inside the simulation (an event of the
// cluster: a notification, an interrupt), on the runtime's aux thread. `push_args` pushes
// the arguments and returns their count. The function cannot block (blocking calls are
// refused outside a process's own function). An error in it is the run's failure, like a
// process's: "<what> failed: <message and traceback>", and the cluster's kernel stops.
// Nothing happens once the run has failed or the state is closing.
void call_callback(ClusterBox& box, int ref, const std::function<int(lua_State*)>& push_args,
                   const std::string& what);

// One protocol library per cluster, kept alive by the registry for as long as the Lua state
// lives: its driver processes run whenever the cluster runs, whether or not the script kept
// the value (docs/protocols.md, "Lifetimes").
class ClusterAnchor {
public:
  explicit ClusterAnchor(const char* registry_key) : key_(registry_key) {}
  // At open_<p>(): creates the registry table.
  void open(lua_State* L) const;
  // Throws (argument `arg`) if the cluster already has one; `what` names the library.
  void claim(const Args& a, int arg, const ClusterBox& box, const std::string& what) const;
  // Anchors the value on top of the stack (left there) for `box`.
  void set(lua_State* L, const ClusterBox& box) const;

private:
  const char* key_;
};

// What every library constructor lk.<p>(cluster, fw, ...) takes first: the cluster
// (argument 1, alive) and the firmware image (argument 2, not collected).
struct LibraryArgs {
  std::shared_ptr<ClusterBox> box;
  std::shared_ptr<const assembler::FirmwareImage> image;
};
LibraryArgs library_args(const Args& a);

// The rest of a library constructor: claims the cluster's anchor (one library of a kind per
// cluster), makes the State (a struct with `box` and `image` members, which it fills),
// builds the library with make(state) (its errors become the caller's), pushes the State's
// userdata UD (a struct holding `std::shared_ptr<State> st`) with metatable `meta` and
// anchors it. Returns 1, the values pushed.
template <class UD, class State, class Make>
int push_library(const Args& a, const ClusterAnchor& anchor, const char* meta, const std::string& what,
                 const LibraryArgs& lib, Make make) {
  anchor.claim(a, 1, *lib.box, what);
  auto st = std::make_shared<State>();
  st->box = lib.box;
  st->image = lib.image;
  library_call(a, [&] { make(*st); });
  push_udata<UD>(a.state(), meta, std::move(st));
  anchor.set(a.state(), *lib.box);
  return 1;
}

// Where a library's host costs come from, the value at stack index `idx`: nil, the
// cluster's platform; a string, that platform (a name, lua-scripts/platforms/NAME.lua, or a
// path); a platform table (it has a `nic`, `host` or `name` field), that platform. Any other
// table holds cost fields (ns, named as a platform file's host.costs) for the caller to read
// over its defaults: nullopt. `fail` reports an error where the value came from (an
// argument, or the `costs` option) and does not return.
std::optional<Platform> costs_platform(lua_State* L, int idx, const Platform& cluster,
                                       const std::function<void(const std::string&)>& fail);

// The same, as the library's costs: from_platform (its costs_from_platform) applied to the
// platform, its errors reported through `fail`; nullopt for a table of cost fields.
template <class Costs>
std::optional<Costs> platform_costs(lua_State* L, int idx, const Platform& cluster,
                                    const std::function<void(const std::string&)>& fail,
                                    Costs (*from_platform)(const Platform&)) {
  const std::optional<Platform> p = costs_platform(L, idx, cluster, fail);
  if (!p) return std::nullopt;
  try {
    return from_platform(*p);
  } catch (const ArgError&) {
    throw;
  } catch (const std::exception& e) {
    fail(e.what());
    throw; // fail throws the Lua error; not reached
  }
}

} // namespace lanaikit::sim::lua
