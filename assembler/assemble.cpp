#include "assembler/assemble.h"
#include "assembler/asm_limits.h"
#include "assembler/mc_guard.h"

#include <cstdlib>
#include <memory>
#include <mutex>

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/BinaryFormat/Magic.h"
#include "llvm/MC/MCAsmBackend.h"
#include "llvm/MC/MCAsmInfo.h"
#include "llvm/MC/MCCodeEmitter.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCObjectFileInfo.h"
#include "llvm/MC/MCObjectWriter.h"
#include "llvm/MC/MCParser/MCAsmParser.h"
#include "llvm/MC/MCParser/MCTargetAsmParser.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/MC/MCStreamer.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/MCTargetOptions.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#ifndef LANAIKIT_CLANG_PATH
#define LANAIKIT_CLANG_PATH "clang-14"
#endif

extern "C" void LLVMInitializeLanaiTargetInfo();
extern "C" void LLVMInitializeLanaiTargetMC();
extern "C" void LLVMInitializeLanaiAsmParser();

namespace lanaikit::assembler {

namespace {

llvm::Error make_error(const llvm::Twine& msg) {
  return llvm::make_error<llvm::StringError>(msg, llvm::inconvertibleErrorCode());
}

const llvm::Target* lanai_target(std::string& err) {
  static std::once_flag once;
  std::call_once(once, [] {
    install_llvm_error_handlers();
    LLVMInitializeLanaiTargetInfo();
    LLVMInitializeLanaiTargetMC();
    LLVMInitializeLanaiAsmParser();
  });
  return llvm::TargetRegistry::lookupTarget("lanai", err);
}

// Checks the ELF header of a relocatable object: ELF32, big-endian, EM_LANAI, ET_REL.
llvm::Error check_lanai_relocatable(llvm::StringRef data, llvm::StringRef name) {
  if (llvm::identify_magic(data) != llvm::file_magic::elf_relocatable)
    return make_error(name + ": not an ELF relocatable object");
  const auto* b = reinterpret_cast<const uint8_t*>(data.data());
  if (data.size() < 52 || b[llvm::ELF::EI_CLASS] != llvm::ELF::ELFCLASS32 ||
      b[llvm::ELF::EI_DATA] != llvm::ELF::ELFDATA2MSB)
    return make_error(name + ": not an ELF32 big-endian object (Lanai objects are)");
  unsigned machine = (b[18] << 8) | b[19];
  if (machine != llvm::ELF::EM_LANAI)
    return make_error(name + ": ELF machine " + llvm::Twine(machine) +
                      " is not Lanai (EM_LANAI = 244)");
  return llvm::Error::success();
}

} // namespace

std::string_view opt_flag(OptLevel level) {
  switch (level) {
  case OptLevel::O0: return "-O0";
  case OptLevel::O1: return "-O1";
  case OptLevel::O2: return "-O2";
  case OptLevel::Os: return "-Os";
  }
  return "-O2";
}

llvm::Expected<Object> assemble(std::string_view source, std::string_view name,
                                const AssembleOptions& options) {
  // MC cannot be stopped once it runs: what would exhaust memory or time is refused first.
  if (llvm::Error e = check_asm_limits(source, name, options.sram_size))
    return e;
  std::string err;
  const llvm::Target* target = lanai_target(err);
  if (!target)
    return make_error("LLVM has no Lanai target: " + err);
  llvm::Triple triple("lanai");
  const std::string tt = triple.str();

  // Every diagnostic, from the parser (through SourceMgr) and from the MC layer (through
  // MCContext), is printed into `diags` instead of stderr.
  std::string diags;
  llvm::raw_string_ostream diag_os(diags);
  bool had_error = false;
  McGuard guard;
  guard.sram_bytes = options.sram_size;
  guard.max_statements = options.max_statements;
  set_llvm_error_context(std::string(name));

  llvm::SourceMgr srcmgr;
  srcmgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(source.data(), source.size()),
                                           llvm::StringRef(name.data(), name.size())),
      llvm::SMLoc());
  guard.srcmgr = &srcmgr;
  // An error inside a macro or `.rept` expansion is located in MC's "<instantiation>"
  // buffer, followed by one "while in macro instantiation" note per level, the last one in
  // the user's file: the error is held and printed at that last place instead.
  struct DiagCtx {
    llvm::raw_ostream* os;
    bool* had_error;
    McGuard* guard;
    llvm::Optional<llvm::SMDiagnostic> held;
    llvm::Optional<llvm::SMDiagnostic> outer;
    void count(const llvm::SMDiagnostic& d) {
      if (d.getKind() != llvm::SourceMgr::DK_Error) return;
      *had_error = true;
      if (++guard->errors >= kMaxErrors) guard->stop = true;
    }
    void flush() {
      if (!held) return;
      if (outer) {
        llvm::SMDiagnostic moved(*outer->getSourceMgr(), outer->getLoc(), outer->getFilename(),
                                 outer->getLineNo(), outer->getColumnNo(),
                                 llvm::SourceMgr::DK_Error,
                                 held->getMessage().str() + " (in a macro or '.rept' expansion)",
                                 outer->getLineContents(), {});
        moved.print(nullptr, *os, /*ShowColors=*/false);
      } else {
        held->print(nullptr, *os, /*ShowColors=*/false);
      }
      held.reset();
      outer.reset();
    }
    void print(const llvm::SMDiagnostic& d) {
      if (held && d.getKind() == llvm::SourceMgr::DK_Note &&
          d.getMessage() == "while in macro instantiation") {
        outer = d;
        return;
      }
      flush();
      if (d.getKind() == llvm::SourceMgr::DK_Error && d.getFilename() == "<instantiation>") {
        held = d;
        return;
      }
      if (d.getKind() == llvm::SourceMgr::DK_Error &&
          d.getMessage() == "expected absolute expression") {
        // Most often `.if end - start` with a label defined further down (llvm-mc says the
        // same); say what "absolute" needs here.
        llvm::SMDiagnostic why(*d.getSourceMgr(), d.getLoc(), d.getFilename(), d.getLineNo(),
                               d.getColumnNo(), d.getKind(),
                               "expected absolute expression (a value known at this point: "
                               "labels count only if both are defined above, in one section, "
                               "with no alignment, '.org' or reservation between them)",
                               d.getLineContents(), d.getRanges());
        why.print(nullptr, *os, /*ShowColors=*/false);
        return;
      }
      if (guard->errors <= kMaxErrors || d.getKind() != llvm::SourceMgr::DK_Note)
        d.print(nullptr, *os, /*ShowColors=*/false);
    }
  } dctx{&diag_os, &had_error, &guard, llvm::None, llvm::None};
  srcmgr.setDiagHandler(
      [](const llvm::SMDiagnostic& d, void* p) {
        auto* c = static_cast<DiagCtx*>(p);
        c->count(d);
        if (c->guard->errors <= kMaxErrors) c->print(d);
      },
      &dctx);

  llvm::MCTargetOptions mc_options;
  std::unique_ptr<llvm::MCRegisterInfo> mri(target->createMCRegInfo(tt));
  std::unique_ptr<llvm::MCAsmInfo> mai(target->createMCAsmInfo(*mri, tt, mc_options));
  std::unique_ptr<llvm::MCInstrInfo> mcii(target->createMCInstrInfo());
  std::unique_ptr<llvm::MCSubtargetInfo> sti(target->createMCSubtargetInfo(tt, "", ""));
  if (!mri || !mai || !mcii || !sti)
    return make_error("LLVM's Lanai target is incomplete (no MC layer)");
  guard.mai = mai.get();

  llvm::MCContext ctx(triple, mai.get(), mri.get(), sti.get(), &srcmgr, &mc_options);
  ctx.setDiagnosticHandler([&](const llvm::SMDiagnostic& d, bool, const llvm::SourceMgr&,
                               std::vector<const llvm::MDNode*>&) {
    dctx.count(d);
    if (guard.errors <= kMaxErrors) dctx.print(d);
  });
  std::unique_ptr<llvm::MCObjectFileInfo> mofi(
      target->createMCObjectFileInfo(ctx, /*PIC=*/false));
  ctx.setObjectFileInfo(mofi.get());

  if (options.debug) {
    llvm::SmallString<256> cwd;
    llvm::sys::fs::current_path(cwd);
    ctx.setCompilationDir(cwd);
    ctx.setMainFileName(llvm::StringRef(name.data(), name.size()));
    ctx.setGenDwarfRootFile(llvm::StringRef(name.data(), name.size()),
                            llvm::StringRef(source.data(), source.size()));
    ctx.setGenDwarfForAssembly(true);
    ctx.setDwarfVersion(4);
  }

  llvm::SmallString<4096> out;
  auto os = std::make_unique<llvm::raw_svector_ostream>(out);
  std::unique_ptr<llvm::MCAsmBackend> lanai_mab(
      target->createMCAsmBackend(*sti, *mri, mc_options));
  llvm::MCCodeEmitter* ce = target->createMCCodeEmitter(*mcii, *mri, ctx);
  if (!lanai_mab || !ce)
    return make_error("LLVM's Lanai target has no assembler backend");
  // The Lanai target makes a plain MCELFStreamer (no target streamer); this is one with
  // the size checks of mc_guard.h, around a backend that applies resolved fixups exactly.
  auto mab = std::make_unique<GuardedAsmBackend>(std::move(lanai_mab), guard);
  std::unique_ptr<llvm::MCObjectWriter> writer = mab->createObjectWriter(*os);
  auto streamer = std::make_unique<GuardedStreamer>(
      ctx, std::move(mab), std::move(writer), std::unique_ptr<llvm::MCCodeEmitter>(ce), guard);
  // As llvm-mc does for assembly to an object: expressions are evaluated with what the
  // assembler already knows, so `.if end - start` of two labels in one fragment is absolute.
  streamer->setUseAssemblerInfoForParsing(true);

  std::unique_ptr<llvm::MCAsmParser> parser(
      llvm::createMCAsmParser(srcmgr, ctx, *streamer, *mai));
  std::unique_ptr<llvm::MCTargetAsmParser> lanai_tap(
      target->createMCAsmParser(*sti, *parser, *mcii, mc_options));
  if (!lanai_tap)
    return make_error("LLVM's Lanai target has no assembly parser");
  auto tap = std::make_unique<GuardedTargetParser>(std::move(lanai_tap), guard, mc_options,
                                                   *sti, *mcii);
  guard.parser = parser.get();
  parser->setTargetParser(*tap);
  bool failed = parser->Run(/*NoInitialTextSection=*/false);
  dctx.flush();
  if (guard.errors >= kMaxErrors)
    diag_os << name << ": note: the assembly stopped after " << kMaxErrors << " errors\n";
  set_llvm_error_context({});
  // The parsers refer to the streamer: destroy them first. (Run() has already finished
  // the streamer, which wrote the object.)
  tap.reset();
  parser.reset();
  streamer.reset();
  diag_os.flush();
  if (failed || had_error || ctx.hadError()) {
    if (diags.empty())
      diags = std::string(name) + ": error: assembly failed\n";
    while (!diags.empty() && diags.back() == '\n')
      diags.pop_back();
    return make_error(diags);
  }
  return Object{std::string(name), std::string(out.str()), {}};
}

