#include "assembler/fw/sema.h"
#include "base/hex.h"

#include "assembler/asm_limits.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <optional>

namespace lanaikit::fw {

const char* binop_spelling(BinOp op) {
  switch (op) {
  case BinOp::Add: return "+";
  case BinOp::Sub: return "-";
  case BinOp::Mul: return "*";
  case BinOp::Div: return "/";
  case BinOp::Rem: return "%";
  case BinOp::And: return "&";
  case BinOp::Or: return "|";
  case BinOp::Xor: return "^";
  case BinOp::Shl: return "<<";
  case BinOp::Shr: return ">>";
  case BinOp::Eq: return "==";
  case BinOp::Ne: return "!=";
  case BinOp::Lt: return "<";
  case BinOp::Le: return "<=";
  case BinOp::Gt: return ">";
  case BinOp::Ge: return ">=";
  case BinOp::LAnd: return "&&";
  case BinOp::LOr: return "||";
  }
  return "?";
}

namespace {

std::string q(const std::string& s) { return "'" + s + "'"; }
std::string q(const Type* t) { return "'" + t->spelling() + "'"; }

bool is_comparison(BinOp op) {
  return op == BinOp::Eq || op == BinOp::Ne || op == BinOp::Lt || op == BinOp::Le ||
         op == BinOp::Gt || op == BinOp::Ge;
}

// Untyped constants stay within +-2^64 so that every fold fits in Int.

class Sema {
public:
  Sema(Module& m, Diagnostics& d, uint32_t sram) : m_(m), diag_(d), sram_size_(sram) {}

  void run() {
    declare_all();
    for (Symbol* s : m_.decl_order)
      if (s->kind == Symbol::EnumSym) resolve_enum(s->en);
    for (Symbol* s : m_.decl_order)
      if (s->kind == Symbol::StructSym) resolve_struct(s->st, s->pos);
    for (Symbol* s : m_.decl_order)
      if (s->kind == Symbol::Const) eval_const(s, s->pos);
    // Signatures first: a global's initialiser may hold a function's address.
    for (Symbol* s : m_.decl_order)
      if (s->kind == Symbol::Func) check_signature(s);
    for (Symbol* s : m_.decl_order) {
      if (s->kind == Symbol::Reg) check_reg(s);
      if (s->kind == Symbol::Global) check_global(s);
    }
    check_overlaps();
    for (Symbol* s : m_.decl_order)
      if (s->kind == Symbol::Func && s->item->body) check_body(s);
  }

private:
  Module& m_;
  Diagnostics& diag_;
  uint32_t sram_size_;
  TypeTable& T() { return m_.types; }

  // Function-body context.
  struct Scope {
    std::vector<std::pair<std::string, Symbol*>> names;
  };
  std::vector<Scope> scopes_;
  Symbol* fn_ = nullptr;
  int loops_ = 0;

  // Lazy evaluation of a constant or struct may start in the middle of a function body;
  // it must not see that function's locals.
  struct GlobalContext {
    Sema& s;
    std::vector<Scope> saved;
    Symbol* fn;
    int loops;
    explicit GlobalContext(Sema& se) : s(se), saved(std::move(se.scopes_)), fn(se.fn_),
                                       loops(se.loops_) {
      s.scopes_.clear();
      s.fn_ = nullptr;
      s.loops_ = 0;
    }
    ~GlobalContext() {
      s.scopes_ = std::move(saved);
      s.fn_ = fn;
      s.loops_ = loops;
    }
  };

  Symbol* new_symbol(Symbol::Kind k, const std::string& name, Pos pos) {
    m_.symbols.push_back(std::make_unique<Symbol>());
    Symbol* s = m_.symbols.back().get();
    s->kind = k;
    s->name = name;
    s->pos = pos;
    return s;
  }

  static bool reserved_name(const std::string& name) {
    static const char* const runtime[] = {"memcpy", "memmove", "memset", "memcmp", "bcmp", "_start"};
    if (name.size() >= 2 && name[0] == '_' && name[1] == '_') return true;
    for (const char* r : runtime)
      if (name == r) return true;
    return false;
  }

  void duplicate(const std::string& name, Pos pos, Pos earlier) {
    diag_.error(pos, "redefinition of " + q(name));
    diag_.note(earlier, q(name) + " was first declared here");
  }

  // ---------------------------------------------------------------- declarations
  void declare_all() {
    for (auto& f : m_.files) {
      const bool root = f.get() == m_.files.front().get();
      for (auto& it : f->items) {
        Item& item = *it;
        Symbol::Kind k;
        switch (item.kind) {
        case Item::Import: continue;
        // A table (`const T: u32[4] = [...]`) is read-only data, not a compile-time value.
        case Item::Const: k = item.init ? Symbol::Global : Symbol::Const; break;
        case Item::Struct: k = Symbol::StructSym; break;
        case Item::Enum: k = Symbol::EnumSym; break;
        case Item::Var: k = Symbol::Global; break;
        case Item::Reg: k = Symbol::Reg; break;
        default: k = Symbol::Func; break;
        }
        // LLVM turns multiplications, divisions and copies into calls of these names, and
        // the startup code calls _start: a definition of our own would capture them. An
        // `extern fn` declaring the runtime's own is fine (calling memcpy directly).
        if ((item.kind == Item::Var || k == Symbol::Func) && item.kind != Item::ExternFn &&
            reserved_name(item.name)) {
          diag_.error(item.pos, q(item.name) + " is reserved for the runtime and the code the "
                                               "compiler generates: choose another name");
          continue;
        }
        auto found = m_.globals.find(item.name);
        if (found != m_.globals.end()) {
          duplicate(item.name, item.pos, found->second->pos);
          continue;
        }
        Symbol* s = new_symbol(k, item.name, item.pos);
        s->item = &item;
        item.sym = s;
        if (k == Symbol::StructSym) {
          s->st = T().new_struct(item.name);
          s->st->pos = item.pos;
          s->st->decl = &item;
        }
        if (k == Symbol::EnumSym) {
          s->en = T().new_enum(item.name);
          s->en->pos = item.pos;
          s->en->decl = &item;
        }
        if (k == Symbol::Global) {
          s->defined_here = root;
          s->is_volatile = item.is_volatile;
          if (item.kind == Item::Const) {
            s->is_const_data = true;
            s->defined_here = true; // a private copy in every object that uses it
            if (item.is_option)
              diag_.error(item.pos, "an option constant must have an integer type (a table "
                                    "cannot be set with -D)");
          }
        }
        if (k == Symbol::Func) {
          s->is_handler = item.is_handler;
          s->is_export = item.is_export || item.is_handler || item.name == "main";
          s->is_extern = item.kind == Item::ExternFn;
          // Plain fns are private copies in every object that sees them; exported ones
          // and handlers are defined by the object of their own file.
          s->defined_here = !s->is_extern && (root || !s->is_export);
        }
        m_.globals[item.name] = s;
        m_.decl_order.push_back(s);
      }
    }
  }

  // ---------------------------------------------------------------- types
  const Type* resolve_type(TypeExpr& t, bool need_complete) {
    const Type* r = T().error();
    switch (t.kind) {
    case TypeExpr::Prim: r = T().prim(t.prim); break;
    case TypeExpr::Named: {
      auto it = m_.globals.find(t.name);
      if (it == m_.globals.end()) {
        diag_.error(t.pos, "unknown type " + q(t.name));
        break;
      }
      if (it->second->kind == Symbol::EnumSym) {
        resolve_enum(it->second->en);
        r = it->second->en->type;
        break;
      }
      if (it->second->kind != Symbol::StructSym) {
        diag_.error(t.pos, q(t.name) + " is not a type");
        break;
      }
      StructInfo* st = it->second->st;
      if (need_complete) {
        if (st->state == StructInfo::InProgress) {
          diag_.error(t.pos, "recursive struct " + q(st->name) +
                                 " contains itself by value (use a pointer)");
          break;
        }
        resolve_struct(st, t.pos);
      }
      r = st->type;
      break;
    }
    case TypeExpr::Pointer: {
      const Type* e = resolve_type(*t.elem, false);
      r = e->is_error() ? e : T().pointer(e);
      break;
    }
    case TypeExpr::Func: {
      std::vector<const Type*> params;
      bool ok = true;
      for (auto& p : t.params) {
        const Type* pt = resolve_type(*p, true);
        if (pt->is_error()) ok = false;
        else if (pt->is_aggregate()) {
          diag_.error(p->pos, "a function cannot take " + q(pt) + " by value (pass a pointer)");
          ok = false;
        }
        params.push_back(pt);
      }
      if (params.size() > 16) {
        diag_.error(t.params[16]->pos, "too many parameters (at most 16)");
        ok = false;
      }
      const Type* result = t.elem ? resolve_type(*t.elem, true) : T().void_type();
      if (result->is_error()) ok = false;
      else if (result->is_aggregate()) {
        diag_.error(t.elem->pos, "a function cannot return " + q(result) +
                                     " by value (return a pointer)");
        ok = false;
      }
      if (ok) r = T().function(params, result);
      break;
    }
    case TypeExpr::Array: {
      const Type* e = resolve_type(*t.elem, true);
      std::optional<Int> n = const_int(*t.size, "array size");
      if (e->is_error() || !n) break;
      if (*n <= 0) {
        diag_.error(t.size->pos, "array size must be positive, found " + int_to_string(*n));
        break;
      }
      if (e->size != 0 && *n > Int(0x7FFFFFFF / e->size)) {
        diag_.error(t.size->pos, "array " + e->spelling() + "[" + int_to_string(*n) +
                                     "] is too large (at most 2 GiB)");
        break;
      }
      if (e->size == 0 && *n > 0x7FFFFFFF) {
        diag_.error(t.size->pos, "array size is too large");
        break;
      }
      r = T().array(e, uint32_t(*n));
      break;
    }
    }
    t.resolved = r;
    return r;
  }

