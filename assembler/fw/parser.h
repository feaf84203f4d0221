// The firmware language parser (Boost.Spirit X3, confined to parser.cpp).
#pragma once

#include "assembler/fw/ast.h"
#include "assembler/fw/diagnostics.h"

namespace lanaikit::fw {

// Nesting limits (docs/language.md): parser recursion (parentheses, unary operators,
// blocks, pointer types, if-else chains) and the height of any expression tree. They keep
// the parser, sema and code generator far from the end of the stack on any input.
inline constexpr int kMaxNesting = 100;
inline constexpr int kMaxExprDepth = 256;

// Parses one source file into `out`. A syntax error is reported and ends the file
// (returns false); lexical problems (a literal too large) are reported and parsing goes on.
bool parse_file(const SourceManager& sources, uint32_t file, Diagnostics& diag,
                FileAst& out);

} // namespace lanaikit::fw
