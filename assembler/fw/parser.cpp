// The grammar of docs/language.md in Boost.Spirit X3. This is the only translation unit
// that includes X3 (it is slow to compile).
//
// The rules carry no attributes: semantic actions call a Builder that keeps explicit
// stacks of expressions, types, statements and initialisers and reduces them into AST
// nodes. Every construct starts with a distinct token and continues with expectation
// points (`>`), so an action never runs on a branch that is later abandoned: the parse
// either goes on or throws an expectation failure, which becomes the syntax error.
#include "assembler/fw/parser.h"

#include <boost/spirit/home/x3.hpp>

#include <algorithm>
#include <cctype>
#include <cstring>

namespace lanaikit::fw {

namespace {

struct TooDeep {
  const char* where;
};

struct LiteralError {
  const char* where;
  std::string msg;
};

// Skips blanks and comments (the skipper's job) so that positions point at tokens.
const char* skip_blank(const char* p, const char* end) {
  for (;;) {
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\f' ||
                       *p == '\v'))
      ++p;
    if (end - p >= 2 && p[0] == '/' && p[1] == '/') {
      while (p < end && *p != '\n') ++p;
      continue;
    }
    if (end - p >= 2 && p[0] == '/' && p[1] == '*') {
      const char* q = p + 2;
      while (end - q >= 2 && !(q[0] == '*' && q[1] == '/')) ++q;
      p = end - q >= 2 ? q + 2 : end;
      continue;
    }
    return p;
  }
}

bool is_keyword(std::string_view s) {
  static const char* const kw[] = {
      "as",     "asm",    "bool",    "break",  "case",      "const", "continue", "default",
      "else",   "enum",   "export",  "extern", "false",     "fn",    "for",      "handler",
      "if",     "import", "loop",    "noalias", "offsetof", "reg",   "return",   "sizeof",
      "struct", "switch", "true",    "undefined", "var",    "volatile", "while", "u8",
      "u16",    "u32",    "u64",     "i8",     "i16",       "i32",   "i64"};
  for (const char* k : kw)
    if (s == k) return true;
  return false;
}

// Builds the AST from the actions' calls. Non-template, so the grammar's instantiations
// stay small.
struct Builder {
  Builder(const char* b, const char* e, uint32_t f, Diagnostics& d, FileAst& o)
      : begin(b), end(e), file(f), diag(d), out(o) {}
  const char* begin;
  const char* end;
  uint32_t file;
  Diagnostics& diag;
  FileAst& out;
  int depth = 0;

  struct Mark {
    size_t exprs, types, stmts, inits, names;
  };
  std::vector<std::unique_ptr<Expr>> exprs;
  std::vector<std::unique_ptr<TypeExpr>> types;
  std::vector<std::unique_ptr<Stmt>> stmts;
  std::vector<Init> inits;
  std::vector<std::pair<std::string, Pos>> names;
  std::vector<std::pair<std::string, Pos>> strings;
  std::vector<Mark> marks;
  std::vector<std::pair<BinOp, Pos>> binops;
  std::vector<std::pair<UnOp, Pos>> unops;
  std::vector<Field> fields;
  std::vector<Param> params;
  bool pending_assign = false;
  bool assign_compound = false;
  BinOp assign_op = BinOp::Add;
  Pos assign_pos;
  bool is_export = false, is_handler = false, is_volatile = false, is_option = false;
  bool is_noalias = false;
  std::vector<Variant> variants;        // of the enum being parsed
  std::vector<size_t> fn_type_params;   // types.size() after a function type's parameters
  std::unique_ptr<Stmt> asm_stmt;
  // Start of the token that opened each construct being parsed (raw[] ranges are exact;
  // X3's _where is not the token's position).
  std::vector<const char*> tok_pos;
  const char* last_close = nullptr; // the latest block's closing brace
  const char* pop_pos() {
    const char* p = tok_pos.back();
    tok_pos.pop_back();
    return p;
  }

  Pos pos(const char* p) const {
    p = skip_blank(p, end);
    return Pos{file, uint32_t(p - begin)};
  }
  void mark() {
    marks.push_back({exprs.size(), types.size(), stmts.size(), inits.size(), names.size()});
  }
  Mark pop_mark() {
    Mark m = marks.back();
    marks.pop_back();
    return m;
  }
  std::unique_ptr<Expr> pop_expr() {
    auto e = std::move(exprs.back());
    exprs.pop_back();
    return e;
  }
  std::unique_ptr<TypeExpr> pop_type() {
    auto t = std::move(types.back());
    types.pop_back();
    return t;
  }
  std::unique_ptr<Stmt> pop_stmt() {
    auto s = std::move(stmts.back());
    stmts.pop_back();
    return s;
  }
  std::pair<std::string, Pos> pop_name() {
    auto n = std::move(names.back());
    names.pop_back();
    return n;
  }
  std::unique_ptr<Init> pop_init() {
    auto i = std::make_unique<Init>(std::move(inits.back()));
    inits.pop_back();
    return i;
  }

  void push_expr(std::unique_ptr<Expr> e) {
    int d = 0;
    if (e->lhs) d = std::max(d, e->lhs->depth);
    if (e->rhs) d = std::max(d, e->rhs->depth);
    for (auto& a : e->args) d = std::max(d, a->depth);
    e->depth = d + 1;
    if (e->depth > kMaxExprDepth) throw TooDeep{begin + e->pos.offset};
    exprs.push_back(std::move(e));
  }
  std::unique_ptr<Expr> node(Expr::Kind k, Pos p) {
    auto e = std::make_unique<Expr>();
    e->kind = k;
    e->pos = p;
    return e;
  }

