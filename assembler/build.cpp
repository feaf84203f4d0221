#include "assembler/build.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "assembler/fw/compile.h"
#include "assembler/internal.h"
#include "llvm/Support/Path.h"

namespace lanaikit::assembler {

using detail::make_error;

namespace {

bool is_identifier(const std::string& s) {
  if (s.empty() || std::isdigit((unsigned char)s[0])) return false;
  for (char c : s)
    if (!(std::isalnum((unsigned char)c) || c == '_')) return false;
  return true;
}

bool is_c_input(const std::string& path) {
  llvm::StringRef ext = llvm::sys::path::extension(path);
  return ext == ".c" || ext == ".S";
}

// load_input with the overrides already parsed; adds the constants a .fw input declares to
// `declared`.
llvm::Expected<Object> load_one(const std::string& path, const BuildOptions& options,
                                const std::map<std::string, std::string>& overrides,
                                std::set<std::string>* declared) {
  llvm::StringRef ext = llvm::sys::path::extension(path);
  if (ext == ".c" || ext == ".S") {
    CompileOptions co;
    co.opt = options.opt;
    co.debug = options.debug;
    co.include_dirs = options.search_dirs();
    co.defines = options.defines;
    co.extra_flags = options.extra_cflags;
    return compile_c(path, co);
  }
  if (ext == ".s")
    return assemble_file(path, AssembleOptions{options.debug, options.sram_size});
  if (ext == ".o")
    return read_object(path);
  if (ext == ".fw") {
    fw::CompileOptions fo;
    fo.opt = options.opt;
    fo.debug = options.debug;
    fo.import_dirs = options.search_dirs();
    fo.sram_size = options.sram_size;
    fo.overrides = overrides;
    fw::CompileResult r = fw::compile_file(path, fo);
    if (declared) declared->insert(r.constants.begin(), r.constants.end());
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

} // namespace

llvm::Expected<std::map<std::string, std::string>>
constant_overrides(const std::vector<std::string>& defines, bool c_inputs) {
  std::map<std::string, std::string> out;
  for (const std::string& d : defines) {
    const size_t eq = d.find('=');
    const std::string name = d.substr(0, eq);
    const bool valid = eq != std::string::npos && is_identifier(name) && eq + 1 < d.size();
    if (valid) {
      out[name] = d.substr(eq + 1);
    } else if (c_inputs) {
      // A macro for clang only (`-D NDEBUG`, `-D X=`); clang judges it.
      if (eq != std::string::npos && is_identifier(name)) out[name] = "";
    } else {
      return make_error("malformed -D '" + d +
                        "': expected NAME=VALUE, NAME an option constant of a .fw input "
                        "and VALUE an integer");
    }
  }
  return out;
}

llvm::Expected<Object> load_input(const std::string& path, const BuildOptions& options) {
  // Lenient: whatever is malformed for .fw is left to clang (build() is strict).
  auto overrides = constant_overrides(options.defines, true);
  if (!overrides) return overrides.takeError();
  return load_one(path, options, *overrides, nullptr);
}

llvm::Expected<FirmwareImage> build(const std::vector<std::string>& inputs,
                                    const BuildOptions& options,
                                    std::vector<std::string>* warnings) {
  std::vector<std::string> errors;
  const bool c_inputs = std::any_of(inputs.begin(), inputs.end(), is_c_input);
  auto overrides = constant_overrides(options.defines, c_inputs);
  if (!overrides) return overrides.takeError();
  std::set<std::string> declared;
  auto load = [&](const std::string& path, std::vector<Object>& into) {
    auto obj = load_one(path, options, *overrides, &declared);
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
  // Only when every .fw compiled: one that did not may have declared the name.
  if (errors.empty() && !c_inputs) {
    std::string fw_inputs;
    for (const std::string& in : inputs)
      if (llvm::sys::path::extension(in) == ".fw")
        fw_inputs += (fw_inputs.empty() ? "" : ", ") + in;
    for (const auto& [name, value] : *overrides)
      if (!declared.count(name))
        errors.push_back("-D " + name + "=" + value + ": no constant '" + name + "' in " +
                         (fw_inputs.empty() ? std::string("this build (it has no .fw inputs)")
                                            : fw_inputs + " or their imports"));
  }
  if (!errors.empty())
    return make_error(llvm::join(errors, "\n"));

  LinkOptions lo;
  lo.sram_size = options.sram_size;
  lo.zero_bss = options.zero_bss;
  lo.warnings = warnings;
  return link(li, lo);
}

} // namespace lanaikit::assembler
