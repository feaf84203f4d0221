// See pinned.h.
#include "assembler/fw/pinned.h"

#include <vector>

#include "llvm/IR/Constants.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Type.h"

namespace lanaikit::fw {

namespace {
constexpr const char* kPinnedMd = "lanaikit.pinned";

// `getelementptr (T, T* inttoptr (i32 A to T*), 0, i, j)` with constant indices becomes
// `inttoptr (i32 A + offset)`, the form the compiler emitted before pinned globals were
// declarations (and what LLVM folds a constant address into): --emit=ir stays readable.
llvm::Constant* fold_addresses(llvm::Constant* c, const llvm::DataLayout& dl) {
  auto* ce = llvm::dyn_cast<llvm::ConstantExpr>(c);
  if (!ce) return c;
  std::vector<llvm::Constant*> ops;
  bool changed = false;
  for (llvm::Use& u : ce->operands()) {
    llvm::Constant* op = fold_addresses(llvm::cast<llvm::Constant>(u.get()), dl);
    changed |= op != u.get();
    ops.push_back(op);
  }
  llvm::Constant* folded = changed ? ce->getWithOperands(ops) : ce;
  if (!folded->getType()->isPointerTy()) return folded;
  llvm::APInt offset(32, 0);
  const llvm::Value* base = folded->stripAndAccumulateConstantOffsets(dl, offset, true);
  auto* cast = llvm::dyn_cast<llvm::ConstantExpr>(base);
  if (base == folded || !cast || cast->getOpcode() != llvm::Instruction::IntToPtr) return folded;
  auto* addr = llvm::dyn_cast<llvm::ConstantInt>(cast->getOperand(0));
  if (!addr) return folded;
  auto* sum = llvm::ConstantInt::get(addr->getType(), addr->getValue() + offset);
  return llvm::ConstantExpr::getIntToPtr(sum, folded->getType());
}
} // namespace

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
  if (pinned.empty()) return;
  const llvm::DataLayout& dl = mod.getDataLayout();
  for (llvm::Function& f : mod)
    for (llvm::BasicBlock& bb : f)
      for (llvm::Instruction& in : bb)
        for (llvm::Use& u : in.operands())
          if (auto* c = llvm::dyn_cast<llvm::ConstantExpr>(u.get())) {
            llvm::Constant* folded = fold_addresses(c, dl);
            if (folded != c) u.set(folded);
          }
}

} // namespace lanaikit::fw