  // --- tokens ---
  bool ident(const char* b, const char* e) {
    std::string s(b, e);
    if (is_keyword(s)) return false;
    names.push_back({std::move(s), pos(b)});
    return true;
  }
  void integer(const char* b, const char* e) {
    unsigned __int128 v = 0;
    unsigned base = 10;
    const char* p = b;
    if (e - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) base = 16, p += 2;
    else if (e - p > 2 && p[0] == '0' && (p[1] == 'b' || p[1] == 'B')) base = 2, p += 2;
    bool overflow = false;
    for (; p < e; ++p) {
      if (*p == '_') continue;
      unsigned d = *p >= '0' && *p <= '9' ? unsigned(*p - '0')
                   : *p >= 'a' && *p <= 'f' ? unsigned(*p - 'a' + 10)
                                            : unsigned(*p - 'A' + 10);
      v = v * base + d;
      if (v > 0xFFFFFFFFFFFFFFFFull) overflow = true, v = 0;
    }
    if (overflow) diag.error(pos(b), "integer literal is too large (the largest is 2^64-1)");
    auto n = node(Expr::IntLit, pos(b));
    n->value = Int(v);
    push_expr(std::move(n));
  }
  // Decodes the escapes of a quoted literal (without its quotes).
  std::string unescape(const char* b, const char* e) {
    std::string s;
    for (const char* p = b; p < e; ++p) {
      if (*p != '\\') {
        s += *p;
        continue;
      }
      ++p;
      switch (p < e ? *p : 0) {
      case 'n': s += '\n'; break;
      case 't': s += '\t'; break;
      case 'r': s += '\r'; break;
      case '0': s += '\0'; break;
      case '\\': s += '\\'; break;
      case '\'': s += '\''; break;
      case '"': s += '"'; break;
      case 'x': {
        auto hex = [](char c) {
          return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                                                        : c - 'A' + 10;
        };
        if (e - p >= 3 && std::isxdigit((unsigned char)p[1]) &&
            std::isxdigit((unsigned char)p[2])) {
          s += char(hex(p[1]) * 16 + hex(p[2]));
          p += 2;
          break;
        }
        throw LiteralError{p - 1, "\\x needs two hex digits"};
      }
      default: throw LiteralError{p - 1, "unknown escape sequence"};
      }
    }
    return s;
  }
  void char_lit(const char* b, const char* e) {
    std::string s = unescape(b + 1, e - 1);
    if (s.size() != 1) throw LiteralError{b, "a character literal holds exactly one byte"};
    auto n = node(Expr::IntLit, pos(b));
    n->value = (unsigned char)s[0];
    push_expr(std::move(n));
  }
  void string_lit(const char* b, const char* e) {
    strings.push_back({unescape(b + 1, e - 1), pos(b)});
  }
  // A string literal in an expression: the bytes (decoded by the `string` rule).
  void string_expr() {
    auto e = node(Expr::StringLit, strings.back().second);
    e->name = std::move(strings.back().first);
    strings.pop_back();
    push_expr(std::move(e));
  }

  // --- expressions ---
  void name_expr() {
    auto [n, p] = pop_name();
    auto e = node(Expr::Name, p);
    e->name = std::move(n);
    push_expr(std::move(e));
  }
  void bool_lit(const char* b, bool v) {
    auto e = node(Expr::BoolLit, pos(b));
    e->value = v;
    push_expr(std::move(e));
  }
  void binary() {
    auto [op, p] = binops.back();
    binops.pop_back();
    auto e = node(Expr::Binary, p);
    e->bop = op;
    e->rhs = pop_expr();
    e->lhs = pop_expr();
    push_expr(std::move(e));
  }
  void unary() {
    auto [op, p] = unops.back();
    unops.pop_back();
    auto e = node(Expr::Unary, p);
    e->uop = op;
    e->lhs = pop_expr();
    push_expr(std::move(e));
  }
  void cast(const char* b) {
    auto e = node(Expr::Cast, pos(b));
    e->type = pop_type();
    e->lhs = pop_expr();
    push_expr(std::move(e));
  }
  void index(const char* b) {
    auto e = node(Expr::Index, pos(b));
    e->rhs = pop_expr();
    e->lhs = pop_expr();
    push_expr(std::move(e));
  }
  void field(const char*) {
    auto [n, p] = pop_name();
    auto e = node(Expr::Field, p);
    e->name = std::move(n);
    e->lhs = pop_expr();
    push_expr(std::move(e));
  }
  void call(const char* b) {
    Mark m = pop_mark();
    auto e = node(Expr::Call, pos(b));
    for (size_t i = m.exprs; i < exprs.size(); ++i) e->args.push_back(std::move(exprs[i]));
    exprs.resize(m.exprs);
    e->lhs = pop_expr();
    push_expr(std::move(e));
  }
  void size_of(const char* b) {
    auto e = node(Expr::SizeOf, pos(b));
    e->type = pop_type();
    push_expr(std::move(e));
  }
  void offset_of(const char* b) {
    auto e = node(Expr::OffsetOf, pos(b));
    auto [n, p] = pop_name();
    e->name = std::move(n);
    e->type = pop_type();
    push_expr(std::move(e));
  }

  // --- types ---
  int type_depth(const TypeExpr* t) {
    int d = 0;
    for (; t; t = t->elem.get()) ++d;
    return d;
  }
  void prim_type(const char* b, std::string_view text) {
    static const std::pair<std::string_view, Prim> prims[] = {
        {"u8", Prim::U8},   {"u16", Prim::U16}, {"u32", Prim::U32},
        {"u64", Prim::U64}, {"i8", Prim::I8},   {"i16", Prim::I16},
        {"i32", Prim::I32}, {"i64", Prim::I64}, {"bool", Prim::Bool}};
    Prim p = Prim::U32;
    for (auto& [n, v] : prims)
      if (n == text) p = v;
    auto t = std::make_unique<TypeExpr>();
    t->kind = TypeExpr::Prim;
    t->prim = p;
    t->pos = pos(b);
    types.push_back(std::move(t));
  }
  void named_type() {
    auto [n, p] = pop_name();
    auto t = std::make_unique<TypeExpr>();
    t->kind = TypeExpr::Named;
    t->name = std::move(n);
    t->pos = p;
    types.push_back(std::move(t));
  }
  void pointer_type(const char* b) {
    auto t = std::make_unique<TypeExpr>();
    t->kind = TypeExpr::Pointer;
    t->pos = pos(b);
    t->elem = pop_type();
    if (type_depth(t.get()) > kMaxNesting) throw TooDeep{b};
    types.push_back(std::move(t));
  }
  void fn_type_params_end() { fn_type_params.push_back(types.size()); }
  void fn_type(const char* b) {
    Mark m = pop_mark();
    const size_t end = fn_type_params.back();
    fn_type_params.pop_back();
    auto t = std::make_unique<TypeExpr>();
    t->kind = TypeExpr::Func;
    t->pos = pos(b);
    if (types.size() > end) t->elem = pop_type();
    for (size_t i = m.types; i < types.size(); ++i) t->params.push_back(std::move(types[i]));
    types.resize(m.types);
    types.push_back(std::move(t));
  }
  void array_type(const char* b) {
    auto t = std::make_unique<TypeExpr>();
    t->kind = TypeExpr::Array;
    t->pos = pos(b);
    t->size = pop_expr();
    t->elem = pop_type();
    if (type_depth(t.get()) > kMaxNesting) throw TooDeep{b};
    types.push_back(std::move(t));
  }