llvm::Expected<Object> assemble_file(const std::string& path, const AssembleOptions& options) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buf)
    return make_error("cannot read " + path + ": " + buf.getError().message());
  return assemble((*buf)->getBuffer().str(), path, options);
}

std::string clang_path() {
  if (const char* env = std::getenv("LANAIKIT_CLANG"); env && *env)
    return env;
  return LANAIKIT_CLANG_PATH;
}

std::vector<std::string> compile_command(const std::string& path, const std::string& output,
                                         const CompileOptions& options) {
  std::vector<std::string> args = {
      clang_path(),
      "--target=lanai",
      // Bare metal: no hosted library assumptions (this implies -fno-builtin: clang will not
      // turn loops or printf calls into library calls, but may still call memcpy/memset
      // for aggregate copies; the runtime provides those).
      "-ffreestanding",
      // Only clang's own freestanding headers (stdint.h, stddef.h, stdarg.h, ...), never
      // the host's /usr/include.
      "-nostdlibinc",
      std::string(opt_flag(options.opt)),
  };
  if (options.debug)
    args.push_back("-g");
  for (const std::string& d : options.include_dirs)
    args.push_back("-I" + d);
  for (const std::string& d : options.defines)
    args.push_back("-D" + d);
  for (const std::string& f : options.extra_flags)
    args.push_back(f);
  args.insert(args.end(), {"-c", "-o", output, path});
  return args;
}

