// Randomised differential test of the fast interpreter against the reference stepper.
//
// Each case is a random program: ALU operations of every format (flag-setting, predicated,
// shifts by any amount), loads and stores at every width and addressing mode over a data
// area, compares followed by branches, branches and jumps into the program (delay slots
// holding anything, including other branches), loads into %pc, stores into the program
// itself, and now and then a word LLVM does not decode. It runs three ways: the reference
// stepper, the fast interpreter in one call, and the fast interpreter in random batch
// sizes. Registers, status word, pipeline state, counters, memory, output and fault must
// agree exactly. Deterministic: a fixed seed per case.
#include "random_program.h"

using namespace random_program;

TEST(CpuDifferential, RandomProgramsAgreeWithTheReferenceModel) {
  int halted = 0, faulted = 0, limited = 0, overflowed = 0;
  for (uint32_t seed = 1; seed <= 3000; ++seed) {
    const Case c = make_case(seed);
    auto ref = setup(c);
    const auto r_ref = ref->cpu.step_reference(c.budget);

    auto fast = setup(c);
    const auto r_fast = fast->cpu.run(c.budget);

    auto batched = setup(c);
    std::mt19937 rng(seed);
    uint64_t done = 0;
    lanaikit::vm::RunResult r_batch{lanaikit::vm::StopReason::Limit, 0};
    while (done < c.budget) {
      const uint64_t n = std::min<uint64_t>(c.budget - done, 1 + rng() % 7);
      r_batch = batched->cpu.run(n);
      done += r_batch.executed;
      if (r_batch.reason != lanaikit::vm::StopReason::Limit) break;
    }

    const std::string want = state(*ref);
    ASSERT_EQ(state(*fast), want) << "seed " << seed << " (one call)";
    ASSERT_EQ(state(*batched), want) << "seed " << seed << " (batches)";
    ASSERT_EQ(r_fast.reason, r_ref.reason) << "seed " << seed;
    ASSERT_EQ(r_fast.executed, r_ref.executed) << "seed " << seed;
    ASSERT_EQ(0, std::memcmp(fast->sram.data(), ref->sram.data(), ref->sram.size()))
        << "seed " << seed;
    ASSERT_EQ(0, std::memcmp(batched->sram.data(), ref->sram.data(), ref->sram.size()))
        << "seed " << seed;
    halted += r_ref.reason == lanaikit::vm::StopReason::Halted;
    faulted += r_ref.reason == lanaikit::vm::StopReason::Fault;
    limited += r_ref.reason == lanaikit::vm::StopReason::Limit;
    overflowed += ref->cpu.fault() && ref->cpu.fault()->kind == lanaikit::vm::FaultKind::StackOverflow;
  }
  // The generator must exercise every way a run ends, or the test proves little.
  EXPECT_GT(halted, 100);
  EXPECT_GT(faulted, 100);
  EXPECT_GT(limited, 100);
  EXPECT_GT(overflowed, 50);
  std::printf("halted %d, faulted %d (%d in the stack guard), ran out of budget %d\n", halted,
              faulted, overflowed, limited);
}

// Cycle budgets (Cpu::run_cycles, what a chip's CPU runs between two events): an
// instruction runs only if it starts before the budget's end. The reference steps one
// instruction at a time while fewer cycles than the budget have passed.
TEST(CpuDifferential, CycleBudgetsStopWhereTheReferenceStops) {
  int stopped_by_stall = 0, stopped_with_stalls = 0;
  for (uint32_t seed = 1; seed <= 3000; ++seed) {
    const Case c = make_case(seed);
    // Mostly short budgets, so that many runs end on the budget rather than a halt or fault.
    const uint64_t cycles = 1 + (seed % 4 == 0 ? c.budget + c.budget / 3 : c.budget / 5);

    auto ref = setup(c);
    lanaikit::vm::RunResult r_ref{lanaikit::vm::StopReason::Limit, 0};
    while (ref->cpu.cycles() < cycles) {
      r_ref = ref->cpu.step_reference(1);
      if (r_ref.reason != lanaikit::vm::StopReason::Limit) break;
    }
    if (r_ref.reason == lanaikit::vm::StopReason::Limit && ref->cpu.stall_cycles() > 0)
      ++stopped_with_stalls;
    if (ref->cpu.cycles() > cycles) ++stopped_by_stall;

    auto fast = setup(c);
    const auto r_fast = fast->cpu.run_cycles(cycles);

    auto batched = setup(c);
    std::mt19937 rng(seed * 7 + 1);
    lanaikit::vm::RunResult r_batch{lanaikit::vm::StopReason::Limit, 0};
    while (batched->cpu.cycles() < cycles) {
      const uint64_t n = std::min<uint64_t>(cycles - batched->cpu.cycles(), 1 + rng() % 9);
      r_batch = batched->cpu.run_cycles(n);
      if (r_batch.reason != lanaikit::vm::StopReason::Limit) break;
    }

    const std::string want = state(*ref);
    ASSERT_EQ(state(*fast), want) << "seed " << seed << " (one call)";
    ASSERT_EQ(state(*batched), want) << "seed " << seed << " (batches)";
    ASSERT_EQ(r_fast.reason == lanaikit::vm::StopReason::Limit,
              r_ref.reason == lanaikit::vm::StopReason::Limit)
        << "seed " << seed;
    ASSERT_EQ(0, std::memcmp(fast->sram.data(), ref->sram.data(), ref->sram.size()))
        << "seed " << seed;
    ASSERT_EQ(0, std::memcmp(batched->sram.data(), ref->sram.data(), ref->sram.size()))
        << "seed " << seed;
  }
  // Many runs must end on the budget after stalls (so cycles and instructions differ), and
  // some with a stall carrying the last instruction past the budget.
  EXPECT_GT(stopped_with_stalls, 40);
  EXPECT_GT(stopped_by_stall, 3);
  std::printf("stopped on the budget after stalls %d, by a final stall %d\n", stopped_with_stalls,
              stopped_by_stall);
}

