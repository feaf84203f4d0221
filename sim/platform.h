// Platform descriptions: the hardware parameters of a testbed, read from a Lua file in
// lua-scripts/platforms/ (one per paper's testbed; every number there cites its source in
// ../shared/design/PLATFORMS.md). Parameters describe hardware; never fit them to a
// paper's results.
#pragma once

#include "sim/lua_table.h"
#include "vm/cpu.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace lanaikit::sim {

// The NIC processor and its memory.
struct NicParams {
  uint64_t clock_hz = 0;   // CPU clock
  uint32_t sram_bytes = 0; // on-chip SRAM
  vm::CostModel costs;     // lanaikit's cycle model (docs/vm.md)
};

struct Platform {
  std::string name;
  std::string description;
  // Absent for testbeds whose paper describes no LANai-style NIC (DART's ATM adapter,
  // FUGU's Sparcle): an experiment on them chooses the NIC explicitly.
  std::optional<NicParams> nic;
  // The whole file, for the sections other models read (pci, link, switch, host, cells):
  // each model types its own section when it is built from the platform.
  std::shared_ptr<LuaFile> file;
};

// Reads and checks a platform file: known top-level sections only, the NIC section fully
// typed. Errors are LuaError naming the file and the field.
Platform load_platform(const std::string& path);

} // namespace lanaikit::sim
