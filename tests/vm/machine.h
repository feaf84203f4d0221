// A bare machine for vm tests: SRAM, the bare-ABI MMIO page and a CPU, plus a runner that
// executes the same program with the reference stepper, the fast interpreter and the fast
// interpreter in single-instruction batches, and insists that all three agree.
#pragma once

#include "vm/cpu.h"
#include "vm/mmio.h"
#include "vm/sram.h"

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <memory>
#include <vector>

struct Machine {
  explicit Machine(uint32_t sram_size = 64 * 1024, lanaikit::vm::CostModel costs = {})
      : sram(sram_size), io(sram_size), cpu(sram, io, costs) {}

  void load(const std::vector<uint32_t>& words, uint32_t at = 0) {
    for (size_t i = 0; i < words.size(); ++i) sram.write32(at + uint32_t(4 * i), words[i]);
    cpu.invalidate(at, uint32_t(4 * words.size()));
  }

  lanaikit::vm::Sram sram;
  lanaikit::vm::BareIo io;
  lanaikit::vm::Cpu cpu;
};

enum class Executor { Reference, Fast, FastSingleSteps };

inline lanaikit::vm::RunResult run_with(Machine& m, Executor how, uint64_t max_insns) {
  using lanaikit::vm::StopReason;
  switch (how) {
  case Executor::Reference: return m.cpu.step_reference(max_insns);
  case Executor::Fast: return m.cpu.run(max_insns);
  case Executor::FastSingleSteps: {
    uint64_t total = 0;
    lanaikit::vm::RunResult r{StopReason::Limit, 0};
    while (total < max_insns) {
      r = m.cpu.run(1);
      total += r.executed;
      if (r.reason != StopReason::Limit) break;
    }
    return {r.reason, total};
  }
  }
  return {StopReason::Limit, 0};
}

// Runs `words` (loaded at 0, pc = 0) on three machines; checks they agree on everything
// observable and returns the fast one.
inline std::unique_ptr<Machine> run_all(const std::vector<uint32_t>& words,
                                        uint64_t max_insns = 10000,
                                        const std::vector<std::pair<unsigned, uint32_t>>& regs = {},
                                        lanaikit::vm::CostModel costs = {},
                                        const std::function<void(Machine&)>& prepare = {}) {
  std::unique_ptr<Machine> out;
  std::unique_ptr<Machine> ref;
  for (Executor how : {Executor::Reference, Executor::Fast, Executor::FastSingleSteps}) {
    auto m = std::make_unique<Machine>(64 * 1024, costs);
    m->load(words);
    for (auto [r, v] : regs) m->cpu.set_reg(r, v);
    if (prepare) prepare(*m);
    const auto result = run_with(*m, how, max_insns);
    // A program still running at the limit is a runaway: all three report it the same way.
    if (result.reason == lanaikit::vm::StopReason::Limit) m->cpu.raise_budget_fault();
    if (!ref) {
      ref = std::move(m);
      continue;
    }
    SCOPED_TRACE(how == Executor::Fast ? "fast interpreter" : "fast interpreter, batch of 1");
    for (unsigned r = 0; r < 32; ++r)
      EXPECT_EQ(m->cpu.reg(r), ref->cpu.reg(r)) << "register r" << r;
    EXPECT_EQ(m->cpu.npc(), ref->cpu.npc());
    EXPECT_EQ(m->cpu.nnpc(), ref->cpu.nnpc());
    EXPECT_EQ(m->cpu.instructions(), ref->cpu.instructions());
    EXPECT_EQ(m->cpu.cycles(), ref->cpu.cycles());
    EXPECT_EQ(m->cpu.halted(), ref->cpu.halted());
    EXPECT_EQ(m->cpu.fault().has_value(), ref->cpu.fault().has_value());
    if (m->cpu.fault() && ref->cpu.fault()) {
      EXPECT_EQ(m->cpu.fault()->kind, ref->cpu.fault()->kind);
      EXPECT_EQ(m->cpu.fault()->pc, ref->cpu.fault()->pc);
      EXPECT_EQ(m->cpu.fault()->address, ref->cpu.fault()->address);
    }
    EXPECT_EQ(m->io.output(), ref->io.output());
    EXPECT_EQ(0, std::memcmp(m->sram.data(), ref->sram.data(), m->sram.size())) << "SRAM differs";
    if (how == Executor::Fast) out = std::move(m);
  }
  return out;
}
