// lanaikit disasm: one line per word of each executable segment, in LLVM's text, so it can
// be compared with `llvm-objdump -d`.
#include "tools/commands.h"
#include "tools/loader.h"

#include "isa/inst.h"

#include <cstdio>
#include <memory>
#include <string>

namespace lanaikit::tools {

namespace {

int disasm(const std::string& path, bool symbols) {
  const auto image = read_image("disasm", path);
  if (!image) return 1;
  for (const auto& seg : image->segments) {
    if (!seg.exec) continue;
    for (uint32_t off = 0; off + 4 <= seg.bytes.size(); off += 4) {
      const uint32_t addr = seg.address + off;
      if (symbols)
        for (const auto& sym : image->symbols)
          if (sym.address == addr && sym.kind == assembler::SymbolKind::Function)
            std::printf("<%s>:\n", sym.name.c_str());
      const uint32_t word = image->word_at(addr);
      std::printf("%08x: %08x  %s\n", addr, word, isa::disassemble(word).c_str());
    }
  }
  return 0;
}

} // namespace

Command add_disasm(CLI::App& app) {
  CLI::App* cmd = add_command(app, "disasm", "disassemble the executable segments of an image",
                              "Prints every word of the executable segments as\n"
                              "  ADDRESS: WORD  TEXT\n"
                              "(8 hex digits each), TEXT being exactly what LLVM's Lanai printer gives for the word,\n"
                              "or <unknown> where LLVM cannot decode it.");
  auto path = std::make_shared<std::string>();
  auto symbols = std::make_shared<bool>(false);
  add_positional(*cmd, "IMAGE", *path, "the Lanai ELF image")->required();
  cmd->add_flag("--symbols", *symbols, "also print a '<name>:' line before each function symbol");
  return {[=] { return disasm(*path, *symbols); }};
}

} // namespace lanaikit::tools