  void resolve_struct(StructInfo* st, Pos) {
    if (st->state != StructInfo::Unresolved) return;
    GlobalContext gc(*this);
    st->state = StructInfo::InProgress;
    uint32_t offset = 0, align = 1;
    for (Field& f : st->decl->fields) {
      for (const FieldInfo& g : st->fields)
        if (g.name == f.name) {
          diag_.error(f.pos, "duplicate field " + q(f.name) + " in struct " + q(st->name));
          diag_.note(g.pos, "previous declaration of " + q(f.name) + " is here");
        }
      const Type* t = resolve_type(*f.type, true);
      if (t->is_error()) continue;
      offset = (offset + t->align - 1) / t->align * t->align;
      if (uint64_t(offset) + t->size > 0x7FFFFFFF) {
        diag_.error(f.pos, "struct " + q(st->name) + " is too large");
        break;
      }
      st->fields.push_back({f.name, t, offset, f.pos});
      offset += t->size;
      align = std::max(align, t->align);
    }
    st->size = (offset + align - 1) / align * align;
    st->align = align;
    Type* ty = const_cast<Type*>(st->type);
    ty->size = st->size;
    ty->align = st->align;
    st->state = StructInfo::Done;
  }

  // An enum's underlying type and its variants' values, in order: a variant without a
  // value is the previous one's plus one (the first is 0). A value may name constants and
  // the enum's earlier variants.
  void resolve_enum(EnumInfo* en) {
    if (en->state != EnumInfo::Unresolved) return;
    GlobalContext gc(*this);
    en->state = EnumInfo::InProgress;
    Item& it = *en->decl;
    const Type* u = T().integer(32, false);
    if (it.type) {
      const Type* d = resolve_type(*it.type, true);
      if (d->is_int()) u = d;
      else if (!d->is_error())
        diag_.error(it.type->pos, "the underlying type of enum " + q(en->name) +
                                      " must be an integer type, not " + q(d));
    }
    en->underlying = u;
    en->type->bits = u->bits;
    en->type->is_signed = u->is_signed;
    en->type->size = en->type->align = u->size;
    Int next = 0;
    bool next_ok = true; // false after an erroneous value: later implicit values are unknown
    for (Variant& v : it.variants) {
      if (const EnumVariant* prev = en->variant(v.name)) {
        diag_.error(v.pos, "duplicate variant " + q(v.name) + " in enum " + q(en->name));
        diag_.note(prev->pos, "previous declaration of " + q(v.name) + " is here");
        continue;
      }
      Int value = next;
      if (v.value) {
        Expr& e = *v.value;
        check(e, u);
        if (e.ty && e.ty->is_error()) {
          next_ok = false;
          continue;
        }
        if (!e.is_const) {
          diag_.error(e.pos, "the value of " + q(en->name + "." + v.name) +
                                 " must be a constant expression");
          next_ok = false;
          continue;
        }
        if (e.ty && !e.ty->is_int() && e.ty != en->type) {
          diag_.error(e.pos, "the value of " + q(en->name + "." + v.name) +
                                 " must be an integer, found " + q(e.ty));
          next_ok = false;
          continue;
        }
        value = e.cval;
        next_ok = true;
      } else if (!next_ok) {
        continue;
      }
      if (!fits(value, u)) {
        diag_.error(v.value ? v.value->pos : v.pos,
                    "value " + int_to_string(value) + " of " + q(en->name + "." + v.name) +
                        " does not fit " + q(u) + " (the underlying type of " + q(en->name) +
                        ")");
        next_ok = false;
        continue;
      }
      en->variants.push_back({v.name, value, v.pos});
      next = value + 1;
    }
    en->state = EnumInfo::Done;
  }

  // ---------------------------------------------------------------- constants
  // Evaluates an expression that must be a compile-time integer constant.
  std::optional<Int> const_int(Expr& e, const char* what) {
    check(e, nullptr);
    if (e.ty && e.ty->is_error()) return std::nullopt;
    if (!e.is_const) {
      diag_.error(e.pos, std::string(what) + " must be a constant expression");
      return std::nullopt;
    }
    if (e.ty && !e.ty->is_int()) {
      diag_.error(e.pos, std::string(what) + " must be an integer, found " + q(e.ty));
      return std::nullopt;
    }
    return e.cval;
  }

  void eval_const(Symbol* s, Pos use) {
    if (s->cstate == Symbol::Evaluated) return;
    if (s->cstate == Symbol::Evaluating) {
      diag_.error(use, "constant " + q(s->name) + " depends on itself");
      s->type = T().error();
      return;
    }
    GlobalContext gc(*this);
    s->cstate = Symbol::Evaluating;
    const Type* declared = nullptr;
    Expr* e = nullptr;
    Pos tpos;
    if (s->item) {
      e = s->item->expr.get();
      if (s->item->type) declared = resolve_type(*s->item->type, true), tpos = s->item->type->pos;
    }
    finish_const(s, e, declared, tpos);
    // -D gives an integer (assembler/fw/overrides.h); a bool option could never be set.
    if (s->item && s->item->is_option && s->type && !s->type->is_error() && !s->type->is_int()) {
      diag_.error(s->pos, "an option constant must have an integer type, not " + q(s->type));
      s->type = T().error();
    }
    s->cstate = Symbol::Evaluated;
  }

  // Shared by global and local constants.
  void finish_const(Symbol* s, Expr* e, const Type* declared, Pos tpos) {
    if (declared && !declared->is_error() && !declared->is_integral() &&
        declared->kind != Type::Bool) {
      diag_.error(tpos, "a constant must have an integer, enum or bool type, not " +
                            q(declared) + (declared->is_aggregate()
                                               ? " (a table needs an array literal or a string)"
                                               : ""));
      declared = T().error();
    }
    check(*e, declared);
    s->type = declared;
    if ((e->ty && e->ty->is_error()) || (declared && declared->is_error())) {
      s->type = T().error();
      return;
    }
    if (!e->is_const) {
      diag_.error(e->pos, "the value of constant " + q(s->name) +
                              " is not a constant expression");
      s->type = T().error();
      return;
    }
    if (declared) {
      if (!coerce(*e, declared)) {
        s->type = T().error();
        return;
      }
    } else if (e->ty && (e->ty->kind == Type::Bool || e->ty->kind == Type::Enum)) {
      s->type = e->ty;
    } else if (e->ty && !e->ty->is_int()) {
      diag_.error(e->pos, "a constant must have an integer, enum or bool type, not " + q(e->ty));
      s->type = T().error();
      return;
    } else {
      s->type = e->ty; // typed integer, or untyped (nullptr)
    }
    s->value = e->cval;
  }

  // ---------------------------------------------------------------- globals
  std::optional<uint32_t> address_of(Expr& e, const char* what) {
    auto v = const_int(e, what);
    if (!v) return std::nullopt;
    if (*v < 0 || *v > 0xFFFFFFFF) {
      diag_.error(e.pos, std::string(what) + " " + int_to_string(*v) +
                             " is not a 32-bit address");
      return std::nullopt;
    }
    return uint32_t(*v);
  }

  void check_reg(Symbol* s) {
    Item& it = *s->item;
    s->type = resolve_type(*it.type, true);
    if (!s->type->is_error() && !(s->type->is_int() && s->type->bits <= 32 &&
                                  !s->type->is_signed)) {
      diag_.error(it.type->pos, "a register must have type u8, u16 or u32, not " + q(s->type));
      s->type = T().error();
    }
    auto a = address_of(*it.expr, "register address");
    if (!a) return;
    s->address = *a;
    if (!s->type->is_error() && *a % s->type->align)
      diag_.error(it.expr->pos, "register address " + hex(*a) + " is not aligned to " +
                                    std::to_string(s->type->align) + " (the alignment of " +
                                    q(s->type) + ")");
  }

  void check_global(Symbol* s) {
    Item& it = *s->item;
    if (!it.type) { // a constant table written without its type
      diag_.error(it.pos, "constant table " + q(s->name) + " needs a declared type (const " +
                              s->name + ": u32[4] = [...])");
      s->type = T().error();
      return;
    }
    s->type = resolve_type(*it.type, true);
    if (!s->type->is_error() && s->type->size > sram_size_) {
      diag_.error(it.pos, q(s->name) + " (" + std::to_string(s->type->size) +
                                    " bytes) does not fit in SRAM (" +
                                    std::to_string(sram_size_) + " bytes)");
      s->type = T().error();
      return;
    }
    if (it.expr) {
      s->pinned = true;
      auto a = address_of(*it.expr, "pinned address");
      if (!a) {
        s->pinned = false;
      } else if (!s->type->is_error()) {
        s->address = *a;
        if (*a % s->type->align)
          diag_.error(it.expr->pos, "pinned address " + hex(*a) + " of " + q(s->name) +
                                        " is not aligned to " + std::to_string(s->type->align) +
                                        " (the alignment of " + q(s->type) + ")");
        else if (uint64_t(*a) + s->type->size > sram_size_)
          diag_.error(it.expr->pos, q(s->name) + " at " + hex(*a) + " (" +
                                        std::to_string(s->type->size) +
                                        " bytes) lies outside SRAM (" +
                                        std::to_string(sram_size_) + " bytes)");
        else
          pinned_.push_back(s);
      }
      if (it.init) diag_.error(it.init->pos, "a pinned global cannot have an initialiser");
      return;
    }
    if (it.init && !s->type->is_error()) check_init(*it.init, s->type, true, s->is_const_data);
  }

