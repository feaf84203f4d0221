#include "assembler/fw/codegen.h"

#include "assembler/fw/pinned.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DIBuilder.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include <cstdio>

namespace lanaikit::fw {

namespace {

class Codegen {
public:
  Codegen(Module& m, llvm::LLVMContext& ctx, const llvm::DataLayout& dl,
          const CodegenOptions& o)
      : m_(m), ctx_(ctx), dl_(dl), opt_(o), b_(ctx) {}

  CodegenResult run() {
    const SourceFile& root = m_.sources.file(m_.files.front()->file);
    mod_ = std::make_unique<llvm::Module>(root.path, ctx_);
    mod_->setDataLayout(dl_);
    mod_->setTargetTriple("lanai");
    mod_->setSourceFileName(root.path);
    if (opt_.debug) {
      dib_ = std::make_unique<llvm::DIBuilder>(*mod_);
      cu_ = dib_->createCompileUnit(llvm::dwarf::DW_LANG_C99, di_file(root.path), "lanaikit fw",
                                    !opt_.optnone, "", 0);
      mod_->addModuleFlag(llvm::Module::Warning, "Dwarf Version", 4);
      mod_->addModuleFlag(llvm::Module::Warning, "Debug Info Version",
                          llvm::DEBUG_METADATA_VERSION);
    }
    // Functions first: a global's initialiser may hold a function's address.
    for (Symbol* s : m_.decl_order)
      if (s->kind == Symbol::Func) declare_function(s);
    for (Symbol* s : m_.decl_order) {
      if (s->kind == Symbol::Global) declare_global(s);
      if (s->kind == Symbol::Reg) // every access is volatile through the fixed address
        s->cg = llvm::ConstantExpr::getIntToPtr(b_.getInt32(s->address),
                                                llvm::PointerType::getUnqual(mem_type(s->type)));
    }
    for (Symbol* s : m_.decl_order)
      if (s->kind == Symbol::Func && s->defined_here && s->item->body) define_function(s);
    emit_layout();
    if (!used_.empty()) llvm::appendToUsed(*mod_, used_);
    if (dib_) dib_->finalize();
    CodegenResult r;
    r.module = std::move(mod_);
    r.asm_positions = std::move(asm_positions_);
    return r;
  }

private:
  Module& m_;
  llvm::LLVMContext& ctx_;
  const llvm::DataLayout& dl_;
  const CodegenOptions& opt_;
  llvm::IRBuilder<> b_;
  std::unique_ptr<llvm::Module> mod_;
  std::unique_ptr<llvm::DIBuilder> dib_;
  llvm::DICompileUnit* cu_ = nullptr;
  std::map<uint32_t, llvm::DIFile*> di_files_;
  std::map<const StructInfo*, llvm::StructType*> structs_;
  std::vector<llvm::GlobalValue*> used_;
  std::vector<Pos> asm_positions_;
  std::string module_asm_;

  // Per function.
  llvm::Function* fn_ = nullptr;
  Symbol* fsym_ = nullptr;
  llvm::BasicBlock* ret_block_ = nullptr;
  llvm::AllocaInst* ret_slot_ = nullptr;
  llvm::Instruction* alloca_point_ = nullptr;
  llvm::DISubprogram* sp_ = nullptr;
  struct Loop {
    llvm::BasicBlock *brk, *cont;
  };
  std::vector<Loop> loops_;

  // ------------------------------------------------------------------ types
  llvm::Type* value_type(const Type* t) {
    switch (t->kind) {
    case Type::Bool: return b_.getInt1Ty();
    case Type::Int:
    case Type::Enum: return b_.getIntNTy(t->bits);
    case Type::Void: return b_.getVoidTy();
    default: return mem_type(t);
    }
  }
  llvm::Type* mem_type(const Type* t) {
    switch (t->kind) {
    case Type::Bool: return b_.getInt8Ty();
    case Type::Int:
    case Type::Enum: return b_.getIntNTy(t->bits);
    case Type::Pointer: return llvm::PointerType::getUnqual(mem_type(t->elem));
    case Type::Func: return llvm::PointerType::getUnqual(function_type(t->params, t->elem));
    case Type::Array: return llvm::ArrayType::get(mem_type(t->elem), t->count);
    case Type::Struct: return struct_type(t->st);
    default: return b_.getInt8Ty();
    }
  }
  llvm::StructType* struct_type(const StructInfo* st) {
    auto it = structs_.find(st);
    if (it != structs_.end()) return it->second;
    llvm::StructType* ty = llvm::StructType::create(ctx_, "struct." + st->name);
    structs_[st] = ty;
    std::vector<llvm::Type*> fields;
    for (const FieldInfo& f : st->fields) fields.push_back(mem_type(f.type));
    ty->setBody(fields);
    return ty;
  }
  llvm::Align align_of(const Type* t) { return llvm::Align(t->align ? t->align : 1); }
  llvm::FunctionType* function_type(const std::vector<const Type*>& params, const Type* result) {
    std::vector<llvm::Type*> ps;
    for (const Type* t : params) ps.push_back(value_type(t));
    return llvm::FunctionType::get(value_type(result), ps, false);
  }

  // ------------------------------------------------------------------ debug info
  llvm::DIFile* di_file(const std::string& path) {
    llvm::SmallString<256> abs(path);
    llvm::sys::fs::make_absolute(abs);
    llvm::sys::path::remove_dots(abs, true);
    return dib_->createFile(llvm::sys::path::filename(abs),
                            llvm::sys::path::parent_path(abs));
  }
  llvm::DIFile* di_file(uint32_t file) {
    auto& f = di_files_[file];
    if (!f) f = di_file(m_.sources.file(file).path);
    return f;
  }
  void set_loc(Pos p) {
    if (!sp_) return;
    auto [line, col] = m_.sources.file(p.file).line_col(p.offset);
    b_.SetCurrentDebugLocation(llvm::DILocation::get(ctx_, line, col, sp_));
  }

