// Building test firmware with the real toolchain (clang-14 + the lanaikit runtime).
#pragma once

#include "assembler/build.h"

#include <gtest/gtest.h>
#include <sstream>
#include <string>

namespace lanaikit::test {

inline std::string source(const std::string& rel) { return std::string(LANAIKIT_SOURCE_DIR) + "/" + rel; }

// `debug`: with line tables (per-line profiles; the code is the same).
inline assembler::FirmwareImage build_firmware(const std::vector<std::string>& sources,
                                               std::vector<std::string> defines = {},
                                               bool debug = false) {
  assembler::BuildOptions bo;
  bo.debug = debug;
  bo.startup = LANAIKIT_CRT0;
  std::stringstream list(LANAIKIT_RUNTIME_OBJECTS);
  for (std::string item; std::getline(list, item, ';');)
    if (!item.empty()) bo.runtime.push_back(item);
  bo.defines = std::move(defines);
  auto image = assembler::build(sources, bo);
  if (!image) {
    ADD_FAILURE() << llvm::toString(image.takeError());
    return {};
  }
  return std::move(*image);
}

} // namespace lanaikit::test