  std::vector<Symbol*> pinned_;

  void check_overlaps() {
    std::stable_sort(pinned_.begin(), pinned_.end(),
                     [](Symbol* a, Symbol* b) { return a->address < b->address; });
    for (size_t i = 0; i < pinned_.size(); ++i)
      for (size_t j = i + 1; j < pinned_.size(); ++j) {
        Symbol *a = pinned_[i], *b = pinned_[j];
        if (uint64_t(a->address) + a->type->size <= b->address) break;
        // Report at whichever was declared later (the one a reader would move).
        Symbol *later = a, *earlier = b;
        if (std::make_pair(b->pos.file, b->pos.offset) > std::make_pair(a->pos.file, a->pos.offset))
          later = b, earlier = a;
        diag_.error(later->item->expr->pos,
                    q(later->name) + " at [" + hex(later->address) + ", " +
                        hex(uint64_t(later->address) + later->type->size) + ") overlaps " +
                        q(earlier->name) + " at [" + hex(earlier->address) + ", " +
                        hex(uint64_t(earlier->address) + earlier->type->size) + ")");
        diag_.note(earlier->pos, q(earlier->name) + " is placed here");
      }
  }

  // Initialiser of a variable of type `t`; `global` requires constants (integers, enum
  // variants, function addresses, strings).
  void check_init(Init& in, const Type* t, bool global, bool constant = false) {
    if (in.is_undef) {
      if (constant)
        diag_.error(in.pos, "a constant cannot be 'undefined'");
      else if (global)
        diag_.error(in.pos, "a global cannot be 'undefined' (globals start at zero)");
      return;
    }
    if (!in.is_list && in.expr->kind == Expr::StringLit) {
      Expr& e = *in.expr;
      check(e, t);
      const bool bytes = t->kind == Type::Array && t->elem->is_int() && t->elem->bits == 8;
      if (bytes) {
        if (e.name.size() > t->count)
          diag_.error(e.pos, "string of " + std::to_string(e.name.size()) +
                                 " bytes does not fit " + q(t));
        return;
      }
      coerce(e, t); // a pointer: the string's address
      return;
    }
    if (in.is_list) {
      if (t->kind != Type::Array) {
        diag_.error(in.pos, "an array initialiser cannot initialise " + q(t));
        return;
      }
      if (in.list.size() > t->count) {
        diag_.error(in.list[t->count].pos, "too many initialisers for " + q(t) + " (" +
                                               std::to_string(in.list.size()) + " given)");
        return;
      }
      for (Init& e : in.list) check_init(e, t->elem, global, constant);
      return;
    }
    Expr& e = *in.expr;
    check(e, t);
    if (e.ty && e.ty->is_error()) return;
    if (t->is_aggregate()) {
      if (global) {
        diag_.error(e.pos, "a global of type " + q(t) +
                               " can only be initialised with an array literal");
        return;
      }
      if (e.ty != t) {
        diag_.error(e.pos, "cannot initialise " + q(t) + " with " + q(e.ty ? e.ty->spelling() : "an integer constant"));
        return;
      }
      return;
    }
    if (!coerce(e, t)) return;
    if (global && !e.is_const && !e.is_fn_address)
      diag_.error(e.pos, "the initialiser of a global must be a constant expression");
  }

  // ---------------------------------------------------------------- functions
  void check_signature(Symbol* s) {
    Item& it = *s->item;
    s->type = it.type ? resolve_type(*it.type, true) : T().void_type();
    if (it.is_handler && !it.params.empty())
      diag_.error(it.params.front().pos, "handler " + q(s->name) +
                                             " cannot take parameters (handlers read their "
                                             "input from registers and queues)");
    if (it.is_handler && it.type)
      diag_.error(it.type->pos, "handler " + q(s->name) + " cannot return a value");
    // crt0.s calls main with no arguments and halts with r8 as the exit status: another
    // signature would read garbage arguments or a meaningless status.
    if (s->name == "main" && it.kind != Item::ExternFn && !it.is_handler) {
      if (!it.params.empty())
        diag_.error(it.params.front().pos, "'main' cannot take parameters (the startup code "
                                           "calls it with none): write 'fn main() -> i32'");
      else if (!it.type || s->type != T().integer(32, true))
        diag_.error(it.type ? it.type->pos : it.pos,
                    "'main' must return i32, its exit status" +
                        (it.type ? ", not " + q(s->type) : std::string(" (write 'fn main() -> i32')")));
    }
    if (s->type->is_aggregate()) {
      diag_.error(it.type->pos, "function " + q(s->name) + " cannot return " + q(s->type) +
                                    " by value (return a pointer)");
      s->type = T().error();
    }
    if (it.params.size() > 16)
      diag_.error(it.params[16].pos, "too many parameters (at most 16)");
    for (size_t i = 0; i < it.params.size(); ++i) {
      Param& p = it.params[i];
      for (size_t j = 0; j < i; ++j)
        if (it.params[j].name == p.name) {
          diag_.error(p.pos, "duplicate parameter " + q(p.name));
          diag_.note(it.params[j].pos, "previous declaration of " + q(p.name) + " is here");
        }
      const Type* t = resolve_type(*p.type, true);
      if (t->is_aggregate()) {
        diag_.error(p.type->pos, "parameter " + q(p.name) + " cannot have type " + q(t) +
                                     " (pass a pointer)");
        t = T().error();
      }
      if (p.is_noalias && !t->is_error() && t->kind != Type::Pointer)
        diag_.error(p.type->pos, "'noalias' applies to pointer parameters, not " + q(t));
      s->params.push_back(t);
      s->param_noalias.push_back(p.is_noalias);
    }
  }

  void check_body(Symbol* fn) {
    Item& it = *fn->item;
    fn_ = fn;
    loops_ = 0;
    scopes_.clear();
    scopes_.emplace_back();
    for (size_t i = 0; i < it.params.size(); ++i) {
      if (i >= fn->params.size()) break;
      Symbol* p = new_symbol(Symbol::Local, it.params[i].name, it.params[i].pos);
      p->type = fn->params[i];
      p->param_index = int(i);
      fn->param_syms.push_back(p);
      scopes_.back().names.push_back({p->name, p});
    }
    for (auto& st : it.body->body) check_stmt(*st);
    if (!fn->type->is_error() && fn->type->kind != Type::Void && !terminates_block(it.body->body))
      diag_.error(it.end_pos, "missing return in function " + q(fn->name) + " (it returns " +
                                  q(fn->type) + ")");
    scopes_.clear();
    fn_ = nullptr;
  }

  // Whether control can never fall off the end of a statement.
  bool terminates(const Stmt& s) {
    switch (s.kind) {
    case Stmt::Return: return true;
    case Stmt::BlockStmt: return terminates_block(s.body);
    case Stmt::If:
      return s.else_stmt && terminates_block(s.body) && terminates(*s.else_stmt);
    case Stmt::Loop: return !has_break(s.body);
    case Stmt::While: return s.always_true && !has_break(s.body);
    case Stmt::Switch: {
      // Only with a default: an enum switch may see a value that is no variant.
      bool has_default = false;
      for (auto& arm : s.body) {
        has_default |= arm->is_default;
        if (!terminates_block(arm->body)) return false;
      }
      return has_default;
    }
    default: return false;
    }
  }
  bool terminates_block(const std::vector<std::unique_ptr<Stmt>>& b) {
    for (auto& s : b)
      if (terminates(*s)) return true;
    return false;
  }
  // A break that leaves this loop (not one of an inner loop).
  bool has_break(const std::vector<std::unique_ptr<Stmt>>& b) {
    for (auto& s : b) {
      if (s->kind == Stmt::Break) return true;
      if (s->kind == Stmt::BlockStmt && has_break(s->body)) return true;
      if (s->kind == Stmt::Switch) // a switch arm's break leaves the enclosing loop
        for (auto& arm : s->body)
          if (has_break(arm->body)) return true;
      if (s->kind == Stmt::If) {
        if (has_break(s->body)) return true;
        for (const Stmt* e = s->else_stmt.get(); e; e = e->else_stmt.get()) {
          if (e->kind == Stmt::BlockStmt && has_break(e->body)) return true;
          if (e->kind == Stmt::If && has_break(e->body)) return true;
        }
      }
    }
    return false;
  }

  Symbol* lookup_local(const std::string& n) {
    for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s)
      for (auto it = s->names.rbegin(); it != s->names.rend(); ++it)
        if (it->first == n) return it->second;
    return nullptr;
  }

  void declare_local(Symbol* s) {
    if (Symbol* prev = lookup_local(s->name)) {
      diag_.error(s->pos, "redefinition of " + q(s->name));
      diag_.note(prev->pos, q(s->name) + " was first declared here");
    }
    scopes_.back().names.push_back({s->name, s});
  }

  void check_block(std::vector<std::unique_ptr<Stmt>>& b) {
    scopes_.emplace_back();
    for (auto& s : b) check_stmt(*s);
    scopes_.pop_back();
  }

  void check_cond(Expr& e) {
    check(e, T().boolean());
    if (e.ty && e.ty->is_error()) return;
    if (!e.ty || e.ty->kind != Type::Bool)
      diag_.error(start_pos(e), "condition must be 'bool', found " +
                             (e.ty ? q(e.ty) : std::string("an integer constant")) +
                             " (compare with 0)");
  }

