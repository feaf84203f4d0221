// See pinned.h.
#include "assembler/fw/pinned.h"

#include <vector>

#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Type.h"

namespace lanaikit::fw {

namespace {
constexpr const char* kPinnedMd = "lanaikit.pinned";
}

void mark_pinned(llvm::GlobalVariable& gv, uint32_t address) {
  llvm::LLVMContext& ctx = gv.getContext();
  auto* addr = llvm::ConstantInt::get(llvm::Type::getInt32Ty(ctx), address);
  gv.setMetadata(kPinnedMd, llvm::MDNode::get(ctx, {llvm::ConstantAsMetadata::get(addr)}));
}

void lower_pinned_globals(llvm::Module& mod) {
  std::vector<llvm::GlobalVariable*> pinned;
  for (llvm::GlobalVariable& gv : mod.globals())
    if (gv.getMetadata(kPinnedMd)) pinned.push_back(&gv);
  for (llvm::GlobalVariable* gv : pinned) {
    llvm::MDNode* md = gv->getMetadata(kPinnedMd);
    auto* addr = llvm::mdconst::extract<llvm::ConstantInt>(md->getOperand(0));
    gv->replaceAllUsesWith(llvm::ConstantExpr::getIntToPtr(addr, gv->getType()));
    gv->eraseFromParent();
  }
}

} // namespace lanaikit::fw
