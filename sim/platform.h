// Platform descriptions: the hardware parameters of a testbed, read from a Lua file in
// lua-scripts/platforms/ (one per paper's testbed; every number there cites its source in
// ../shared/design/PLATFORMS.md or the paper). Parameters describe hardware; never fit
// them to a paper's results.
//
// Every generic section is typed here into the parameters of the model built from it, so
// a platform yields ready-to-use structs: `nic` (vm's chip), `pci` (host::PciBus), `link`
// (net::Link), `switch` (net::Switch), `host` (HostParams), `cells` (net::CellLink).
// Fields the file leaves out take lanaikit's defaults; Platform::defaulted lists them, so
// a report can say which numbers are not the paper's. What only one protocol reads (DART's
// cell format, FUGU's send buffer, UDM's cycle counts) lives in `protocol = { <name> =
// {...} }`, kept raw and read by that protocol's code (sim/platform_section.h).
#pragma once

#include "host/model/pci.h"
#include "net/atm.h"
#include "net/link.h"
#include "net/switch.h"
#include "sim/lua_table.h"
#include "event/time.h"
#include "sim/platform_section.h"
#include "vm/cpu.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace lanaikit::sim {

// The NIC processor and its memory (section `nic`).
struct NicParams {
  uint64_t clock_hz = 0;   // CPU clock
  uint32_t sram_bytes = 0; // on-chip SRAM
  vm::CostModel costs;     // lanaikit's cycle model (docs/vm.md)
};

// The host computer (section `host`). Everything is optional: a paper gives what it gives.
struct HostParams {
  std::optional<uint64_t> cpu_hz;               // host CPU clock
  std::optional<uint32_t> page_bytes;           // VM page size (pinning, DMA chunking)
  std::optional<sim::Time> interrupt_latency;   // NIC interrupt to the handling process
  std::optional<uint32_t> cache_bytes;          // host data cache
  std::optional<uint32_t> cache_line_bytes;
  std::optional<bool> cache_coherent_io;        // DMA snoops the cache (no flushes needed)
  // Host software costs by name, e.g. "send_post" (ns in the file, `costs = { ... }`).
  std::map<std::string, sim::Time> costs;
};

// ATM cell links (section `cells`).
struct CellParams {
  net::CellLinkConfig link; // the testbed's own link, ready for net::CellLink
  // Links the paper projects results for (DART: 155 and 622 Mb/s), same latency.
  std::vector<net::CellLinkConfig> projected;
};

struct Platform {
  std::string name;
  std::string description;
  std::optional<uint32_t> nodes; // hosts in the paper's testbed
  // Absent for testbeds whose paper describes no LANai-style NIC (DART's ATM adapter,
  // FUGU's Sparcle): an experiment on them chooses the NIC explicitly.
  std::optional<NicParams> nic;
  std::optional<host::PciParams> pci;      // section `pci` (validated)
  std::optional<net::LinkConfig> link;     // section `link`
  std::optional<net::SwitchConfig> net_switch; // section `switch`
  std::optional<HostParams> host;          // section `host`
  std::optional<CellParams> cells;         // section `cells`
  // Section `protocol`: each protocol's own table, by protocol name, for its code to read.
  std::map<std::string, PlatformSection> protocols;
  // Fields absent from the file that took a lanaikit default ("pci.dma_setup_ns",
  // "link.latency_ns", ...), in the order they were read.
  std::vector<std::string> defaulted;
  // The whole file, for anything a later model reads itself.
  std::shared_ptr<LuaFile> file;
};

// The `protocol.<name>` section, or a LuaError naming the file and what is missing.
const PlatformSection& protocol_section(const Platform& platform, const std::string& name);

// Reads and checks a platform file: known sections and fields only, every section typed
// and checked; each `protocol.<name>` section by its protocol's registered check, if any. Errors are LuaError naming the file and the field, e.g.
// "vmmc.lua: pci.dma[2].mb_per_s: expected a number, got a string".
Platform load_platform(const std::string& path);

} // namespace lanaikit::sim
