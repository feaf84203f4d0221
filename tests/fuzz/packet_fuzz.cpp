// libFuzzer target over the packet input of each control program (firmware/raw, echo, vmmc,
// bip): the input's packets are injected on node 0's link into the switch, routed to node
// 1, which runs the control program with its host library set up as usual. The firmware
// must drop or deliver each one and count the rejected ones, never fault, never write host
// memory outside the receive buffers it was given, and a legitimate message sent afterwards
// must still arrive intact. The scenario of each protocol is a Lua script
// (tests/fuzz/packet/<protocol>.lua) run in the runtime `lanaikit run` uses, with two
// globals this harness adds: PACKETS (the injected packets, strings) and inject(link,
// bytes), which hands one packet to a link's sending end. Any failure of the script (an
// assertion, a fault report, a limit) is a finding.
//
// Input: protocol byte, then packets separated by "\n@PKT@\n" (at most 16, each at most
// 9000 bytes; the route to node 1 is put in front by the script).
//
// Built only with -DLANAIKIT_FUZZ=ON and clang; run with scripts/fuzz.sh packet [seconds].
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lua/internal.h"
#include "lua/runtime.h"
#include "net/link.h"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

namespace {

namespace lk = lanaikit::sim::lua;

const char* const kProtocols[] = {"raw", "echo", "vmmc", "bip"};
constexpr std::string_view kSeparator = "\n@PKT@\n";
constexpr size_t kMaxPackets = 16, kMaxBytes = 9000;

// inject(link, bytes): `bytes` (route bytes first) leaves the link's sending end as one
// packet, after whatever the link is already sending.
int inject(lua_State* L) {
  auto* ud = static_cast<lk::LinkUD*>(luaL_checkudata(L, 1, lk::kLink));
  size_t n = 0;
  const char* s = luaL_checklstring(L, 2, &n);
  static uint64_t id = 1ull << 48;
  lanaikit::net::Packet p;
  p.id = id++;
  p.bytes.assign(s, s + n);
  ud->link->send(std::move(p));
  return 0;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1)
    return 0;
  const char* protocol = kProtocols[data[0] % 4];
  std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
  // Empty packets (no byte after the route) are kept: crashes/packet-empty-packet-lost, an
  // empty packet lost at an unarmed NIC, is fixed (net/packet.h: Chunk::whole()).
  // PACKET_FUZZ_NO_EMPTY leaves them out.
  static const bool keep_empty = std::getenv("PACKET_FUZZ_NO_EMPTY") == nullptr;
  std::vector<std::string> packets;
  for (size_t pieces = 0; pieces < kMaxPackets; ++pieces) {
    const size_t cut = rest.find(kSeparator);
    if (keep_empty || (cut != 0 && !rest.empty()))
      packets.emplace_back(rest.substr(0, std::min(cut, kMaxBytes)));
    if (cut == std::string_view::npos)
      break;
    rest.remove_prefix(cut + kSeparator.size());
  }

  lk::Options options = lk::Options::defaults();
  options.time_limit = 50 * lanaikit::sim::kMillisecond;
  options.wall_limit_s = 60;
  lk::Runtime runtime(options);
  lua_State* L = runtime.state();
  lua_createtable(L, int(packets.size()), 0);
  for (size_t i = 0; i < packets.size(); ++i) {
    lua_pushlstring(L, packets[i].data(), packets[i].size());
    lua_rawseti(L, -2, lua_Integer(i + 1));
  }
  lua_setglobal(L, "PACKETS");
  lua_pushcfunction(L, inject);
  lua_setglobal(L, "inject");

  const std::string script =
      std::string(LANAIKIT_SOURCE_DIR) + "/tests/fuzz/packet/" + protocol + ".lua";
  const lk::Outcome out = runtime.run_file(script);
  if (out.kind != lk::Outcome::Ok) {
    std::fprintf(stderr, "packet_fuzz: %s: %zu packet(s): the scenario failed (status %d):\n%s\n",
                 protocol, packets.size(), out.status, out.message.c_str());
    std::abort();
  }
  return 0;
}
