// libFuzzer target over the ELF object reader and the linker (assembler/link.cpp): an input
// is one or more ELF32 Lanai relocatable objects, mutated, linked as `lanaikit build`
// links them (a startup object first, the inputs in order, optionally the last one as a
// library). Every input must link or be rejected with an error; a crash, a sanitizer
// report, a hang or running out of memory is a bug. What links must fit the SRAM it was
// linked for and survive the ELF image writer and reader.
//
// Input: [flags byte] object ("\n@LKOBJ@\n" object)*. Flags: bit 0 zero_bss, bit 1 no
// startup object, bit 2 the last object is a library, bit 3 a 16 KiB SRAM.
// Seeds are objects the toolchain produces from the firmware sources and a few small
// inputs: `LINK_FUZZ_SEEDS=DIR link_fuzz` writes them into DIR and exits (scripts/fuzz.sh
// does this before each run, so they follow the compiler).
//
// Built only with -DLANAIKIT_FUZZ=ON and clang; run with scripts/fuzz.sh link [seconds].
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include <fstream>

#include "assembler/build.h"
#include "assembler/elf.h"
#include "assembler/link.h"

namespace {

namespace as = lanaikit::assembler;

constexpr std::string_view kSeparator = "\n@LKOBJ@\n";

const as::Object& startup() {
  // crt0's shape: _start calls main and halts (firmware/lib/crt0.s needs the runtime).
  static const as::Object start = [] {
    auto o = as::assemble("\t.text\n\t.globl _start\n_start:\n\tbt main\n\tnop\n", "start.s");
    if (!o) {
      std::fprintf(stderr, "link_fuzz: %s\n", llvm::toString(o.takeError()).c_str());
      std::abort();
    }
    return std::move(*o);
  }();
  return start;
}

// An object of the toolchain (a source of the tree, through `lanaikit build`'s load_input).
std::string object(const std::string& relative, bool debug) {
  as::BuildOptions b;
  b.debug = debug;
  b.library_dir = LANAIKIT_SOURCE_DIR "/firmware/lib";
  auto o = as::load_input(LANAIKIT_SOURCE_DIR "/" + relative, b);
  if (!o) {
    std::fprintf(stderr, "link_fuzz: %s\n", llvm::toString(o.takeError()).c_str());
    std::exit(1);
  }
  return o->data;
}

std::string assembled(const char* source) {
  auto o = as::assemble(source, "seed.s");
  if (!o) {
    std::fprintf(stderr, "link_fuzz: %s\n", llvm::toString(o.takeError()).c_str());
    std::exit(1);
  }
  return o->data;
}

// Writes the seed corpus into `dir`: each seed a flags byte and objects.
void write_seeds(const std::string& dir) {
  const std::string sep(kSeparator);
  // main with every section kind, relocations against locals, globals, COMMON and a
  // call into another object; that other object; a library object it pulls in.
  const std::string main_s = assembled(
      "\t.text\n\t.globl main\nmain:\n\tmov hi(table), %r9\n\tor %r9, lo(table), %r9\n"
      "\tld 0[%r9], %r3\n\tadd %pc, 0x10, %rca\n\tst %rca, [--%sp]\n\tbt helper\n\tnop\n"
      "\tmov counter, %r10\n\tld 0[%r10], %r11\n\tbt done\n\tnop\ndone:\n\tld -4[%fp], %pc\n\tnop\n"
      "\t.section .rodata\n\t.p2align 2\ntable:\n\t.long main, done, message\n"
      "message:\n\t.asciz \"hello\"\n\t.data\n\t.p2align 3\nvalue:\n\t.long 0x12345678\n"
      "\t.bss\n\t.p2align 2\nzeros:\n\t.space 64\n\t.comm counter, 4, 4\n");
  const std::string helper_s = assembled(
      "\t.text\n\t.globl helper\nhelper:\n\tmov lib_fn, %r9\n\tld -4[%fp], %pc\n\tnop\n"
      "\t.data\n\t.globl shared\nshared:\n\t.long helper\n");
  const std::string lib_s = assembled(
      "\t.text\n\t.globl lib_fn\nlib_fn:\n\tld -4[%fp], %pc\n\tnop\n"
      "\t.globl unused_fn\nunused_fn:\n\tnop\n");
  const std::string crt0 = object("firmware/lib/crt0.s", false);
  const std::string memcpy_o = object("firmware/lib/memcpy.c", true);
  const std::string string_o = object("firmware/lib/string.c", false);
  const std::string div32 = object("firmware/lib/div32.s", false);
  const std::string raw_o = object("firmware/raw/raw.fw", true);
  const std::string echo_o = object("firmware/echo/echo.c", false);
  const std::pair<const char*, std::string> seeds[] = {
      {"asm", std::string(1, '\0') + main_s + sep + helper_s + sep + lib_s},
      {"asm-library", std::string(1, '\4') + main_s + sep + helper_s + sep + lib_s},
      {"asm-zero-bss-small-sram", std::string(1, '\11') + main_s + sep + helper_s + sep + lib_s},
      {"crt0-echo", std::string(1, '\2') + crt0 + sep + echo_o + sep + memcpy_o},
      {"raw-fw-g", std::string(1, '\0') + raw_o + sep + memcpy_o + sep + div32},
      {"c-g", std::string(1, '\0') + memcpy_o + sep + string_o},
  };
  for (const auto& [name, bytes] : seeds) {
    std::ofstream out(dir + "/" + name, std::ios::binary);
    out << bytes;
    if (!out) {
      std::fprintf(stderr, "link_fuzz: cannot write %s/%s\n", dir.c_str(), name);
      std::exit(1);
    }
  }
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (const char* dir = std::getenv("LINK_FUZZ_SEEDS")) {
    write_seeds(dir);
    std::exit(0);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1)
    return 0;
  const uint8_t flags = data[0];
  std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
  std::vector<as::Object> objects;
  for (size_t n = 0; objects.size() < 8; ++n) {
    const size_t cut = rest.find(kSeparator);
    objects.push_back({"in" + std::to_string(n) + ".o", std::string(rest.substr(0, cut)), {}});
    if (cut == std::string_view::npos)
      break;
    rest.remove_prefix(cut + kSeparator.size());
  }
  as::LinkInputs in;
  if (!(flags & 2))
    in.startup = startup();
  if ((flags & 4) && objects.size() > 1) {
    in.libraries.push_back(std::move(objects.back()));
    objects.pop_back();
  }
  in.objects = std::move(objects);
  as::LinkOptions options;
  options.zero_bss = flags & 1;
  if (flags & 8)
    options.sram_size = 16 * 1024;
  std::vector<std::string> warnings;
  options.warnings = &warnings;
  auto image = as::link(in, options);
  if (!image) {
    const std::string why = llvm::toString(image.takeError());
    if (why.empty()) {
      std::fprintf(stderr, "link_fuzz: rejected without a message\n");
      std::abort();
    }
    return 0;
  }
  // The linker promises an image that fits: every segment inside SRAM.
  for (const as::Segment& s : image->segments) {
    if (s.mem_size < s.bytes.size() || s.end() < s.address || s.end() > options.sram_size) {
      std::fprintf(stderr, "link_fuzz: segment %s [0x%x, 0x%x) outside SRAM (0x%x bytes)\n",
                   s.name.c_str(), s.address, s.end(), options.sram_size);
      std::abort();
    }
  }
  std::vector<uint8_t> bytes = as::elf_bytes(*image);
  auto back = as::parse_elf(
      std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), "linked");
  if (!back) {
    std::fprintf(stderr, "link_fuzz: the linked image does not read back: %s\n",
                 llvm::toString(back.takeError()).c_str());
    std::abort();
  }
  return 0;
}
