#include "tools/loader.h"

#include "assembler/elf.h"
#include "tools/cli.h"
#include "vm/debugger.h"

#include "llvm/Support/Error.h"

#include <cstdio>
#include <vector>

namespace lanaikit::tools {

std::string load_image(const assembler::FirmwareImage& image, vm::Cpu& cpu, uint32_t stack_guard) {
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
  cpu.set_stack_guard(image.data_end(), stack_guard);
  cpu.reset(image.entry);
  return {};
}

void add_bare_options(CLI::App& cmd, BareOptions& options) {
  add_count(
      cmd, "--sram-size",
      [&options](uint64_t bytes) {
        if (bytes == 0 || bytes % 4 != 0 || bytes > 0x80000000ull)
          throw UsageError("--sram-size must be a non-zero multiple of 4 up to 2G");
        options.sram_size = bytes;
      },
      "SRAM size (default 256K; K/M suffixes accepted)", "BYTES");
  add_count(
      cmd, "--stack-guard",
      [&options](uint64_t bytes) {
        if (bytes % 4 != 0 || bytes >= 0x80000000ull)
          throw UsageError("--stack-guard must be a multiple of 4 below 2G (0 for no guard)");
        options.stack_guard = uint32_t(bytes);
      },
      "words above the image's data that a store may not touch: the\n"
      "stack growing into them is a 'stack overflow' fault (default 256,\n"
      "0 for none; docs/abi.md)",
      "BYTES");
}

std::unique_ptr<BareMachine> load_bare(const char* command, const std::string& path,
                                       const assembler::FirmwareImage& image, uint64_t sram_size,
                                       vm::CostModel costs, uint32_t stack_guard) {
  std::unique_ptr<BareMachine> m;
  try {
    m = std::make_unique<BareMachine>(uint32_t(sram_size), costs);
  } catch (const vm::HostMemoryError& e) { // the SRAM or its predecode arrays
    std::fprintf(stderr, "lanaikit %s: %s\n", command, e.what());
    return nullptr;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "lanaikit %s: out of host memory setting up a %llu-byte SRAM\n", command,
                 static_cast<unsigned long long>(sram_size));
    return nullptr;
  }
  if (const std::string err = load_image(image, m->cpu, stack_guard); !err.empty()) {
    std::fprintf(stderr, "lanaikit %s: %s: %s\n", command, path.c_str(), err.c_str());
    return nullptr;
  }
  return m;
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