llvm::Expected<Object> compile_c(const std::string& path, const CompileOptions& options) {
  std::string clang = clang_path();
  if (!llvm::sys::fs::exists(path))
    return make_error("cannot read " + path + ": no such file");
  bool has_dir = llvm::StringRef(clang).contains('/');
  if (!has_dir || !llvm::sys::fs::can_execute(clang)) {
    auto found = has_dir ? llvm::ErrorOr<std::string>(std::make_error_code(
                               std::errc::no_such_file_or_directory))
                         : llvm::sys::findProgramByName(clang);
    if (!found)
      return make_error("cannot compile " + path + ": the C compiler '" + clang +
                        "' was not found (it is configured by CMake as LANAIKIT_CLANG and "
                        "can be overridden with the LANAIKIT_CLANG environment variable; "
                        "install clang-14, e.g. with scripts/setup.sh)");
    clang = *found;
  }

  llvm::SmallString<128> obj_path, err_path;
  if (auto ec = llvm::sys::fs::createTemporaryFile("lanaikit-cc", "o", obj_path))
    return make_error("cannot create a temporary file: " + ec.message());
  llvm::FileRemover obj_remover(obj_path);
  if (auto ec = llvm::sys::fs::createTemporaryFile("lanaikit-cc", "txt", err_path))
    return make_error("cannot create a temporary file: " + ec.message());
  llvm::FileRemover err_remover(err_path);

  std::vector<std::string> args = compile_command(path, std::string(obj_path), options);
  args[0] = clang;
  std::vector<llvm::StringRef> argv(args.begin(), args.end());
  llvm::Optional<llvm::StringRef> redirects[3] = {llvm::StringRef(""), err_path.str(),
                                                  err_path.str()};
  std::string exec_err;
  bool exec_failed = false;
  int rc = llvm::sys::ExecuteAndWait(clang, argv, llvm::None, redirects, 0, 0, &exec_err,
                                     &exec_failed);
  std::string diags;
  if (auto eb = llvm::MemoryBuffer::getFile(err_path, /*IsText=*/true))
    diags = (*eb)->getBuffer().str();
  while (!diags.empty() && diags.back() == '\n')
    diags.pop_back();
  if (exec_failed || rc < 0)
    return make_error("cannot run " + clang + " to compile " + path + ": " + exec_err);
  if (rc != 0) {
    if (diags.empty())
      diags = path + ": error: " + clang + " failed with exit status " + std::to_string(rc);
    return make_error(diags);
  }
  auto ob = llvm::MemoryBuffer::getFile(obj_path, /*IsText=*/false);
  if (!ob)
    return make_error("clang produced no object for " + path + ": " + ob.getError().message());
  Object obj{path, (*ob)->getBuffer().str(), diags};
  if (auto e = check_lanai_relocatable(obj.data, path))
    return e;
  return obj;
}

llvm::Expected<Object> read_object(const std::string& path) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!buf)
    return make_error("cannot read " + path + ": " + buf.getError().message());
  Object obj{path, (*buf)->getBuffer().str(), {}};
  if (auto e = check_lanai_relocatable(obj.data, path))
    return e;
  return obj;
}

} // namespace lanaikit::assembler
