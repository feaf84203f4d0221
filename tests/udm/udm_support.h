// What the UDM tests share: the kernel's sources (firmware/udm), FUGU clusters of the
// lanaikit node, and word access to a node's SRAM (big-endian, as the firmware sees it).
#pragma once

#include "../chip/firmware.h"
#include "sim/cluster.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace lanaikit::test::udm {

// A test firmware's own files followed by the UDM kernel's.
inline assembler::FirmwareImage build(std::vector<std::string> own) {
  std::vector<std::string> sources;
  for (const std::string& s : own) sources.push_back(source(s));
  for (const char* k : {"firmware/udm/traps.s", "firmware/udm/fast.s", "firmware/udm/buffer.c",
                        "firmware/udm/buffered.s", "firmware/udm/sched.c"})
    sources.push_back(source(k));
  return build_firmware(sources);
}

inline uint32_t symbol(const assembler::FirmwareImage& img, const char* name) {
  const auto a = img.symbol(name);
  if (!a) ADD_FAILURE() << "no symbol " << name;
  return a.value_or(0);
}

// `nodes` lanaikit nodes (100 MHz, 1 MB SRAM) with FUGU's network interface.
inline sim::ClusterParams fugu_cluster(uint32_t nodes) {
  sim::ClusterParams p;
  p.nodes = nodes;
  p.node.chip = vm::ChipParams::lanaikit_default();
  p.node.pci = host::PciParams::vmmc();
  p.fugu = vm::FuguInterface::Config{};
  return p;
}

inline void write_word(sim::Node& n, uint32_t addr, uint32_t v) {
  const uint8_t b[4] = {uint8_t(v >> 24), uint8_t(v >> 16), uint8_t(v >> 8), uint8_t(v)};
  n.chip().host_write_sram(addr, b);
}

inline uint32_t read_word(sim::Cluster& c, uint32_t node, uint32_t addr) {
  uint8_t b[4];
  c.node(node).chip().host_read_sram(addr, b);
  return uint32_t(b[0]) << 24 | uint32_t(b[1]) << 16 | uint32_t(b[2]) << 8 | b[3];
}

// The kernel's buffered mode two ways, as a test parameter: 0 buffered.s's common cases,
// 1 wholly in C (buffer.c); this names the instances.
inline std::string buffered_mode_name(const ::testing::TestParamInfo<uint32_t>& info) {
  return info.param ? "AllC" : "Assembly";
}

} // namespace lanaikit::test::udm