  void check_stmt(Stmt& s) {
    Diagnostics::StatementScope one_error_per_statement(diag_);
    switch (s.kind) {
    case Stmt::Var: {
      Symbol* v = new_symbol(Symbol::Local, s.name, s.pos);
      s.local = v;
      const Type* t = nullptr;
      if (s.type) t = resolve_type(*s.type, true);
      if (t) {
        if (s.init && !t->is_error()) check_init(*s.init, t, false);
      } else if (s.init && (s.init->is_list || s.init->is_undef)) {
        diag_.error(s.init->pos, s.init->is_undef
                                     ? "an 'undefined' variable needs a declared type"
                                     : "an array literal needs a declared type (var a: u8[4] = [...])");
        t = T().error();
      } else if (s.init) {
        Expr& e = *s.init->expr;
        check(e, nullptr);
        finalize(e);
        t = e.ty ? e.ty : T().error();
        if (t->kind == Type::Void) {
          diag_.error(e.pos, "this expression has no value");
          t = T().error();
        }
      } else {
        diag_.error(s.pos, "variable " + q(s.name) + " needs a type or an initialiser");
        t = T().error();
      }
      if (!t->is_error() && t->size > kMaxFrameBytes) {
        diag_.error(s.pos, "local " + q(s.name) + " (" + std::to_string(t->size) +
                               " bytes) is too large for the stack (a frame holds at most " +
                               std::to_string(kMaxFrameBytes) + " bytes; use a global)");
        t = T().error();
      }
      v->type = t;
      declare_local(v);
      break;
    }
    case Stmt::Const: {
      Init& in = *s.init;
      if (in.is_list || in.is_undef || in.expr->kind == Expr::StringLit) {
        // A table: read-only data like a top-level one, visible in this block only.
        Symbol* c = new_symbol(Symbol::Global, s.name, s.pos);
        c->is_const_data = true;
        c->defined_here = true;
        s.local = c;
        if (!s.type) {
          diag_.error(s.pos, "constant table " + q(s.name) + " needs a declared type (const " +
                                 s.name + ": u32[4] = [...])");
          c->type = T().error();
        } else {
          c->type = resolve_type(*s.type, true);
          if (!c->type->is_error()) check_init(in, c->type, true, true);
        }
        declare_local(c);
        break;
      }
      Symbol* c = new_symbol(Symbol::Const, s.name, s.pos);
      s.local = c;
      const Type* declared = s.type ? resolve_type(*s.type, true) : nullptr;
      finish_const(c, in.expr.get(), declared, s.type ? s.type->pos : s.pos);
      c->cstate = Symbol::Evaluated;
      declare_local(c);
      break;
    }
    case Stmt::Switch: check_switch(s); break;
    case Stmt::Case: break; // checked by check_switch
    case Stmt::For: check_for(s); break;
    case Stmt::If:
      check_cond(*s.expr);
      check_block(s.body);
      if (s.else_stmt) check_stmt(*s.else_stmt);
      break;
    case Stmt::While:
      check_cond(*s.expr);
      s.always_true = s.expr->is_const && s.expr->ty && s.expr->ty->kind == Type::Bool &&
                      s.expr->cval != 0;
      ++loops_;
      check_block(s.body);
      --loops_;
      break;
    case Stmt::Loop:
      ++loops_;
      check_block(s.body);
      --loops_;
      break;
    case Stmt::Break:
    case Stmt::Continue:
      if (loops_ == 0)
        diag_.error(s.pos, std::string(s.kind == Stmt::Break ? "'break'" : "'continue'") +
                               " outside a loop");
      break;
    case Stmt::Return: {
      const Type* rt = fn_->type;
      if (!s.expr) {
        if (rt->kind != Type::Void && !rt->is_error())
          diag_.error(s.pos, "function " + q(fn_->name) + " must return a value of type " +
                                 q(rt));
        break;
      }
      check(*s.expr, rt->kind == Type::Void ? nullptr : rt);
      if (rt->kind == Type::Void) {
        diag_.error(s.expr->pos, (fn_->is_handler ? "handler " : "function ") + q(fn_->name) +
                                     " does not return a value");
        break;
      }
      coerce(*s.expr, rt);
      break;
    }
    case Stmt::BlockStmt: check_block(s.body); break;
    case Stmt::ExprStmt:
      check(*s.expr, nullptr);
      if (s.expr->kind != Expr::Call && !(s.expr->ty && s.expr->ty->is_error()))
        diag_.error(start_pos(*s.expr), "this expression has no effect (only a call can be a statement)");
      break;
    case Stmt::Assign: check_assign(s); break;
    case Stmt::Asm: check_asm(s); break;
    }
  }

  // `switch x { case A, B { } default { } }`: no fall-through; labels are constants of the
  // scrutinee's type (an enum's may be its bare variant names), each value at most once.
  void check_switch(Stmt& s) {
    Expr& x = *s.expr;
    check(x, nullptr);
    if (!x.ty) finalize(x);
    const Type* t = x.ty;
    bool ok = t && !t->is_error();
    if (ok && !t->is_integral()) {
      diag_.error(start_pos(x), "switch needs an integer or an enum, found " + q(t));
      ok = false;
    }
    std::map<Int, Pos> seen;
    const Stmt* default_arm = nullptr;
    for (auto& arm : s.body) {
      {
        Diagnostics::StatementScope one_error_per_arm(diag_);
        if (arm->is_default) {
          if (default_arm) {
            diag_.error(arm->pos, "more than one 'default' in this switch");
            diag_.note(default_arm->pos, "the first 'default' is here");
          }
          default_arm = arm.get();
        }
        for (auto& vp : arm->values) {
          Expr& v = *vp;
          const EnumVariant* bare = nullptr;
          if (ok && t->kind == Type::Enum && v.kind == Expr::Name && !lookup_local(v.name))
            bare = t->en->variant(v.name);
          if (bare) { // `case PARANOID` in a switch on a Mode
            v.ty = t;
            v.is_const = true;
            v.cval = bare->value;
          } else {
            check(v, ok ? t : nullptr);
          }
          if (v.ty && v.ty->is_error()) continue;
          if (!v.is_const) {
            diag_.error(start_pos(v), "a case label must be a constant expression");
            continue;
          }
          if (!ok || !coerce(v, t)) continue;
          auto [at, fresh] = seen.emplace(v.cval, v.pos);
          if (!fresh) {
            diag_.error(start_pos(v), "duplicate case value " + value_text(v.cval, t));
            diag_.note(at->second, value_text(v.cval, t) + " is first handled here");
          }
        }
      }
      check_block(arm->body);
    }
    if (ok && t->kind == Type::Enum && !default_arm) {
      std::string missing;
      unsigned n = 0;
      for (const EnumVariant& v : t->en->variants)
        if (!seen.count(v.value)) {
          if (n < 4) missing += std::string(n ? ", " : "") + t->en->name + "." + v.name;
          ++n;
        }
      if (n > 4) missing += " and " + std::to_string(n - 4) + " more";
      if (n)
        diag_.error(s.pos, "switch on " + q(t) + " does not handle " + missing +
                               " (add the cases or a 'default')");
    }
  }

  // A case value as the reader wrote it: an enum's variant name, else the number.
  static std::string value_text(Int v, const Type* t) {
    if (t->kind == Type::Enum)
      for (const EnumVariant& e : t->en->variants)
        if (e.value == v) return t->en->name + "." + e.name;
    return int_to_string(v);
  }

  // `for i in a .. b { }`: i takes a, a + 1, ..., b - 1 (none if a >= b); b is evaluated
  // once, before the first iteration. i's type is declared, else the bounds' common type.
  void check_for(Stmt& s) {
    Expr& a = *s.expr;
    Expr& b = *s.target;
    const Type* t = s.type ? resolve_type(*s.type, true) : nullptr;
    check(a, t);
    check(b, t);
    bool ok = !(t && t->is_error()) && !(a.ty && a.ty->is_error()) && !(b.ty && b.ty->is_error());
    if (ok && t && !t->is_int()) {
      diag_.error(s.type->pos, "a 'for' variable must have an integer type, not " + q(t));
      ok = false;
    }
    if (ok && !t) {
      for (Expr* x : {&a, &b})
        if (ok && x->ty && !x->ty->is_int()) {
          diag_.error(start_pos(*x), "a 'for' range needs integers, found " + q(x->ty));
          ok = false;
        }
      if (ok) {
        if (!a.ty && !b.ty) finalize(a), t = a.ty;
        else if (!a.ty) t = b.ty;
        else if (!b.ty) t = a.ty;
        else if (implicitly_converts(a.ty, b.ty)) t = b.ty;
        else if (implicitly_converts(b.ty, a.ty)) t = a.ty;
        else {
          diag_.error(start_pos(b), "the bounds of this 'for' have mismatched types " +
                                        q(a.ty) + " and " + q(b.ty) + " (convert one with 'as')");
          ok = false;
        }
      }
    }
    if (ok) ok = coerce(a, t) && coerce(b, t);
    Symbol* v = new_symbol(Symbol::Local, s.name, s.pos);
    v->type = ok ? t : T().error();
    v->read_only = true;
    s.local = v;
    scopes_.emplace_back();
    declare_local(v);
    ++loops_;
    check_block(s.body);
    --loops_;
    scopes_.pop_back();
  }

  // The variable an lvalue is part of (an element or field of it), or nullptr when the
  // lvalue is reached through a pointer.
  static const Symbol* root_symbol(const Expr& e) {
    switch (e.kind) {
    case Expr::Name: return e.sym;
    case Expr::Index:
      return e.lhs->ty && e.lhs->ty->kind == Type::Array ? root_symbol(*e.lhs) : nullptr;
    case Expr::Field: return e.field_through_pointer ? nullptr : root_symbol(*e.lhs);
    default: return nullptr;
    }
  }