  // --- initialisers ---
  void undef_init(const char* b) {
    Init i;
    i.is_undef = true;
    i.pos = pos(b);
    inits.push_back(std::move(i));
  }
  void expr_init() {
    Init i;
    i.expr = pop_expr();
    i.pos = i.expr->pos;
    inits.push_back(std::move(i));
  }
  void list_init(const char* b) {
    Mark m = pop_mark();
    Init i;
    i.is_list = true;
    i.pos = pos(b);
    for (size_t k = m.inits; k < inits.size(); ++k) i.list.push_back(std::move(inits[k]));
    inits.resize(m.inits);
    inits.push_back(std::move(i));
  }

  // --- statements ---
  std::unique_ptr<Stmt> stmt(Stmt::Kind k, Pos p) {
    auto s = std::make_unique<Stmt>();
    s->kind = k;
    s->pos = p;
    return s;
  }
  void block(const char* b) {
    Mark m = pop_mark();
    auto s = stmt(Stmt::BlockStmt, pos(b));
    for (size_t i = m.stmts; i < stmts.size(); ++i) s->body.push_back(std::move(stmts[i]));
    stmts.resize(m.stmts);
    stmts.push_back(std::move(s));
  }
  // The statements of the block just reduced (a loop or if body).
  std::vector<std::unique_ptr<Stmt>> take_block() { return std::move(pop_stmt()->body); }

  void var_stmt(const char* b) {
    Mark m = pop_mark();
    auto s = stmt(Stmt::Var, pos(b));
    if (inits.size() > m.inits) s->init = pop_init();
    if (types.size() > m.types) s->type = pop_type();
    auto [n, p] = pop_name();
    s->name = std::move(n);
    s->pos = p;
    stmts.push_back(std::move(s));
  }
  void const_stmt(const char* b) {
    Mark m = pop_mark();
    auto s = stmt(Stmt::Const, pos(b));
    s->init = pop_init();
    if (types.size() > m.types) s->type = pop_type();
    auto [n, p] = pop_name();
    s->name = std::move(n);
    s->pos = p;
    stmts.push_back(std::move(s));
  }
  void if_stmt(const char* b) {
    Mark m = pop_mark();
    auto s = stmt(Stmt::If, pos(b));
    if (stmts.size() > m.stmts + 1) s->else_stmt = pop_stmt();
    s->body = take_block();
    s->expr = pop_expr();
    stmts.push_back(std::move(s));
  }
  void while_stmt(const char* b) {
    pop_mark();
    auto s = stmt(Stmt::While, pos(b));
    s->body = take_block();
    s->expr = pop_expr();
    stmts.push_back(std::move(s));
  }
  // A `case` or `default` arm: its labels and its block.
  void case_arm(const char* b, bool is_default) {
    Mark m = pop_mark();
    auto s = stmt(Stmt::Case, pos(b));
    s->is_default = is_default;
    s->body = take_block();
    for (size_t i = m.exprs; i < exprs.size(); ++i) s->values.push_back(std::move(exprs[i]));
    exprs.resize(m.exprs);
    stmts.push_back(std::move(s));
  }
  void switch_stmt(const char* b) {
    Mark m = pop_mark();
    auto s = stmt(Stmt::Switch, pos(b));
    for (size_t i = m.stmts; i < stmts.size(); ++i) s->body.push_back(std::move(stmts[i]));
    stmts.resize(m.stmts);
    s->expr = pop_expr();
    stmts.push_back(std::move(s));
  }
  void for_stmt(const char* b) {
    Mark m = pop_mark();
    auto s = stmt(Stmt::For, pos(b));
    s->body = take_block();
    s->target = pop_expr();
    s->expr = pop_expr();
    if (types.size() > m.types) s->type = pop_type();
    auto [n, p] = pop_name();
    s->name = std::move(n);
    s->pos = p;
    stmts.push_back(std::move(s));
  }
  void loop_stmt(const char* b) {
    pop_mark();
    auto s = stmt(Stmt::Loop, pos(b));
    s->body = take_block();
    stmts.push_back(std::move(s));
  }
  void simple_stmt(const char* b, Stmt::Kind k) { stmts.push_back(stmt(k, pos(b))); }
  void return_stmt(const char* b) {
    Mark m = pop_mark();
    auto s = stmt(Stmt::Return, pos(b));
    if (exprs.size() > m.exprs) s->expr = pop_expr();
    stmts.push_back(std::move(s));
  }
  void set_assign(const char* b, std::string_view op) {
    pending_assign = true;
    assign_pos = pos(b);
    assign_compound = op != "=";
    static const std::pair<std::string_view, BinOp> ops[] = {
        {"+=", BinOp::Add}, {"-=", BinOp::Sub}, {"*=", BinOp::Mul}, {"/=", BinOp::Div},
        {"%=", BinOp::Rem}, {"&=", BinOp::And}, {"|=", BinOp::Or},  {"^=", BinOp::Xor},
        {"<<=", BinOp::Shl}, {">>=", BinOp::Shr}};
    for (auto& [s, o] : ops)
      if (s == op) assign_op = o;
  }
  void expr_stmt() {
    if (pending_assign) {
      pending_assign = false;
      auto s = stmt(Stmt::Assign, assign_pos);
      s->compound = assign_compound;
      s->op = assign_op;
      s->expr = pop_expr();
      s->target = pop_expr();
      stmts.push_back(std::move(s));
    } else {
      auto e = pop_expr();
      auto s = stmt(Stmt::ExprStmt, e->pos);
      s->expr = std::move(e);
      stmts.push_back(std::move(s));
    }
  }
  void asm_begin(const char* b) { asm_stmt = stmt(Stmt::Asm, pos(b)); }
  void asm_template() {
    asm_stmt->asm_template = std::move(strings.back().first);
    strings.pop_back();
  }
  void asm_operand(bool output) {
    AsmOperand op;
    op.expr = pop_expr();
    op.constraint = std::move(strings.back().first);
    op.pos = strings.back().second;
    strings.pop_back();
    (output ? asm_stmt->outputs : asm_stmt->inputs).push_back(std::move(op));
  }
  void asm_clobber() {
    asm_stmt->clobbers.push_back({strings.back().second, std::move(strings.back().first)});
    strings.pop_back();
  }
  void asm_end() { stmts.push_back(std::move(asm_stmt)); }