  // ------------------------------------------------------------------ globals
  llvm::Constant* const_value(const Type* t, Int v) {
    if (t->kind == Type::Pointer || t->kind == Type::Func)
      return llvm::ConstantExpr::getIntToPtr(b_.getInt32(uint32_t(v)), mem_type(t));
    if (t->kind == Type::Bool) return llvm::ConstantInt::get(b_.getInt8Ty(), v != 0);
    return llvm::ConstantInt::get(mem_type(t), uint64_t(v), false);
  }
  llvm::Constant* initializer(const Init* in, const Type* t) {
    if (!in) return llvm::Constant::getNullValue(mem_type(t));
    if (in->is_list) {
      std::vector<llvm::Constant*> elems;
      for (const Init& e : in->list) elems.push_back(initializer(&e, t->elem));
      while (elems.size() < t->count) elems.push_back(llvm::Constant::getNullValue(mem_type(t->elem)));
      return llvm::ConstantArray::get(llvm::cast<llvm::ArrayType>(mem_type(t)), elems);
    }
    const Expr& e = *in->expr;
    if (e.is_fn_address) // a handler table's entry
      return llvm::ConstantExpr::getBitCast(
          llvm::cast<llvm::Function>(static_cast<llvm::Value*>(e.sym->cg)), mem_type(t));
    if (e.kind == Expr::StringLit) {
      if (t->kind == Type::Array) { // the bytes, then zeros
        std::vector<uint8_t> bytes(e.name.begin(), e.name.end());
        bytes.resize(t->count, 0);
        return llvm::ConstantDataArray::get(ctx_, llvm::ArrayRef<uint8_t>(bytes));
      }
      return llvm::ConstantExpr::getBitCast(string_constant(e.name), mem_type(t));
    }
    Int v = e.cval;
    if (e.kind == Expr::Cast && (e.ty->kind == Type::Pointer || e.ty->kind == Type::Func))
      v = e.lhs->cval;
    return const_value(t, v);
  }

  // A string literal's NUL-terminated bytes in read-only data (one copy per distinct
  // string in the object).
  std::map<std::string, llvm::Constant*> strings_;
  llvm::Constant* string_constant(const std::string& bytes) {
    auto& c = strings_[bytes];
    if (!c) {
      auto* data = llvm::ConstantDataArray::getString(ctx_, bytes, true);
      auto* gv = new llvm::GlobalVariable(*mod_, data->getType(), true,
                                          llvm::GlobalValue::PrivateLinkage, data, ".str");
      gv->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
      gv->setAlignment(llvm::Align(1));
      c = llvm::ConstantExpr::getInBoundsGetElementPtr(
          data->getType(), gv, llvm::ArrayRef<llvm::Constant*>{b_.getInt32(0), b_.getInt32(0)});
    }
    return c;
  }

  void declare_global(Symbol* s) {
    const Type* t = s->type;
    if (s->pinned) {
      // No storage: the name is an absolute symbol, every access uses the address. A
      // declaration marked with the address while the optimiser runs (distinct pinned
      // globals never alias), the address itself in the backend (pinned.h).
      if (t->size == 0) { // may share its address with another: no alias claim
        s->cg = llvm::ConstantExpr::getIntToPtr(b_.getInt32(s->address),
                                                llvm::PointerType::getUnqual(mem_type(t)));
      } else {
        auto* gv = new llvm::GlobalVariable(*mod_, mem_type(t), false,
                                            llvm::GlobalValue::ExternalLinkage, nullptr,
                                            s->name);
        gv->setAlignment(align_of(t));
        mark_pinned(*gv, s->address);
        s->cg = gv;
      }
      if (s->defined_here) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "0x%x", s->address);
        module_asm_ += "\t.globl\t" + s->name + "\n\t.type\t" + s->name + ",@object\n\t.set\t" +
                       s->name + ", " + buf + "\n\t.size\t" + s->name + ", " +
                       std::to_string(t->size) + "\n";
        mod_->setModuleInlineAsm(module_asm_);
      }
      return;
    }
    if (s->is_const_data) { // a table: read-only data private to this object
      s->cg = const_table(s, s->item->init.get(), s->name);
      return;
    }
    auto* gv = new llvm::GlobalVariable(*mod_, mem_type(t), false,
                                        llvm::GlobalValue::ExternalLinkage,
                                        s->defined_here ? initializer(s->item->init.get(), t)
                                                        : nullptr,
                                        s->name);
    gv->setAlignment(align_of(t));
    gv->setDSOLocal(true);
    s->cg = gv;
  }

  llvm::GlobalVariable* const_table(Symbol* s, const Init* init, const std::string& name) {
    auto* gv = new llvm::GlobalVariable(*mod_, mem_type(s->type), true,
                                        llvm::GlobalValue::InternalLinkage,
                                        initializer(init, s->type), name);
    gv->setAlignment(align_of(s->type));
    gv->setDSOLocal(true);
    return gv;
  }

  // clang's Lanai ABI: the first four argument words are `inreg` (r6, r7, r18, r19);
  // small integers passed on the stack and returned are extended by the caller/callee.
  // The same for a call through a function address (its type carries the signature).
  llvm::AttributeList abi_attributes(const std::vector<const Type*>& params, const Type* r) {
    llvm::AttributeList al;
    unsigned free_regs = 4;
    auto narrow = [](const Type* t) {
      return t->kind == Type::Bool || (t->is_integral() && t->bits < 32);
    };
    for (unsigned i = 0; i < params.size(); ++i) {
      const Type* t = params[i];
      unsigned words = t->size > 4 ? 2 : 1;
      if (words <= free_regs) {
        free_regs -= words;
        al = al.addParamAttribute(ctx_, i, llvm::Attribute::InReg);
      } else {
        free_regs = 0;
        if (narrow(t))
          al = al.addParamAttribute(ctx_, i, t->is_integral() && t->is_signed
                                                 ? llvm::Attribute::SExt
                                                 : llvm::Attribute::ZExt);
      }
      al = al.addParamAttribute(ctx_, i, llvm::Attribute::NoUndef);
    }
    if (narrow(r))
      al = al.addRetAttribute(ctx_, r->is_integral() && r->is_signed ? llvm::Attribute::SExt
                                                                     : llvm::Attribute::ZExt);
    return al;
  }
  void set_abi_attributes(llvm::Function* f, Symbol* s) {
    f->setAttributes(abi_attributes(s->params, s->type));
    for (unsigned i = 0; i < s->param_noalias.size(); ++i)
      if (s->param_noalias[i]) f->addParamAttr(i, llvm::Attribute::NoAlias);
  }

