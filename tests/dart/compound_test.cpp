// DART's answering opcodes and the compound operations built from them (docs/dart.md,
// "Compound operations"): FETCH (fetch-and-add, fetch-and-store), FETCH_IF
// (compare-and-swap), READ_MULTIPLE, each answered by the card without either host, the
// answer carrying the reader's tag; and their refusals.
#include "dart_bench.h"

#include <gtest/gtest.h>

namespace lanaikit {
namespace {

using namespace test;

constexpr Op FETCH = Op::Fetch, FETCH_IF = Op::FetchIf, READ_MULTIPLE = Op::ReadMultiple;

// An answering cell: the reply goes to `reply_at` in node 0's endpoint with `tag`; `value`
// is the source Src::Value.
Cell answering(Op op, uint32_t reply_at, uint32_t tag, uint32_t value = 0, uint32_t operand = 0) {
  Cell c = Cell::make(op, 0, DIRECT, operand);
  c.data[0] = reply_at;
  c.data[1] = tag;
  c.data[2] = value;
  return c;
}

TEST(DartCompound, FetchAndAddAnswersTheOldValueWithTheTagAndUpdatesTheRegister) {
  for (const bool with_switch : {false, true}) {
    DartBench b(with_switch);
    b.set_reg(1, 102, 40); // the counter: register 2 of node 1's window
    // Fetch-and-add 5 (the operand), then fetch-and-add 7 (the value, data word 2).
    b.send(answering(FETCH, 0x100, 0xA1, 0, 5).regs(2).reg_ops(RegOp::Add, Sel::I, Src::Operand));
    b.send(answering(FETCH, 0x108, 0xA2, 7).regs(2).reg_ops(RegOp::Add, Sel::I, Src::Value));
    b.h.run([&] { return b.counter(0, "writes") >= 2; }, 20 * sim::kMillisecond);
    EXPECT_EQ(b.word(0, 0x100), 40u);
    EXPECT_EQ(b.word(0, 0x104), 0xA1u);
    EXPECT_EQ(b.word(0, 0x108), 45u);
    EXPECT_EQ(b.word(0, 0x10C), 0xA2u);
    EXPECT_EQ(b.reg(1, 102), 52u);
    EXPECT_EQ(b.counter(1, "fetches"), 2u);
    b.expect_untouched_outside(0, 0x100, 0x110);
    b.expect_untouched_outside(1, 0, 0);
    EXPECT_EQ(b.h.node(0).interrupts_delivered() + b.h.node(1).interrupts_delivered(), 0u);
  }
}

TEST(DartCompound, FetchAndStoreAndAFetchWithNoOperationIsARegisterRead) {
  DartBench b;
  b.set_reg(1, 101, 0x1234);
  b.send(answering(FETCH, 0x100, 1, 0x5678).regs(1).reg_ops(RegOp::Load, Sel::I, Src::Value));
  b.send(answering(FETCH, 0x108, 2).regs(1));
  b.h.run([&] { return b.counter(0, "writes") >= 2; }, 20 * sim::kMillisecond);
  EXPECT_EQ(b.word(0, 0x100), 0x1234u);
  EXPECT_EQ(b.word(0, 0x108), 0x5678u);
  EXPECT_EQ(b.reg(1, 101), 0x5678u);
}

TEST(DartCompound, CompareAndSwapSwapsOnlyWhenTheRegisterHoldsTheExpectedValue) {
  DartBench b;
  b.set_reg(1, 103, 9);
  // CAS(9 -> 20) succeeds, then CAS(9 -> 30) fails and leaves 20; the reply is the old
  // value either way, so the requester knows which happened.
  auto cas = [](uint32_t at, uint32_t tag, uint32_t expected, uint32_t desired) {
    return answering(FETCH_IF, at, tag, desired, expected)
        .regs(3)
        .cond(Cmp::Eq, Sel::I, Src::Operand)
        .reg_ops(RegOp::Load, Sel::I, Src::Value);
  };
  b.send(cas(0x100, 1, 9, 20));
  b.send(cas(0x108, 2, 9, 30));
  b.h.run([&] { return b.counter(0, "writes") >= 2; }, 20 * sim::kMillisecond);
  EXPECT_EQ(b.word(0, 0x100), 9u);
  EXPECT_EQ(b.word(0, 0x108), 20u);
  EXPECT_EQ(b.reg(1, 103), 20u);
  EXPECT_EQ(b.counter(1, "fetches"), 2u);
  EXPECT_EQ(b.counter(1, "swaps_failed"), 1u);
  EXPECT_EQ(b.counter(1, "conds"), 0u); // the conditional guards; it does not interrupt
  EXPECT_EQ(b.get(1, "dart.ev_head"), 0u);
}

TEST(DartCompound, ARemoteBlockReadComesBackAsABlockWithoutEitherHost) {
  for (const bool with_switch : {false, true}) {
    DartBench b(with_switch);
    const auto bytes = block_bytes(3000, 9);
    b.h.node(1).memory().write(pa_of(0xE00), std::span(bytes).subspan(0, 0x200)); // page 0
    b.h.node(1).memory().write(pa_of(0x1000), std::span(bytes).subspan(0x200));
    Cell r = Cell::make(READ_MULTIPLE, 0, INDEXED, 0xE00).regs(0);
    r.data[0] = 0x2000; // where node 0 gets it (pages 2 of node 0's endpoint)
    r.data[1] = 3000;   // bytes
    b.set_reg(1, 100, 0);
    b.send(r);
    b.h.run([&] { return b.counter(0, "blocks") >= 1; }, 20 * sim::kMillisecond);
    EXPECT_EQ(endpoint_bytes(b, 0, 0x2000, 3000), bytes);
    b.expect_untouched_outside(0, 0x2000, 0x2000 + 3000);
    EXPECT_EQ(b.counter(1, "read_blocks"), 1u);
    EXPECT_EQ(b.counter(0, "bad_block"), 0u);
    EXPECT_EQ(b.h.node(0).interrupts_delivered() + b.h.node(1).interrupts_delivered(), 0u);
  }
}

TEST(DartCompound, ABlockReadMissParksUntilTheDriverFillsTheEntry) {
  DartBench b;
  b.unmap(1, 1);
  uint32_t misses = 0;
  b.serve_misses(1, [&](const std::string&) {
    ++misses;
    b.map(1, 1);
  });
  Cell r = Cell::make(READ_MULTIPLE, 0, DIRECT, 0xF00);
  r.data[0] = 0x100;
  r.data[1] = 512; // 0xF00 .. 0x1100: the second page misses
  b.send(r);
  b.h.run([&] { return b.counter(0, "blocks") >= 1; }, 20 * sim::kMillisecond);
  EXPECT_EQ(misses, 1u);
  EXPECT_EQ(endpoint_bytes(b, 0, 0x100, 512), endpoint_bytes(b, 1, 0xF00, 512));
}

TEST(DartCompound, MalformedAnsweringCellsAreRefusedAndCounted) {
  DartBench b;
  b.set_reg(1, 102, 77);
  auto block_read = [](uint32_t offset, uint32_t size) {
    Cell r = Cell::make(READ_MULTIPLE, 0, DIRECT, offset);
    r.data[0] = 0;
    r.data[1] = size;
    return r;
  };
  const std::vector<Cell> hostile = {
      answering(FETCH, 0x100, 1).regs(8),                                          // outside the window
      answering(FETCH_IF, 0x100, 2, 5).regs(2).reg_ops(RegOp::Load, Sel::I, Src::Value), // no guard
      block_read(0, 0),                                                            // empty
      block_read(0, 4097),                                                         // over MAX_BLOCK
      block_read(kBound - 256, 512),                                               // past the bound
      block_read(2, 64),                                                           // unaligned
  };
  for (const Cell& c : hostile) b.send(c);
  b.send(answering(FETCH, 0x200, 3).regs(2)); // legitimate, after all
  b.h.run([&] { return b.counter(0, "writes") >= 1; }, 20 * sim::kMillisecond);
  b.h.run_for(20 * sim::kMicrosecond);
  EXPECT_EQ(b.counter(1, "bad_reg"), 1u);
  EXPECT_EQ(b.counter(1, "bad_op"), 1u);
  EXPECT_EQ(b.counter(1, "bad_bound"), 4u);
  EXPECT_EQ(b.counter(1, "fetches"), 1u);
  EXPECT_EQ(b.counter(1, "read_blocks"), 0u);
  EXPECT_EQ(b.reg(1, 102), 77u);
  EXPECT_EQ(b.word(0, 0x200), 77u);
  b.expect_untouched_outside(0, 0x200, 0x208);
}

} // namespace
} // namespace lanaikit
