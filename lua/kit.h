// The binding kit (docs/protocols.md, "The Lua binding"): what a protocol's Lua binding
// (lua/<p>.cpp, wired in by its lanaikit_protocol() call) needs beyond lua/internal.h, so a
// binding is its protocol's own code only.
//
//   library_call(a, [&] { return lib.open(node); })   C++ exceptions -> "fn: message"
//   node_arg(a, 1, box)                                a Node or a node index of that cluster
//   vaddr32_arg(a, 2)                                   a 32-bit virtual address
//   caller_on(a, 1, box, node)                          the calling process, on that node
//   push_fields(L, kit::read_fields(node, ref))        a firmware struct as a Lua table
//   call_callback(box, ref, push_args, "what")         a Lua function called from inside
//                                                       the simulation, with a traceback
//   ClusterAnchor anchor("lanaikit.vmmc")               one library per cluster, anchored
#pragma once

#include "lua/internal.h"

#include "host/model/address_space.h"

#include <cstdint>
#include <functional>
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

} // namespace lanaikit::sim::lua