  void declare_function(Symbol* s) {
    auto* fty = function_type(s->params, s->type);
    const bool internal = s->defined_here && !s->is_export && !s->is_extern;
    llvm::Function* f = llvm::Function::Create(
        fty, internal ? llvm::GlobalValue::InternalLinkage : llvm::GlobalValue::ExternalLinkage,
        s->name, *mod_);
    f->setDSOLocal(true);
    set_abi_attributes(f, s);
    f->addFnAttr(llvm::Attribute::NoUnwind);
    f->addFnAttr("frame-pointer", "all");
    f->addFnAttr("no-builtins");
    f->addFnAttr("no-trapping-math", "true");
    // The backend reports a frame over this (the prologue's 16-bit immediate would lose
    // its high bits); backend.cpp turns the report into an error at the function.
    f->addFnAttr("warn-stack-size", std::to_string(kMaxFrameBytes));
    if (s->is_handler) f->addFnAttr(llvm::Attribute::NoInline);
    if (opt_.optsize) f->addFnAttr(llvm::Attribute::OptimizeForSize);
    if (opt_.optnone && s->defined_here) {
      f->addFnAttr(llvm::Attribute::NoInline);
      f->addFnAttr(llvm::Attribute::OptimizeNone);
    }
    s->cg = f;
  }

  llvm::AllocaInst* alloca_for(const Type* t, const std::string& name) {
    llvm::IRBuilder<> tmp(alloca_point_);
    auto* a = tmp.CreateAlloca(mem_type(t), nullptr, name);
    a->setAlignment(align_of(t));
    return a;
  }

  void define_function(Symbol* s) {
    fsym_ = s;
    fn_ = llvm::cast<llvm::Function>(static_cast<llvm::Value*>(s->cg));
    Item& it = *s->item;
    auto* entry = llvm::BasicBlock::Create(ctx_, "entry", fn_);
    b_.SetInsertPoint(entry);
    sp_ = nullptr;
    if (dib_) {
      llvm::DIFile* file = di_file(it.pos.file);
      const uint32_t line = m_.sources.file(it.pos.file).line_col(it.pos.offset).first;
      auto* sty = dib_->createSubroutineType(dib_->getOrCreateTypeArray({}));
      auto flags = llvm::DISubprogram::SPFlagDefinition;
      if (opt_.optnone == false) flags |= llvm::DISubprogram::SPFlagOptimized;
      if (fn_->hasInternalLinkage()) flags |= llvm::DISubprogram::SPFlagLocalToUnit;
      sp_ = dib_->createFunction(file, s->name, s->name, file, line, sty, line,
                                 llvm::DINode::FlagPrototyped, flags);
      fn_->setSubprogram(sp_);
      set_loc(it.pos);
    }
    // A placeholder after which allocas go (clang's "allocapt"); removed at the end.
    alloca_point_ = new llvm::BitCastInst(llvm::UndefValue::get(b_.getInt32Ty()),
                                          b_.getInt32Ty(), "allocapt", entry);
    ret_block_ = llvm::BasicBlock::Create(ctx_, "return", fn_);
    ret_slot_ = s->type->kind == Type::Void ? nullptr : alloca_for(s->type, "retval");
    loops_.clear();
    // Parameters live in allocas like clang's; mem2reg promotes them.
    for (unsigned i = 0; i < fn_->arg_size(); ++i) fn_->getArg(i)->setName(it.params[i].name);
    for (Symbol* p : s->param_syms) {
      auto* slot = alloca_for(p->type, p->name + ".addr");
      store_value(fn_->getArg(unsigned(p->param_index)), slot, p->type, false);
      p->cg = slot;
    }
    emit_stmts(it.body->body);
    if (!b_.GetInsertBlock()->getTerminator()) {
      if (!ret_slot_) b_.CreateBr(ret_block_);
      else b_.CreateUnreachable(); // sema proved every path returns
    }
    // The single return block (clang's shape).
    b_.SetInsertPoint(ret_block_);
    if (sp_) set_loc(it.end_pos);
    if (ret_slot_) {
      b_.CreateRet(load_value(ret_slot_, s->type, false));
    } else {
      b_.CreateRetVoid();
    }
    // Move the return block to the end for readability.
    ret_block_->moveAfter(&fn_->back());
    alloca_point_->eraseFromParent();
    alloca_point_ = nullptr;
    b_.SetCurrentDebugLocation(llvm::DebugLoc());
    sp_ = nullptr;
    fn_ = nullptr;
  }

private:
  // ------------------------------------------------------------------ memory
  llvm::Value* load_value(llvm::Value* addr, const Type* t, bool is_volatile) {
    llvm::LoadInst* l = b_.CreateAlignedLoad(mem_type(t), addr, align_of(t), is_volatile);
    if (t->kind == Type::Bool) return b_.CreateTrunc(l, b_.getInt1Ty());
    return l;
  }
  void store_value(llvm::Value* v, llvm::Value* addr, const Type* t, bool is_volatile) {
    if (t->kind == Type::Bool) v = b_.CreateZExt(v, b_.getInt8Ty());
    b_.CreateAlignedStore(v, addr, align_of(t), is_volatile);
  }

  struct LValue {
    llvm::Value* addr;
    bool is_volatile;
  };

