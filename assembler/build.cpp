#include "assembler/build.h"

#include "assembler/fw/compile.h"
#include "assembler/internal.h"
#include "llvm/Support/Path.h"

namespace lanaikit::assembler {

using detail::make_error;

llvm::Expected<Object> load_input(const std::string& path, const BuildOptions& options) {
  llvm::StringRef ext = llvm::sys::path::extension(path);
  if (ext == ".c" || ext == ".S") {
    CompileOptions co;
    co.opt = options.opt;
    co.debug = options.debug;
    co.include_dirs = options.include_dirs;
    co.defines = options.defines;
    co.extra_flags = options.extra_cflags;
    return compile_c(path, co);
  }
  if (ext == ".s")
    return assemble_file(path, AssembleOptions{options.debug});
  if (ext == ".o")
    return read_object(path);
  if (ext == ".fw") {
    fw::CompileOptions fo;
    fo.opt = options.opt;
    fo.debug = options.debug;
    fo.import_dirs = options.include_dirs;
    fo.sram_size = options.sram_size;
    fw::CompileResult r = fw::compile_file(path, fo);
    if (!r.ok) {
      // The rendered diagnostics end with a newline; the caller adds its own.
      std::string d = r.diagnostics;
      while (!d.empty() && d.back() == '\n') d.pop_back();
      return make_error(d.empty() ? path + ": compilation failed" : d);
    }
    if (!r.diagnostics.empty()) r.object.warnings = r.diagnostics;
    return std::move(r.object);
  }
  return make_error(path + ": unknown input kind '" + ext +
                    "' (expected .c, .fw, .s, .S or .o)");
}

llvm::Expected<FirmwareImage> build(const std::vector<std::string>& inputs,
                                    const BuildOptions& options,
                                    std::vector<std::string>* warnings) {
  std::vector<std::string> errors;
  auto load = [&](const std::string& path, std::vector<Object>& into) {
    auto obj = load_input(path, options);
    if (!obj) {
      errors.push_back(llvm::toString(obj.takeError()));
      return;
    }
    if (warnings && !obj->warnings.empty())
      warnings->push_back(obj->warnings);
    into.push_back(std::move(*obj));
  };

  if (inputs.empty())
    errors.push_back("no input files");
  LinkInputs li;
  if (!options.nostdlib) {
    if (!options.startup.empty()) {
      std::vector<Object> s;
      load(options.startup, s);
      if (!s.empty())
        li.startup = std::move(s.front());
    }
    for (const std::string& r : options.runtime)
      load(r, li.libraries);
  }
  for (const std::string& in : inputs)
    load(in, li.objects);
  if (!errors.empty())
    return make_error(llvm::join(errors, "\n"));

  LinkOptions lo;
  lo.sram_size = options.sram_size;
  lo.zero_bss = options.zero_bss;
  lo.warnings = warnings;
  return link(li, lo);
}

} // namespace lanaikit::assembler
