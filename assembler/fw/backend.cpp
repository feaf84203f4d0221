#include "assembler/fw/backend.h"

#include <mutex>

#include "assembler/fw/codegen.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"

extern "C" void LLVMInitializeLanaiTargetInfo();
extern "C" void LLVMInitializeLanaiTarget();
extern "C" void LLVMInitializeLanaiTargetMC();
extern "C" void LLVMInitializeLanaiAsmPrinter();
extern "C" void LLVMInitializeLanaiAsmParser();

namespace lanaikit::fw {

namespace {

const llvm::Target* lanai_target(std::string& err) {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeLanaiTargetInfo();
    LLVMInitializeLanaiTarget();
    LLVMInitializeLanaiTargetMC();
    LLVMInitializeLanaiAsmPrinter();
    LLVMInitializeLanaiAsmParser(); // inline assembly is parsed when the object is emitted
  });
  return llvm::TargetRegistry::lookupTarget("lanai", err);
}

// Collects LLVM's errors (inline assembly, codegen) instead of letting it abort.
struct BackendDiagnostics {
  std::vector<std::pair<uint64_t, std::string>> errors; // (srcloc cookie or ~0, message)
  static void handle(const llvm::DiagnosticInfo& di, void* ctx) {
    if (di.getSeverity() != llvm::DS_Error) return;
    auto* self = static_cast<BackendDiagnostics*>(ctx);
    std::string msg;
    llvm::raw_string_ostream os(msg);
    uint64_t cookie = ~0ull;
    if (auto* ia = llvm::dyn_cast<llvm::DiagnosticInfoInlineAsm>(&di)) {
      cookie = ia->getLocCookie();
      os << ia->getMsgStr();
    } else if (auto* sm = llvm::dyn_cast<llvm::DiagnosticInfoSrcMgr>(&di)) {
      cookie = sm->getLocCookie();
      os << sm->getSMDiag().getMessage();
    } else {
      llvm::DiagnosticPrinterRawOStream dp(os);
      di.print(dp);
    }
    os.flush();
    self->errors.push_back({cookie, msg});
  }
};

// Switches with at least this many cases may become jump tables. LLVM 14's Lanai target
// sets 100 (a comment there says jump tables were slower than compare chains on its
// benchmarks); on firmware dispatch a table costs about 9 instructions whatever the
// number of arms (bounds check, table address, load, indirect branch, delay slot) and a
// balanced compare tree about 3 per level, so from 8 cases on the table is never slower.
// The value lives in LLVM's `min-jump-table-entries` option, which the target's
// constructor overwrites, so it is set again after each target machine is made.
constexpr unsigned kMinJumpTableEntries = 8;

void set_min_jump_table_entries(unsigned n) {
  auto& options = llvm::cl::getRegisteredOptions();
  auto it = options.find("min-jump-table-entries");
  if (it != options.end()) static_cast<llvm::cl::opt<unsigned>*>(it->second)->setValue(n);
}

llvm::CodeGenOpt::Level codegen_level(assembler::OptLevel o) {
  switch (o) {
  case assembler::OptLevel::O0: return llvm::CodeGenOpt::None;
  case assembler::OptLevel::O1: return llvm::CodeGenOpt::Less;
  default: return llvm::CodeGenOpt::Default;
  }
}

void optimise(llvm::Module& mod, llvm::TargetMachine& tm, assembler::OptLevel o) {
  if (o == assembler::OptLevel::O0) return;
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions pto;
  // Lanai has no vector registers: the vectorisers could only spend time.
  pto.LoopVectorization = false;
  pto.SLPVectorization = false;
  llvm::PassBuilder pb(&tm, pto);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::OptimizationLevel level = o == assembler::OptLevel::O1   ? llvm::OptimizationLevel::O1
                                  : o == assembler::OptLevel::Os ? llvm::OptimizationLevel::Os
                                                                 : llvm::OptimizationLevel::O2;
  llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(level);
  mpm.run(mod, mam);
}

} // namespace

bool run_backend(Module& m, const BackendOptions& options, Diagnostics& diag,
                 CompileResult& out) {
  std::string err;
  const llvm::Target* target = lanai_target(err);
  if (!target) {
    diag.error_plain("internal error: Lanai target unavailable: " + err);
    return false;
  }
  llvm::TargetOptions to;
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      "lanai", "", "", to, llvm::Reloc::Static, llvm::None, codegen_level(options.opt)));
  if (!tm) {
    diag.error_plain("internal error: cannot create the Lanai target machine");
    return false;
  }
  set_min_jump_table_entries(kMinJumpTableEntries);
  llvm::LLVMContext ctx;
  BackendDiagnostics bd;
  ctx.setDiagnosticHandlerCallBack(&BackendDiagnostics::handle, &bd);

  CodegenOptions co;
  co.debug = options.debug;
  co.optsize = options.opt == assembler::OptLevel::Os;
  co.optnone = options.opt == assembler::OptLevel::O0;
  co.layout = options.layout;
  const llvm::DataLayout dl = tm->createDataLayout();
  CodegenResult cg = generate(m, ctx, dl, co);
  llvm::Module& mod = *cg.module;

  // LLVM must never see invalid IR: a bug here is an internal error, not a crash.
  std::string verr;
  llvm::raw_string_ostream vos(verr);
  if (llvm::verifyModule(mod, &vos)) {
    vos.flush();
    diag.error_plain("internal error: the compiler generated invalid IR:\n" + verr);
    return false;
  }

  optimise(mod, *tm, options.opt);

  auto report = [&]() {
    for (auto& [cookie, msg] : bd.errors) {
      if (cookie < cg.asm_positions.size())
        diag.error(cg.asm_positions[cookie], "in inline assembly: " + msg);
      else
        diag.error_plain(msg);
    }
    return bd.errors.empty();
  };
  if (!report()) return false;

  if (options.emit == Emit::Ir) {
    llvm::raw_string_ostream os(out.text);
    mod.print(os, nullptr);
    os.flush();
    return true;
  }

  llvm::SmallString<4096> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  const auto kind = options.emit == Emit::Asm ? llvm::CGFT_AssemblyFile : llvm::CGFT_ObjectFile;
  if (tm->addPassesToEmitFile(pm, os, nullptr, kind)) {
    diag.error_plain("internal error: the Lanai target cannot emit this file type");
    return false;
  }
  pm.run(mod);
  if (!report()) return false;
  if (options.emit == Emit::Asm) {
    out.text = std::string(buffer.str());
  } else {
    out.object.name = options.object_name;
    out.object.data = std::string(buffer.str());
    out.text.clear();
  }
  return true;
}

} // namespace lanaikit::fw
