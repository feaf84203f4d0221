// Semantic analysis: one namespace for a file and its imports, struct layout, constant
// evaluation, placement checks, and type checking of function bodies (annotating the AST
// for codegen.cpp). Errors go to Diagnostics; an erroneous expression gets the Error type,
// which every later check accepts silently, so one mistake gives one message.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "assembler/fw/ast.h"
#include "assembler/fw/diagnostics.h"
#include "assembler/fw/types.h"

namespace lanaikit::fw {

enum Intrinsic { kNoIntrinsic = 0, kPopc, kClz, kCtz, kBswap };

struct Symbol {
  enum Kind { StructSym, Const, Global, Reg, Func, Local, EnumSym } kind = Local;
  std::string name;
  Pos pos;
  Item* item = nullptr;      // top-level symbols
  const Type* type = nullptr; // Const: nullptr when untyped; Func: return type; else the variable's
  // Const
  enum { Unevaluated, Evaluating, Evaluated } cstate = Unevaluated;
  Int value = 0;
  // Global, Reg
  bool pinned = false;
  bool is_volatile = false; // Global: declared `volatile var` (Reg: always)
  // Global: a constant table (`const T: u32[4] = [...]`, a string): read-only data, private
  // to every object that uses it (like a plain fn), never assigned.
  bool is_const_data = false;
  uint32_t address = 0;
  // Global, Func: this object holds the definition (else it is an external declaration)
  bool defined_here = false;
  // Func
  std::vector<const Type*> params;
  bool is_handler = false, is_export = false, is_extern = false;
  std::vector<Symbol*> param_syms; // the parameters' Local symbols (after sema)
  std::vector<bool> param_noalias;  // `noalias` on each parameter
  // StructSym
  StructInfo* st = nullptr;
  // EnumSym
  EnumInfo* en = nullptr;
  // Local: a parameter (index) or a `var`
  int param_index = -1;
  bool read_only = false; // Local: a `for` loop's variable
  void* cg = nullptr; // the code generator's llvm::Value for this symbol
};

// Everything one compilation knows: the files (files[0] is the file being compiled, the
// rest its imports), the types, the symbols.
struct Module {
  explicit Module(SourceManager& sm) : sources(sm) {}
  SourceManager& sources;
  std::vector<std::unique_ptr<FileAst>> files;
  TypeTable types;
  std::vector<std::unique_ptr<Symbol>> symbols; // owns top-level and local symbols
  std::map<std::string, Symbol*> globals;
  std::vector<Symbol*> decl_order; // top-level symbols in declaration order
};

// The largest stack frame of a function: the Lanai prologue allocates it with
// `sub %sp, FRAME, %sp`, a 16-bit immediate (docs/language.md, "Statements").
inline constexpr uint32_t kMaxFrameBytes = 65535;

// Checks the whole module. Returns false if any error was reported.
bool analyze(Module& m, Diagnostics& diag, uint32_t sram_size);

} // namespace lanaikit::fw