  // --- items ---
  std::unique_ptr<Item> item(Item::Kind k) {
    auto i = std::make_unique<Item>();
    i->kind = k;
    return i;
  }
  void import_item() {
    auto i = item(Item::Import);
    i->name = std::move(strings.back().first);
    i->pos = strings.back().second;
    strings.pop_back();
    out.items.push_back(std::move(i));
  }
  void const_item() {
    Mark m = pop_mark();
    auto i = item(Item::Const);
    i->is_option = is_option;
    is_option = false;
    // A scalar constant keeps its value in `expr`; a table (array literal, string) in `init`.
    auto in = pop_init();
    if (in->is_list || in->is_undef || (in->expr && in->expr->kind == Expr::StringLit))
      i->init = std::move(in);
    else
      i->expr = std::move(in->expr);
    if (types.size() > m.types) i->type = pop_type();
    std::tie(i->name, i->pos) = pop_name();
    out.items.push_back(std::move(i));
  }
  void struct_field() {
    Field f;
    f.type = pop_type();
    std::tie(f.name, f.pos) = pop_name();
    fields.push_back(std::move(f));
  }
  void struct_item() {
    pop_mark();
    auto i = item(Item::Struct);
    i->fields = std::move(fields);
    fields.clear();
    std::tie(i->name, i->pos) = pop_name();
    out.items.push_back(std::move(i));
  }
  void var_item() {
    Mark m = pop_mark();
    auto i = item(Item::Var);
    i->is_volatile = is_volatile;
    is_volatile = false;
    if (inits.size() > m.inits) i->init = pop_init();
    if (exprs.size() > m.exprs) i->expr = pop_expr();
    i->type = pop_type();
    std::tie(i->name, i->pos) = pop_name();
    out.items.push_back(std::move(i));
  }
  void reg_item() {
    pop_mark();
    auto i = item(Item::Reg);
    i->expr = pop_expr();
    i->type = pop_type();
    std::tie(i->name, i->pos) = pop_name();
    out.items.push_back(std::move(i));
  }
  void enum_variant() {
    Variant v;
    if (exprs.size() > marks.back().exprs) v.value = pop_expr();
    std::tie(v.name, v.pos) = pop_name();
    variants.push_back(std::move(v));
  }
  void enum_item() {
    Mark m = pop_mark();
    auto i = item(Item::Enum);
    i->variants = std::move(variants);
    variants.clear();
    if (types.size() > m.types) i->type = pop_type();
    std::tie(i->name, i->pos) = pop_name();
    out.items.push_back(std::move(i));
  }
  void param() {
    Param p;
    p.is_noalias = is_noalias;
    is_noalias = false;
    p.type = pop_type();
    std::tie(p.name, p.pos) = pop_name();
    params.push_back(std::move(p));
  }
  void fn_item(bool external) {
    Mark m = pop_mark();
    pop_pos();
    auto i = item(external ? Item::ExternFn : Item::Fn);
    if (!external) {
      i->body = pop_stmt();
      i->end_pos = pos(last_close ? last_close : begin);
    }
    if (types.size() > m.types) i->type = pop_type();
    i->params = std::move(params);
    params.clear();
    std::tie(i->name, i->pos) = pop_name();
    i->is_export = is_export;
    i->is_handler = is_handler;
    is_export = is_handler = false;
    out.items.push_back(std::move(i));
  }
};

namespace x3 = boost::spirit::x3;

struct builder_tag;

template <typename Ctx>
Builder& B(Ctx const& ctx) {
  return x3::get<builder_tag>(ctx).get();
}
template <typename Ctx>
const char* where(Ctx const& ctx) {
  return B(ctx).pop_pos();
}

// guard[p]: p with one more level of nesting; too many levels abort the parse.
template <typename Subject>
struct guard_parser : x3::unary_parser<Subject, guard_parser<Subject>> {
  using base_type = x3::unary_parser<Subject, guard_parser<Subject>>;
  static bool const has_attribute = false;
  using attribute_type = x3::unused_type;
  explicit guard_parser(Subject const& subject) : base_type(subject) {}
  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx& rctx, Attr&) const {
    Builder& b = B(ctx);
    if (b.depth >= kMaxNesting) throw TooDeep{first};
    struct Leave {
      int& d;
      ~Leave() { --d; }
    } leave{++b.depth};
    return this->subject.parse(first, last, ctx, rctx, x3::unused);
  }
};
struct guard_gen {
  template <typename Subject>
  guard_parser<typename x3::extension::as_parser<Subject>::value_type>
  operator[](Subject const& s) const {
    return guard_parser<typename x3::extension::as_parser<Subject>::value_type>(
        x3::as_parser(s));
  }
};
guard_gen const guard{};