  llvm::Value* to_i32_index(llvm::Value* v, const Type* t) {
    if (t->bits == 32) return v;
    if (t->bits > 32) return b_.CreateTrunc(v, b_.getInt32Ty());
    return t->is_signed ? b_.CreateSExt(v, b_.getInt32Ty()) : b_.CreateZExt(v, b_.getInt32Ty());
  }

  LValue emit_lvalue(Expr& e) {
    switch (e.kind) {
    case Expr::Name: {
      Symbol* s = const_cast<Symbol*>(e.sym);
      return {static_cast<llvm::Value*>(s->cg), s->kind == Symbol::Reg || s->is_volatile};
    }
    case Expr::Unary: // Deref
      return {emit(*e.lhs), false};
    case Expr::Index: {
      Expr& base = *e.lhs;
      llvm::Value* idx = to_i32_index(emit(*e.rhs), e.rhs->ty);
      if (base.ty->kind == Type::Pointer) {
        llvm::Value* p = emit(base);
        return {b_.CreateInBoundsGEP(mem_type(base.ty->elem), p, idx), false};
      }
      LValue a = emit_lvalue(base);
      return {b_.CreateInBoundsGEP(mem_type(base.ty), a.addr, {b_.getInt32(0), idx}),
              a.is_volatile};
    }
    case Expr::Field: {
      Expr& base = *e.lhs;
      const Type* st = e.field_through_pointer ? base.ty->elem : base.ty;
      if (e.field_through_pointer)
        return {b_.CreateStructGEP(mem_type(st), emit(base), e.field_index), false};
      // A field of a volatile global is volatile (through a pointer, volatility is lost:
      // the language has no volatile pointer types).
      LValue a = emit_lvalue(base);
      return {b_.CreateStructGEP(mem_type(st), a.addr, e.field_index), a.is_volatile};
    }
    default: break;
    }
    // Not an lvalue (sema prevents this); materialise a temporary to stay valid.
    llvm::Value* v = emit(e);
    auto* tmp = alloca_for(e.ty, "tmp");
    store_value(v, tmp, e.ty, false);
    return {tmp, false};
  }

  // ------------------------------------------------------------------ values
  // Implicit conversions sema allowed: integer widening (by the source's signedness).
  llvm::Value* convert(llvm::Value* v, const Type* from, const Type* to) {
    if (!from || from == to || !to->is_int() || !from->is_int()) return v;
    if (from->bits == to->bits) return v;
    if (from->bits > to->bits) return b_.CreateTrunc(v, value_type(to));
    return from->is_signed ? b_.CreateSExt(v, value_type(to)) : b_.CreateZExt(v, value_type(to));
  }
  llvm::Value* emit_as(Expr& e, const Type* to) {
    if (e.is_const && (!e.ty || e.ty->is_integral() || e.ty->kind == Type::Bool) &&
        to->is_integral())
      return llvm::ConstantInt::get(value_type(to), uint64_t(wrap(e.cval, to)), false);
    return convert(emit(e), e.ty, to);
  }

  llvm::Value* emit(Expr& e) {
    if (e.is_const && (!e.ty || e.ty->is_integral() || e.ty->kind == Type::Bool)) {
      const Type* t = e.ty ? e.ty : m_.types.integer(32, true);
      return llvm::ConstantInt::get(value_type(t), uint64_t(wrap(e.cval, t)), false);
    }
    if (e.is_fn_address) return static_cast<llvm::Value*>(e.sym->cg);
    switch (e.kind) {
    case Expr::StringLit: return string_constant(e.name);
    case Expr::IntLit:
    case Expr::BoolLit:
    case Expr::SizeOf:
    case Expr::OffsetOf:
      return llvm::ConstantInt::get(value_type(e.ty), uint64_t(e.cval), false);
    case Expr::Name:
    case Expr::Index:
    case Expr::Field: {
      LValue lv = emit_lvalue(e);
      return load_value(lv.addr, e.ty, lv.is_volatile);
    }
    case Expr::Unary: return emit_unary(e);
    case Expr::Binary: return emit_binary(e);
    case Expr::Cast: return emit_cast(e);
    case Expr::Call: return emit_call(e);
    }
    return llvm::UndefValue::get(value_type(e.ty));
  }

  llvm::Value* emit_unary(Expr& e) {
    Expr& a = *e.lhs;
    switch (e.uop) {
    case UnOp::Neg: return b_.CreateNeg(emit(a));
    case UnOp::BitNot: return b_.CreateNot(emit(a));
    case UnOp::Not: return b_.CreateNot(emit(a));
    case UnOp::Deref: return load_value(emit(a), e.ty, false);
    case UnOp::AddrOf: return emit_lvalue(a).addr;
    }
    return nullptr;
  }

