#include "sim/platform.h"

namespace lanaikit::sim {

Platform load_platform(const std::string& path) {
  Platform p;
  p.file = std::make_shared<LuaFile>(path);
  const LuaTable& root = p.file->root();
  root.only({"name", "description", "nic", "pci", "link", "switch", "host", "cells"});
  p.name = root.string("name");
  p.description = root.has("description") ? root.string("description") : "";

  const auto nic_table = root.table_if("nic");
  if (!nic_table) return p;
  const LuaTable& nic = *nic_table;
  p.nic.emplace();
  nic.only({"clock_hz", "sram_bytes", "cost"});
  p.nic->clock_hz = nic.positive("clock_hz");
  const uint64_t sram = nic.positive("sram_bytes");
  if (sram % 4 != 0 || sram > 0x80000000ull)
    nic.fail("sram_bytes", "must be a multiple of 4 up to 2 GB, got " + std::to_string(sram));
  p.nic->sram_bytes = uint32_t(sram);
  if (const auto cost = nic.table_if("cost")) {
    cost->only({"base", "load_use", "mmio"});
    auto cycles = [&](const char* key, uint32_t fallback) {
      const int64_t v = cost->integer_or(key, fallback);
      if (v < 0 || v > 1000000) cost->fail(key, "expected 0..1000000 cycles");
      return uint32_t(v);
    };
    p.nic->costs.base_cycles = cycles("base", p.nic->costs.base_cycles);
    p.nic->costs.load_use_cycles = cycles("load_use", p.nic->costs.load_use_cycles);
    p.nic->costs.mmio_cycles = cycles("mmio", p.nic->costs.mmio_cycles);
  }
  return p;
}

} // namespace lanaikit::sim
