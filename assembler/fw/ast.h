// The firmware language's syntax tree. The parser (parser.cpp, the only Spirit X3 unit)
// builds it; sema.cpp annotates it in place (types, constant values, resolved names);
// codegen.cpp reads the annotated tree. Plain structs with a kind tag rather than variants:
// cheap to compile, and every pass switches on the kind anyway.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace lanaikit::fw {

struct Type;
struct Symbol;

// A place in a source file: index into SourceManager and byte offset.
struct Pos {
  uint32_t file = 0;
  uint32_t offset = 0;
};

// Exact constant values (wide enough for every u64 and i64 and their sums).
using Int = __int128;

enum class Prim { U8, U16, U32, U64, I8, I16, I32, I64, Bool };

struct Expr;

struct TypeExpr {
  enum Kind { Prim, Named, Pointer, Array, Func } kind = Prim;
  Pos pos;
  fw::Prim prim = fw::Prim::U32;
  std::string name;                 // Named
  std::unique_ptr<TypeExpr> elem;   // Pointer, Array; Func: the result (nullptr: none)
  std::unique_ptr<Expr> size;       // Array
  std::vector<std::unique_ptr<TypeExpr>> params; // Func
  const Type* resolved = nullptr;   // sema
};

enum class BinOp {
  Add, Sub, Mul, Div, Rem, And, Or, Xor, Shl, Shr,
  Eq, Ne, Lt, Le, Gt, Ge, LAnd, LOr
};
enum class UnOp { Neg, Not, BitNot, Deref, AddrOf };

struct Expr {
  enum Kind {
    IntLit, BoolLit, Name, Binary, Unary, Cast, Index, Field, Call, SizeOf, OffsetOf,
    StringLit
  } kind = IntLit;
  Pos pos;
  int depth = 1; // height of this subtree (bounded: "nesting too deep")
  Int value = 0; // IntLit, BoolLit
  std::string name; // Name, Field (field name), OffsetOf (field name), StringLit (the bytes)
  BinOp bop = BinOp::Add;
  UnOp uop = UnOp::Neg;
  std::unique_ptr<Expr> lhs, rhs; // Binary; Unary/Cast/Field use lhs; Index lhs[rhs]; Call callee = lhs
  std::vector<std::unique_ptr<Expr>> args; // Call
  std::unique_ptr<TypeExpr> type; // Cast, SizeOf, OffsetOf

  // Filled by sema.
  const Type* ty = nullptr;   // nullptr for an untyped constant
  bool is_const = false;      // value known at compile time (then `cval`)
  Int cval = 0;
  const Symbol* sym = nullptr; // Name: what it refers to; Call: the callee
  int intrinsic = 0;           // Call of an intrinsic (sema's Intrinsic enum, 0 = none)
  bool field_through_pointer = false; // Field on a *Struct
  unsigned field_index = 0;
  // The address of a function (a Name of one): not an integer constant, but a link-time
  // constant that a global's initialiser (a handler table) may hold.
  bool is_fn_address = false;
  // Its type came from the context, not from its operands (`1 << n` typed by where it is
  // used, and `~` or `-` of such): a sibling operand's type may re-type it.
  bool context_typed = false;
  // sema: already checked with this hint (a re-check with the same hint is skipped, so
  // re-typing operands stays linear in the expression's size)
  bool checked = false;
  const Type* checked_hint = nullptr;
};

struct Init {
  Pos pos;
  std::unique_ptr<Expr> expr;  // scalar initialiser
  std::vector<Init> list;      // array literal when is_list
  bool is_list = false;
  bool is_undef = false;       // `= undefined`: a local left uninitialised
};

struct Block;

struct AsmOperand {
  Pos pos;
  std::string constraint;
  std::unique_ptr<Expr> expr;
};

struct Stmt {
  enum Kind {
    Var, Const, If, While, Loop, Break, Continue, Return, Asm, BlockStmt, ExprStmt, Assign,
    Switch, Case, For
  } kind = ExprStmt;
  Pos pos;
  std::string name;                      // Var, Const
  std::unique_ptr<TypeExpr> type;        // Var, Const (optional)
  std::unique_ptr<Init> init;            // Var (optional), Const
  std::unique_ptr<Expr> expr;            // If/While cond, Return value, ExprStmt, Assign rhs,
                                         // Switch scrutinee, For start
  std::unique_ptr<Expr> target;          // Assign lhs, For end
  std::vector<std::unique_ptr<Expr>> values; // Case: the labels (empty for `default`)
  bool is_default = false;               // Case
  bool compound = false;                 // Assign: `op=`
  BinOp op = BinOp::Add;                 // Assign (compound)
  std::vector<std::unique_ptr<Stmt>> body; // BlockStmt, While/Loop/For/Case body, If then-part,
                                           // Switch: its Case arms
  std::unique_ptr<Stmt> else_stmt;       // If (a BlockStmt or another If)
  // Asm
  std::string asm_template;
  std::vector<AsmOperand> outputs, inputs;
  std::vector<std::pair<Pos, std::string>> clobbers;

  Symbol* local = nullptr; // sema: the local a Var/Const declares
  bool always_true = false; // sema: While whose condition is the constant true
};

struct Param {
  Pos pos;
  std::string name;
  std::unique_ptr<TypeExpr> type;
  bool is_noalias = false; // `p: noalias *T`: LLVM's noalias (C's restrict)
};

struct Variant {
  Pos pos;
  std::string name;
  std::unique_ptr<Expr> value; // nullptr: the previous variant's value + 1 (0 for the first)
};

struct Field {
  Pos pos;
  std::string name;
  std::unique_ptr<TypeExpr> type;
};

struct Item {
  enum Kind { Import, Const, Struct, Var, Reg, Fn, ExternFn, Enum } kind = Const;
  Pos pos;            // of the name (or of the string for Import)
  std::string name;   // Import: the path as written
  std::unique_ptr<TypeExpr> type;       // Const (optional), Var, Reg, Fn return (optional),
                                        // Enum underlying type (optional: u32)
  std::unique_ptr<Expr> expr;           // Const value, Var/Reg address (@)
  std::unique_ptr<Init> init;           // Var; Const: a table (array literal or string)
  std::vector<Variant> variants;        // Enum
  std::vector<Field> fields;            // Struct
  std::vector<Param> params;            // Fn
  std::unique_ptr<Stmt> body;           // Fn (a BlockStmt)
  bool is_handler = false, is_export = false;
  bool is_volatile = false;             // Var: `volatile var`, every access is volatile
  bool is_option = false;               // Const: `option const`, a build may override it (-D)
  Pos end_pos;                          // Fn: closing brace (for the implicit return's line)
  Symbol* sym = nullptr;                // sema
};

struct FileAst {
  uint32_t file = 0;
  std::vector<std::unique_ptr<Item>> items;
};

const char* binop_spelling(BinOp op);

} // namespace lanaikit::fw
