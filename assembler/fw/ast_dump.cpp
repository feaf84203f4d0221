#include "assembler/fw/ast_dump.h"

namespace lanaikit::fw {

namespace {

const char* prim_name(Prim p) {
  static const char* const n[] = {"u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "bool"};
  return n[int(p)];
}

struct Dumper {
  const SourceManager& sm;
  std::string out;

  void line(int indent, const std::string& text, Pos p) {
    auto [l, c] = sm.file(p.file).line_col(p.offset);
    out += std::string(size_t(indent) * 2, ' ') + text + " <" + std::to_string(l) + ":" +
           std::to_string(c) + ">\n";
  }
  std::string type(const TypeExpr* t) {
    if (!t) return "";
    switch (t->kind) {
    case TypeExpr::Prim: return prim_name(t->prim);
    case TypeExpr::Named: return t->name;
    case TypeExpr::Pointer: return "*" + type(t->elem.get());
    case TypeExpr::Array: return "(" + type(t->elem.get()) + ")[expr]";
    case TypeExpr::Func: {
      std::string r = "fn(";
      for (size_t i = 0; i < t->params.size(); ++i) r += (i ? ", " : "") + type(t->params[i].get());
      r += ")";
      if (t->elem) r += " -> " + type(t->elem.get());
      return r;
    }
    }
    return "?";
  }
  void expr(const Expr* e, int in) {
    if (!e) return;
    switch (e->kind) {
    case Expr::IntLit: line(in, "Int " + int_to_string(e->value), e->pos); break;
    case Expr::BoolLit: line(in, e->value ? "Bool true" : "Bool false", e->pos); break;
    case Expr::Name: line(in, "Name " + e->name, e->pos); break;
    case Expr::Binary: line(in, std::string("Binary ") + binop_spelling(e->bop), e->pos); break;
    case Expr::Unary: {
      static const char* const u[] = {"-", "!", "~", "*", "&"};
      line(in, std::string("Unary ") + u[int(e->uop)], e->pos);
      break;
    }
    case Expr::Cast: line(in, "Cast " + type(e->type.get()), e->pos); break;
    case Expr::Index: line(in, "Index", e->pos); break;
    case Expr::Field: line(in, "Field ." + e->name, e->pos); break;
    case Expr::Call: line(in, "Call", e->pos); break;
    case Expr::SizeOf: line(in, "SizeOf " + type(e->type.get()), e->pos); break;
    case Expr::OffsetOf: line(in, "OffsetOf " + type(e->type.get()) + " " + e->name, e->pos); break;
    case Expr::StringLit: line(in, "String (" + std::to_string(e->name.size()) + " bytes)", e->pos); break;
    }
    expr(e->lhs.get(), in + 1);
    expr(e->rhs.get(), in + 1);
    for (auto& a : e->args) expr(a.get(), in + 1);
  }
  void init(const Init* i, int in) {
    if (!i) return;
    if (i->is_undef) return line(in, "Undefined", i->pos);
    if (!i->is_list) return expr(i->expr.get(), in);
    line(in, "List", i->pos);
    for (auto& e : i->list) init(&e, in + 1);
  }
  void stmt(const Stmt* s, int in) {
    static const char* const k[] = {"Var", "Const", "If", "While", "Loop", "Break",
                                    "Continue", "Return", "Asm", "Block", "Expr", "Assign",
                                    "Switch", "Case", "For"};
    std::string t = k[int(s->kind)];
    if (!s->name.empty()) t += " " + s->name;
    if (s->type) t += ": " + type(s->type.get());
    if (s->kind == Stmt::Assign) t += s->compound ? std::string(" ") + binop_spelling(s->op) + "=" : " =";
    if (s->kind == Stmt::Asm) t += " \"" + s->asm_template + "\"";
    if (s->is_default) t = "Default";
    line(in, t, s->pos);
    for (auto& v : s->values) expr(v.get(), in + 1);
    expr(s->target.get(), in + 1);
    expr(s->expr.get(), in + 1);
    init(s->init.get(), in + 1);
    for (auto& o : s->outputs) expr(o.expr.get(), in + 1);
    for (auto& o : s->inputs) expr(o.expr.get(), in + 1);
    for (auto& b : s->body) stmt(b.get(), in + 1);
    if (s->else_stmt) {
      line(in, "Else", s->else_stmt->pos);
      stmt(s->else_stmt.get(), in + 1);
    }
  }
  void item(const Item& it) {
    static const char* const k[] = {"Import", "Const", "Struct", "Var", "Reg", "Fn", "ExternFn", "Enum"};
    std::string t = std::string(k[int(it.kind)]) + " " + it.name;
    if (it.is_handler) t = "Handler " + it.name;
    if (it.is_export) t = "Export" + t;
    if (it.is_volatile) t = "Volatile" + t;
    if (it.is_option) t = "Option" + t;
    if (it.type) t += ": " + type(it.type.get());
    line(0, t, it.pos);
    for (auto& f : it.fields) line(1, "Field " + f.name + ": " + type(f.type.get()), f.pos);
    for (auto& p : it.params)
      line(1, "Param " + p.name + ": " + (p.is_noalias ? "noalias " : "") + type(p.type.get()), p.pos);
    for (auto& v : it.variants) {
      line(1, "Variant " + v.name, v.pos);
      expr(v.value.get(), 2);
    }
    expr(it.expr.get(), 1);
    init(it.init.get(), 1);
    if (it.body) stmt(it.body.get(), 1);
  }
};

} // namespace

std::string dump_ast(const Module& m) {
  Dumper d{m.sources, {}};
  for (auto& f : m.files) {
    d.out += "File " + m.sources.file(f->file).path + "\n";
    for (auto& it : f->items) d.item(*it);
  }
  return d.out;
}

} // namespace lanaikit::fw
