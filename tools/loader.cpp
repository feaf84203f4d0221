#include "tools/loader.h"

#include "assembler/elf.h"

#include "llvm/Support/Error.h"

#include <cstdio>
#include <vector>

namespace lanaikit::tools {

std::string load_image(const assembler::FirmwareImage& image, vm::Cpu& cpu) {
  vm::Sram& sram = cpu.sram();
  for (const auto& seg : image.segments) {
    if (!sram.contains(seg.address, seg.mem_size))
      return "segment " + seg.name + " [" + std::to_string(seg.address) + ", " +
             std::to_string(seg.end()) + ") does not fit in " + std::to_string(sram.size()) +
             "-byte SRAM (use --sram-size)";
    sram.write(seg.address, seg.bytes);
    const std::vector<uint8_t> zeros(seg.mem_size - seg.bytes.size(), 0);
    sram.write(seg.address + uint32_t(seg.bytes.size()), zeros);
    cpu.invalidate(seg.address, seg.mem_size);
  }
  cpu.reset(image.entry);
  return {};
}

std::optional<assembler::FirmwareImage> read_image(const char* command, const std::string& path) {
  auto image = assembler::read_elf(path);
  if (!image) {
    std::fprintf(stderr, "lanaikit %s: %s\n", command, llvm::toString(image.takeError()).c_str());
    return std::nullopt;
  }
  return std::move(*image);
}

} // namespace lanaikit::tools
