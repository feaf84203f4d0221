// Lanai-specific rewrites of the optimised IR, run after LLVM's pipeline and before the
// backend (at -O1 and above). Each replaces a form LLVM's Lanai backend selects badly by an
// equivalent one it selects well; LLVM's InstCombine would canonicalise them back, so they
// must come after the pipeline. See peephole.cpp.
#pragma once

namespace llvm {
class Module;
} // namespace llvm

namespace lanaikit::fw {

void lanai_peepholes(llvm::Module& mod);

} // namespace lanaikit::fw