  llvm::Value* emit_binary(Expr& e) {
    Expr& a = *e.lhs;
    Expr& c = *e.rhs;
    switch (e.bop) {
    case BinOp::LAnd:
    case BinOp::LOr: {
      // Short circuit, clang's shape: the result is a phi of the constant and the rhs.
      llvm::Value* l = emit(a);
      llvm::BasicBlock* from = b_.GetInsertBlock();
      auto* rhs_bb = llvm::BasicBlock::Create(ctx_, e.bop == BinOp::LAnd ? "land.rhs" : "lor.rhs", fn_);
      auto* end_bb = llvm::BasicBlock::Create(ctx_, e.bop == BinOp::LAnd ? "land.end" : "lor.end", fn_);
      if (e.bop == BinOp::LAnd) b_.CreateCondBr(l, rhs_bb, end_bb);
      else b_.CreateCondBr(l, end_bb, rhs_bb);
      b_.SetInsertPoint(rhs_bb);
      llvm::Value* r = emit(c);
      llvm::BasicBlock* rhs_end = b_.GetInsertBlock();
      b_.CreateBr(end_bb);
      b_.SetInsertPoint(end_bb);
      llvm::PHINode* phi = b_.CreatePHI(b_.getInt1Ty(), 2);
      phi->addIncoming(b_.getInt1(e.bop == BinOp::LOr), from);
      phi->addIncoming(r, rhs_end);
      return phi;
    }
    case BinOp::Shl:
    case BinOp::Shr: {
      llvm::Value* l = emit_as(a, e.ty);
      llvm::Value* n = emit(c);
      n = b_.CreateZExtOrTrunc(n, value_type(e.ty));
      if (e.bop == BinOp::Shl) return b_.CreateShl(l, n);
      return e.ty->is_signed ? b_.CreateAShr(l, n) : b_.CreateLShr(l, n);
    }
    default: break;
    }
    // Pointer arithmetic and comparison.
    if (a.ty && a.ty->kind == Type::Pointer && (!c.ty || c.ty->kind != Type::Pointer)) {
      llvm::Value* p = emit(a);
      llvm::Value* i = to_i32_index(emit(c), c.ty);
      if (e.bop == BinOp::Sub) i = b_.CreateNeg(i);
      return b_.CreateInBoundsGEP(mem_type(a.ty->elem), p, i);
    }
    if (c.ty && c.ty->kind == Type::Pointer && (!a.ty || a.ty->kind != Type::Pointer)) {
      llvm::Value* p = emit(c);
      llvm::Value* i = to_i32_index(emit(a), a.ty);
      return b_.CreateInBoundsGEP(mem_type(c.ty->elem), p, i);
    }
    const Type* t = implicitly_converts(a.ty, c.ty) ? c.ty : a.ty;
    llvm::Value* l = emit_as(a, t);
    llvm::Value* r = emit_as(c, t);
    const bool sgn = t->is_integral() && t->is_signed;
    switch (e.bop) {
    case BinOp::Add: return b_.CreateAdd(l, r);
    case BinOp::Sub: return b_.CreateSub(l, r);
    case BinOp::Mul: return b_.CreateMul(l, r);
    case BinOp::Div: return sgn ? b_.CreateSDiv(l, r) : b_.CreateUDiv(l, r);
    case BinOp::Rem: return sgn ? b_.CreateSRem(l, r) : b_.CreateURem(l, r);
    case BinOp::And: return b_.CreateAnd(l, r);
    case BinOp::Or: return b_.CreateOr(l, r);
    case BinOp::Xor: return b_.CreateXor(l, r);
    case BinOp::Eq: return b_.CreateICmpEQ(l, r);
    case BinOp::Ne: return b_.CreateICmpNE(l, r);
    case BinOp::Lt: return sgn ? b_.CreateICmpSLT(l, r) : b_.CreateICmpULT(l, r);
    case BinOp::Le: return sgn ? b_.CreateICmpSLE(l, r) : b_.CreateICmpULE(l, r);
    case BinOp::Gt: return sgn ? b_.CreateICmpSGT(l, r) : b_.CreateICmpUGT(l, r);
    case BinOp::Ge: return sgn ? b_.CreateICmpSGE(l, r) : b_.CreateICmpUGE(l, r);
    default: break;
    }
    return nullptr;
  }

  llvm::Value* emit_cast(Expr& e) {
    Expr& a = *e.lhs;
    const Type* to = e.ty;
    const Type* from = a.ty ? a.ty : m_.types.integer(32, false);
    llvm::Value* v = a.ty ? emit(a) : b_.getInt32(uint32_t(a.cval));
    if (from == to) return v;
    if (to->is_int() && from->kind == Type::Bool) return b_.CreateZExt(v, value_type(to));
    if (to->is_integral() && from->is_integral()) { // an enum is its underlying integer
      if (from->bits > to->bits) return b_.CreateTrunc(v, value_type(to));
      if (from->bits < to->bits)
        return from->is_signed ? b_.CreateSExt(v, value_type(to)) : b_.CreateZExt(v, value_type(to));
      return v;
    }
    const bool to_addr = to->kind == Type::Pointer || to->kind == Type::Func;
    const bool from_addr = from->kind == Type::Pointer || from->kind == Type::Func;
    if (to_addr && from_addr) return b_.CreateBitCast(v, value_type(to));
    if (to_addr) return b_.CreateIntToPtr(v, value_type(to));
    if (from_addr) return b_.CreatePtrToInt(v, value_type(to));
    return v;
  }

  llvm::Value* emit_call(Expr& e) {
    if (e.intrinsic) {
      Expr& a = *e.args[0];
      llvm::Value* v = emit_as(a, e.ty);
      llvm::Type* ty = value_type(e.ty);
      switch (e.intrinsic) {
      case kPopc:
        return b_.CreateIntrinsic(llvm::Intrinsic::ctpop, {ty}, {v});
      case kClz:
        return b_.CreateIntrinsic(llvm::Intrinsic::ctlz, {ty}, {v, b_.getFalse()});
      case kCtz:
        return b_.CreateIntrinsic(llvm::Intrinsic::cttz, {ty}, {v, b_.getFalse()});
      case kBswap:
        return b_.CreateIntrinsic(llvm::Intrinsic::bswap, {ty}, {v});
      }
    }
    if (!e.sym) { // through a function address
      const Type* ft = e.lhs->ty;
      llvm::Value* callee = emit(*e.lhs);
      std::vector<llvm::Value*> args;
      for (size_t i = 0; i < e.args.size(); ++i) args.push_back(emit_as(*e.args[i], ft->params[i]));
      llvm::CallInst* call = b_.CreateCall(function_type(ft->params, ft->elem), callee, args);
      call->setAttributes(abi_attributes(ft->params, ft->elem));
      return call;
    }
    Symbol* s = const_cast<Symbol*>(e.sym);
    auto* f = llvm::cast<llvm::Function>(static_cast<llvm::Value*>(s->cg));
    std::vector<llvm::Value*> args;
    for (size_t i = 0; i < e.args.size(); ++i) args.push_back(emit_as(*e.args[i], s->params[i]));
    llvm::CallInst* call = b_.CreateCall(f, args);
    call->setAttributes(f->getAttributes());
    return call;
  }

