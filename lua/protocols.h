// The protocol bindings built into this lanaikit (lk.vmmc, ...): one per protocol whose
// lanaikit_protocol() call names a BINDING (cmake/protocol.cmake). The table is generated
// (lua/protocols.cpp.in), so adding a protocol edits no shared file.
#pragma once

#include <lua.hpp>

#include <vector>

namespace lanaikit::sim::lua {

struct ProtocolBinding {
  const char* name;           // "vmmc": lk.vmmc
  void (*open)(lua_State* L); // adds lk.<name> to the lk table on top of the stack
};
const std::vector<ProtocolBinding>& protocol_bindings();

} // namespace lanaikit::sim::lua
