// Inst -> the text LLVM 14's Lanai MCInstPrinter prints, driven by isa/formats.h.
#include "isa/formats.h"
#include "isa/inst.h"

#include <cstdio>

namespace lanaikit::isa {

std::string_view reg_name(unsigned reg) { return reg < 32 ? fmt::kRegName[reg] : "?"; }
std::string_view cond_name(Cond c) { return fmt::kCondName[unsigned(c) & 15]; }
std::string_view opcode_name(Opcode op) {
  return unsigned(op) < unsigned(Opcode::Count_) ? fmt::kOpcodeName[unsigned(op)] : "?";
}

namespace {

// LLVM's formatHex: "0x" and lower-case digits; negative values as "-0x" and magnitude.
void hex(std::string& out, int64_t v) {
  char buf[24];
  if (v < 0) std::snprintf(buf, sizeof buf, "-0x%llx", static_cast<unsigned long long>(-v));
  else std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  out += buf;
}
void reg(std::string& out, unsigned r) {
  out += '%';
  out += reg_name(r);
}
void cond_suffix(std::string& out, Cond c) { // the `pred` operand: ".cc", nothing for t
  if (c == Cond::T) return;
  out += '.';
  out += cond_name(c);
}

// RM and SPLS memory operand (constant offset).
void mem_imm(std::string& out, const Inst& i) {
  const bool pre = i.mode == AddrMode::PreMod, post = i.mode == AddrMode::PostMod;
  const int32_t off = int32_t(i.imm);
  const int32_t step = fmt::width_bytes(i.width);
  if ((pre || post) && (off == step || off == -step)) {
    const char* incdec = off < 0 ? "--" : "++";
    out += '[';
    if (pre) out += incdec;
    reg(out, i.rs1);
    if (post) out += incdec;
    out += ']';
    return;
  }
  out += std::to_string(off);
  out += pre ? "[*" : "[";
  reg(out, i.rs1);
  out += post ? "*]" : "]";
}

// RRM memory operand.
void mem_reg(std::string& out, const Inst& i) {
  out += i.mode == AddrMode::PreMod ? "[*" : "[";
  reg(out, i.rs1);
  if (i.mode == AddrMode::PostMod) out += '*';
  out += ' ';
  out += fmt::kAluName[unsigned(i.mem_op)];
  out += ' ';
  reg(out, i.rs2);
  out += ']';
}

// "<mnemonic>\t<mem>, %rd" for loads, "<mnemonic>\t%rd, <mem>" for stores.
template <typename MemFn>
void load_store(std::string& out, const Inst& i, std::string_view mnemonic, MemFn mem) {
  out += mnemonic;
  out += '\t';
  if (i.is_store()) {
    reg(out, i.rd);
    out += ", ";
    mem(out, i);
  } else {
    mem(out, i);
    out += ", ";
    reg(out, i.rd);
  }
}

void disasm_ri(std::string& out, const Inst& i) {
  for (const auto& row : fmt::kRi) {
    if (row.op != i.op) continue;
    const int64_t k = row.imm == fmt::RiImm::Signed ? int64_t(int32_t(i.imm)) : int64_t(i.imm);
    if (!i.set_flags && row.mov_from == int(i.rs1)) {
      out += "mov\t";
    } else {
      out += row.mnemonic;
      out += i.set_flags ? ".f\t" : "\t";
      reg(out, i.rs1);
      out += ", ";
    }
    hex(out, k);
    out += ", ";
    reg(out, i.rd);
    return;
  }
}

void disasm_rr(std::string& out, const Inst& i) {
  for (const auto& row : fmt::kRr) {
    if (row.op != i.op) continue;
    switch (row.text) {
    case fmt::RrText::Select:
      out += "sel.";
      out += cond_name(i.cond);
      out += ' ';
      break;
    case fmt::RrText::Add:
      if (!i.set_flags && i.rs2 == R0 && i.cond == Cond::T) {
        out += "mov\t";
        reg(out, i.rs1);
        out += ", ";
        reg(out, i.rd);
        return;
      }
      goto plain;
    case fmt::RrText::Or:
      if (!i.set_flags && i.rd == PC) {
        out += 'b';
        if (i.rs1 == R0 && i.cond == Cond::T) {
          out += "t\t";
          reg(out, i.rs2);
          return;
        }
        out += cond_name(i.cond);
        out += '\t';
        reg(out, i.rs1);
        if (i.rs2 != R0) {
          out += " add ";
          reg(out, i.rs2);
        }
        return;
      }
      goto plain;
    case fmt::RrText::Plain:
    plain:
      out += row.mnemonic;
      if (i.set_flags) out += ".f";
      cond_suffix(out, i.cond);
      out += '\t';
      break;
    }
    reg(out, i.rs1);
    out += ", ";
    reg(out, i.rs2);
    out += ", ";
    reg(out, i.rd);
    return;
  }
}

void disasm_rrm(std::string& out, const Inst& i) {
  for (const auto& row : fmt::kRrmWidth) {
    if (row.width != i.width || row.zero_ext != i.zero_ext) continue;
    load_store(out, i, i.is_store() ? row.store : row.load, mem_reg);
    return;
  }
}

void disasm_spls(std::string& out, const Inst& i) {
  for (const auto& row : fmt::kSpls) {
    if (row.op != i.op || row.width != i.width || row.zero_ext != i.zero_ext) continue;
    load_store(out, i, row.mnemonic, mem_imm);
    return;
  }
}

} // namespace

std::string disassemble(const Inst& i) {
  std::string out;
  switch (i.format) {
  case Format::Fixed:
    for (const auto& row : fmt::kFixed)
      if (row.word == i.word) out += row.text; // decode() keeps the word for these
    break;
  case Format::RI: disasm_ri(out, i); break;
  case Format::RR: disasm_rr(out, i); break;
  case Format::RM:
    if (i.op == Opcode::LOAD && i.rd == PC && i.rs1 == FP && i.mode == AddrMode::Offset &&
        int32_t(i.imm) == -4) { // the one RM word LLVM decodes as its RET
      out += fmt::kRetText;
      break;
    }
    for (const auto& row : fmt::kRm)
      if (row.op == i.op) load_store(out, i, row.mnemonic, mem_imm);
    break;
  case Format::RRM: disasm_rrm(out, i); break;
  case Format::SPLS: disasm_spls(out, i); break;
  case Format::SLS:
    load_store(out, i, i.is_store() ? "st" : "ld", [](std::string& o, const Inst& in) {
      o += '[';
      hex(o, in.imm);
      o += ']';
    });
    break;
  case Format::SLI:
    out += "mov\t";
    hex(out, i.imm);
    out += ", ";
    reg(out, i.rd);
    break;
  case Format::Special:
    for (const auto& row : fmt::kSpecial) {
      if (row.op != i.op) continue;
      out += row.mnemonic;
      out += '\t';
      reg(out, i.rs1);
      out += ", ";
      reg(out, i.rd);
    }
    break;
  case Format::BR:
    out += "b";
    out += cond_name(i.cond);
    out += '\t';
    hex(out, i.imm);
    break;
  case Format::BRR:
    out += "b";
    out += cond_name(i.cond);
    out += ".r\t";
    hex(out, i.imm & 0xffffu); // LLVM prints the raw 16-bit field, unsigned
    break;
  case Format::SCC:
    out += "s";
    out += cond_name(i.cond);
    out += '\t';
    reg(out, i.rd);
    break;
  }
  return out;
}

std::string disassemble(uint32_t word) {
  const auto inst = decode(word);
  return inst ? disassemble(*inst) : std::string("<unknown>");
}

} // namespace lanaikit::isa