// The same, on loops dense in stalls: load-use pairs, memory-mapped loads (SRAM_SIZE) and
// their use, a load in the loop branch's delay slot read by the loop's first instruction,
// and a load into %pc (two delay slots) now and then: every way the fast interpreter can
// overdraw a cycle budget.
TEST(CpuDifferential, CycleBudgetsOnStallDenseLoops) {
  int stalled_stops = 0;
  for (uint32_t seed = 1; seed <= 1500; ++seed) {
    Gen g(seed);
    std::vector<uint32_t> code;
    code.push_back(rr(ADD, 12, 6, 6)); // reads r6: stalls after the delay-slot load
    const uint32_t body = 6 + g.u(20);
    for (uint32_t i = 0; i < body; ++i) {
      switch (g.u(6)) {
      case 0:
      case 1: // load then use
        code.push_back(ld(6, 4, int32_t(4 * g.u(16))));
        code.push_back(rr(ADD, 8, 6, 7));
        break;
      case 2: // memory-mapped load (SRAM_SIZE) then use, or not
        code.push_back(ld(9, 0, -4088));
        code.push_back(g.chance(60) ? rr(ADD, 10, 9, 7) : rr(ADD, 10, 11, 7));
        break;
      case 3: code.push_back(st(8, 4, int32_t(4 * g.u(16)))); break;
      case 4: // a load into %pc through the jump table (back into the loop)
        if (g.chance(30)) {
          code.push_back(ld(2, 5, 0));
          code.push_back(ld(6, 4, 0)); // first delay slot
          code.push_back(rr(ADD, 8, 6, 7)); // second, reads it
          break;
        }
        [[fallthrough]];
      default: code.push_back(ri(ADD, 11, 11, 1)); break;
      }
    }
    code.push_back(bt(0));
    code.push_back(ld(6, 4, 8)); // delay slot: the target reads r6
    auto make = [&] {
      auto m = std::make_unique<Machine>(64 * 1024);
      m->load(code);
      m->cpu.set_reg(4, kDataBase + 0x100);
      m->cpu.set_reg(5, kDataBase + 0x200);
      m->cpu.set_reg(7, 3);
      m->sram.write32(kDataBase + 0x200, 4); // the jump table: back to the loop's second word
      return m;
    };
    const uint64_t total = 50 + g.u(400);
    auto ref = make();
    while (ref->cpu.cycles() < total)
      if (ref->cpu.step_reference(1).reason != lanaikit::vm::StopReason::Limit) break;
    if (ref->cpu.cycles() > total) ++stalled_stops;

    auto one = make();
    one->cpu.run_cycles(total);
    auto batched = make();
    std::mt19937 rng(seed);
    while (batched->cpu.cycles() < total) {
      const uint64_t n = std::min<uint64_t>(total - batched->cpu.cycles(), 1 + rng() % 12);
      if (batched->cpu.run_cycles(n).reason != lanaikit::vm::StopReason::Limit) break;
    }
    const std::string want = state(*ref);
    ASSERT_EQ(state(*one), want) << "seed " << seed << " (one call)";
    ASSERT_EQ(state(*batched), want) << "seed " << seed << " (batches)";
    ASSERT_EQ(0, std::memcmp(batched->sram.data(), ref->sram.data(), ref->sram.size()));
  }
  EXPECT_GT(stalled_stops, 150); // the last instruction's stall carried it past the budget
  std::printf("stopped by a final stall: %d of 1500\n", stalled_stops);
}
