// In-process LLVM 14 Lanai disassembler, the reference the isa tests compare against.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace lanaikit::isa::test {

class LlvmOracle {
public:
  LlvmOracle();
  ~LlvmOracle();
  LlvmOracle(const LlvmOracle&) = delete;
  LlvmOracle& operator=(const LlvmOracle&) = delete;

  struct Result {
    bool decoded = false;   // getInstruction succeeded
    bool printable = false; // printing is defined (see kUnprintable below)
    std::string text;       // printInst output, leading tab trimmed
  };

  // LLVM's verdict on a big-endian word. Words that decode to an RRM (register-register
  // memory) instruction whose ALU code is not one LLVM can name (BBB=111 with JJJJJ bit 2
  // set gives codes 0x2f/0x3f) are reported decoded but not printable: printing them
  // reaches llvm_unreachable, which in the Debian release build is undefined behaviour
  // (observed: a segfault).
  Result disassemble(uint32_t word);

  // LLVM's internal opcode name (MCInstrInfo::getName) of the last successful decode.
  std::string opcode_name(uint32_t word);

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace lanaikit::isa::test
