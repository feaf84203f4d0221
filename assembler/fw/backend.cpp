#include "assembler/fw/backend.h"

#include <mutex>

#include "assembler/fw/codegen.h"
#include "assembler/fw/peephole.h"
#include "assembler/fw/pinned.h"
#include "assembler/mc_guard.h"
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

// Sets one of LLVM's own command-line options (as `llc -NAME=VALUE` would). They are
// process-wide; set once, before the first TargetMachine exists.
void set_llvm_option(const char* name, const char* value) {
  auto& options = llvm::cl::getRegisteredOptions();
  auto it = options.find(name);
  if (it != options.end()) it->second->addOccurrence(0, name, value);
}

// Two of LLVM's Lanai code generation choices that cost the firmware instructions:
//
// -disable-constant-hoisting: ConstantHoisting (run by the code generator at -O1 and
// above) rebases a function's constants on a few materialised ones, trusting the Lanai
// cost model that every constant above 16 bits costs a register. On Lanai that is wrong in
// the common cases: an `and` mask with one all-ones half (0x00FFFFFF) is one immediate, a
// value below 2^21 one `mov`, an address below 1 MiB one SLS load or store. Hoisted, the
// CTL_LEN mask of the VMMC short send became five instructions (`mov 0x7f0000; or 0xefff;
// mov 0x800000; or 0x1000; or`) instead of `and %r20, 0xffffff, %r12`. Without it each
// block materialises its constants (at most two instructions, `mov hi; or lo`) and
// MachineLICM hoists them out of loops (tests/language/codegen_test.cpp).
//
// -jump-is-expensive=false: the Lanai target lets SelectionDAG turn `if a || b` into
// flag materialisations (`spl; sugt; or; sub.f; bne`, 10 instructions for the VMMC
// short send's page-table check) instead of two compare-and-branches (8, and the first
// leaves early).
void tune_lanai_codegen() {
  set_llvm_option("disable-constant-hoisting", "true");
  set_llvm_option("jump-is-expensive", "false");
}

const llvm::Target* lanai_target(std::string& err) {
  static std::once_flag once;
  std::call_once(once, [] {
    assembler::install_llvm_error_handlers(); // a fatal LLVM error is a message, not an abort
    LLVMInitializeLanaiTargetInfo();
    LLVMInitializeLanaiTarget();
    LLVMInitializeLanaiTargetMC();
    LLVMInitializeLanaiAsmPrinter();
    LLVMInitializeLanaiAsmParser(); // inline assembly is parsed when the object is emitted
    tune_lanai_codegen();
  });
  return llvm::TargetRegistry::lookupTarget("lanai", err);
}

// Collects LLVM's errors (inline assembly, codegen) instead of letting it abort.
struct BackendDiagnostics {
  std::vector<std::pair<uint64_t, std::string>> errors; // (srcloc cookie or ~0, message)
  // Functions whose frame passed the `warn-stack-size` limit (codegen sets it to
  // kMaxFrameBytes on every function): (LLVM name, frame bytes).
  std::vector<std::pair<std::string, uint64_t>> big_frames;
  static void handle(const llvm::DiagnosticInfo& di, void* ctx) {
    auto* self = static_cast<BackendDiagnostics*>(ctx);
    if (auto* ss = llvm::dyn_cast<llvm::DiagnosticInfoStackSize>(&di)) {
      self->big_frames.push_back({ss->getFunction().getName().str(), ss->getStackSize()});
      return;
    }
    if (di.getSeverity() != llvm::DS_Error) return;
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
  lower_pinned_globals(mod);
  if (options.opt != assembler::OptLevel::O0) lanai_peepholes(mod);

  auto report = [&]() {
    // The Lanai prologue allocates the frame with `sub %sp, FRAME, %sp`, whose immediate
    // is 16 bits: LLVM 14 encodes a larger frame's low bits only (the stack would be
    // corrupt), so a frame over kMaxFrameBytes is an error at the function.
    for (auto& [name, bytes] : bd.big_frames) {
      const std::string msg = "the stack frame of '" + name + "' is " + std::to_string(bytes) +
                              " bytes; a frame holds at most " +
                              std::to_string(kMaxFrameBytes) +
                              " (the prologue's 16-bit immediate): make large locals globals";
      auto it = m.globals.find(name);
      if (it != m.globals.end() && it->second->kind == Symbol::Func)
        diag.error(it->second->pos, msg);
      else
        diag.error_plain(msg);
    }
    for (auto& [cookie, msg] : bd.errors) {
      if (cookie < cg.asm_positions.size())
        diag.error(cg.asm_positions[cookie], "in inline assembly: " + msg);
      else
        diag.error_plain(msg);
    }
    return bd.errors.empty() && bd.big_frames.empty();
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
