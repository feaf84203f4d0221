// Random programs for the differential tests of the fast interpreter (differential_test.cpp,
// interrupt_test.cpp): ALU operations of every format, loads and stores at every width and
// addressing mode over a data area, compare-and-branch pairs, branches and jumps with
// anything in their delay slots, loads into %pc, stores into the program, undecodable
// words. Deterministic: a fixed seed per case.
#pragma once

#include "encode.h"
#include "machine.h"

#include <random>
#include <sstream>

namespace random_program {

using namespace enc;

constexpr uint32_t kCodeWords = 48;      // program at 0x0
constexpr uint32_t kDataBase = 0x1000;   // data area the memory operations use
constexpr uint32_t kDataBytes = 0x400;

struct Gen {
  explicit Gen(uint32_t seed) : rng(seed) {}
  std::mt19937 rng;

  uint32_t u(uint32_t n) { return std::uniform_int_distribution<uint32_t>(0, n - 1)(rng); }
  bool chance(uint32_t percent) { return u(100) < percent; }
  // Registers the programs use: r3, r6..r14 (r2 pc, r4/r5 kept as data bases).
  uint32_t reg() {
    static const uint32_t regs[] = {0, 1, 3, 6, 7, 8, 9, 10, 11, 12, 13, 14};
    return regs[u(sizeof regs / sizeof regs[0])];
  }
  uint32_t dst() { return chance(5) ? 0 : reg(); }
  uint32_t code_target() { return 4 * u(kCodeWords); }
  Cond cond() { return Cond(u(16)); }

  uint32_t instruction(uint32_t at) {
    switch (u(20)) {
    case 0:
    case 1:
    case 2: // RI ALU
      return ri(Alu(u(8)), dst(), reg(), chance(50) ? u(0x10000) : u(64) - 32, chance(30),
                chance(20));
    case 3:
    case 4: // RR ALU, sometimes predicated
      return rr(u(7), dst(), reg(), reg(), chance(30), chance(20) ? cond() : T);
    case 5: // register shifts
      return chance(50) ? shl_r(dst(), reg(), reg(), chance(30))
                        : sha_r(dst(), reg(), reg(), chance(30));
    case 6: return sel(cond(), dst(), reg(), reg());
    case 7: return scc(cond(), dst());
    case 8: // word load/store off the data bases, any mode
    {
      const uint32_t base = chance(50) ? 4 : 5;
      const int32_t off = int32_t(4 * u(16)) - 32;
      const bool p = chance(70), q = chance(30);
      return rm(chance(40), chance(10) ? 2 : reg(), base, off, p, q);
    }
    case 9: // part-word through SPLS
      return spls(reg(), chance(50) ? 4 : 5, int32_t(u(64)) - 32, chance(50), chance(40),
                  chance(50), chance(70), chance(30));
    case 10: // register-register memory
      return rrm(chance(40), reg(), 4, chance(50) ? 0 : 9, u(3) == 0 ? 0b01 : u(2) ? 0b00 : 0b10,
                 chance(50), chance(10) ? u(8) : 0, chance(80), chance(15));
    case 11:
    case 12: // compare then branch (fusable pairs)
      return chance(50) ? rr(SUB, chance(70) ? 0 : dst(), reg(), reg(), true)
                        : ri(SUB, chance(70) ? 0 : dst(), reg(), u(64), true);
    case 13:
    case 14: return br(cond(), code_target());
    case 15: return kNop;
    case 16: // jumps through registers and loads into %pc
      if (chance(50)) return rr(chance(50) ? ADD : OR, 2, 0, 15);  // to r15 (a code address)
      return ld(2, 5, int32_t(4 * u(4)));                          // from the jump table
    case 17: // store into the program itself
      return st(reg(), 0, int32_t(4 * u(kCodeWords)));
    case 18: return chance(50) ? popc(dst(), reg()) : chance(50) ? leadz(dst(), reg())
                                                                  : trailz(dst(), reg());
    default: // rare: an undecodable word, or an absolute load/store
      if (chance(10)) return 0xD0000007u;
      return sls(chance(50), reg(), kDataBase + 4 * u(kDataBytes / 4));
    }
    (void)at;
  }
};

struct Case {
  std::vector<uint32_t> code;
  std::vector<std::pair<unsigned, uint32_t>> regs;
  std::vector<uint32_t> jump_table; // at the r5 data base
  uint64_t budget;
  uint32_t guard_begin = 0, guard_bytes = 0; // a stack guard (Cpu::set_stack_guard), or none
};

inline Case make_case(uint32_t seed) {
  Gen g(seed);
  Case c;
  for (uint32_t i = 0; i < kCodeWords; ++i) c.code.push_back(g.instruction(4 * i));
  c.code.push_back(exit_with(8));
  c.code.push_back(kNop);
  for (unsigned r : {3u, 6u, 7u, 8u, 9u, 10u, 11u, 12u, 13u, 14u})
    c.regs.push_back({r, g.chance(50) ? g.u(16) : g.u(0xFFFFFFFF)});
  c.regs.push_back({4, kDataBase + 0x100});
  c.regs.push_back({5, kDataBase + 0x200});
  c.regs.push_back({15, g.code_target()});
  for (int i = 0; i < 4; ++i) c.jump_table.push_back(g.chance(90) ? g.code_target() : g.u(64));
  c.budget = 1 + g.u(g.chance(20) ? 20 : 3000);
  // Drawn last, so the programs above are those of the seeds before the guard existed.
  // Mostly around the data bases the stores use, sometimes over the program itself.
  if (g.chance(30)) {
    c.guard_begin = g.chance(80) ? kDataBase + 0x100 * (1 + g.u(2)) + 4 * g.u(16) - 32
                                 : 4 * g.u(kCodeWords);
    c.guard_bytes = 4 * (1 + g.u(16));
  }
  return c;
}

inline std::unique_ptr<Machine> setup(const Case& c) {
  auto m = std::make_unique<Machine>(64 * 1024);
  m->load(c.code);
  for (auto [r, v] : c.regs) m->cpu.set_reg(r, v);
  for (size_t i = 0; i < c.jump_table.size(); ++i)
    m->sram.write32(kDataBase + 0x200 + uint32_t(4 * i), c.jump_table[i]);
  m->cpu.set_stack_guard(c.guard_begin, c.guard_bytes);
  return m;
}

inline std::string state(const Machine& m) {
  std::ostringstream out;
  for (unsigned r = 0; r < 32; ++r) out << m.cpu.reg(r) << ' ';
  out << "sw " << m.cpu.sw() << " pc " << m.cpu.pc() << ' ' << m.cpu.npc() << ' ' << m.cpu.nnpc()
      << " insns " << m.cpu.instructions() << " cycles " << m.cpu.cycles() << " halted "
      << m.cpu.halted() << " out '" << m.io.output() << "'" << " status " << m.cpu.status()
      << " lines " << m.cpu.interrupt_lines() << " user cycles " << m.cpu.user_cycles();
  if (m.cpu.fault())
    out << " fault " << int(m.cpu.fault()->kind) << " at " << m.cpu.fault()->pc << " addr "
        << m.cpu.fault()->address;
  return out.str();
}

} // namespace random_program