  bool check_assignable(Expr& t) {
    if (t.ty && t.ty->is_error()) return false;
    if (t.kind == Expr::Name && t.sym && t.sym->kind == Symbol::Const) {
      diag_.error(t.pos, "cannot assign to constant " + q(t.sym->name));
      return false;
    }
    if (const Symbol* root = root_symbol(t)) {
      if (root->is_const_data) {
        diag_.error(start_pos(t), "cannot assign to constant table " + q(root->name));
        return false;
      }
      if (root->read_only) {
        diag_.error(start_pos(t), "cannot assign to loop variable " + q(root->name) +
                                      " (the loop counts it; use a 'while' loop to step it "
                                      "yourself)");
        return false;
      }
    }
    if (!is_lvalue(t)) {
      diag_.error(start_pos(t), "cannot assign to this expression (not a variable, field, element "
                         "or register)");
      return false;
    }
    return true;
  }

  void check_assign(Stmt& s) {
    Expr& t = *s.target;
    check(t, nullptr);
    if (!check_assignable(t)) {
      check(*s.expr, nullptr);
      return;
    }
    if (!s.compound) {
      check(*s.expr, t.ty);
      if (s.expr->ty && s.expr->ty->is_error()) return;
      if (t.ty->is_aggregate()) {
        if (s.expr->ty != t.ty)
          diag_.error(s.expr->pos, "cannot assign " +
                                       (s.expr->ty ? q(s.expr->ty) : std::string("a constant")) +
                                       " to " + q(t.ty));
        return;
      }
      coerce(*s.expr, t.ty);
      return;
    }
    // Compound: the operation is computed in the target's type.
    Expr& r = *s.expr;
    const char* op = binop_spelling(s.op);
    if (s.op == BinOp::Shl || s.op == BinOp::Shr) {
      check(r, nullptr);
      if (r.ty && r.ty->is_error()) return;
      if (!t.ty->is_int()) {
        diag_.error(s.pos, std::string("operator '") + op + "=' cannot be applied to " + q(t.ty));
        return;
      }
      shift_amount(r, t.ty);
      return;
    }
    if (t.ty->kind == Type::Pointer && (s.op == BinOp::Add || s.op == BinOp::Sub)) {
      check(r, nullptr);
      index_operand(r);
      return;
    }
    check(r, t.ty);
    if (r.ty && r.ty->is_error()) return;
    if (!t.ty->is_int()) {
      diag_.error(s.pos, std::string("operator '") + op + "=' cannot be applied to " + q(t.ty));
      return;
    }
    if (!coerce(r, t.ty)) return;
    if ((s.op == BinOp::Div || s.op == BinOp::Rem) && r.is_const && r.cval == 0)
      diag_.error(r.pos, "division by zero");
  }

  void check_asm(Stmt& s) {
    // Directives MC would run out of memory or time on (`.fill 0x40000000, 4, 0`): MC cannot
    // be stopped once the backend hands it the template.
    for (const assembler::AsmLimitProblem& p : assembler::asm_limit_problems(s.asm_template, sram_size_))
      diag_.error(s.pos, "in the asm template: " + p.message);
    // Operand references in the template: $N, ${N}, ${N:mod}, $$.
    const std::string& tpl = s.asm_template;
    const size_t nops = s.outputs.size() + s.inputs.size();
    for (size_t i = 0; i < tpl.size(); ++i) {
      if (tpl[i] != '$') continue;
      if (i + 1 < tpl.size() && tpl[i + 1] == '$') {
        ++i;
        continue;
      }
      size_t j = i + 1;
      bool brace = j < tpl.size() && tpl[j] == '{';
      if (brace) ++j;
      size_t n = 0, digits = 0;
      while (j < tpl.size() && std::isdigit((unsigned char)tpl[j]) && digits < 4)
        n = n * 10 + size_t(tpl[j] - '0'), ++j, ++digits;
      if (digits == 0 || n >= nops) {
        diag_.error(s.pos, "asm template refers to operand " +
                               (digits ? "$" + std::to_string(n) : std::string("'$'")) +
                               " but there are " + std::to_string(nops) +
                               " operands (write $$ for a literal '$')");
        return;
      }
      if (brace) {
        while (j < tpl.size() && tpl[j] != '}') {
          if (!std::isalnum((unsigned char)tpl[j]) && tpl[j] != ':') break;
          ++j;
        }
        if (j >= tpl.size() || tpl[j] != '}') {
          diag_.error(s.pos, "malformed operand reference in asm template");
          return;
        }
      }
      i = j - 1 + (brace ? 1 : 0);
    }
    for (AsmOperand& o : s.outputs) {
      check(*o.expr, nullptr);
      if (o.constraint != "=r" && o.constraint != "=&r" && o.constraint != "+r") {
        diag_.error(o.pos, "unsupported output constraint " + q(o.constraint) +
                               " (use \"=r\", \"=&r\" or \"+r\")");
        continue;
      }
      if (!check_assignable(*o.expr)) continue;
      if (!o.expr->ty->is_scalar())
        diag_.error(o.expr->pos, "an asm operand must be a scalar, not " + q(o.expr->ty));
      else if (o.expr->ty->size == 8)
        diag_.error(o.expr->pos, "64-bit asm operands are not supported");
    }
    for (AsmOperand& o : s.inputs) {
      check(*o.expr, nullptr);
      if (o.expr->ty && o.expr->ty->is_error()) continue;
      if (o.constraint == "i" || o.constraint == "n") {
        if (!o.expr->is_const) {
          diag_.error(o.expr->pos, "an \"" + o.constraint + "\" operand must be a constant");
          continue;
        }
      } else if (o.constraint != "r") {
        diag_.error(o.pos, "unsupported input constraint " + q(o.constraint) +
                               " (use \"r\", \"i\" or \"n\")");
        continue;
      }
      finalize(*o.expr);
      if (o.expr->ty && !o.expr->ty->is_error() && !o.expr->ty->is_scalar())
        diag_.error(o.expr->pos, "an asm operand must be a scalar, not " + q(o.expr->ty));
      else if (o.expr->ty && o.expr->ty->size == 8)
        diag_.error(o.expr->pos, "64-bit asm operands are not supported");
    }
    for (auto& [pos, c] : s.clobbers) {
      std::string r = c;
      if (!r.empty() && r[0] == '%') r = r.substr(1);
      bool ok = r == "memory" || r == "cc";
      if (r.size() >= 2 && r.size() <= 3 && r[0] == 'r' && std::isdigit((unsigned char)r[1])) {
        int n = std::atoi(r.c_str() + 1);
        ok = (r.size() == 2 || std::isdigit((unsigned char)r[2])) && n >= 0 && n <= 31;
      }
      if (!ok) diag_.error(pos, "unknown clobber " + q(c) + " (use \"memory\" or r0..r31)");
    }
  }

  // ---------------------------------------------------------------- expressions
  bool is_lvalue(const Expr& e) {
    switch (e.kind) {
    case Expr::Name:
      return e.sym && (e.sym->kind == Symbol::Local || e.sym->kind == Symbol::Global ||
                       e.sym->kind == Symbol::Reg);
    case Expr::Unary: return e.uop == UnOp::Deref;
    case Expr::Index: return e.lhs->ty && e.lhs->ty->kind == Type::Pointer ? true : is_lvalue(*e.lhs);
    case Expr::Field: return e.field_through_pointer || is_lvalue(*e.lhs);
    default: return false;
    }
  }

  // Where an expression starts (binary expressions are positioned at their operator).
  static Pos start_pos(const Expr& e) {
    const Expr* x = &e;
    while ((x->kind == Expr::Binary || x->kind == Expr::Index || x->kind == Expr::Field ||
            x->kind == Expr::Call || x->kind == Expr::Cast) && x->lhs)
      x = x->lhs.get();
    return x->pos;
  }

  void set_error(Expr& e) {
    e.ty = T().error();
    e.is_const = false;
  }

  // Gives an untyped constant its default type (i32, else i64, else u64).
  void finalize(Expr& e) {
    if (e.ty) return;
    if (fits(e.cval, T().integer(32, true))) e.ty = T().integer(32, true);
    else if (fits(e.cval, T().integer(64, true))) e.ty = T().integer(64, true);
    else if (fits(e.cval, T().integer(64, false))) e.ty = T().integer(64, false);
    else {
      diag_.error(e.pos, "constant " + int_to_string(e.cval) + " does not fit in any integer type");
      set_error(e);
    }
  }

  // Converts `e` to type `to` implicitly or reports why not.
  bool coerce(Expr& e, const Type* to) {
    if (to->is_error() || (e.ty && e.ty->is_error())) return false;
    if (!e.ty) {
      if (to->is_int() && fits(e.cval, to)) {
        e.ty = to;
        return true;
      }
      if (to->is_int())
        diag_.error(e.pos, "constant " + int_to_string(e.cval) + " does not fit in " + q(to));
      else
        diag_.error(e.pos, "expected " + q(to) + ", found an integer constant");
      set_error(e);
      return false;
    }
    if (e.ty->kind == Type::Void) {
      diag_.error(e.pos, "this expression has no value (expected " + q(to) + ")");
      return false;
    }
    if (implicitly_converts(e.ty, to)) {
      return true;
    }
    diag_.error(start_pos(e), "expected " + q(to) + ", found " + q(e.ty) +
                           (e.ty->is_scalar() && to->is_scalar() ? " (convert with 'as')" : ""));
    return false;
  }

