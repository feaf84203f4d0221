// LLVM IR generation from the checked AST. The IR is shaped like clang's for the same C
// (an alloca per local promoted by mem2reg, inbounds GEPs, natural alignment, clang's
// Lanai argument attributes), so LLVM's pipeline treats both alike.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "assembler/fw/sema.h"

namespace llvm {
class LLVMContext;
class Module;
class DataLayout;
} // namespace llvm

namespace lanaikit::fw {

struct CodegenOptions {
  bool debug = false;    // DWARF line tables
  bool optsize = false;  // -Os: optsize on every function
  bool optnone = false;  // -O0
  std::vector<uint8_t> layout; // encoded layout table for the .lanaikit.layout section
};

struct CodegenResult {
  std::unique_ptr<llvm::Module> module;
  // Inline-asm statements by the cookie in their !srcloc, for backend error messages.
  std::vector<Pos> asm_positions;
};

CodegenResult generate(Module& m, llvm::LLVMContext& ctx, const llvm::DataLayout& dl,
                       const CodegenOptions& options);

} // namespace lanaikit::fw
