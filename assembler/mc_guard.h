// Bounds and checks on LLVM MC while it assembles (issue 17).
//
// assembler/asm_limits.h reads the source before MC does and refuses what is visibly too
// large; it cannot see sizes written with symbols (`.set N, 0x40000000` then `.fill N`,
// `.rept N`), macros that call each other until the expansion is exponential, or `.space`
// sized by labels. The pieces here watch MC itself, at the points where it decides how much
// to expand or emit, and stop it with a file:line:col error before memory or time run out:
//
//   - GuardedTargetParser wraps the Lanai target parser. The generic AsmParser asks the
//     target parser about every directive and every instruction, including the `.endmacro`
//     and `.endr` that end each macro or `.rept` expansion, so counting there counts every
//     expansion. Past the statement budget (or after too many errors) it reports once and
//     moves the lexer to the end of its buffer, which ends AsmParser::Run. Before a `.rept`,
//     `.irp` or `.irpc` is expanded (MC builds the whole expansion as one string first) it
//     evaluates the count with MC's own expression parser (symbols included), measures the
//     body, and refuses an expansion over the budget without expanding it.
//   - GuardedStreamer is the ELF object streamer with a running total of the bytes the
//     allocated sections will hold (instructions, data, fills, `.org`, alignment padding at
//     its most); past the SRAM size it reports and drops the request.
//   - GuardedAsmBackend wraps the Lanai assembler backend. LLVM 14's Lanai backend writes
//     only the low 16 bits of a fixup resolved inside the assembler (a symbol with an
//     absolute value: `.set X, 0x16000` then `mov X, %r9` gave `mov 0x6000`), and writes
//     `hi(X)` unshifted. Resolved fixups are applied here with the linker's rules for the
//     same relocation (assembler/link.cpp), and a value that does not fit is an error at
//     the instruction.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>

#include "llvm/MC/MCAsmBackend.h"
#include "llvm/MC/MCCodeEmitter.h"
#include "llvm/MC/MCObjectWriter.h"
#include "llvm/MC/MCELFStreamer.h"
#include "llvm/MC/MCParser/MCTargetAsmParser.h"
#include "llvm/Support/SMLoc.h"

namespace llvm {
class MCAsmInfo;
class SourceMgr;
} // namespace llvm

namespace lanaikit::assembler {

// What one assembly may cost. Statements count directives and instructions as MC parses
// them, expansions included; `.rept`/`.irp` bodies are measured in bytes too.
inline constexpr uint64_t kMaxStatements = 1'000'000;
inline constexpr uint64_t kMaxExpansionBytes = 64ull << 20;
// After this many errors the assembly stops (an exponential macro can repeat one error
// without end).
inline constexpr unsigned kMaxErrors = 20;

// State shared by the three pieces and the diagnostic handlers of one assembly.
struct McGuard {
  uint64_t sram_bytes = 0;
  uint64_t max_statements = kMaxStatements;
  const llvm::SourceMgr* srcmgr = nullptr;
  llvm::MCAsmParser* parser = nullptr;
  const llvm::MCAsmInfo* mai = nullptr;

  uint64_t statements = 0;
  uint64_t bytes = 0;      // in allocated sections, at most
  llvm::SMLoc statement;   // of the directive or instruction being parsed
  unsigned errors = 0;     // counted by the diagnostic handlers
  bool stop = false;       // set once the assembly must end
  bool stop_reported = false;
  // Where each instruction operand that became a fixup was written (MCFixup carries no
  // location in the Lanai backend), keyed by the operand's expression.
  std::unordered_map<const llvm::MCExpr*, llvm::SMLoc> fixup_locs;

  // Reports through the parser, so the message carries the macro-instantiation notes.
  void error(llvm::SMLoc loc, const std::string& msg);
};

class GuardedTargetParser : public llvm::MCTargetAsmParser {
public:
  GuardedTargetParser(std::unique_ptr<llvm::MCTargetAsmParser> inner, McGuard& guard,
                      const llvm::MCTargetOptions& options, const llvm::MCSubtargetInfo& sti,
                      const llvm::MCInstrInfo& mii);

  void Initialize(llvm::MCAsmParser& parser) override;
  bool ParseRegister(unsigned& reg, llvm::SMLoc& start, llvm::SMLoc& end) override;
  llvm::OperandMatchResultTy tryParseRegister(unsigned& reg, llvm::SMLoc& start,
                                              llvm::SMLoc& end) override;
  bool ParseInstruction(llvm::ParseInstructionInfo& info, llvm::StringRef name,
                        llvm::SMLoc name_loc, llvm::OperandVector& operands) override;
  bool ParseDirective(llvm::AsmToken id) override;
  bool MatchAndEmitInstruction(llvm::SMLoc loc, unsigned& opcode, llvm::OperandVector& operands,
                               llvm::MCStreamer& out, uint64_t& error_info,
                               bool matching_inline_asm) override;
  unsigned validateTargetOperandClass(llvm::MCParsedAsmOperand& op, unsigned kind) override;
  unsigned checkTargetMatchPredicate(llvm::MCInst& inst) override;
  void convertToMapAndConstraints(unsigned kind, const llvm::OperandVector& operands) override;
  void onLabelParsed(llvm::MCSymbol* symbol) override;
  void doBeforeLabelEmit(llvm::MCSymbol* symbol) override;
  void flushPendingInstructions(llvm::MCStreamer& out) override;
  void onEndOfFile() override;

private:
  // Counts one statement; false when the assembly must stop (and has been stopped).
  bool count(llvm::SMLoc loc);
  // Moves the lexer to the end of its buffer so AsmParser::Run ends.
  void halt();
  // For `.rept`/`.irp`/`.irpc`: true if the directive was refused (and its body skipped).
  bool refuse_expansion(llvm::AsmToken id, const std::string& name);
  void skip_body();