  // The right operand of a shift: any integer; a constant must be non-negative.
  void shift_amount(Expr& r, const Type* lhs_type) {
    if (r.ty && r.ty->is_error()) return;
    if (!r.ty) {
      if (r.cval < 0) {
        diag_.error(r.pos, "negative shift amount " + int_to_string(r.cval));
        set_error(r);
        return;
      }
      if (lhs_type && r.cval >= lhs_type->bits) {
        diag_.error(r.pos, "shift amount " + int_to_string(r.cval) + " is too large for " +
                               q(lhs_type));
        set_error(r);
        return;
      }
      r.ty = T().integer(32, false);
      return;
    }
    if (!r.ty->is_int())
      diag_.error(r.pos, "shift amount must be an integer, found " + q(r.ty));
  }

  // An index or pointer offset: any integer; untyped constants become i32 (or u32).
  void index_operand(Expr& r) {
    if (r.ty && r.ty->is_error()) return;
    if (!r.ty) {
      finalize(r);
      if (r.ty && r.ty->bits == 64) {
        diag_.error(r.pos, "index " + int_to_string(r.cval) + " is out of range");
        set_error(r);
      }
      return;
    }
    if (!r.ty->is_int()) {
      diag_.error(r.pos, "an index must be an integer, found " + q(r.ty));
      set_error(r);
    }
  }

  // Folds an integer operation on exact values: untyped constants are evaluated with 128
  // bits (an intermediate may exceed 64: `(1 << 100) >> 90` is 1024), typed ones in their
  // type, where a sum, difference or product that does not fit is an error like any
  // overflow of the exact range (shifts and bitwise operations drop bits by definition).
  // nullopt (after an error) on division by zero or overflow.
  std::optional<Int> fold(BinOp op, Int a, Int b, const Type* t, Pos pos) {
    Int r = 0;
    bool overflow = false;
    switch (op) {
    case BinOp::Add: overflow = __builtin_add_overflow(a, b, &r); break;
    case BinOp::Sub: overflow = __builtin_sub_overflow(a, b, &r); break;
    case BinOp::Mul: {
      // Overflow check by division (a 128-bit __builtin_mul_overflow needs compiler-rt).
      using U = unsigned __int128;
      const U ua = a < 0 ? U(0) - U(a) : U(a), ub = b < 0 ? U(0) - U(b) : U(b);
      const U limit = (U(1) << 127) - ((a < 0) == (b < 0) ? 1 : 0); // 2^127-1, or 2^127
      if (ua != 0 && ub > limit / ua) overflow = true;
      else r = Int(U(a) * U(b));
      break;
    }
    case BinOp::Div:
    case BinOp::Rem:
      if (b == 0) {
        diag_.error(pos, "division by zero in a constant expression");
        return std::nullopt;
      }
      r = op == BinOp::Div ? a / b : a % b;
      break;
    case BinOp::And: r = a & b; break;
    case BinOp::Or: r = a | b; break;
    case BinOp::Xor: r = a ^ b; break;
    case BinOp::Shl:
      if (t) { // in the type: bits shifted out are gone (b < width, checked by the caller)
        r = Int((unsigned __int128)a << (b >= 127 ? 127 : b));
        break;
      }
      if (a == 0 || b == 0) r = a;
      else if (b >= 127) overflow = true;
      else {
        // a * 2^b must stay in [-2^127, 2^127): a in [-2^(127-b), 2^(127-b)). (The limit is
        // formed for b >= 1 only: 2^127 itself is not an __int128.)
        const Int limit = Int(1) << (127 - int(b));
        if (a >= limit || a < -limit) overflow = true;
        else r = Int((unsigned __int128)a << b);
      }
      break;
    case BinOp::Shr:
      if (t && !t->is_signed) r = Int((unsigned __int128)a >> (b >= 127 ? 127 : b));
      else r = b >= 127 ? (a < 0 ? -1 : 0) : (a >> b);
      break;
    case BinOp::Eq: return Int(a == b);
    case BinOp::Ne: return Int(a != b);
    case BinOp::Lt: return Int(a < b);
    case BinOp::Le: return Int(a <= b);
    case BinOp::Gt: return Int(a > b);
    case BinOp::Ge: return Int(a >= b);
    case BinOp::LAnd: return Int(a && b);
    case BinOp::LOr: return Int(a || b);
    }
    if (t && !overflow && (op == BinOp::Add || op == BinOp::Sub || op == BinOp::Mul) &&
        !fits(r, t)) {
      diag_.error(pos, "constant expression overflows " + q(t) + " (the exact value is " +
                           int_to_string(r) + "; convert an operand with 'as' to compute in "
                           "a wider type)");
      return std::nullopt;
    }
    if (overflow) {
      diag_.error(pos, "constant expression overflows (constants are evaluated with 128 bits)");
      return std::nullopt;
    }
    if (t) return wrap(r, t);
    return r;
  }

  void check(Expr& e, const Type* hint) {
    if (e.checked && e.checked_hint == hint) return;
    e.checked = true;
    e.checked_hint = hint;
    e.ty = nullptr;
    e.is_const = false;
    e.cval = 0;
    e.context_typed = false;
    e.is_fn_address = false;
    switch (e.kind) {
    case Expr::IntLit:
      e.ty = nullptr;
      e.is_const = true;
      e.cval = e.value;
      return;
    case Expr::BoolLit:
      e.ty = T().boolean();
      e.is_const = true;
      e.cval = e.value;
      return;
    case Expr::Name: return check_name(e);
    case Expr::Binary: return check_binary(e, hint);
    case Expr::Unary: return check_unary(e, hint);
    case Expr::Cast: return check_cast(e);
    case Expr::Index: return check_index(e);
    case Expr::Field: return check_field(e);
    case Expr::Call: return check_call(e, hint);
    case Expr::StringLit: // the address of a NUL-terminated copy in read-only data
      e.ty = T().pointer(T().integer(8, false));
      return;
    case Expr::SizeOf: {
      const Type* t = resolve_type(*e.type, true);
      if (t->is_error()) return set_error(e);
      e.ty = nullptr;
      e.is_const = true;
      e.cval = t->size;
      return;
    }
    case Expr::OffsetOf: {
      const Type* t = resolve_type(*e.type, true);
      if (t->is_error()) return set_error(e);
      if (t->kind != Type::Struct) {
        diag_.error(e.type->pos, "offsetof needs a struct type, found " + q(t));
        return set_error(e);
      }
      const FieldInfo* f = t->st->field(e.name);
      if (!f) {
        diag_.error(e.pos, "struct " + q(t->st->name) + " has no field " + q(e.name));
        return set_error(e);
      }
      e.ty = nullptr;
      e.is_const = true;
      e.cval = f->offset;
      return;
    }
    }
  }

  void check_name(Expr& e) {
    Symbol* s = lookup_local(e.name);
    if (!s) {
      auto it = m_.globals.find(e.name);
      if (it != m_.globals.end()) s = it->second;
    }
    if (!s) {
      diag_.error(e.pos, "unknown name " + q(e.name));
      return set_error(e);
    }
    e.sym = s;
    switch (s->kind) {
    case Symbol::Const:
      eval_const(s, e.pos);
      if (s->type && s->type->is_error()) return set_error(e);
      e.ty = s->type;
      e.is_const = true;
      e.cval = s->value;
      return;
    case Symbol::StructSym:
    case Symbol::EnumSym:
      diag_.error(e.pos, q(e.name) + " is a type, not a value");
      return set_error(e);
    case Symbol::Func:
      // Its address, of type fn(params) -> result: stored in tables, called through.
      if (s->type && s->type->is_error()) return set_error(e);
      for (const Type* p : s->params)
        if (p->is_error()) return set_error(e);
      e.ty = T().function(s->params, s->type ? s->type : T().void_type());
      e.is_fn_address = true;
      return;
    default:
      e.ty = s->type ? s->type : T().error();
      return;
    }
  }

  const Type* int_hint(const Type* hint) { return hint && hint->is_int() ? hint : nullptr; }

  // Whether an untyped constant expression's value depends on the type it is given: it
  // contains `~` applied to an untyped operand.
  static bool width_sensitive(const Expr& e) {
    if (e.ty || !e.is_const) return false;
    if (e.kind == Expr::Unary && e.uop == UnOp::BitNot) return true;
    if (e.kind == Expr::Unary || e.kind == Expr::Binary)
      return (e.lhs && width_sensitive(*e.lhs)) || (e.rhs && width_sensitive(*e.rhs));
    return false;
  }

