#include "assembler/mc_guard.h"
#include "base/hex.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/MC/MCAsmInfo.h"
#include "llvm/MC/MCAssembler.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCExpr.h"
#include "llvm/MC/MCFixup.h"
#include "llvm/MC/MCInst.h"
#include "llvm/MC/MCObjectWriter.h"
#include "llvm/MC/MCParser/AsmLexer.h"
#include "llvm/MC/MCParser/MCAsmParser.h"
#include "llvm/MC/MCSectionELF.h"
#include "llvm/MC/MCValue.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

namespace lanaikit::assembler {

namespace {

std::string lower(llvm::StringRef s) {
  std::string out(s);
  for (char& c : out)
    c = char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Saturating multiplication: sizes here only need to be compared with limits.
uint64_t mul_sat(uint64_t a, uint64_t b) {
  if (a != 0 && b > UINT64_MAX / a) return UINT64_MAX;
  return a * b;
}

// Is the line starting at `s` (after blanks) the directive `d` (a whole word)?
bool line_starts_with(llvm::StringRef line, llvm::StringRef d) {
  line = line.ltrim(" \t");
  if (!line.startswith_insensitive(d)) return false;
  if (line.size() == d.size()) return true;
  const char c = line[d.size()];
  return !(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.');
}

} // namespace

void McGuard::error(llvm::SMLoc loc, const std::string& msg) {
  if (!loc.isValid()) loc = statement;
  if (parser)
    parser->Error(loc, msg);
}

// --- GuardedTargetParser ---------------------------------------------------------------

GuardedTargetParser::GuardedTargetParser(std::unique_ptr<llvm::MCTargetAsmParser> inner,
                                         McGuard& guard, const llvm::MCTargetOptions& options,
                                         const llvm::MCSubtargetInfo& sti,
                                         const llvm::MCInstrInfo& mii)
    : MCTargetAsmParser(options, sti, mii), inner_(std::move(inner)), guard_(guard) {
  setAvailableFeatures(inner_->getAvailableFeatures());
}

void GuardedTargetParser::Initialize(llvm::MCAsmParser& parser) {
  MCTargetAsmParser::Initialize(parser);
  inner_->Initialize(parser);
}

bool GuardedTargetParser::ParseRegister(unsigned& reg, llvm::SMLoc& start, llvm::SMLoc& end) {
  return inner_->ParseRegister(reg, start, end);
}

llvm::OperandMatchResultTy GuardedTargetParser::tryParseRegister(unsigned& reg,
                                                                 llvm::SMLoc& start,
                                                                 llvm::SMLoc& end) {
  return inner_->tryParseRegister(reg, start, end);
}

bool GuardedTargetParser::ParseInstruction(llvm::ParseInstructionInfo& info,
                                           llvm::StringRef name, llvm::SMLoc name_loc,
                                           llvm::OperandVector& operands) {
  if (!count(name_loc)) return true;
  return inner_->ParseInstruction(info, name, name_loc, operands);
}

bool GuardedTargetParser::ParseDirective(llvm::AsmToken id) {
  if (!count(id.getLoc())) return false;
  const std::string name = lower(id.getIdentifier());
  if ((name == ".rept" || name == ".irp" || name == ".irpc") && refuse_expansion(id, name))
    return false;
  return inner_->ParseDirective(id);
}

bool GuardedTargetParser::MatchAndEmitInstruction(llvm::SMLoc loc, unsigned& opcode,
                                                  llvm::OperandVector& operands,
                                                  llvm::MCStreamer& out, uint64_t& error_info,
                                                  bool matching_inline_asm) {
  guard_.statement = loc;
  return inner_->MatchAndEmitInstruction(loc, opcode, operands, out, error_info,
                                         matching_inline_asm);
}

unsigned GuardedTargetParser::validateTargetOperandClass(llvm::MCParsedAsmOperand& op,
                                                         unsigned kind) {
  return inner_->validateTargetOperandClass(op, kind);
}

unsigned GuardedTargetParser::checkTargetMatchPredicate(llvm::MCInst& inst) {
  return inner_->checkTargetMatchPredicate(inst);
}

void GuardedTargetParser::convertToMapAndConstraints(unsigned kind,
                                                     const llvm::OperandVector& operands) {
  inner_->convertToMapAndConstraints(kind, operands);
}

void GuardedTargetParser::onLabelParsed(llvm::MCSymbol* symbol) {
  inner_->onLabelParsed(symbol);
}

void GuardedTargetParser::doBeforeLabelEmit(llvm::MCSymbol* symbol) {
  inner_->doBeforeLabelEmit(symbol);
}

void GuardedTargetParser::flushPendingInstructions(llvm::MCStreamer& out) {
  inner_->flushPendingInstructions(out);
}

void GuardedTargetParser::onEndOfFile() {
  inner_->onEndOfFile();
}

bool GuardedTargetParser::count(llvm::SMLoc loc) {
  guard_.statement = loc;
  if (!guard_.stop && ++guard_.statements > guard_.max_statements) {
    guard_.error(loc, "the assembly expands to more than " +
                          std::to_string(guard_.max_statements) +
                          " statements, the limit of one assembly (a macro that calls itself "
                          "or others too often, or a '.rept' too large?)");
    guard_.stop = true;
  }
  if (!guard_.stop) return true;
  halt();
  return false;
}

void GuardedTargetParser::halt() {
  // AsmParser owns an AsmLexer. At the end of a buffer that no `.include` opened (a macro
  // expansion, or the source itself) the lexer returns Eof, which ends Run(); what was
  // pending (macro exits, conditionals) no longer matters, the assembly has failed.
  auto& lexer = static_cast<llvm::AsmLexer&>(getParser().getLexer());
  unsigned id = guard_.srcmgr->FindBufferContainingLoc(lexer.getLoc());
  if (id == 0) id = guard_.srcmgr->getMainFileID();
  const llvm::StringRef buf = guard_.srcmgr->getMemoryBuffer(id)->getBuffer();
  lexer.setBuffer(buf, buf.end());
  while (lexer.isNot(llvm::AsmToken::Eof))
    lexer.Lex();
}

bool GuardedTargetParser::refuse_expansion(llvm::AsmToken id, const std::string& name) {
  llvm::MCAsmParser& parser = getParser();
  auto& lexer = static_cast<llvm::AsmLexer&>(parser.getLexer());
  const llvm::SMLoc args_loc = parser.getTok().getLoc();
  const unsigned buf_id = guard_.srcmgr->FindBufferContainingLoc(args_loc);
  if (buf_id == 0) return false;
  const llvm::StringRef buf = guard_.srcmgr->getMemoryBuffer(buf_id)->getBuffer();
  const size_t args_at = size_t(args_loc.getPointer() - buf.data());
  size_t line_end = buf.find('\n', args_at);
  if (line_end == llvm::StringRef::npos) line_end = buf.size();
  const llvm::StringRef args = buf.slice(args_at, line_end);

  // How many copies MC will make. The `.rept` count is evaluated by MC's own expression
  // parser (so `.set` symbols count), then the lexer is put back where it was, as
  // AsmParser itself does when it jumps between buffers, for MC to parse it again.
  uint64_t copies = 0;
  if (name == ".rept") {
    int64_t n = 0;
    const bool failed = parser.parseAbsoluteExpression(n);
    parser.clearPendingErrors(); // MC reports a bad count itself when it reads it again
    lexer.setBuffer(buf, args_loc.getPointer());
    lexer.Lex();
    if (failed) return false;
    copies = n < 0 ? 0 : uint64_t(n);
  } else if (name == ".irp") {
    // At most one copy per blank- or comma-separated word after the symbol.
    bool in_word = false;
    for (char c : args) {
      const bool sep = c == ',' || c == ' ' || c == '\t';
      copies += !sep && !in_word;
      in_word = !sep;
    }
    copies = copies > 0 ? copies - 1 : 0;
  } else {
    copies = args.size(); // `.irpc`: one copy per character, at most
  }
  if (copies == 0) return false;

  // The body: up to the matching `.endr`.
  uint64_t lines = 0;
  size_t pos = line_end < buf.size() ? line_end + 1 : buf.size();
  const size_t body_at = pos;
  size_t body_end = buf.size();
  for (int depth = 1; pos < buf.size();) {
    size_t e = buf.find('\n', pos);
    if (e == llvm::StringRef::npos) e = buf.size();
    const llvm::StringRef line = buf.slice(pos, e);
    if (line_starts_with(line, ".rept") || line_starts_with(line, ".irp") ||
        line_starts_with(line, ".irpc"))
      ++depth;
    else if (line_starts_with(line, ".endr") && --depth == 0) {
      body_end = pos;
      break;
    }
    ++lines;
    pos = e + 1;
  }
  const uint64_t body_bytes = body_end - body_at;
  const uint64_t statements = mul_sat(copies, lines + 1);
  const uint64_t bytes = mul_sat(copies, body_bytes);
  const uint64_t room =
      guard_.max_statements > guard_.statements ? guard_.max_statements - guard_.statements : 0;
  std::string why;
  if (statements > room)
    why = "'" + name + "' repeats a " + std::to_string(lines) + "-line body " +
          std::to_string(copies) + " times, more than the " +
          std::to_string(guard_.max_statements) + " statements one assembly may expand";
  else if (bytes > kMaxExpansionBytes)
    why = "'" + name + "' repeats a " + std::to_string(body_bytes) + "-byte body " +
          std::to_string(copies) + " times, more than the " + std::to_string(kMaxExpansionBytes) +
          " bytes one expansion may take";
  if (why.empty()) return false;
  guard_.error(id.getLoc(), why);
  parser.eatToEndOfStatement();
  skip_body();
  return true;
}

void GuardedTargetParser::skip_body() {
  llvm::MCAsmParser& parser = getParser();
  for (int depth = 1; parser.getTok().isNot(llvm::AsmToken::Eof);) {
    const llvm::AsmToken& tok = parser.getTok();
    if (tok.is(llvm::AsmToken::Identifier)) {
      const std::string word = lower(tok.getIdentifier());
      if (word == ".rept" || word == ".irp" || word == ".irpc")
        ++depth;
      else if (word == ".endr")
        --depth;
    }
    parser.eatToEndOfStatement();
    if (depth == 0) break;
  }
}

// --- GuardedStreamer --------------------------------------------------------------------

bool GuardedStreamer::allocated() const {
  const auto* sec = llvm::dyn_cast_or_null<llvm::MCSectionELF>(getCurrentSectionOnly());
  return !sec || (sec->getFlags() & llvm::ELF::SHF_ALLOC);
}

bool GuardedStreamer::add(uint64_t n, llvm::SMLoc loc, const char* what) {
  if (guard_.stop) return false;
  if (!allocated()) return true;
  if (n <= guard_.sram_bytes - guard_.bytes) {
    guard_.bytes += n;
    return true;
  }
  guard_.error(loc, std::string(what) + " of " + std::to_string(n) +
                        " bytes makes the image larger than the " +
                        std::to_string(guard_.sram_bytes) + "-byte SRAM");
  guard_.stop = true;
  return false;
}

bool GuardedStreamer::alignment_fits(unsigned byte_alignment, const char* what) {
  if (byte_alignment > guard_.sram_bytes) {
    if (!guard_.stop)
      guard_.error(guard_.statement, std::string(what) + " to " + std::to_string(byte_alignment) +
                                         " bytes, more than the " +
                                         std::to_string(guard_.sram_bytes) + "-byte SRAM");
    guard_.stop = true;
    return false;
  }
  // The padding is at most one byte short of the alignment.
  return add(byte_alignment - 1, guard_.statement, what);
}

void GuardedStreamer::emitInstruction(const llvm::MCInst& inst,
                                      const llvm::MCSubtargetInfo& sti) {
  if (!add(4, guard_.statement, "an instruction")) return;
  // The Lanai code emitter makes each expression operand a fixup with the same MCExpr.
  for (const llvm::MCOperand& op : inst)
    if (op.isExpr()) guard_.fixup_locs[op.getExpr()] = guard_.statement;
  MCELFStreamer::emitInstruction(inst, sti);
}

void GuardedStreamer::emitBytes(llvm::StringRef data) {
  if (!add(data.size(), guard_.statement, "data")) return;
  MCELFStreamer::emitBytes(data);
}

void GuardedStreamer::emitValueImpl(const llvm::MCExpr* value, unsigned size, llvm::SMLoc loc) {
  if (!add(size, loc, "data")) return;
  MCELFStreamer::emitValueImpl(value, size, loc);
}

void GuardedStreamer::emitFill(const llvm::MCExpr& num_bytes, uint64_t fill_value,
                               llvm::SMLoc loc) {
  int64_t n = 0;
  if (!num_bytes.evaluateAsAbsolute(n, getAssemblerPtr())) {
    // MC would size it at layout, after every check here: refuse what cannot be bounded.
    if (!guard_.stop)
      guard_.error(loc, "the size of this reservation is not known where it is written (a "
                        "label defined later?); lanaikit needs sizes it can check against "
                        "SRAM as it assembles");
    return;
  }
  if (n > 0 && !add(uint64_t(n), loc, "a reservation")) return;
  MCELFStreamer::emitFill(num_bytes, fill_value, loc);
}

void GuardedStreamer::emitFill(const llvm::MCExpr& num_values, int64_t size, int64_t expr,
                               llvm::SMLoc loc) {
  int64_t n = 0;
  if (num_values.evaluateAsAbsolute(n, getAssemblerPtr()) && n > 0 && size > 0 &&
      !add(mul_sat(uint64_t(n), uint64_t(size)), loc, "'.fill'"))
    return;
  MCELFStreamer::emitFill(num_values, size, expr, loc);
}

void GuardedStreamer::emitNops(int64_t num_bytes, int64_t controlled_nop_length, llvm::SMLoc loc,
                               const llvm::MCSubtargetInfo& sti) {
  if (num_bytes > 0 && !add(uint64_t(num_bytes), loc, "'.nops'")) return;
  MCELFStreamer::emitNops(num_bytes, controlled_nop_length, loc, sti);
}

void GuardedStreamer::emitValueToAlignment(unsigned byte_alignment, int64_t value,
                                           unsigned value_size, unsigned max_bytes_to_emit) {
  if (!alignment_fits(byte_alignment, "an alignment")) return;
  MCELFStreamer::emitValueToAlignment(byte_alignment, value, value_size, max_bytes_to_emit);
}

void GuardedStreamer::emitCodeAlignment(unsigned byte_alignment,
                                        const llvm::MCSubtargetInfo* sti,
                                        unsigned max_bytes_to_emit) {
  if (!alignment_fits(byte_alignment, "an alignment")) return;
  MCELFStreamer::emitCodeAlignment(byte_alignment, sti, max_bytes_to_emit);
}

void GuardedStreamer::emitValueToOffset(const llvm::MCExpr* offset, unsigned char value,
                                        llvm::SMLoc loc) {
  // `.org` pads up to an offset in the section: a constant part beyond SRAM is refused; a
  // label part is an offset the section already has (or a layout error in MC).
  llvm::MCValue v;
  if (offset->evaluateAsRelocatable(v, nullptr, nullptr) && v.getConstant() > 0 &&
      uint64_t(v.getConstant()) > guard_.sram_bytes) {
    if (!guard_.stop)
      guard_.error(loc, "'.org' to offset " + std::to_string(v.getConstant()) +
                            ", beyond the " + std::to_string(guard_.sram_bytes) + "-byte SRAM");
    guard_.stop = true;
    return;
  }
  MCELFStreamer::emitValueToOffset(offset, value, loc);
}

// --- GuardedAsmBackend -------------------------------------------------------------------

GuardedAsmBackend::GuardedAsmBackend(std::unique_ptr<llvm::MCAsmBackend> inner, McGuard& guard)
    : MCAsmBackend(llvm::support::big), inner_(std::move(inner)), guard_(guard) {}

std::unique_ptr<llvm::MCObjectTargetWriter> GuardedAsmBackend::createObjectTargetWriter() const {
  return inner_->createObjectTargetWriter();
}

unsigned GuardedAsmBackend::getNumFixupKinds() const {
  return inner_->getNumFixupKinds();
}

llvm::Optional<llvm::MCFixupKind> GuardedAsmBackend::getFixupKind(llvm::StringRef name) const {
  return inner_->getFixupKind(name);
}

const llvm::MCFixupKindInfo& GuardedAsmBackend::getFixupKindInfo(llvm::MCFixupKind kind) const {
  return inner_->getFixupKindInfo(kind);
}

bool GuardedAsmBackend::shouldForceRelocation(const llvm::MCAssembler& asm_,
                                              const llvm::MCFixup& fixup,
                                              const llvm::MCValue& target) {
  return inner_->shouldForceRelocation(asm_, fixup, target);
}

bool GuardedAsmBackend::mayNeedRelaxation(const llvm::MCInst& inst,
                                          const llvm::MCSubtargetInfo& sti) const {
  return inner_->mayNeedRelaxation(inst, sti);
}

bool GuardedAsmBackend::fixupNeedsRelaxation(const llvm::MCFixup& fixup, uint64_t value,
                                             const llvm::MCRelaxableFragment* df,
                                             const llvm::MCAsmLayout& layout) const {
  return inner_->fixupNeedsRelaxation(fixup, value, df, layout);
}

void GuardedAsmBackend::relaxInstruction(llvm::MCInst& inst,
                                         const llvm::MCSubtargetInfo& sti) const {
  inner_->relaxInstruction(inst, sti);
}

bool GuardedAsmBackend::writeNopData(llvm::raw_ostream& os, uint64_t count,
                                     const llvm::MCSubtargetInfo* sti) const {
  return inner_->writeNopData(os, count, sti);
}

void GuardedAsmBackend::applyFixup(const llvm::MCAssembler& asm_, const llvm::MCFixup& fixup,
                                   const llvm::MCValue& target, llvm::MutableArrayRef<char> data,
                                   uint64_t value, bool is_resolved,
                                   const llvm::MCSubtargetInfo* sti) const {
  // The Lanai fixup kinds, in LanaiFixupKinds.h order after FIXUP_LANAI_NONE.
  enum : unsigned { k21 = 1, k21F = 2, k25 = 3, kHi16 = 5 };
  const unsigned kind = unsigned(fixup.getKind()) - llvm::FirstTargetFixupKind;
  const bool ours = unsigned(fixup.getKind()) >= llvm::FirstTargetFixupKind &&
                    (kind == k21 || kind == k21F || kind == k25 || kind == kHi16);
  if (!is_resolved || !ours) {
    inner_->applyFixup(asm_, fixup, target, data, value, is_resolved, sti);
    return;
  }
  // Resolved in the assembler: a symbol with an absolute value. Apply it as the linker
  // applies the same relocation (assembler/link.cpp), or refuse it at the instruction.
  const auto where = guard_.fixup_locs.find(fixup.getValue());
  const llvm::SMLoc loc = where == guard_.fixup_locs.end() ? llvm::SMLoc() : where->second;
  std::string expr;
  llvm::raw_string_ostream eos(expr);
  fixup.getValue()->print(eos, guard_.mai);
  eos.flush();
  const int64_t sv = int64_t(value);
  auto refuse = [&](const char* why) {
    std::string msg = "'";
    msg += expr;
    msg += "' is ";
    if (sv < 0) msg += '-';
    msg += hex(sv < 0 ? uint64_t(0) - value : value);
    msg += ", which ";
    msg += why;
    asm_.getContext().reportError(loc, msg);
  };
  if (sv < INT32_MIN || sv > int64_t(UINT32_MAX)) {
    refuse("does not fit in 32 bits");
    return;
  }
  const uint32_t v = uint32_t(value);
  const size_t off = fixup.getOffset();
  if (off + 4 > data.size()) return;
  auto* p = reinterpret_cast<uint8_t*>(data.data() + off);
  uint32_t word = uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3];
  switch (kind) {
  case kHi16:
    word = (word & 0xFFFF0000u) | (v >> 16);
    break;
  case k21:
  case k21F: {
    if (v > 0x1FFFFFu) {
      refuse("does not fit in the 21-bit unsigned immediate field (0..0x1fffff)");
      return;
    }
    const uint32_t field = ((v >> 16) & 0x1Fu) << 18 | (v & 0xFFFFu);
    uint32_t mask = 0x007CFFFFu;
    if (kind == k21F) mask &= ~3u;
    word = (word & ~mask) | (field & mask);
    break;
  }
  case k25:
    if (v > 0x1FFFFFFu) {
      refuse("does not fit in the 25-bit absolute branch field (0..0x1fffffc)");
      return;
    }
    if (v & 3u) {
      refuse("is not a word-aligned branch target");
      return;
    }
    word = (word & ~0x01FFFFFCu) | (v & 0x01FFFFFCu);
    break;
  }
  p[0] = uint8_t(word >> 24);
  p[1] = uint8_t(word >> 16);
  p[2] = uint8_t(word >> 8);
  p[3] = uint8_t(word);
}

// --- LLVM's last-resort handlers ----------------------------------------------------------

namespace {

thread_local std::string g_error_context;

[[noreturn]] void die(const char* what, const char* reason) {
  // No allocation: this may run because memory ran out.
  std::fputs("lanaikit: ", stderr);
  std::fputs(what, stderr);
  if (!g_error_context.empty()) {
    std::fputs(" while assembling ", stderr);
    std::fputs(g_error_context.c_str(), stderr);
  }
  std::fputs(": ", stderr);
  std::fputs(reason ? reason : "(no reason given)", stderr);
  std::fputs("\n", stderr);
  std::fflush(nullptr);
  std::_Exit(70);
}

void on_fatal_error(void*, const char* reason, bool) {
  die("LLVM error", reason);
}

void on_bad_alloc(void*, const char* reason, bool) {
  die("LLVM ran out of memory", reason);
}

} // namespace

void install_llvm_error_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::install_fatal_error_handler(on_fatal_error, nullptr);
    llvm::install_bad_alloc_error_handler(on_bad_alloc, nullptr);
  });
}

void set_llvm_error_context(std::string name) {
  g_error_context = std::move(name);
}

} // namespace lanaikit::assembler
