// See peephole.h.
//
// Lanai's `and` immediate fills the other half of the word with ones (AND_I_LO keeps
// 0xFFFF in the high half, AND_I_HI in the low half), so a mask such as 0x10 or 0x7F is a
// `mov` into a register and a register `and`: two instructions where a shift does it in
// one. The firmware's hottest tests are of this kind (`(ISR & DMA_INT_BIT) != 0`, a field
// `(e >> 24) & 0x7F`):
//
//  * a single-bit test `(x & (1 << k)) != 0` (k <= 30) becomes `(x << (31 - k)) < 0`:
//    `sh.f x, 31-k` and a sign branch (`bmi`/`bpl`) instead of `mov; and.f; bne`;
//  * a field `(x >> s) & (2^n - 1)` (n < 16, s + n < 32) becomes `(x << (32 - s - n)) >> (32
//    - n)`: two shifts instead of `sh; mov; and`.
//
//  * a range check `(x + c1) u< c2` with c2 a large constant whose negation is small
//    (0xFFFFF000) becomes `(x + c1 - c2) u>= -c2`, compared with an immediate.
//
//  * the address of a pinned array element at a variable index is split into a row
//    computed once and a small offset per access (split_pinned_addresses).
//
// Only an `and` (an `add`) with no other use is rewritten (otherwise the `and` stays and nothing is
// saved). Masks that fit an `and` immediate (0xFFFF00FF, 0x00FFFFFF) are left alone.
#include "assembler/fw/peephole.h"

#include <map>
#include <vector>

#include "llvm/IR/Constants.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PatternMatch.h"