namespace grammar {

using x3::char_;
using x3::eoi;
using x3::lexeme;
using x3::lit;
using x3::omit;
using x3::raw;

auto const idchar = char_("a-zA-Z0-9_");
template <size_t N>
auto kw(char const (&s)[N]) {
  return lexeme[lit(s) >> !idchar];
}

// --- actions ---
auto const a_mark = [](auto& ctx) { B(ctx).mark(); };
// On raw[token]: remember where the token starts (and open a mark).
auto const a_pos = [](auto& ctx) { B(ctx).tok_pos.push_back(x3::_attr(ctx).begin()); };
auto const a_mark_pos = [](auto& ctx) {
  B(ctx).mark();
  B(ctx).tok_pos.push_back(x3::_attr(ctx).begin());
};
auto const a_close = [](auto& ctx) { B(ctx).last_close = x3::_attr(ctx).begin(); };
auto const a_ident = [](auto& ctx) {
  auto r = x3::_attr(ctx);
  x3::_pass(ctx) = B(ctx).ident(r.begin(), r.end());
};
auto const a_int = [](auto& ctx) {
  auto r = x3::_attr(ctx);
  B(ctx).integer(r.begin(), r.end());
};
auto const a_char = [](auto& ctx) {
  auto r = x3::_attr(ctx);
  B(ctx).char_lit(r.begin(), r.end());
};
auto const a_string = [](auto& ctx) {
  auto r = x3::_attr(ctx);
  B(ctx).string_lit(r.begin(), r.end());
};
auto const a_name_expr = [](auto& ctx) { B(ctx).name_expr(); };
auto const a_true = [](auto& ctx) { B(ctx).bool_lit(where(ctx), true); };
auto const a_false = [](auto& ctx) { B(ctx).bool_lit(where(ctx), false); };
auto const a_binary = [](auto& ctx) { B(ctx).binary(); };
auto const a_unary = [](auto& ctx) { B(ctx).unary(); };
auto const a_cast = [](auto& ctx) { B(ctx).cast(where(ctx)); };
auto const a_index = [](auto& ctx) { B(ctx).index(where(ctx)); };
auto const a_field = [](auto& ctx) { B(ctx).field(nullptr); };
auto const a_call = [](auto& ctx) { B(ctx).call(where(ctx)); };
auto const a_sizeof = [](auto& ctx) { B(ctx).size_of(where(ctx)); };
auto const a_offsetof = [](auto& ctx) { B(ctx).offset_of(where(ctx)); };
auto const a_prim = [](auto& ctx) {
  auto r = x3::_attr(ctx);
  B(ctx).prim_type(r.begin(), std::string_view(r.begin(), size_t(r.end() - r.begin())));
};
auto const a_named = [](auto& ctx) { B(ctx).named_type(); };
auto const a_pointer = [](auto& ctx) { B(ctx).pointer_type(where(ctx)); };
auto const a_array = [](auto& ctx) { B(ctx).array_type(where(ctx)); };
auto const a_fn_type_params = [](auto& ctx) { B(ctx).fn_type_params_end(); };
auto const a_fn_type = [](auto& ctx) { B(ctx).fn_type(where(ctx)); };
auto const a_string_expr = [](auto& ctx) { B(ctx).string_expr(); };
auto const a_case = [](auto& ctx) { B(ctx).case_arm(where(ctx), false); };
auto const a_default = [](auto& ctx) { B(ctx).case_arm(where(ctx), true); };
auto const a_switch = [](auto& ctx) { B(ctx).switch_stmt(where(ctx)); };
auto const a_for = [](auto& ctx) { B(ctx).for_stmt(where(ctx)); };
auto const a_variant = [](auto& ctx) { B(ctx).enum_variant(); };
auto const a_enum = [](auto& ctx) { B(ctx).enum_item(); };
auto const a_noalias = [](auto& ctx) { B(ctx).is_noalias = true; };
auto const a_expr_init = [](auto& ctx) { B(ctx).expr_init(); };
auto const a_undef_init = [](auto& ctx) { B(ctx).undef_init(where(ctx)); };
auto const a_list_init = [](auto& ctx) { B(ctx).list_init(where(ctx)); };
auto const a_block = [](auto& ctx) { B(ctx).block(where(ctx)); };
auto const a_var_stmt = [](auto& ctx) { B(ctx).var_stmt(where(ctx)); };
auto const a_const_stmt = [](auto& ctx) { B(ctx).const_stmt(where(ctx)); };
auto const a_if = [](auto& ctx) { B(ctx).if_stmt(where(ctx)); };
auto const a_while = [](auto& ctx) { B(ctx).while_stmt(where(ctx)); };
auto const a_loop = [](auto& ctx) { B(ctx).loop_stmt(where(ctx)); };
auto const a_break = [](auto& ctx) { B(ctx).simple_stmt(where(ctx), Stmt::Break); };
auto const a_continue = [](auto& ctx) { B(ctx).simple_stmt(where(ctx), Stmt::Continue); };
auto const a_return = [](auto& ctx) { B(ctx).return_stmt(where(ctx)); };
auto const a_assign = [](auto& ctx) {
  auto r = x3::_attr(ctx);
  B(ctx).set_assign(r.begin(), std::string_view(r.begin(), r.end() - r.begin()));
};
auto const a_expr_stmt = [](auto& ctx) { B(ctx).expr_stmt(); };
auto const a_asm_begin = [](auto& ctx) { B(ctx).asm_begin(where(ctx)); };
auto const a_asm_template = [](auto& ctx) { B(ctx).asm_template(); };
auto const a_asm_out = [](auto& ctx) { B(ctx).asm_operand(true); };
auto const a_asm_in = [](auto& ctx) { B(ctx).asm_operand(false); };
auto const a_asm_clobber = [](auto& ctx) { B(ctx).asm_clobber(); };
auto const a_asm_end = [](auto& ctx) { B(ctx).asm_end(); };
auto const a_import = [](auto& ctx) { B(ctx).import_item(); };
auto const a_const_item = [](auto& ctx) { B(ctx).const_item(); };
auto const a_field_decl = [](auto& ctx) { B(ctx).struct_field(); };
auto const a_struct = [](auto& ctx) { B(ctx).struct_item(); };
auto const a_var_item = [](auto& ctx) { B(ctx).var_item(); };
auto const a_reg = [](auto& ctx) { B(ctx).reg_item(); };
auto const a_param = [](auto& ctx) { B(ctx).param(); };
auto const a_export = [](auto& ctx) { B(ctx).is_export = true; };
auto const a_volatile = [](auto& ctx) { B(ctx).is_volatile = true; };
auto const a_handler = [](auto& ctx) { B(ctx).is_handler = true; };
auto const a_option = [](auto& ctx) { B(ctx).is_option = true; };
auto const a_fn = [](auto& ctx) { B(ctx).fn_item(false); };
auto const a_extern = [](auto& ctx) { B(ctx).fn_item(true); };

auto binop(BinOp op) {
  return [op](auto& ctx) {
    Builder& b = B(ctx);
    b.binops.push_back({op, b.pos(x3::_attr(ctx).begin())});
  };
}
auto unop(UnOp op) {
  return [op](auto& ctx) {
    Builder& b = B(ctx);
    b.unops.push_back({op, b.pos(x3::_attr(ctx).begin())});
  };
}

struct prim_symbols : x3::symbols<Prim> {
  prim_symbols() {
    add("u8", Prim::U8)("u16", Prim::U16)("u32", Prim::U32)("u64", Prim::U64)(
        "i8", Prim::I8)("i16", Prim::I16)("i32", Prim::I32)("i64", Prim::I64)("bool",
                                                                              Prim::Bool);
  }
} const prims;

// --- rules ---
x3::rule<class expr_id> const expr = "expression";
x3::rule<class lor_id> const lor = "expression";
x3::rule<class land_id> const land = "expression";
x3::rule<class bor_id> const bor = "expression";
x3::rule<class bxor_id> const bxor = "expression";
x3::rule<class band_id> const band = "expression";
x3::rule<class equality_id> const equality = "expression";
x3::rule<class relation_id> const relation = "expression";
x3::rule<class shift_id> const shift = "expression";
x3::rule<class additive_id> const additive = "expression";
x3::rule<class mult_id> const mult = "expression";
x3::rule<class cast_id> const cast = "expression";
x3::rule<class unary_id> const unary = "expression";
x3::rule<class postfix_id> const postfix = "expression";
x3::rule<class primary_id> const primary = "expression";
x3::rule<class ident_id> const ident = "identifier";
x3::rule<class string_id> const string = "string literal";
x3::rule<class type_id> const type = "type";
x3::rule<class base_type_id> const base_type = "type";
x3::rule<class init_id> const init = "initialiser";
x3::rule<class block_id> const block = "'{'";
x3::rule<class stmt_id> const stmt = "statement";
x3::rule<class if_id> const if_stmt = "if";
x3::rule<class item_id> const item = "declaration";
x3::rule<class fn_head_id> const fn_head = "fn";
x3::rule<class params_id> const params = "parameter";
// Named so an expectation failure reads as a message, not as X3's mangled parser type.
x3::rule<class block_end_id> const block_end = "a statement or '}'";
x3::rule<class volatile_var_id> const volatile_var = "'var' (only globals are volatile)";
x3::rule<class case_arm_id> const case_arm = "'case', 'default' or '}'";
x3::rule<class switch_end_id> const switch_end = "'case', 'default' or '}'";

// Every nested expression (index, call argument, array size...) is one more level.
auto const expr_def = guard[lor];
auto const lor_def = land >> *((omit[raw[lit("||")][binop(BinOp::LOr)]] > land)[a_binary]);
auto const land_def = bor >> *((omit[raw[lit("&&")][binop(BinOp::LAnd)]] > bor)[a_binary]);
auto const bor_def =
    bxor >> *((omit[raw[lexeme[lit('|') >> !char_("|=")]][binop(BinOp::Or)]] > bxor)[a_binary]);
auto const bxor_def =
    band >> *((omit[raw[lexeme[lit('^') >> !lit('=')]][binop(BinOp::Xor)]] > band)[a_binary]);
auto const band_def =
    equality >>
    *((omit[raw[lexeme[lit('&') >> !char_("&=")]][binop(BinOp::And)]] > equality)[a_binary]);
auto const equality_def =
    relation >> *(((omit[raw[lit("==")][binop(BinOp::Eq)]] | omit[raw[lit("!=")][binop(BinOp::Ne)]]) >
                   relation)[a_binary]);
auto const relation_def =
    shift >> *(((omit[raw[lit("<=")][binop(BinOp::Le)]] | omit[raw[lit(">=")][binop(BinOp::Ge)]] |
                 omit[raw[lexeme[lit('<') >> !char_("<=")]][binop(BinOp::Lt)]] |
                 omit[raw[lexeme[lit('>') >> !char_(">=")]][binop(BinOp::Gt)]]) >
                shift)[a_binary]);
auto const shift_def =
    additive >> *(((omit[raw[lexeme[lit("<<") >> !lit('=')]][binop(BinOp::Shl)]] |
                    omit[raw[lexeme[lit(">>") >> !lit('=')]][binop(BinOp::Shr)]]) >
                   additive)[a_binary]);
auto const additive_def =
    mult >> *(((omit[raw[lexeme[lit('+') >> !lit('=')]][binop(BinOp::Add)]] |
                omit[raw[lexeme[lit('-') >> !char_("=>")]][binop(BinOp::Sub)]]) >
               mult)[a_binary]);
auto const mult_def =
    cast >> *(((omit[raw[lexeme[lit('*') >> !lit('=')]][binop(BinOp::Mul)]] |
                omit[raw[lexeme[lit('/') >> !lit('=')]][binop(BinOp::Div)]] |
                omit[raw[lexeme[lit('%') >> !lit('=')]][binop(BinOp::Rem)]]) >
               cast)[a_binary]);
auto const cast_def = unary >> *((omit[raw[kw("as")][a_pos]] > type)[a_cast]);
auto const unop_tok = omit[raw[lexeme[lit('-') >> !lit('=')]][unop(UnOp::Neg)]] |
                      omit[raw[lexeme[lit('!') >> !lit('=')]][unop(UnOp::Not)]] |
                      omit[raw[lit('~')][unop(UnOp::BitNot)]] |
                      omit[raw[lexeme[lit('*') >> !lit('=')]][unop(UnOp::Deref)]] |
                      omit[raw[lexeme[lit('&') >> !char_("&=")]][unop(UnOp::AddrOf)]];
auto const unary_def = guard[(unop_tok > unary)[a_unary]] | postfix;
auto const postfix_def =
    primary >> *((omit[raw[lit('[')][a_pos]] > expr > ']')[a_index] |
                 (lexeme[lit('.') >> !lit('.')] > ident)[a_field] |
                 (omit[raw[lit('(')][a_mark_pos]] > -(expr % ',') > ')')[a_call]);
auto const int_tok =
    raw[lexeme[(((lit("0x") | "0X") > +char_("0-9a-fA-F_")) |
                ((lit("0b") | "0B") > +char_("01_")) | (char_("0-9") >> *char_("0-9_"))) >>
               !idchar]];
auto const char_tok = raw[lexeme['\'' > +(('\\' > char_) | (char_ - char_("'\\\n"))) > '\'']];
auto const string_def =
    raw[lexeme['"' > *(('\\' > char_) | (char_ - char_("\"\\\n"))) > '"']][a_string];
auto const ident_def = raw[lexeme[char_("a-zA-Z_") >> *idchar]][a_ident];
auto const primary_def =
    int_tok[a_int] | char_tok[a_char] | omit[raw[kw("true")][a_pos]][a_true] | omit[raw[kw("false")][a_pos]][a_false] |
    (omit[raw[kw("sizeof")][a_pos]] > '(' > type > ')')[a_sizeof] |
    (omit[raw[kw("offsetof")][a_pos]] > '(' > type > ',' > ident > ')')[a_offsetof] | ident[a_name_expr] |
    string[a_string_expr] |
    (lit('(') > expr > ')');

auto const type_def = base_type >> *((omit[raw[lit('[')][a_pos]] > expr > ']')[a_array]);
auto const base_type_def = raw[lexeme[prims >> !idchar]][a_prim] |
                           guard[(omit[raw[lit('*')][a_pos]] > type)[a_pointer]] |
                           guard[(omit[raw[kw("fn")][a_mark_pos]] > '(' > -(type % ',') >
                                  lit(')')[a_fn_type_params] > -(lit("->") > base_type))[a_fn_type]] |
                           ident[a_named] |
                           guard[lit('(') > type > ')'];

auto const init_def =
    guard[(omit[raw[lit('[')][a_mark_pos]] > -(init % ',') > -lit(',') > ']')[a_list_init]] |
    omit[raw[kw("undefined")][a_pos]][a_undef_init] | expr[a_expr_init];

auto const assign_tok = raw[lexeme[lit("<<=") | ">>=" | "+=" | "-=" | "*=" | "/=" | "%=" |
                                   "&=" | "|=" | "^=" | (lit('=') >> !lit('='))]];
auto const block_end_def = omit[raw[lit('}')][a_close]];
auto const block_def = guard[(omit[raw[lit('{')][a_mark_pos]] > *stmt > block_end)[a_block]];
auto const if_stmt_def =
    guard[(omit[raw[kw("if")][a_mark_pos]] > expr > block > -(kw("else") > (if_stmt | block)))[a_if]];
auto const asm_ops_out = (string > '(' > expr > ')')[a_asm_out] % ',';
auto const asm_ops_in = (string > '(' > expr > ')')[a_asm_in] % ',';
auto const asm_clobbers = string[a_asm_clobber] % ',';
auto const stmt_def =
    (omit[raw[kw("var")][a_mark_pos]] > ident > -(':' > type) > -('=' > init) > ';')[a_var_stmt] |
    (omit[raw[kw("const")][a_mark_pos]] > ident > -(':' > type) > '=' > init > ';')[a_const_stmt] |
    if_stmt | (omit[raw[kw("while")][a_mark_pos]] > expr > block)[a_while] |
    guard[(omit[raw[kw("switch")][a_mark_pos]] > expr > '{' > *case_arm > switch_end)[a_switch]] |
    (omit[raw[kw("for")][a_mark_pos]] > ident > -(':' > type) > kw("in") > expr > ".." > expr >
     block)[a_for] |
    (omit[raw[kw("loop")][a_mark_pos]] > block)[a_loop] | (omit[raw[kw("break")][a_pos]] > ';')[a_break] |
    (omit[raw[kw("continue")][a_pos]] > ';')[a_continue] | (omit[raw[kw("return")][a_mark_pos]] > -expr > ';')[a_return] |
    (omit[raw[kw("asm")][a_pos]][a_asm_begin] > '(' > string[a_asm_template] >
     -(':' > -asm_ops_out > -(':' > -asm_ops_in > -(':' > -asm_clobbers))) > ')' >
     ';')[a_asm_end] |
    block | (expr >> -(assign_tok[a_assign] > expr) > ';')[a_expr_stmt];

auto const case_arm_def =
    (omit[raw[kw("case")][a_mark_pos]] > (expr % ',') > block)[a_case] |
    (omit[raw[kw("default")][a_mark_pos]] > block)[a_default];
auto const switch_end_def = lit('}');
auto const volatile_var_def = kw("var")[a_mark];
auto const params_def = -((ident > ':' > -kw("noalias")[a_noalias] > type)[a_param] % ',');
auto const variant = (ident > -('=' > expr))[a_variant];
auto const fn_head_def = (omit[raw[kw("fn") | kw("handler")[a_handler]][a_mark_pos]] > ident > '(' >
                          params > ')' > -(lit("->") > type) > block)[a_fn];
auto const item_def =
    (kw("import") > string > ';')[a_import] |
    (kw("const")[a_mark] > ident > -(':' > type) > '=' > init > ';')[a_const_item] |
    // `option` is contextual (not reserved): it only ever starts a declaration.
    (kw("option")[a_option] > kw("const")[a_mark] > ident > -(':' > type) > '=' > init >
     ';')[a_const_item] |
    (kw("enum")[a_mark] > ident > -(':' > type) > '{' > -(variant % ',') > -lit(',') >
     '}')[a_enum] |
    (kw("struct")[a_mark] > ident > '{' > *((ident > ':' > type > ';')[a_field_decl]) >
     '}')[a_struct] |
    (kw("var")[a_mark] > ident > ':' > type > -('@' > expr) > -('=' > init) > ';')[a_var_item] |
    (kw("volatile")[a_volatile] > volatile_var > ident > ':' > type > -('@' > expr) >
     -('=' > init) > ';')[a_var_item] |
    (kw("reg")[a_mark] > ident > ':' > type > '@' > expr > ';')[a_reg] |
    (kw("export")[a_export] > fn_head) | fn_head |
    (kw("extern") > omit[raw[kw("fn")][a_mark_pos]] > ident > '(' > params > ')' > -(lit("->") > type) >
     ';')[a_extern];

BOOST_SPIRIT_DEFINE(expr, lor, land, bor, bxor, band, equality, relation, shift, additive,
                    mult, cast, unary, postfix, primary, ident, string, type, base_type,
                    init, block, stmt, if_stmt, item, fn_head, params, block_end, volatile_var,
                    case_arm, switch_end)

auto const skipper = x3::space | (lit("//") >> *(char_ - '\n')) |
                     (lit("/*") >> *(char_ - "*/") >> "*/");
auto const file = *item > eoi;

} // namespace grammar

