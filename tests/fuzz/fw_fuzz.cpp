// libFuzzer target over the firmware-language front end: every input is compiled as a .fw
// file at -O0 (short inputs also at -O2) and must either compile or be rejected with
// diagnostics; a crash, a sanitizer report, a hang or an unexplained failure is a bug.
// The input's length picks which of the two compiles also emits debug info (-g), so both
// levels see the DWARF paths without compiling anything three times.
//
// Built only with -DLANAIKIT_FUZZ=ON and clang; run with scripts/fuzz.sh [seconds].
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "assembler/fw/compile.h"
#include "assembler/link.h"

namespace {

namespace fw = lanaikit::fw;
using lanaikit::assembler::OptLevel;

// Inputs longer than this are compiled at -O0 only: the optimiser is the slow part and is
// not what the fuzzer is after.
constexpr size_t kOptimiseBelow = 1024;

void check(const fw::CompileResult& r, std::string_view source, const char* level) {
  // A rejected input must say why, in the documented form.
  if (!r.ok && r.diagnostics.find("error") == std::string::npos) {
    std::fprintf(stderr, "fw_fuzz: compile (%s) failed without an error diagnostic\n"
                         "diagnostics: [%s]\nsource (%zu bytes)\n",
                 level, r.diagnostics.c_str(), source.size());
    std::abort();
  }
  if (r.ok && r.object.data.empty()) {
    std::fprintf(stderr, "fw_fuzz: compile (%s) succeeded with an empty object\n", level);
    std::abort();
  }
  if (!r.ok)
    return;
  // The object must be something the linker accepts: in particular its layout table must
  // decode. (Undefined runtime helpers and the like are fine: no runtime is linked here.)
  static const lanaikit::assembler::Object start = [] {
    auto o = lanaikit::assembler::assemble(
        "\t.text\n\t.globl _start\n_start:\n\tbt main\n\tnop\n", "start.s");
    if (!o) {
      std::fprintf(stderr, "fw_fuzz: %s\n", llvm::toString(o.takeError()).c_str());
      std::abort();
    }
    return std::move(*o);
  }();
  lanaikit::assembler::LinkInputs in;
  in.startup = start;
  in.objects.push_back(r.object);
  auto image = lanaikit::assembler::link(in);
  if (!image) {
    std::string why = llvm::toString(image.takeError());
    if (why.find(": .lanaikit.layout: ") != std::string::npos ||
        why.find(": layout conflict: ") != std::string::npos ||
        why.find("not a valid ELF") != std::string::npos) {
      std::fprintf(stderr, "fw_fuzz: the object (%s) does not link: %s\n", level, why.c_str());
      std::abort();
    }
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view source(reinterpret_cast<const char*>(data), size);
  fw::CompileOptions options;
  // Imports resolve in the firmware library (lanai.fw, debug.fw); the file itself lives in
  // a directory that does not exist, so relative imports find nothing else.
  options.import_dirs = {LANAIKIT_FW_LIB_DIR};
  const bool odd = size % 2 == 1;
  options.opt = OptLevel::O0;
  options.debug = odd;
  check(fw::compile_source(source, "/nonexistent/fuzz.fw", options), source,
        odd ? "-O0 -g" : "-O0");
  if (size < kOptimiseBelow) {
    options.opt = OptLevel::O2;
    options.debug = !odd;
    check(fw::compile_source(source, "/nonexistent/fuzz.fw", options), source,
          odd ? "-O2" : "-O2 -g");
  }
  return 0;
}