namespace lanaikit::fw {

namespace {

using namespace llvm::PatternMatch;

// True if `m` is an immediate of Lanai's `and` (one instruction, no register).
bool and_immediate(uint32_t m) {
  return (m & 0xFFFF0000u) == 0xFFFF0000u || (m & 0xFFFFu) == 0xFFFFu;
}

// (x & (1 << k)) ==/!= 0  ->  (x << (31 - k)) >=/< 0
bool bit_test(llvm::ICmpInst* cmp) {
  llvm::Value* x;
  const llvm::APInt* bit;
  if (!cmp->isEquality() || !match(cmp->getOperand(1), m_Zero())) return false;
  auto* a = llvm::dyn_cast<llvm::BinaryOperator>(cmp->getOperand(0));
  if (!a || !a->hasOneUse() || !match(a, m_And(m_Value(x), m_APInt(bit)))) return false;
  if (a->getType()->getIntegerBitWidth() != 32 || !bit->isPowerOf2()) return false;
  const unsigned k = bit->logBase2();
  if (k >= 31 || and_immediate(uint32_t(bit->getZExtValue()))) return false;
  llvm::IRBuilder<> b(cmp);
  llvm::Value* sh = b.CreateShl(x, 31 - k);
  llvm::Value* zero = llvm::ConstantInt::get(sh->getType(), 0);
  llvm::Value* r = cmp->getPredicate() == llvm::ICmpInst::ICMP_NE ? b.CreateICmpSLT(sh, zero)
                                                                   : b.CreateICmpSGE(sh, zero);
  cmp->replaceAllUsesWith(r);
  cmp->eraseFromParent();
  a->eraseFromParent();
  return true;
}

// (x >> s) & (2^n - 1)  ->  (x << (32 - s - n)) >> (32 - n)
bool field(llvm::BinaryOperator* a) {
  llvm::Value* x;
  const llvm::APInt* s;
  const llvm::APInt* m;
  if (a->getType()->getIntegerBitWidth() != 32) return false;
  if (!match(a, m_And(m_OneUse(m_LShr(m_Value(x), m_APInt(s))), m_APInt(m)))) return false;
  if (!m->isMask() || and_immediate(uint32_t(m->getZExtValue()))) return false;
  const unsigned n = m->countTrailingOnes();
  const uint64_t sh = s->getZExtValue();
  if (sh == 0 || sh + n >= 32) return false;
  llvm::IRBuilder<> b(a);
  llvm::Value* r = b.CreateLShr(b.CreateShl(x, 32 - sh - n), 32 - n);
  auto* shift = llvm::cast<llvm::Instruction>(a->getOperand(0));
  a->replaceAllUsesWith(r);
  a->eraseFromParent();
  shift->eraseFromParent();
  return true;
}

// (x + c1) u< c2, c2 above 16 bits but -c2 within them  ->  (x + c1 - c2) u>= -c2
// InstCombine writes a range check `len - 1 >= 4096` as `len - 4097 u< 0xFFFFF000`, whose
// constant is a `mov` of its own; the other form compares with an immediate.
bool range_check(llvm::ICmpInst* cmp) {
  llvm::Value* x;
  const llvm::APInt* c1;
  const llvm::APInt* c2;
  if (cmp->getPredicate() != llvm::ICmpInst::ICMP_ULT) return false;
  if (!match(cmp->getOperand(0), m_OneUse(m_Add(m_Value(x), m_APInt(c1)))) ||
      !match(cmp->getOperand(1), m_APInt(c2)))
    return false;
  if (c2->getBitWidth() != 32 || c2->isZero() || c2->isIntN(16) || !(-*c2).isIntN(16))
    return false;
  auto* add = llvm::cast<llvm::Instruction>(cmp->getOperand(0));
  llvm::IRBuilder<> b(cmp);
  llvm::Value* shifted = b.CreateAdd(x, llvm::ConstantInt::get(x->getType(), *c1 - *c2));
  llvm::Value* r = b.CreateICmpUGE(shifted, llvm::ConstantInt::get(x->getType(), -*c2));
  cmp->replaceAllUsesWith(r);
  cmp->eraseFromParent();
  add->eraseFromParent();
  return true;
}

// The address of an element of a pinned array at or above 0x8000 with a variable index,
// `tlb[p][set][1].tag` = base + var + 8: SelectionDAG folds the constants into one
// (0x20008), which takes `mov; add` in every block that uses it. Split each such GEP at its
// last variable index: the head `&tlb[p][set]` is computed once (at its latest operand's
// definition, shared by every access with the same indices) and each access is one load or
// store at a small offset from it (`ld 8[%r13]`).
llvm::Instruction* insertion_point(llvm::GetElementPtrInst* gep, llvm::DominatorTree& dt) {
  llvm::Instruction* latest = nullptr;
  for (llvm::Value* op : gep->indices()) {
    auto* def = llvm::dyn_cast<llvm::Instruction>(op);
    if (!def) continue;
    if (!latest || dt.dominates(latest, def)) latest = def;
  }
  llvm::BasicBlock& entry = gep->getFunction()->getEntryBlock();
  if (!latest) return &*entry.getFirstInsertionPt();
  if (llvm::isa<llvm::PHINode>(latest)) return &*latest->getParent()->getFirstInsertionPt();
  if (latest->isTerminator()) return nullptr; // an invoke-like definition: leave it
  return latest->getNextNode();
}

void split_pinned_addresses(llvm::Function& f) {
  llvm::DominatorTree dt(f);
  std::map<std::vector<llvm::Value*>, llvm::Instruction*> heads;
  std::vector<llvm::GetElementPtrInst*> work;
  for (llvm::BasicBlock& bb : f)
    for (llvm::Instruction& in : bb)
      if (auto* gep = llvm::dyn_cast<llvm::GetElementPtrInst>(&in)) work.push_back(gep);
  for (llvm::GetElementPtrInst* gep : work) {
    auto* base = llvm::dyn_cast<llvm::ConstantExpr>(gep->getPointerOperand());
    if (!base || base->getOpcode() != llvm::Instruction::IntToPtr) continue;
    auto* addr = llvm::dyn_cast<llvm::ConstantInt>(base->getOperand(0));
    if (!addr || addr->getValue().isIntN(15)) continue; // below 0x8000: one instruction
    // The last variable index, and constant indices after it to split off.
    unsigned last_var = 0, n = gep->getNumIndices();
    for (unsigned i = 0; i < n; ++i)
      if (!llvm::isa<llvm::Constant>(gep->getOperand(1 + i))) last_var = i + 1;
    if (last_var == 0 || last_var == n) continue;
    std::vector<llvm::Value*> key{gep->getPointerOperand()};
    for (unsigned i = 0; i < last_var; ++i) key.push_back(gep->getOperand(1 + i));
    llvm::Instruction*& head = heads[key];
    if (!head) {
      llvm::Instruction* at = insertion_point(gep, dt);
      if (!at) continue;
      std::vector<llvm::Value*> idx(key.begin() + 1, key.end());
      head = llvm::GetElementPtrInst::Create(gep->getSourceElementType(), key[0], idx,
                                             gep->getName() + ".row", at);
      llvm::cast<llvm::GetElementPtrInst>(head)->setIsInBounds(gep->isInBounds());
    }
    std::vector<llvm::Value*> rest{llvm::ConstantInt::get(gep->getOperand(1)->getType(), 0)};
    for (unsigned i = last_var; i < n; ++i) rest.push_back(gep->getOperand(1 + i));
    auto* head_gep = llvm::cast<llvm::GetElementPtrInst>(head);
    auto* tail = llvm::GetElementPtrInst::Create(head_gep->getResultElementType(), head, rest,
                                                 "", gep);
    tail->setIsInBounds(gep->isInBounds());
    tail->takeName(gep);
    gep->replaceAllUsesWith(tail);
    gep->eraseFromParent();
  }
}

} // namespace

void lanai_peepholes(llvm::Module& mod) {
  for (llvm::Function& f : mod) {
    if (f.isDeclaration()) continue;
    split_pinned_addresses(f);
    std::vector<llvm::Instruction*> work;
    for (llvm::BasicBlock& bb : f)
      for (llvm::Instruction& in : bb)
        if (llvm::isa<llvm::ICmpInst>(in)) work.push_back(&in);
    for (llvm::Instruction* in : work) {
      auto* cmp = llvm::cast<llvm::ICmpInst>(in);
      if (!bit_test(cmp)) range_check(cmp);
    }
    work.clear();
    for (llvm::BasicBlock& bb : f)
      for (llvm::Instruction& in : bb)
        if (in.getOpcode() == llvm::Instruction::And) work.push_back(&in);
    for (llvm::Instruction* in : work) field(llvm::cast<llvm::BinaryOperator>(in));
  }
}

} // namespace lanaikit::fw
