// lanaikit disasm: one line per word of each executable segment, in LLVM's text, so it can
// be compared with `llvm-objdump -d`.
#include "tools/args.h"
#include "tools/commands.h"
#include "tools/loader.h"

#include "isa/inst.h"


#include <cstdio>

namespace lanaikit::tools {

namespace {
const char* const kHelp =
    "usage: lanaikit disasm IMAGE.elf [--symbols]\n"
    "\n"
    "Prints every word of the executable segments as\n"
    "  ADDRESS: WORD  TEXT\n"
    "(8 hex digits each), TEXT being exactly what LLVM's Lanai printer gives for the word,\n"
    "or <unknown> where LLVM cannot decode it.\n"
    "\n"
    "options:\n"
    "  --symbols   also print a '<name>:' line before each function symbol\n";
}

int cmd_disasm(int argc, char** argv) {
  std::string path;
  bool symbols = false;
  try {
    Args args(argc, argv, 2);
    while (!args.empty()) {
      const std::string a = args.next();
      if (a == "--help" || a == "-h") {
        std::fputs(kHelp, stdout);
        return 0;
      } else if (a == "--symbols") symbols = true;
      else if (!a.empty() && a[0] == '-') throw UsageError("unknown option '" + a + "'");
      else if (path.empty()) path = a;
      else throw UsageError("more than one image given");
    }
    if (path.empty()) throw UsageError("no image given");
  } catch (const UsageError& e) {
    return report_usage_error("disasm", e);
  }
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

} // namespace lanaikit::tools