  void check_binary(Expr& e, const Type* hint) {
    Expr& a = *e.lhs;
    Expr& b = *e.rhs;
    const char* op = binop_spelling(e.bop);
    if (e.bop == BinOp::LAnd || e.bop == BinOp::LOr) {
      check(a, T().boolean());
      check(b, T().boolean());
      bool ok = true;
      for (Expr* x : {&a, &b}) {
        if (x->ty && x->ty->is_error()) ok = false;
        else if (!x->ty || x->ty->kind != Type::Bool) {
          diag_.error(x->pos, std::string("operands of '") + op + "' must be 'bool', found " +
                                  (x->ty ? q(x->ty) : std::string("an integer constant")));
          ok = false;
        }
      }
      if (!ok) return set_error(e);
      e.ty = T().boolean();
      if (a.is_const && b.is_const) {
        e.is_const = true;
        e.cval = e.bop == BinOp::LAnd ? (a.cval && b.cval) : (a.cval || b.cval);
      }
      return;
    }
    if (e.bop == BinOp::Shl || e.bop == BinOp::Shr) {
      check(a, int_hint(hint));
      check(b, nullptr);
      if ((a.ty && a.ty->is_error()) || (b.ty && b.ty->is_error())) return set_error(e);
      if (!a.ty && !(b.is_const)) {
        // `1 << n`: the constant takes the context's type.
        if (const Type* h = int_hint(hint)) {
          if (!coerce(a, h)) return set_error(e);
        } else {
          finalize(a);
        }
        e.context_typed = true;
      }
      if (a.ty && !a.ty->is_int()) {
        diag_.error(e.pos, std::string("operator '") + op + "' cannot be applied to " + q(a.ty));
        return set_error(e);
      }
      shift_amount(b, a.ty);
      if (b.ty && b.ty->is_error()) return set_error(e);
      e.ty = a.ty;
      if (a.is_const && b.is_const) {
        if (b.cval < 0) {
          diag_.error(b.pos, "negative shift amount " + int_to_string(b.cval));
          return set_error(e);
        }
        auto r = fold(e.bop, a.cval, b.cval, a.ty, e.pos);
        if (!r) return set_error(e);
        e.is_const = true;
        e.cval = *r;
      }
      return;
    }
    const bool cmp = is_comparison(e.bop);
    // An untyped constant takes its type from the operand it meets, and only from the
    // context when both are untyped: `flags & ~0x0F` is `flags & 0xFFFFFFF0` for a u32
    // flags in any context. Only `~` on an untyped operand depends on the type it is given
    // (everything else folds exactly), so only such operands are checked again.
    // The same holds for an operand whose type came from the context (`1 << n`): it takes
    // its sibling's type, else the context's.
    check(a, nullptr);
    check(b, nullptr);
    if ((a.ty && a.ty->is_error()) || (b.ty && b.ty->is_error())) return set_error(e);
    {
      const bool da = width_sensitive(a) || a.context_typed;
      const bool db = width_sensitive(b) || b.context_typed;
      const bool fa = !a.ty || da, fb = !b.ty || db; // free to take another type
      if (da && !fb && b.ty->is_int()) check(a, b.ty);
      else if (db && !fa && a.ty->is_int()) check(b, a.ty);
      else if ((da || db) && fa && fb && !cmp && int_hint(hint)) {
        if (da) check(a, hint);
        if (db) check(b, hint);
      }
      if ((a.ty && a.ty->is_error()) || (b.ty && b.ty->is_error())) return set_error(e);
      e.context_typed = (da || db) && fa && fb && !cmp;
    }
    for (Expr* x : {&a, &b})
      if (x->ty && x->ty->kind == Type::Void) {
        diag_.error(x->pos, "this expression has no value");
        return set_error(e);
      }
    // Pointers.
    const bool pa = a.ty && a.ty->kind == Type::Pointer, pb = b.ty && b.ty->kind == Type::Pointer;
    if (pa || pb) {
      if (cmp && pa && pb && a.ty == b.ty) {
        e.ty = T().boolean();
        return;
      }
      if (!cmp && pa && !pb && (e.bop == BinOp::Add || e.bop == BinOp::Sub) &&
          (!b.ty || b.ty->is_int())) {
        index_operand(b);
        e.ty = a.ty;
        return;
      }
      if (!cmp && pb && !pa && e.bop == BinOp::Add && (!a.ty || a.ty->is_int())) {
        index_operand(a);
        e.ty = b.ty;
        return;
      }
      diag_.error(e.pos, std::string("operator '") + op + "' cannot be applied to " +
                             (a.ty ? q(a.ty) : std::string("an integer constant")) + " and " +
                             (b.ty ? q(b.ty) : std::string("an integer constant")));
      return set_error(e);
    }
    // Enums compare with their own type (all six operators, by value); function
    // addresses for equality.
    const bool oa = a.ty && (a.ty->kind == Type::Enum || a.ty->kind == Type::Func),
               ob = b.ty && (b.ty->kind == Type::Enum || b.ty->kind == Type::Func);
    if (oa || ob) {
      if (cmp && a.ty == b.ty &&
          (a.ty->kind == Type::Enum || e.bop == BinOp::Eq || e.bop == BinOp::Ne)) {
        e.ty = T().boolean();
        if (a.is_const && b.is_const) {
          auto r = fold(e.bop, a.cval, b.cval, nullptr, e.pos);
          if (!r) return set_error(e);
          e.is_const = true;
          e.cval = *r;
        }
        return;
      }
      diag_.error(e.pos, std::string("operator '") + op + "' cannot be applied to " +
                             (a.ty ? q(a.ty) : std::string("an integer constant")) + " and " +
                             (b.ty ? q(b.ty) : std::string("an integer constant")) +
                             (a.ty && b.ty && a.ty->kind == Type::Enum && b.ty->kind == Type::Enum
                                  ? ""
                              : (oa ? a.ty : b.ty)->kind == Type::Enum
                                  ? " (convert with 'as', or compare with a variant)"
                                  : ""));
      return set_error(e);
    }
    // Booleans compare for equality only.
    const bool ba = a.ty && a.ty->kind == Type::Bool, bb = b.ty && b.ty->kind == Type::Bool;
    if (ba || bb) {
      if ((e.bop == BinOp::Eq || e.bop == BinOp::Ne) && ba && bb) {
        e.ty = T().boolean();
        if (a.is_const && b.is_const) {
          e.is_const = true;
          e.cval = e.bop == BinOp::Eq ? a.cval == b.cval : a.cval != b.cval;
        }
        return;
      }
      diag_.error(e.pos, std::string("operator '") + op + "' cannot be applied to " +
                             q(ba ? a.ty : b.ty));
      return set_error(e);
    }
    for (Expr* x : {&a, &b})
      if (x->ty && !x->ty->is_int()) {
        diag_.error(e.pos, std::string("operator '") + op + "' cannot be applied to " + q(x->ty));
        return set_error(e);
      }
    const Type* t = nullptr;
    if (!a.ty && !b.ty) {
      t = nullptr; // exact
    } else if (!a.ty) {
      if (!coerce(a, b.ty)) return set_error(e);
      t = b.ty;
    } else if (!b.ty) {
      if (!coerce(b, a.ty)) return set_error(e);
      t = a.ty;
    } else if (implicitly_converts(a.ty, b.ty)) {
      t = b.ty;
    } else if (implicitly_converts(b.ty, a.ty)) {
      t = a.ty;
    } else {
      diag_.error(e.pos, std::string("operands of '") + op + "' have mismatched types " +
                             q(a.ty) + " and " + q(b.ty) + " (convert one with 'as')");
      return set_error(e);
    }
    e.ty = cmp ? T().boolean() : t;
    if ((e.bop == BinOp::Div || e.bop == BinOp::Rem) && b.is_const && b.cval == 0 && !a.is_const) {
      diag_.error(e.pos, "division by zero");
      return set_error(e);
    }
    if (a.is_const && b.is_const) {
      auto r = fold(e.bop, a.cval, b.cval, t, e.pos);
      if (!r) return set_error(e);
      e.is_const = true;
      e.cval = *r;
    }
  }

  void check_unary(Expr& e, const Type* hint) {
    Expr& a = *e.lhs;
    switch (e.uop) {
    case UnOp::Neg:
    case UnOp::BitNot: {
      check(a, int_hint(hint));
      if (a.ty && a.ty->is_error()) return set_error(e);
      if (!a.ty && e.uop == UnOp::BitNot && int_hint(hint)) {
        // `~MASK` takes the context's width, so ~0x0F for a u8 is 0xF0.
        if (!coerce(a, hint)) return set_error(e);
      }
      if (a.ty && !a.ty->is_int()) {
        diag_.error(e.pos, std::string("operator '") + (e.uop == UnOp::Neg ? "-" : "~") +
                               "' cannot be applied to " + q(a.ty));
        return set_error(e);
      }
      e.ty = a.ty;
      e.context_typed = a.context_typed;
      if (a.is_const) {
        if (e.uop == UnOp::Neg && !a.ty && a.cval == -a.cval && a.cval != 0) { // -(-2^127)
          diag_.error(e.pos, "constant expression overflows (constants are evaluated with 128 bits)");
          return set_error(e);
        }
        e.is_const = true;
        Int v = e.uop == UnOp::Neg ? Int(0 - (unsigned __int128)a.cval) : ~a.cval;
        e.cval = a.ty ? wrap(v, a.ty) : v;
      }
      return;
    }
    case UnOp::Not:
      check(a, T().boolean());
      if (a.ty && a.ty->is_error()) return set_error(e);
      if (!a.ty || a.ty->kind != Type::Bool) {
        diag_.error(e.pos, "operator '!' needs 'bool', found " +
                               (a.ty ? q(a.ty) : std::string("an integer constant")) +
                               " (use '~' for bits)");
        return set_error(e);
      }
      e.ty = a.ty;
      if (a.is_const) e.is_const = true, e.cval = !a.cval;
      return;
    case UnOp::Deref:
      check(a, nullptr);
      if (a.ty && a.ty->is_error()) return set_error(e);
      if (!a.ty || a.ty->kind != Type::Pointer) {
        diag_.error(e.pos, "cannot dereference " +
                               (a.ty ? q(a.ty) : std::string("an integer constant")) +
                               " (not a pointer)");
        return set_error(e);
      }
      if (a.ty->elem->kind == Type::Struct && a.ty->elem->st->state != StructInfo::Done)
        return set_error(e);
      e.ty = a.ty->elem;
      return;
    case UnOp::AddrOf:
      check(a, nullptr);
      if (a.ty && a.ty->is_error()) return set_error(e);
      if (a.kind == Expr::Name && a.sym && a.sym->kind == Symbol::Reg) {
        diag_.error(e.pos, "cannot take the address of register " + q(a.sym->name));
        return set_error(e);
      }
      if (a.kind == Expr::Name && a.sym && a.sym->kind == Symbol::Const) {
        diag_.error(e.pos, "cannot take the address of constant " + q(a.sym->name));
        return set_error(e);
      }
      if (!is_lvalue(a)) {
        diag_.error(e.pos, "cannot take the address of this expression");
        return set_error(e);
      }
      e.ty = T().pointer(a.ty);
      return;
    }
  }