  // ------------------------------------------------------------------ statements
  void emit_stmts(std::vector<std::unique_ptr<Stmt>>& body) {
    for (auto& s : body) emit_stmt(*s);
  }

  // After a jump, code that follows is unreachable; give it a block of its own.
  void start_dead_block() {
    b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "dead", fn_));
  }

  void emit_stmt(Stmt& s) {
    set_loc(s.pos);
    switch (s.kind) {
    case Stmt::Var: {
      Symbol* v = s.local;
      auto* slot = alloca_for(v->type, v->name);
      v->cg = slot;
      init_local(slot, v->type, s.init.get());
      break;
    }
    case Stmt::Const:
      if (s.local && s.local->is_const_data) // a table local to this block
        s.local->cg = const_table(s.local, s.init.get(), fsym_->name + "." + s.name);
      break;
    case Stmt::Switch: emit_switch(s); break;
    case Stmt::Case: break; // emitted by emit_switch
    case Stmt::For: emit_for(s); break;
    case Stmt::If: {
      llvm::Value* c = emit(*s.expr);
      auto* then_bb = llvm::BasicBlock::Create(ctx_, "if.then", fn_);
      auto* end_bb = llvm::BasicBlock::Create(ctx_, "if.end");
      llvm::BasicBlock* else_bb = s.else_stmt ? llvm::BasicBlock::Create(ctx_, "if.else") : end_bb;
      b_.CreateCondBr(c, then_bb, else_bb);
      b_.SetInsertPoint(then_bb);
      emit_stmts(s.body);
      if (!b_.GetInsertBlock()->getTerminator()) b_.CreateBr(end_bb);
      if (s.else_stmt) {
        else_bb->insertInto(fn_);
        b_.SetInsertPoint(else_bb);
        emit_stmt(*s.else_stmt);
        if (!b_.GetInsertBlock()->getTerminator()) b_.CreateBr(end_bb);
      }
      end_bb->insertInto(fn_);
      b_.SetInsertPoint(end_bb);
      break;
    }
    case Stmt::While: {
      auto* cond_bb = llvm::BasicBlock::Create(ctx_, "while.cond", fn_);
      auto* body_bb = llvm::BasicBlock::Create(ctx_, "while.body");
      auto* end_bb = llvm::BasicBlock::Create(ctx_, "while.end");
      b_.CreateBr(cond_bb);
      b_.SetInsertPoint(cond_bb);
      b_.CreateCondBr(emit(*s.expr), body_bb, end_bb);
      body_bb->insertInto(fn_);
      b_.SetInsertPoint(body_bb);
      loops_.push_back({end_bb, cond_bb});
      emit_stmts(s.body);
      loops_.pop_back();
      set_loc(s.pos);
      if (!b_.GetInsertBlock()->getTerminator()) b_.CreateBr(cond_bb);
      end_bb->insertInto(fn_);
      b_.SetInsertPoint(end_bb);
      break;
    }
    case Stmt::Loop: {
      auto* body_bb = llvm::BasicBlock::Create(ctx_, "loop.body", fn_);
      auto* end_bb = llvm::BasicBlock::Create(ctx_, "loop.end");
      b_.CreateBr(body_bb);
      b_.SetInsertPoint(body_bb);
      loops_.push_back({end_bb, body_bb});
      emit_stmts(s.body);
      loops_.pop_back();
      if (!b_.GetInsertBlock()->getTerminator()) b_.CreateBr(body_bb);
      end_bb->insertInto(fn_);
      b_.SetInsertPoint(end_bb);
      break;
    }
    case Stmt::Break:
      b_.CreateBr(loops_.back().brk);
      start_dead_block();
      break;
    case Stmt::Continue:
      b_.CreateBr(loops_.back().cont);
      start_dead_block();
      break;
    case Stmt::Return:
      if (s.expr && ret_slot_) store_value(emit_as(*s.expr, fsym_->type), ret_slot_, fsym_->type, false);
      b_.CreateBr(ret_block_);
      start_dead_block();
      break;
    case Stmt::BlockStmt: emit_stmts(s.body); break;
    case Stmt::ExprStmt: emit(*s.expr); break;
    case Stmt::Assign: emit_assign(s); break;
    case Stmt::Asm: emit_asm(s); break;
    }
  }

  // LLVM's switch: its lowering builds a jump table for dense labels and a tree of
  // compares for sparse ones (with optimisation; -O0 compares in order).
  void emit_switch(Stmt& s) {
    llvm::Value* x = emit(*s.expr);
    const Type* t = s.expr->ty;
    auto* end_bb = llvm::BasicBlock::Create(ctx_, "switch.end");
    llvm::BasicBlock* default_bb = end_bb;
    std::vector<llvm::BasicBlock*> arm_bbs;
    for (auto& arm : s.body) {
      arm_bbs.push_back(llvm::BasicBlock::Create(ctx_, arm->is_default ? "switch.default" : "switch.case"));
      if (arm->is_default) default_bb = arm_bbs.back();
    }
    unsigned n = 0;
    for (auto& arm : s.body) n += unsigned(arm->values.size());
    llvm::SwitchInst* sw = b_.CreateSwitch(x, default_bb, n);
    for (size_t i = 0; i < s.body.size(); ++i)
      for (auto& v : s.body[i]->values)
        sw->addCase(llvm::ConstantInt::get(llvm::cast<llvm::IntegerType>(value_type(t)),
                                           uint64_t(wrap(v->cval, t)), false),
                    arm_bbs[i]);
    for (size_t i = 0; i < s.body.size(); ++i) {
      arm_bbs[i]->insertInto(fn_);
      b_.SetInsertPoint(arm_bbs[i]);
      emit_stmts(s.body[i]->body);
      if (!b_.GetInsertBlock()->getTerminator()) b_.CreateBr(end_bb); // no fall-through
    }
    end_bb->insertInto(fn_);
    b_.SetInsertPoint(end_bb);
  }

  // for i in a .. b: the end is evaluated once; i counts up by one while i < b, so it never
  // wraps.
  void emit_for(Stmt& s) {
    Symbol* v = s.local;
    const Type* t = v->type;
    auto* slot = alloca_for(t, v->name);
    v->cg = slot;
    store_value(emit_as(*s.expr, t), slot, t, false);
    auto* end_slot = alloca_for(t, v->name + ".end");
    store_value(emit_as(*s.target, t), end_slot, t, false);
    auto* cond_bb = llvm::BasicBlock::Create(ctx_, "for.cond", fn_);
    auto* body_bb = llvm::BasicBlock::Create(ctx_, "for.body");
    auto* inc_bb = llvm::BasicBlock::Create(ctx_, "for.inc");
    auto* end_bb = llvm::BasicBlock::Create(ctx_, "for.end");
    b_.CreateBr(cond_bb);
    b_.SetInsertPoint(cond_bb);
    llvm::Value* i = load_value(slot, t, false);
    llvm::Value* end = load_value(end_slot, t, false);
    b_.CreateCondBr(t->is_signed ? b_.CreateICmpSLT(i, end) : b_.CreateICmpULT(i, end), body_bb,
                    end_bb);
    body_bb->insertInto(fn_);
    b_.SetInsertPoint(body_bb);
    loops_.push_back({end_bb, inc_bb});
    emit_stmts(s.body);
    loops_.pop_back();
    set_loc(s.pos);
    if (!b_.GetInsertBlock()->getTerminator()) b_.CreateBr(inc_bb);
    inc_bb->insertInto(fn_);
    b_.SetInsertPoint(inc_bb);
    llvm::Value* one = llvm::ConstantInt::get(value_type(t), 1);
    llvm::Value* cur = load_value(slot, t, false);
    store_value(t->is_signed ? b_.CreateNSWAdd(cur, one) : b_.CreateNUWAdd(cur, one), slot, t, false);
    b_.CreateBr(cond_bb);
    end_bb->insertInto(fn_);
    b_.SetInsertPoint(end_bb);
  }

  void copy_aggregate(llvm::Value* dst, llvm::Value* src, const Type* t, bool is_volatile = false) {
    b_.CreateMemCpy(dst, align_of(t), src, align_of(t), b_.getInt32(t->size), is_volatile);
  }

  void init_local(llvm::Value* slot, const Type* t, Init* in) {
    if (in && in->is_undef) return; // the programmer's choice: no clearing store
    if (!in) {
      // Locals start at zero (docs/language.md); dead stores vanish in the optimiser.
      if (t->is_aggregate())
        b_.CreateMemSet(slot, b_.getInt8(0), b_.getInt32(t->size), align_of(t));
      else
        b_.CreateAlignedStore(llvm::Constant::getNullValue(mem_type(t)), slot, align_of(t));
      return;
    }
    if (in->is_list) {
      b_.CreateMemSet(slot, b_.getInt8(0), b_.getInt32(t->size), align_of(t));
      for (size_t i = 0; i < in->list.size(); ++i) {
        llvm::Value* el = b_.CreateInBoundsGEP(mem_type(t), slot, {b_.getInt32(0), b_.getInt32(uint32_t(i))});
        init_local(el, t->elem, &in->list[i]);
      }
      return;
    }
    Expr& e = *in->expr;
    if (e.kind == Expr::StringLit && t->kind == Type::Array) { // the bytes, then zeros
      auto* data = llvm::cast<llvm::ConstantDataArray>(initializer(in, t));
      auto* gv = new llvm::GlobalVariable(*mod_, data->getType(), true,
                                          llvm::GlobalValue::PrivateLinkage, data, ".str.init");
      gv->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
      copy_aggregate(slot, gv, t);
      return;
    }
    if (t->is_aggregate()) {
      LValue src = emit_lvalue(e);
      copy_aggregate(slot, src.addr, t, src.is_volatile);
      return;
    }
    store_value(emit_as(e, t), slot, t, false);
  }

  void emit_assign(Stmt& s) {
    Expr& t = *s.target;
    if (!s.compound) {
      if (t.ty->is_aggregate()) {
        LValue src = emit_lvalue(*s.expr);
        LValue dst = emit_lvalue(t);
        copy_aggregate(dst.addr, src.addr, t.ty, src.is_volatile || dst.is_volatile);
        return;
      }
      llvm::Value* v = emit_as(*s.expr, t.ty);
      LValue lv = emit_lvalue(t);
      store_value(v, lv.addr, t.ty, lv.is_volatile);
      return;
    }
    LValue lv = emit_lvalue(t);
    llvm::Value* cur = load_value(lv.addr, t.ty, lv.is_volatile);
    Expr& r = *s.expr;
    llvm::Value* res = nullptr;
    if (t.ty->kind == Type::Pointer) {
      llvm::Value* i = to_i32_index(emit(r), r.ty);
      if (s.op == BinOp::Sub) i = b_.CreateNeg(i);
      res = b_.CreateInBoundsGEP(mem_type(t.ty->elem), cur, i);
    } else if (s.op == BinOp::Shl || s.op == BinOp::Shr) {
      llvm::Value* n = b_.CreateZExtOrTrunc(emit(r), value_type(t.ty));
      res = s.op == BinOp::Shl ? b_.CreateShl(cur, n)
            : t.ty->is_signed  ? b_.CreateAShr(cur, n)
                               : b_.CreateLShr(cur, n);
    } else {
      llvm::Value* v = emit_as(r, t.ty);
      const bool sgn = t.ty->is_signed;
      switch (s.op) {
      case BinOp::Add: res = b_.CreateAdd(cur, v); break;
      case BinOp::Sub: res = b_.CreateSub(cur, v); break;
      case BinOp::Mul: res = b_.CreateMul(cur, v); break;
      case BinOp::Div: res = sgn ? b_.CreateSDiv(cur, v) : b_.CreateUDiv(cur, v); break;
      case BinOp::Rem: res = sgn ? b_.CreateSRem(cur, v) : b_.CreateURem(cur, v); break;
      case BinOp::And: res = b_.CreateAnd(cur, v); break;
      case BinOp::Or: res = b_.CreateOr(cur, v); break;
      case BinOp::Xor: res = b_.CreateXor(cur, v); break;
      default: res = v; break;
      }
    }
    store_value(res, lv.addr, t.ty, lv.is_volatile);
  }

  void emit_asm(Stmt& s) {
    std::string constraints;
    std::vector<llvm::Type*> out_types;
    std::vector<LValue> out_places;
    std::vector<const Type*> out_ftypes;
    std::vector<llvm::Value*> in_values;
    std::vector<llvm::Type*> in_types;
    std::vector<std::string> tied;
    auto add = [&](const std::string& c) {
      if (!constraints.empty()) constraints += ",";
      constraints += c;
    };
    auto reg_type = [&](const Type* t) -> llvm::Type* {
      return t->kind == Type::Bool ? b_.getInt32Ty() : value_type(t);
    };
    for (size_t i = 0; i < s.outputs.size(); ++i) {
      AsmOperand& o = s.outputs[i];
      add(o.constraint == "=&r" ? "=&r" : "=r");
      LValue lv = emit_lvalue(*o.expr);
      out_places.push_back(lv);
      out_types.push_back(reg_type(o.expr->ty));
      out_ftypes.push_back(o.expr->ty);
      if (o.constraint == "+r") {
        llvm::Value* cur = load_value(lv.addr, o.expr->ty, lv.is_volatile);
        if (o.expr->ty->kind == Type::Bool) cur = b_.CreateZExt(cur, b_.getInt32Ty());
        in_values.push_back(cur);
        in_types.push_back(cur->getType());
        tied.push_back(std::to_string(i));
      }
    }
    for (AsmOperand& o : s.inputs) {
      const Type* t = o.expr->ty;
      llvm::Value* v = emit(*o.expr);
      if (t->kind == Type::Bool) v = b_.CreateZExt(v, b_.getInt32Ty());
      in_values.push_back(v);
      in_types.push_back(v->getType());
    }
    // Inputs tied to "+r" outputs come first among the inputs (in output order).
    for (const std::string& t : tied) add(t);
    for (AsmOperand& o : s.inputs) add(o.constraint);
    for (auto& [pos, c] : s.clobbers) {
      std::string r = c[0] == '%' ? c.substr(1) : c;
      if (r == "cc") continue;
      add("~{" + r + "}");
    }
    // The template's $N counts outputs, then inputs as written; tied inputs sit between,
    // so renumber written inputs past them.
    std::string tpl = s.asm_template;
    if (!tied.empty()) {
      std::string out;
      const size_t nout = s.outputs.size();
      for (size_t i = 0; i < tpl.size(); ++i) {
        if (tpl[i] == '$' && i + 1 < tpl.size() && tpl[i + 1] == '$') {
          out += "$$";
          ++i;
          continue;
        }
        if (tpl[i] == '$') {
          size_t j = i + 1;
          bool brace = j < tpl.size() && tpl[j] == '{';
          if (brace) ++j;
          size_t n = 0, k = j;
          while (k < tpl.size() && std::isdigit((unsigned char)tpl[k])) n = n * 10 + size_t(tpl[k] - '0'), ++k;
          if (n >= nout) n += tied.size();
          out += brace ? "${" : "$";
          out += std::to_string(n);
          i = k - 1;
          continue;
        }
        out += tpl[i];
      }
      tpl = out;
    }
    llvm::Type* ret = out_types.empty()      ? b_.getVoidTy()
                      : out_types.size() == 1 ? out_types[0]
                                              : llvm::StructType::get(ctx_, out_types);
    auto* fty = llvm::FunctionType::get(ret, in_types, false);
    if (llvm::InlineAsm::Verify(fty, constraints) == false) {
      // Sema restricts constraints to a set LLVM accepts; keep the IR valid regardless.
      return;
    }
    auto* ia = llvm::InlineAsm::get(fty, tpl, constraints, /*hasSideEffects=*/true);
    llvm::CallInst* call = b_.CreateCall(fty, ia, in_values);
    call->addFnAttr(llvm::Attribute::NoUnwind);
    asm_positions_.push_back(s.pos);
    call->setMetadata("srcloc",
                      llvm::MDNode::get(ctx_, llvm::ConstantAsMetadata::get(b_.getInt64(
                                                  asm_positions_.size() - 1))));
    for (size_t i = 0; i < out_places.size(); ++i) {
      llvm::Value* v = out_types.size() == 1 ? call : b_.CreateExtractValue(call, unsigned(i));
      if (out_ftypes[i]->kind == Type::Bool) v = b_.CreateICmpNE(v, b_.getInt32(0));
      store_value(v, out_places[i].addr, out_ftypes[i], out_places[i].is_volatile);
    }
  }

  // ------------------------------------------------------------------ layout table
  void emit_layout() {
    if (opt_.layout.empty()) return;
    auto* data = llvm::ConstantDataArray::get(ctx_, llvm::ArrayRef<uint8_t>(opt_.layout));
    auto* gv = new llvm::GlobalVariable(*mod_, data->getType(), true,
                                        llvm::GlobalValue::InternalLinkage, data,
                                        "__lanaikit_layout");
    gv->setSection(".lanaikit.layout");
    gv->setAlignment(llvm::Align(1));
    used_.push_back(gv);
  }
};

} // namespace

CodegenResult generate(Module& m, llvm::LLVMContext& ctx, const llvm::DataLayout& dl,
                       const CodegenOptions& options) {
  Codegen cg(m, ctx, dl, options);
  return cg.run();
}

} // namespace lanaikit::fw
