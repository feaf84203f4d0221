// The chip's register map is written three times, once per reader: vm/chip_regs.h (the
// simulator), firmware/lib/lanai.h (C firmware) and firmware/lib/lanai.fw (the firmware
// language). Every register and every bit or value constant the three define must agree
// in name and value, so a register added to one and not the others fails here.
#include "assembler/fw/parser.h"
#include "assembler/fw/sema.h"
#include "net/packet.h"
#include "vm/chip_regs.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>

namespace lanaikit {
namespace {

using Map = std::map<std::string, uint64_t>;

std::string read_text(const std::string& rel) {
  const std::string path = std::string(LANAIKIT_SOURCE_DIR) + "/" + rel;
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct RegisterMap {
  uint64_t base = 0;
  Map offsets; // register name -> offset from the block's base
  Map values;  // bit and value constants
};

std::string describe(const Map& m) {
  std::ostringstream s;
  for (const auto& [name, v] : m) s << ' ' << name << "=0x" << std::hex << v;
  return s.str();
}

// The firmware language's view: lanai.fw through the real front end. Registers are the
// `reg` declarations; every X_ADDR constant must be the address of register X (the operand
// inline assembly uses), and the remaining constants are the bits and values.
RegisterMap from_fw() {
  RegisterMap r;
  r.base = vm::regs::kBase; // the language has no base: offsets are address - kBase
  fw::SourceManager sm;
  fw::Diagnostics diag(sm);
  fw::Module m(sm);
  const uint32_t id = sm.add("firmware/lib/lanai.fw", read_text("firmware/lib/lanai.fw"));
  auto ast = std::make_unique<fw::FileAst>();
  const bool parsed = fw::parse_file(sm, id, diag, *ast);
  m.files.push_back(std::move(ast));
  EXPECT_TRUE(parsed && fw::analyze(m, diag, 1u << 20)) << diag.text();
  Map addrs;
  for (const auto& [name, sym] : m.globals) {
    if (sym->kind == fw::Symbol::Reg) {
      EXPECT_GE(sym->address, r.base) << name;
      r.offsets[name] = sym->address - r.base;
    } else if (sym->kind == fw::Symbol::Const) {
      const bool addr = name.size() > 5 && name.compare(name.size() - 5, 5, "_ADDR") == 0;
      (addr ? addrs : r.values)[name] = uint64_t(sym->value);
    }
  }
  for (const auto& [name, v] : addrs) {
    const std::string reg = name.substr(0, name.size() - 5);
    auto it = r.offsets.find(reg);
    if (it == r.offsets.end())
      ADD_FAILURE() << "lanai.fw: " << name << " names no register " << reg;
    else
      EXPECT_EQ(v, r.base + it->second) << "lanai.fw: " << name << " is not " << reg << "'s address";
  }
  for (const auto& [reg, off] : r.offsets)
    EXPECT_TRUE(addrs.count(reg + "_ADDR")) << "lanai.fw: register " << reg << " has no " << reg
                                            << "_ADDR for inline assembly";
  return r;
}

uint64_t number(const std::string& text) { return std::stoull(text, nullptr, 0); }

// C's view: lanai.h's #defines (a text reader: the header is macros only).
RegisterMap from_c() {
  RegisterMap r;
  const std::string h = read_text("firmware/lib/lanai.h");
  std::smatch m;
  const std::regex base(R"(#define\s+LANAI_REG\(off\)\s+\(\*\(volatile unsigned int \*\)\((0x[0-9A-Fa-f]+)u \+ \(off\)\)\))");
  EXPECT_TRUE(std::regex_search(h, m, base)) << "lanai.h: LANAI_REG's base not found";
  if (!m.empty()) r.base = number(m[1]);
  const std::regex reg(R"(#define\s+(\w+)\s+LANAI_REG\((0x[0-9A-Fa-f]+)\))");
  for (auto it = std::sregex_iterator(h.begin(), h.end(), reg); it != std::sregex_iterator(); ++it)
    r.offsets[(*it)[1]] = number((*it)[2]);
  const std::regex value(R"(#define\s+(\w+)\s+(0x[0-9A-Fa-f]+|[0-9]+)u\b)");
  for (auto it = std::sregex_iterator(h.begin(), h.end(), value); it != std::sregex_iterator(); ++it)
    r.values[(*it)[1]] = number((*it)[2]);
  return r;
}

// The simulator's view: the registers from kRegisterNames (which must cover enum Offset),
// the ISR bits from enum Bit (read from the header's text: an enum has no name table), the
// other values by their C++ names.
RegisterMap from_cpp() {
  namespace regs = vm::regs;
  RegisterMap r;
  r.base = regs::kBase;
  for (const auto& reg : regs::kRegisterNames) r.offsets[reg.name] = reg.offset;
  const std::string h = read_text("vm/chip_regs.h");
  auto enum_body = [&](const std::string& opening) {
    const size_t from = h.find(opening);
    EXPECT_NE(from, std::string::npos) << "vm/chip_regs.h: `" << opening << "` not found";
    if (from == std::string::npos) return std::string();
    return h.substr(from, h.find("};", from) - from);
  };
  const std::regex item(R"((\w+)\s*=\s*(0x[0-9A-Fa-f]+|[0-9]+),)");
  const std::string offsets = enum_body("enum Offset");
  Map enum_offsets;
  for (auto it = std::sregex_iterator(offsets.begin(), offsets.end(), item); it != std::sregex_iterator(); ++it)
    enum_offsets[(*it)[1]] = number((*it)[2]);
  EXPECT_EQ(describe(enum_offsets), describe(r.offsets)) << "vm/chip_regs.h: enum Offset and kRegisterNames differ";
  const std::string bits = enum_body("enum Bit");
  for (auto it = std::sregex_iterator(bits.begin(), bits.end(), item); it != std::sregex_iterator(); ++it)
    r.values[(*it)[1]] = number((*it)[2]);
  r.values["DMA_L2E"] = regs::kDmaL2E;
  r.values["DMA_E2L"] = regs::kDmaE2L;
  r.values["LINK_UP"] = regs::kLinkUp;
  r.values["LINK_STOPPED"] = regs::kLinkStopped;
  r.values["RECV_CRC_ERROR"] = net::kCrcError;
  r.values["RECV_TRUNCATED"] = net::kTruncated;
  return r;
}

TEST(RegisterMap, ChipRegsLanaiHAndLanaiFwAgree) {
  const RegisterMap cpp = from_cpp(), c = from_c(), fw = from_fw();
  ASSERT_GE(cpp.offsets.size(), 18u);
  ASSERT_GE(cpp.values.size(), 20u);
  EXPECT_EQ(c.base, cpp.base) << "lanai.h's LANAI_REG base";
  // Whole maps compared, so the message lists every name and value each side has.
  EXPECT_EQ(describe(c.offsets), describe(cpp.offsets)) << "registers: lanai.h vs vm/chip_regs.h";
  EXPECT_EQ(describe(fw.offsets), describe(cpp.offsets)) << "registers: lanai.fw vs vm/chip_regs.h";
  EXPECT_EQ(describe(c.values), describe(cpp.values)) << "bits and values: lanai.h vs vm/chip_regs.h";
  EXPECT_EQ(describe(fw.values), describe(cpp.values)) << "bits and values: lanai.fw vs vm/chip_regs.h";
}

// The derived masks of chip_regs.h are made of the bits above.
TEST(RegisterMap, DerivedMasksAreTheirBits) {
  namespace regs = vm::regs;
  uint32_t lan = 0;
  for (uint32_t n = 0; n < 8; ++n) lan |= regs::LAN0_SIG_BIT << n;
  EXPECT_EQ(regs::kLanSigBits, lan);
  EXPECT_EQ(regs::LAN7_SIG_BIT, regs::LAN0_SIG_BIT << 7);
  EXPECT_EQ(regs::kLevelBits, uint32_t(regs::DMA_INT_BIT | regs::SEND_INT_BIT));
}

} // namespace
} // namespace lanaikit