  void check_cast(Expr& e) {
    Expr& a = *e.lhs;
    const Type* to = resolve_type(*e.type, false);
    check(a, nullptr);
    if (to->is_error() || (a.ty && a.ty->is_error())) return set_error(e);
    e.ty = to;
    const Type* from = a.ty;
    auto bad = [&] {
      diag_.error(e.pos, "cannot cast " + (from ? q(from) : std::string("an integer constant")) +
                             " to " + q(to) +
                             (to->kind == Type::Bool ? " (compare with 0 instead)" : ""));
      set_error(e);
    };
    if (!from) { // untyped constant
      if (to->is_integral()) {
        e.is_const = true;
        e.cval = wrap(a.cval, to);
        return;
      }
      if (to->kind == Type::Pointer || to->kind == Type::Func) {
        if (a.cval < 0 || a.cval > 0xFFFFFFFF) return bad();
        a.ty = T().integer(32, false);
        e.is_const = true; // a constant address (usable in global initialisers)
        e.cval = a.cval;
        return;
      }
      return bad();
    }
    if (from == to) {
      e.is_const = a.is_const;
      e.cval = a.cval;
      return;
    }
    // Integers, bool and enums convert by value (an enum as its underlying integer).
    if ((to->is_int() && (from->is_integral() || from->kind == Type::Bool)) ||
        (to->kind == Type::Enum && from->is_int())) {
      if (a.is_const) e.is_const = true, e.cval = wrap(a.cval, to);
      return;
    }
    // Addresses: pointers and function addresses convert to each other and to 32 bits.
    const bool to_addr = to->kind == Type::Pointer || to->kind == Type::Func;
    const bool from_addr = from->kind == Type::Pointer || from->kind == Type::Func;
    if (to_addr && from_addr) return;
    if (to_addr && from->is_int() && from->bits == 32) {
      if (a.is_const) e.is_const = true, e.cval = wrap(a.cval, T().integer(32, false));
      return;
    }
    if (from_addr && to->is_int() && to->bits == 32) return;
    bad();
  }

  void check_index(Expr& e) {
    Expr& a = *e.lhs;
    Expr& i = *e.rhs;
    check(a, nullptr);
    check(i, nullptr);
    if ((a.ty && a.ty->is_error()) || (i.ty && i.ty->is_error())) return set_error(e);
    if (!a.ty || (a.ty->kind != Type::Array && a.ty->kind != Type::Pointer)) {
      diag_.error(e.pos, "cannot index " + (a.ty ? q(a.ty) : std::string("an integer constant")) +
                             " (not an array or pointer)");
      return set_error(e);
    }
    if (i.is_const && a.ty->kind == Type::Array && (i.cval < 0 || i.cval >= a.ty->count)) {
      diag_.error(i.pos, "index " + int_to_string(i.cval) + " is out of bounds for " + q(a.ty));
      return set_error(e);
    }
    index_operand(i);
    if (i.ty && i.ty->is_error()) return set_error(e);
    e.ty = a.ty->elem;
  }

  void check_field(Expr& e) {
    Expr& a = *e.lhs;
    if (a.kind == Expr::Name && !lookup_local(a.name)) { // `Mode.PARANOID`
      auto it = m_.globals.find(a.name);
      if (it != m_.globals.end() && it->second->kind == Symbol::EnumSym) {
        EnumInfo* en = it->second->en;
        resolve_enum(en);
        a.sym = it->second;
        const EnumVariant* v = en->variant(e.name);
        if (!v) {
          std::string names;
          for (size_t k = 0; k < en->variants.size() && k < 8; ++k)
            names += (k ? ", " : "") + en->variants[k].name;
          diag_.error(e.pos, "enum " + q(en->name) + " has no variant " + q(e.name) +
                                 (en->state == EnumInfo::InProgress
                                      ? " (a variant's value can only name earlier variants)"
                                  : names.empty() ? std::string(" (it has none)")
                                                  : " (it has " + names +
                                                        (en->variants.size() > 8 ? ", ..." : "") +
                                                        ")"));
          return set_error(e);
        }
        e.ty = en->type;
        e.is_const = true;
        e.cval = v->value;
        return;
      }
    }
    check(a, nullptr);
    if (a.ty && a.ty->is_error()) return set_error(e);
    const Type* st = a.ty;
    if (st && st->kind == Type::Pointer && st->elem->kind == Type::Struct) {
      e.field_through_pointer = true;
      st = st->elem;
    }
    if (!st || st->kind != Type::Struct) {
      diag_.error(e.pos, "'." + e.name + "' needs a struct or a pointer to a struct, found " +
                             (a.ty ? q(a.ty) : std::string("an integer constant")));
      return set_error(e);
    }
    const StructInfo* s = st->st;
    for (unsigned k = 0; k < s->fields.size(); ++k)
      if (s->fields[k].name == e.name) {
        e.field_index = k;
        e.ty = s->fields[k].type;
        return;
      }
    diag_.error(e.pos, "struct " + q(s->name) + " has no field " + q(e.name));
    set_error(e);
  }

  // A call through a function address (a table entry, a field, a variable): the arguments
  // are checked against the address's type.
  void check_indirect_call(Expr& e) {
    Expr& callee = *e.lhs;
    if (callee.ty && callee.ty->is_error()) {
      for (auto& a : e.args) check(*a, nullptr);
      return set_error(e);
    }
    if (!callee.ty || callee.ty->kind != Type::Func) {
      for (auto& a : e.args) check(*a, nullptr);
      diag_.error(e.pos, "called object is not a function (its type is " +
                             (callee.ty ? q(callee.ty) : std::string("an integer constant")) +
                             ")");
      return set_error(e);
    }
    const Type* ft = callee.ty;
    if (e.args.size() != ft->params.size()) {
      for (auto& a : e.args) check(*a, nullptr);
      diag_.error(e.pos, "wrong number of arguments to a " + q(ft) + ": expected " +
                             std::to_string(ft->params.size()) + ", found " +
                             std::to_string(e.args.size()));
      return set_error(e);
    }
    bool ok = true;
    for (size_t i = 0; i < e.args.size(); ++i) {
      check(*e.args[i], ft->params[i]);
      if (!coerce(*e.args[i], ft->params[i])) ok = false;
    }
    e.ty = ok ? ft->elem : T().error();
  }

  void check_call(Expr& e, const Type* hint) {
    Expr& callee = *e.lhs;
    if (callee.kind != Expr::Name) {
      check(callee, nullptr);
      return check_indirect_call(e);
    }
    Symbol* s = lookup_local(callee.name);
    if (!s) {
      auto it = m_.globals.find(callee.name);
      if (it != m_.globals.end()) s = it->second;
    }
    if (!s) {
      static const std::pair<const char*, Intrinsic> intrinsics[] = {
          {"popc", kPopc}, {"clz", kClz}, {"ctz", kCtz}, {"bswap", kBswap}};
      for (auto& [n, k] : intrinsics)
        if (callee.name == n) return check_intrinsic(e, k, hint);
      for (auto& a : e.args) check(*a, nullptr);
      diag_.error(callee.pos, "unknown function " + q(callee.name));
      return set_error(e);
    }
    if (s->kind != Symbol::Func) {
      check(callee, nullptr);
      if (callee.ty && callee.ty->kind == Type::Func) return check_indirect_call(e);
      for (auto& a : e.args) check(*a, nullptr);
      if (callee.ty && callee.ty->is_error()) return set_error(e);
      diag_.error(callee.pos, q(callee.name) + " is not a function");
      return set_error(e);
    }
    callee.sym = s;
    e.sym = s;
    if (e.args.size() != s->params.size()) {
      for (auto& a : e.args) check(*a, nullptr);
      diag_.error(e.pos, "wrong number of arguments to " + q(s->name) + ": expected " +
                             std::to_string(s->params.size()) + ", found " +
                             std::to_string(e.args.size()));
      return set_error(e);
    }
    bool ok = true;
    for (size_t i = 0; i < e.args.size(); ++i) {
      check(*e.args[i], s->params[i]);
      if (!coerce(*e.args[i], s->params[i])) ok = false;
    }
    e.ty = s->type ? s->type : T().error();
    if (!ok) e.ty = T().error();
  }

  void check_intrinsic(Expr& e, Intrinsic k, const Type* hint) {
    static const char* const names[] = {"", "popc", "clz", "ctz", "bswap"};
    for (auto& a : e.args) check(*a, int_hint(hint));
    if (e.args.size() != 1) {
      diag_.error(e.pos, std::string("wrong number of arguments to '") + names[k] +
                             "': expected 1, found " + std::to_string(e.args.size()));
      return set_error(e);
    }
    Expr& a = *e.args[0];
    if (a.ty && a.ty->is_error()) return set_error(e);
    if (!a.ty) {
      if (const Type* h = int_hint(hint)) {
        if (!coerce(a, h)) return set_error(e);
      } else {
        finalize(a);
      }
    }
    if (!a.ty || !a.ty->is_int()) {
      diag_.error(a.pos, std::string("'") + names[k] + "' needs an integer, found " + q(a.ty));
      return set_error(e);
    }
    if (k == kBswap && a.ty->bits == 8) {
      diag_.error(a.pos, "'bswap' needs a 16, 32 or 64-bit integer, found " + q(a.ty));
      return set_error(e);
    }
    e.intrinsic = k;
    e.ty = a.ty;
  }
};

} // namespace

bool analyze(Module& m, Diagnostics& diag, uint32_t sram_size) {
  const unsigned before = diag.errors();
  Sema(m, diag, sram_size).run();
  return diag.errors() == before;
}

} // namespace lanaikit::fw
