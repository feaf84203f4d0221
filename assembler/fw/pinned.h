// Pinned globals (`var x: T @ ADDR;`) between the optimiser and the Lanai backend.
//
// Codegen declares each pinned global as an external LLVM GlobalVariable (its name, its
// type) marked with `!lanaikit.pinned !{i32 ADDR}`, so the optimiser's alias analysis sees
// distinct identified objects: a store to one pinned global never forces a reload of
// another (sema guarantees they do not overlap). After the optimisation pipeline,
// lower_pinned_globals replaces every use with the constant address (`inttoptr`) and
// erases the declaration, so the backend sees absolute addresses: a word field below
// 1 MiB is one SLS instruction (`ld [0x16004], %r3`), any other field one RRM/RI
// instruction off a base register.
//
// Why not leave them as symbols (the Lanai backend's small-data SLS form, R_LANAI_21):
// the symbol is defined in the same object by `.set NAME, ADDR` (module asm), so LLVM 14's
// MC resolves the fixup itself, and its Lanai fixup table keeps only 16 of the 21 bits:
// `mov vmmc_tx, %r9` with vmmc_tx = 0x16000 silently becomes 0x6000.
#pragma once

#include <cstdint>

namespace llvm {
class GlobalVariable;
class Module;
} // namespace llvm

namespace lanaikit::fw {

// Marks `gv` (an external declaration) as pinned at `address`.
void mark_pinned(llvm::GlobalVariable& gv, uint32_t address);

// Replaces every marked declaration by its address. Run after the optimisation pipeline
// and before code generation (and before printing --emit=ir, so it shows what the backend
// compiles).
void lower_pinned_globals(llvm::Module& mod);

} // namespace lanaikit::fw
