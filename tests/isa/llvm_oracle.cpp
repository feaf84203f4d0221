#include "tests/isa/llvm_oracle.h"

#include <llvm/ADT/ArrayRef.h>
#include <llvm/MC/MCAsmInfo.h>
#include <llvm/MC/MCContext.h>
#include <llvm/MC/MCDisassembler/MCDisassembler.h>
#include <llvm/MC/MCInst.h>
#include <llvm/MC/MCInstPrinter.h>
#include <llvm/MC/MCInstrInfo.h>
#include <llvm/MC/MCObjectFileInfo.h>
#include <llvm/MC/MCRegisterInfo.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/MCTargetOptions.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/raw_ostream.h>

#include <stdexcept>

extern "C" {
void LLVMInitializeLanaiTargetInfo();
void LLVMInitializeLanaiTargetMC();
void LLVMInitializeLanaiDisassembler();
}

namespace lanaikit::isa::test {

struct LlvmOracle::Impl {
  std::unique_ptr<llvm::MCRegisterInfo> mri;
  std::unique_ptr<llvm::MCAsmInfo> mai;
  std::unique_ptr<llvm::MCSubtargetInfo> sti;
  std::unique_ptr<llvm::MCInstrInfo> mii;
  std::unique_ptr<llvm::MCContext> ctx;
  std::unique_ptr<llvm::MCDisassembler> dis;
  std::unique_ptr<llvm::MCInstPrinter> printer;
  std::string text;

  bool decode(uint32_t word, llvm::MCInst& inst) {
    const uint8_t bytes[4] = {uint8_t(word >> 24), uint8_t(word >> 16), uint8_t(word >> 8),
                              uint8_t(word)};
    uint64_t size = 0;
    return dis->getInstruction(inst, size, llvm::ArrayRef<uint8_t>(bytes, 4), 0, llvm::nulls()) ==
           llvm::MCDisassembler::Success;
  }
};

LlvmOracle::LlvmOracle() : impl_(std::make_unique<Impl>()) {
  LLVMInitializeLanaiTargetInfo();
  LLVMInitializeLanaiTargetMC();
  LLVMInitializeLanaiDisassembler();
  const std::string triple = "lanai";
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target) throw std::runtime_error("LLVM Lanai target unavailable: " + error);
  auto& d = *impl_;
  d.mri.reset(target->createMCRegInfo(triple));
  llvm::MCTargetOptions options;
  d.mai.reset(target->createMCAsmInfo(*d.mri, triple, options));
  d.sti.reset(target->createMCSubtargetInfo(triple, "", ""));
  d.mii.reset(target->createMCInstrInfo());
  d.ctx = std::make_unique<llvm::MCContext>(llvm::Triple(triple), d.mai.get(), d.mri.get(),
                                            d.sti.get());
  d.dis.reset(target->createMCDisassembler(*d.sti, *d.ctx));
  d.printer.reset(target->createMCInstPrinter(llvm::Triple(triple), 0, *d.mai, *d.mii, *d.mri));
  if (!d.dis || !d.printer) throw std::runtime_error("LLVM Lanai disassembler/printer unavailable");
}

LlvmOracle::~LlvmOracle() = default;

LlvmOracle::Result LlvmOracle::disassemble(uint32_t word) {
  auto& d = *impl_;
  Result result;
  llvm::MCInst inst;
  if (!d.decode(word, inst)) return result;
  result.decoded = true;
  // RRM memory operands end in an ALU-code immediate; only the codes below have names.
  const llvm::StringRef name = d.mii->getName(inst.getOpcode());
  if (name.endswith("_RR") && (name.startswith("LD") || name.startswith("ST") ||
                               name.startswith("SW"))) {
    const llvm::MCOperand& alu = inst.getOperand(inst.getNumOperands() - 1);
    const unsigned code = alu.isImm() ? unsigned(alu.getImm()) & 0x3f : 0;
    const bool named = code <= 0x06 || code == 0x17 || code == 0x27 || code == 0x37;
    if (!named) return result;
  }
  result.printable = true;
  d.text.clear();
  llvm::raw_string_ostream os(d.text);
  d.printer->printInst(&inst, 0, "", *d.sti, os);
  os.flush();
  result.text = d.text;
  if (!result.text.empty() && result.text[0] == '\t') result.text.erase(0, 1);
  return result;
}

std::string LlvmOracle::opcode_name(uint32_t word) {
  auto& d = *impl_;
  llvm::MCInst inst;
  if (!d.decode(word, inst)) return "<fail>";
  return d.mii->getName(inst.getOpcode()).str();
}

} // namespace lanaikit::isa::test