// X3 names what it expected in its own notation ('x', "xy", rule names); make it read
// like a compiler message.
std::string expected_text(const std::string& which) {
  if (which == "eoi" || which == "declaration")
    return "a declaration (import, const, enum, struct, var, reg, fn, handler, extern)";
  if (which.size() >= 2 && (which.front() == '\'' || which.front() == '"') &&
      which.back() == which.front())
    return "'" + which.substr(1, which.size() - 2) + "'";
  if (which.rfind("lexeme", 0) == 0 || which.rfind("raw", 0) == 0 ||
      which.rfind("sequence", 0) == 0 || which.rfind("alternative", 0) == 0)
    return "a token";
  // An unnamed parser with a semantic action: X3 names it by its (mangled) C++ type.
  if (which.rfind("N5boost", 0) == 0 || which.find("boost") != std::string::npos)
    return "a token";
  return which;
}

} // namespace

namespace {

// The end of the token before `at`: back over blanks and, on an earlier line, over a
// `//` comment ending that line.
const char* previous_token_end(const char* begin, const char* at) {
  const char* p = at;
  for (;;) {
    while (p > begin && std::isspace((unsigned char)p[-1])) --p;
    // Is p inside a line comment? Scan the line from its start (outside quotes).
    const char* line = p;
    while (line > begin && line[-1] != '\n') --line;
    const char* comment = nullptr;
    char quote = 0;
    for (const char* q = line; q < p; ++q) {
      if (quote) {
        if (*q == '\\') ++q;
        else if (*q == quote) quote = 0;
      } else if (*q == '"' || *q == '\'') {
        quote = *q;
      } else if (*q == '/' && q + 1 < p && q[1] == '/') {
        comment = q;
        break;
      }
    }
    if (!comment) return p;
    p = comment;
  }
}

// Parses declarations from `at` to the end. Returns nullptr on success, else where the
// syntax error (already reported) is.
const char* parse_from(Builder& b, const char* at, const char* last) {
  auto report = [&](const char* where, const std::string& msg) {
    b.diag.error(b.pos(where), msg);
    return where;
  };
  try {
    bool ok = x3::phrase_parse(
        at, last, x3::with<builder_tag>(std::ref(b))[grammar::file], grammar::skipper);
    if (!ok || at != last) return report(at, "syntax error");
  } catch (const x3::expectation_failure<const char*>& e) {
    const char* where = e.where();
    std::string what = expected_text(e.which());
    if (what == "';'") {
      // A missing ';' is reported right after the token it should follow (as C compilers
      // do), not at the next token, which is often on the next line.
      const char* end = previous_token_end(b.begin, where);
      if (end != where) { // (not through report: Builder::pos skips forward over blanks)
        b.diag.error(Pos{b.file, uint32_t(end - b.begin)}, "expected " + what);
        return where;
      }
    }
    if (where == last) return report(where, "expected " + what + " before end of file");
    return report(where, "expected " + what);
  } catch (const TooDeep& e) {
    return report(e.where, "nesting too deep (the limit is " + std::to_string(kMaxNesting) +
                               " levels of blocks, parentheses and unary operators, and " +
                               std::to_string(kMaxExprDepth) + " for an expression)");
  } catch (const LiteralError& e) {
    return report(e.where, e.msg);
  }
  return nullptr;
}

// Where parsing may resume after a syntax error: the next line that starts (in column 1)
// with a keyword that begins a declaration. Resuming anywhere else would mostly produce
// follow-on nonsense.
const char* resume_point(const char* err, const char* last) {
  static const char* const starts[] = {"fn",     "handler", "struct", "var",      "const",
                                       "reg",    "import",  "export", "extern",   "volatile",
                                       "option", "enum"};
  const char* p = err;
  for (;;) {
    while (p < last && *p != '\n') ++p;
    if (p >= last) return nullptr;
    ++p;
    for (const char* k : starts) {
      const size_t n = std::strlen(k);
      if (size_t(last - p) > n && std::strncmp(p, k, n) == 0 &&
          !(std::isalnum((unsigned char)p[n]) || p[n] == '_'))
        return p;
    }
  }
}

} // namespace