  std::unique_ptr<llvm::MCTargetAsmParser> inner_;
  McGuard& guard_;
};

class GuardedStreamer : public llvm::MCELFStreamer {
public:
  GuardedStreamer(llvm::MCContext& ctx, std::unique_ptr<llvm::MCAsmBackend> backend,
                  std::unique_ptr<llvm::MCObjectWriter> writer,
                  std::unique_ptr<llvm::MCCodeEmitter> emitter, McGuard& guard)
      : MCELFStreamer(ctx, std::move(backend), std::move(writer), std::move(emitter)),
        guard_(guard) {}

  void emitInstruction(const llvm::MCInst& inst, const llvm::MCSubtargetInfo& sti) override;
  void emitBytes(llvm::StringRef data) override;
  void emitValueImpl(const llvm::MCExpr* value, unsigned size, llvm::SMLoc loc) override;
  void emitFill(const llvm::MCExpr& num_bytes, uint64_t fill_value, llvm::SMLoc loc) override;
  void emitFill(const llvm::MCExpr& num_values, int64_t size, int64_t expr,
                llvm::SMLoc loc) override;
  void emitNops(int64_t num_bytes, int64_t controlled_nop_length, llvm::SMLoc loc,
                const llvm::MCSubtargetInfo& sti) override;
  void emitValueToAlignment(unsigned byte_alignment, int64_t value, unsigned value_size,
                            unsigned max_bytes_to_emit) override;
  void emitCodeAlignment(unsigned byte_alignment, const llvm::MCSubtargetInfo* sti,
                         unsigned max_bytes_to_emit) override;
  void emitValueToOffset(const llvm::MCExpr* offset, unsigned char value,
                         llvm::SMLoc loc) override;

private:
  bool allocated() const;
  // Adds `n` bytes to the running total; false (after an error at `loc`) past SRAM.
  bool add(uint64_t n, llvm::SMLoc loc, const char* what);
  bool alignment_fits(unsigned byte_alignment, const char* what);

  McGuard& guard_;
};

class GuardedAsmBackend : public llvm::MCAsmBackend {
public:
  GuardedAsmBackend(std::unique_ptr<llvm::MCAsmBackend> inner, McGuard& guard);

  std::unique_ptr<llvm::MCObjectTargetWriter> createObjectTargetWriter() const override;
  unsigned getNumFixupKinds() const override;
  llvm::Optional<llvm::MCFixupKind> getFixupKind(llvm::StringRef name) const override;
  const llvm::MCFixupKindInfo& getFixupKindInfo(llvm::MCFixupKind kind) const override;
  bool shouldForceRelocation(const llvm::MCAssembler& asm_, const llvm::MCFixup& fixup,
                             const llvm::MCValue& target) override;
  void applyFixup(const llvm::MCAssembler& asm_, const llvm::MCFixup& fixup,
                  const llvm::MCValue& target, llvm::MutableArrayRef<char> data, uint64_t value,
                  bool is_resolved, const llvm::MCSubtargetInfo* sti) const override;
  bool mayNeedRelaxation(const llvm::MCInst& inst, const llvm::MCSubtargetInfo& sti) const override;
  bool fixupNeedsRelaxation(const llvm::MCFixup& fixup, uint64_t value,
                            const llvm::MCRelaxableFragment* df,
                            const llvm::MCAsmLayout& layout) const override;
  void relaxInstruction(llvm::MCInst& inst, const llvm::MCSubtargetInfo& sti) const override;
  bool writeNopData(llvm::raw_ostream& os, uint64_t count,
                    const llvm::MCSubtargetInfo* sti) const override;

private:
  std::unique_ptr<llvm::MCAsmBackend> inner_;
  McGuard& guard_;
};

// Installs LLVM's fatal-error and bad-alloc handlers once per process: whatever LLVM cannot
// recover from is reported as "lanaikit: LLVM error: ..." (naming the input being
// assembled, if any) and exits with status 70, never an abort with a core dump.
void install_llvm_error_handlers();
// The input named in those messages (thread-local; empty when nothing is being assembled).
void set_llvm_error_context(std::string name);

} // namespace lanaikit::assembler
