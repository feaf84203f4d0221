// The doze watch (vm/doze.h) on a bare CPU: where it may prove a poll loop's fixed point,
// and how many instructions of the reference model that takes.
#include "encode.h"
#include "machine.h"

#include "vm/doze.h"

#include <gtest/gtest.h>

using namespace enc;
using lanaikit::vm::Cpu;
using lanaikit::vm::SpinWatch;
using lanaikit::vm::StopReason;

namespace {

constexpr uint32_t kFlag = 0x400;

// Polls the word at kFlag until it is not zero: four instructions an iteration (the
// branch's delay slot included), then exits with the value. One iteration has run (the
// first pass sets the flags the others find set), so the CPU stands at its head in the
// loop's steady state.
std::unique_ptr<Machine> poll_loop() {
  auto m = std::make_unique<Machine>();
  m->load({ld(3, 0, kFlag), ri(SUB, 0, 3, 0, true), br(EQ, 0x0), kNop, exit_with(3)});
  EXPECT_EQ(m->cpu.run(4).executed, 4u);
  EXPECT_EQ(m->cpu.pc(), 0u);
  return m;
}

} // namespace

// A watch that begins inside the loop (a batch ended there) compares the CPU's state when
// it is back at that pc: one iteration proves the loop, whichever pc it began at. (Heads
// found only by backward transfers took the rest of the iteration and one more.)
TEST(SpinWatch, ProvesAPollLoopInOneIterationFromAnyPc) {
  for (uint32_t skip = 0; skip < 4; ++skip) {
    SCOPED_TRACE("watch begins after " + std::to_string(skip) + " instructions");
    auto m = poll_loop();
    if (skip > 0) {
      ASSERT_EQ(m->cpu.run(skip).executed, skip);
    }
    const uint32_t start = m->cpu.pc();
    SpinWatch w(m->cpu);
    w.begin(nullptr, 256);
    const auto r = w.run(100, false);
    EXPECT_EQ(r.reason, StopReason::Break);
    ASSERT_EQ(w.state(), SpinWatch::State::Proven);
    EXPECT_EQ(r.executed, 4u);
    EXPECT_EQ(w.loop().head, start);
    EXPECT_EQ(w.loop().instructions, 4u);
    ASSERT_EQ(w.loop().steps.size(), 4u);
    EXPECT_EQ(w.loop().steps.front().pc, start);
    ASSERT_EQ(w.loop().loads.size(), 1u);
    EXPECT_EQ(w.loop().loads[0], (Cpu::LoadRecord{kFlag, 4}));
    w.stop();
  }
}

// Something the loop reads changes mid-watch: what ran before proves nothing, and the
// watch starts over from where the CPU stands, proving the loop one iteration later.
TEST(SpinWatch, AChangeToWhatTheLoopReadsStartsItOverWhereTheCpuStands) {
  auto m = poll_loop();
  SpinWatch w(m->cpu);
  w.begin(nullptr, 256);
  auto r = w.run(3, false);
  ASSERT_EQ(r.reason, StopReason::Limit);
  EXPECT_TRUE(w.watching());
  w.changing(kFlag, 4); // the host is about to write the flag (still zero after)
  const uint32_t at = m->cpu.pc();
  r = w.run(100, false);
  ASSERT_EQ(w.state(), SpinWatch::State::Proven);
  EXPECT_EQ(r.executed, 4u);
  EXPECT_EQ(w.loop().head, at);
  // A change to a word it never reads leaves the watch as it was.
  auto m2 = poll_loop();
  SpinWatch w2(m2->cpu);
  w2.begin(nullptr, 256);
  ASSERT_EQ(w2.run(3, false).reason, StopReason::Limit);
  w2.changing(kFlag + 4, 4);
  r = w2.run(100, false);
  ASSERT_EQ(w2.state(), SpinWatch::State::Proven);
  EXPECT_EQ(r.executed, 1u);
  EXPECT_EQ(w2.loop().head, 0u);
}

// A loop that stores a new value each pass is not a fixed point: the watch fails at the
// first such (loud) store and stops before the next instruction.
TEST(SpinWatch, FailsAtALoudStore) {
  auto m = std::make_unique<Machine>();
  m->load({ri(ADD, 4, 4, 1), st(4, 0, kFlag + 4), br(T, 0x0), kNop});
  SpinWatch w(m->cpu);
  w.begin(nullptr, 256);
  const auto r = w.run(100, false);
  EXPECT_EQ(r.reason, StopReason::Break);
  EXPECT_EQ(w.state(), SpinWatch::State::Failed);
  EXPECT_EQ(r.executed, 2u);
}