bool parse_file(const SourceManager& sources, uint32_t file, Diagnostics& diag,
                FileAst& out) {
  const std::string& text = sources.file(file).text;
  const char* first = text.data();
  const char* const last = text.data() + text.size();
  out.file = file;
  // An unterminated block comment would otherwise surface as a puzzling error at the end.
  for (const char* p = first; p < last; ++p) {
    if (*p == '"' || *p == '\'') {
      const char quote = *p;
      const char* open = p;
      for (++p; p < last && *p != quote && *p != '\n'; ++p)
        if (*p == '\\' && p + 1 < last && p[1] != '\n') ++p;
      if (p >= last || *p != quote) { // literals end on their line
        diag.error(Pos{file, uint32_t(open - first)},
                   quote == '"' ? "unterminated string literal (a string ends on its line)"
                                : "unterminated character literal");
        return false;
      }
    } else if ((unsigned char)*p >= 0x80) {
      // UTF-8 outside comments and literals: X3 would report whatever token it expected.
      diag.error(Pos{file, uint32_t(p - first)},
                 "non-ASCII character: identifiers are ASCII letters, digits and '_' "
                 "(UTF-8 may appear in comments and strings)");
      return false;
    } else if (*p == '/' && p + 1 < last && p[1] == '/') {
      while (p < last && *p != '\n') ++p;
    } else if (*p == '/' && p + 1 < last && p[1] == '*') {
      const char* q = p + 2;
      while (q + 1 < last && !(q[0] == '*' && q[1] == '/')) ++q;
      if (q + 1 >= last) {
        diag.error(Pos{file, uint32_t(p - first)}, "unterminated comment");
        return false;
      }
      p = q + 1;
    }
  }
  // Syntax errors: report, skip to the next declaration, go on (at most 10 per file).
  const char* at = first;
  bool ok = true;
  for (int errors = 0; errors < 10; ++errors) {
    Builder part(first, last, file, diag, out);
    const char* err = parse_from(part, at, last);
    if (!err) break;
    ok = false;
    at = resume_point(err, last);
    if (!at) break;
  }
  return ok;
}

} // namespace lanaikit::fw
