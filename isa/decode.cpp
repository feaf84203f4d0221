// Word -> Inst, driven by the format tables of isa/formats.h.
#include "isa/formats.h"
#include "isa/inst.h"

namespace lanaikit::isa {
namespace {

using fmt::bit;
using fmt::field;
using fmt::sext;

// Fields shared by most formats.
uint8_t rd_of(uint32_t w) { return uint8_t(field(w, 27, 23)); }
uint8_t rs1_of(uint32_t w) { return uint8_t(field(w, 22, 18)); }
uint8_t rs2_of(uint32_t w) { return uint8_t(field(w, 15, 11)); }
// DDDI: DDD in bits 27..25 (branch group) or 2..0 (RR), I in bit 0 (branch) or 16 (RR).
Cond branch_cond(uint32_t w) { return Cond((field(w, 27, 25) << 1) | (w & 1)); }
Cond rr_cond(uint32_t w) { return Cond((field(w, 2, 0) << 1) | field(w, 16, 16)); }

// Applies a P,Q pair: the mode, and LLVM's zeroing of the offset operand for PQ=00.
void set_mode(Inst& inst, uint32_t pq) {
  inst.mode = fmt::kModeOfPq[pq];
  if (inst.mode == AddrMode::Plain) {
    inst.imm = 0;
    inst.rs2 = 0;
  }
}

std::optional<Inst> decode_ri(uint32_t w, Inst inst) {
  const uint32_t aaa = field(w, 30, 28), h = field(w, 16, 16), k = field(w, 15, 0);
  for (const auto& row : fmt::kRi) {
    if (row.aaa != aaa || (row.h >= 0 && uint32_t(row.h) != h)) continue;
    inst.op = row.op;
    inst.format = Format::RI;
    inst.rd = rd_of(w);
    inst.rs1 = rs1_of(w);
    inst.set_flags = field(w, 17, 17);
    inst.high = h;
    switch (row.imm) {
    case fmt::RiImm::Zero: inst.imm = h ? k << 16 : k; break;
    case fmt::RiImm::Ones: inst.imm = h ? (k << 16) | 0xffffu : k | 0xffff0000u; break;
    case fmt::RiImm::Signed: inst.imm = sext(k, 16); break;
    }
    return inst;
  }
  return std::nullopt;
}

std::optional<Inst> decode_rr(uint32_t w, Inst inst) {
  const uint32_t bbb = field(w, 10, 8), j = field(w, 7, 3), f = field(w, 17, 17);
  for (const auto& row : fmt::kRr) {
    if (row.bbb != bbb || row.jjjjj != j) continue;
    if (f && !row.f_ok) return std::nullopt;
    inst.op = row.op;
    inst.format = Format::RR;
    inst.rd = rd_of(w);
    inst.rs1 = rs1_of(w);
    inst.rs2 = rs2_of(w);
    inst.set_flags = f;
    inst.cond = rr_cond(w);
    return inst;
  }
  return std::nullopt;
}

std::optional<Inst> decode_rm(uint32_t w, Inst inst) {
  const uint32_t s = field(w, 28, 28);
  for (const auto& row : fmt::kRm) {
    if (row.s != s) continue;
    inst.op = row.op;
    inst.format = Format::RM;
    inst.rd = rd_of(w);
    inst.rs1 = rs1_of(w);
    inst.width = Width::Word;
    inst.imm = sext(field(w, 15, 0), 16);
    set_mode(inst, field(w, 17, 16));
    return inst;
  }
  return std::nullopt;
}

std::optional<Inst> decode_rrm(uint32_t w, Inst inst) {
  const bool store = field(w, 28, 28);
  const uint32_t bbb = field(w, 10, 8), j = field(w, 7, 3), yle = field(w, 2, 0);
  const fmt::RrmWidthRow* width = nullptr;
  for (const auto& row : fmt::kRrmWidth)
    if (row.yle == yle && !(store && row.store.empty())) width = &row;
  if (!width) return std::nullopt;
  for (const auto& row : fmt::kRrmAlu) {
    if (row.bbb != bbb || (j & row.j_mask) != row.j_value) continue;
    inst.op = store ? Opcode::STORE : Opcode::LOAD;
    inst.format = Format::RRM;
    inst.rd = rd_of(w);
    inst.rs1 = rs1_of(w);
    inst.rs2 = rs2_of(w);
    inst.mem_op = row.alu;
    inst.width = width->width;
    inst.zero_ext = width->zero_ext;
    set_mode(inst, field(w, 17, 16));
    return inst;
  }
  return std::nullopt;
}

std::optional<Inst> decode_special(uint32_t w, Inst inst) {
  if (w & fmt::kSpecialZeroMask) return std::nullopt;
  const uint32_t op3 = field(w, 2, 0);
  for (const auto& row : fmt::kSpecial) {
    if (row.op3 != op3) continue;
    inst.op = row.op;
    inst.format = Format::Special;
    inst.rd = rd_of(w);
    inst.rs1 = rs1_of(w);
    return inst;
  }
  return std::nullopt;
}

std::optional<Inst> decode_branch(uint32_t w, Inst inst) {
  for (const auto& row : fmt::kBranch) {
    if ((w & row.select_mask) != row.select_value) continue;
    if (w & row.zero_mask) return std::nullopt;
    inst.op = row.op;
    inst.format = row.format;
    inst.cond = branch_cond(w);
    switch (row.format) {
    case Format::BR: inst.imm = w & 0x01fffffcu; break;
    case Format::BRR:
      inst.rs1 = rs1_of(w);
      inst.imm = sext(w & 0xfffcu, 16);
      break;
    default: inst.rd = rs1_of(w); break; // SCC: the destination sits in the Rs1 field
    }
    return inst;
  }
  return std::nullopt;
}

std::optional<Inst> decode_slx(uint32_t w, Inst inst) {
  for (const auto& row : fmt::kSlx) {
    if ((w & row.select_mask) != row.select_value) continue;
    inst.op = row.op;
    inst.format = row.format;
    inst.rd = rd_of(w);
    if (row.format != Format::SPLS) {
      inst.imm = (field(w, 22, 18) << 16) | field(w, 15, 0);
      return inst;
    }
    const uint32_t yse = field(w, 14, 12);
    for (const auto& spls : fmt::kSpls) {
      if (spls.yse != yse) continue;
      inst.op = spls.op;
      inst.rs1 = rs1_of(w);
      inst.width = spls.width;
      inst.zero_ext = spls.zero_ext;
      inst.imm = sext(field(w, 9, 0), 10);
      set_mode(inst, field(w, 11, 10));
      return inst;
    }
    return std::nullopt;
  }
  return std::nullopt;
}

} // namespace

std::optional<Inst> decode(uint32_t word) {
  Inst inst;
  inst.word = word;
  for (const auto& row : fmt::kFixed) {
    if (row.word != word) continue;
    inst.op = row.op;
    inst.format = Format::Fixed;
    inst.imm = word; // as the `add %r0, N, %r0` it encodes
    return inst;
  }
  switch (fmt::kMajor[word >> 28]) {
  case fmt::Group::RI: return decode_ri(word, inst);
  case fmt::Group::RM: return decode_rm(word, inst);
  case fmt::Group::RRM: return decode_rrm(word, inst);
  case fmt::Group::RR: return decode_rr(word, inst);
  case fmt::Group::Special: return decode_special(word, inst);
  case fmt::Group::Branch: return decode_branch(word, inst);
  case fmt::Group::Slx: return decode_slx(word, inst);
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------
// Register usage.
// ---------------------------------------------------------------------------------------
namespace {

constexpr uint32_t reg_bit(unsigned r) { return 1u << r; }

} // namespace

bool reads_flags(const Inst& i) {
  const bool conditional = i.cond != Cond::T && i.cond != Cond::F;
  switch (i.format) {
  case Format::RR:
    return conditional || i.op == Opcode::ADDC_R || i.op == Opcode::SUBB_R ||
           (i.set_flags && (i.op == Opcode::AND_R || i.op == Opcode::OR_R || i.op == Opcode::XOR_R));
  case Format::RI: return i.op == Opcode::ADDC_I || i.op == Opcode::SUBB_I;
  case Format::BR:
  case Format::BRR:
  case Format::SCC: return conditional;
  case Format::RRM:
    return i.mode != AddrMode::Plain && (i.mem_op == AluOp::Addc || i.mem_op == AluOp::Subb);
  default: return false;
  }
}

bool writes_flags(const Inst& i) { return i.set_flags; }

namespace {

bool modifies_base(const Inst& i) {
  return (i.format == Format::RM || i.format == Format::RRM || i.format == Format::SPLS) &&
         (i.mode == AddrMode::PostMod || i.mode == AddrMode::PreMod);
}

} // namespace

uint32_t regs_read(const Inst& i) {
  uint32_t r = 0;
  switch (i.format) {
  case Format::RI:
  case Format::Special: return r | reg_bit(i.rs1);
  case Format::RR: return r | reg_bit(i.rs1) | reg_bit(i.rs2);
  case Format::RM:
  case Format::SPLS:
  case Format::RRM:
    r |= reg_bit(i.rs1);
    if (i.format == Format::RRM && i.mode != AddrMode::Plain) r |= reg_bit(i.rs2);
    if (i.is_store()) r |= reg_bit(i.rd);
    return r;
  case Format::SLS: return i.is_store() ? r | reg_bit(i.rd) : r;
  case Format::BRR: return r | reg_bit(i.rs1);
  case Format::BR:
  case Format::SCC:
  case Format::SLI:
  case Format::Fixed: return r;
  }
  return r;
}

uint32_t regs_written(const Inst& i) {
  uint32_t w = 0;
  if (modifies_base(i)) w |= reg_bit(i.rs1);
  switch (i.format) {
  case Format::RI:
  case Format::RR:
  case Format::Special:
  case Format::SCC:
  case Format::SLI: return w | reg_bit(i.rd);
  case Format::RM:
  case Format::RRM:
  case Format::SPLS:
  case Format::SLS: return i.is_load() ? w | reg_bit(i.rd) : w;
  case Format::BR:
  case Format::BRR: return w | reg_bit(PC);
  case Format::Fixed: return w;
  }
  return w;
}

} // namespace lanaikit::isa
