// The chip's extension point (vm/register_block.h): a protocol's register block attached
// to a chip, reached by firmware loads and stores and by a host process's PIO, raising ISR
// bits through its port, with batching that never changes a result, and misuse reported
// as faults or errors that name the block.
#include "firmware.h"
#include "mailbox_block.h"
#include "sim/node.h"

#include <gtest/gtest.h>

namespace lanaikit {
namespace {

using sim::Time;
using test::MailboxBlock;

constexpr uint32_t kBase = 0xFFFFF200;

struct BlockRig {
  sim::Kernel kernel;
  std::unique_ptr<sim::Node> node;
  MailboxBlock* block = nullptr;
  bool stopped = false;

  BlockRig(uint32_t test, uint32_t arg0, uint64_t max_batch = 0, bool all_exact = false) {
    static const assembler::FirmwareImage image =
        test::build_firmware({test::source("tests/chip/fw/blocktest.c")});
    sim::NodeParams params;
    params.chip = vm::ChipParams::lanaikit_default();
    params.pci = host::PciParams::vmmc();
    params.interrupt_latency = 2 * sim::kMicrosecond;
    node = std::make_unique<sim::Node>(kernel, params, 0, "n0");
    block = static_cast<MailboxBlock*>(
        &node->chip().attach_block(kBase, std::make_unique<MailboxBlock>(all_exact)));
    node->load(image);
    put(0x10000, test);
    put(0x10004, arg0);
    node->chip().set_max_batch(max_batch);
    node->chip().on_stop([this](vm::Chip&) { stopped = true; });
    node->start();
  }
  void put(uint32_t addr, uint32_t v) {
    const uint8_t b[4] = {uint8_t(v >> 24), uint8_t(v >> 16), uint8_t(v >> 8), uint8_t(v)};
    node->chip().host_write_sram(addr, b);
  }
  uint32_t result(int i) {
    uint8_t b[4];
    node->chip().host_read_sram(0x1000C + 4 * i, b);
    return uint32_t(b[0]) << 24 | uint32_t(b[1]) << 16 | uint32_t(b[2]) << 8 | b[3];
  }
  void run(Time until = 10 * sim::kMillisecond) {
    while (!stopped && kernel.now() < until)
      kernel.run_until(until);
  }
};

// What one mailbox run leaves behind: everything batching must not change.
struct Outcome {
  uint64_t trace_hash = 0, instructions = 0, exact_accesses = 0, batches = 0;
  uint32_t sum = 0;
  std::vector<uint32_t> seen_ns, answers;
  std::vector<Time> host_times;
  Time halted_at = 0;
};

constexpr uint32_t kRounds = 5;

// The host process: writes a word into MAILBOX by PIO, waits for the block's interrupt,
// reads the firmware's answer by PIO and acknowledges the ISR bit; kRounds times.
Outcome mailbox_run(uint64_t max_batch, bool all_exact = false) {
  BlockRig r(1, kRounds, max_batch, all_exact);
  Outcome o;
  r.node->spawn("host", [&](host::Process& p) -> host::Task {
    for (uint32_t i = 0; i < kRounds; ++i) {
      p.advance(3 * sim::kMicrosecond);
      r.node->pio_write_block(p, kBase + MailboxBlock::MAILBOX, 10 + i);
      const uint64_t before = r.node->interrupts_delivered();
      co_await p.wait(r.node->interrupt_watch(),
                      [&] { return r.node->interrupts_delivered() > before; });
      uint32_t answer = 0;
      co_await r.node->pio_read_block(p, kBase + MailboxBlock::MAILBOX, answer);
      o.answers.push_back(answer);
      r.node->pio_write_reg(p, vm::regs::ISR, MailboxBlock::kMailboxInt);
      o.host_times.push_back(p.local());
    }
  });
  r.run();
  EXPECT_TRUE(r.node->chip().cpu().halted()) << r.node->chip().report();
  o.trace_hash = r.kernel.trace_hash();
  o.instructions = r.node->chip().cpu().instructions();
  o.exact_accesses = r.node->chip().counters().exact_accesses;
  o.batches = r.kernel.agent_batches();
  o.sum = r.result(0);
  for (uint32_t i = 0; i < kRounds; ++i)
    o.seen_ns.push_back(r.result(1 + i));
  o.halted_at = r.node->chip().local_time();
  EXPECT_EQ(r.block->doorbells(), kRounds);
  return o;
}

TEST(RegisterBlock, FirmwareAndHostTalkThroughTheMailbox) {
  const Outcome o = mailbox_run(0);
  EXPECT_EQ(o.sum, 10u + 11 + 12 + 13 + 14);
  ASSERT_EQ(o.answers.size(), kRounds);
  for (uint32_t i = 0; i < kRounds; ++i)
    EXPECT_EQ(o.answers[i], 2 * (10 + i)) << i;
  // Each word reaches the firmware one posted-write bus time (121 ns on the VMMC PCI)
  // after the host issued it, and no earlier.
  ASSERT_EQ(o.seen_ns.size(), kRounds);
  EXPECT_GE(Time(o.seen_ns[0]) * sim::kNanosecond, 3 * sim::kMicrosecond + 121 * sim::kNanosecond);
  EXPECT_LT(Time(o.seen_ns[0]) * sim::kNanosecond,
            3 * sim::kMicrosecond + 121 * sim::kNanosecond + sim::kMicrosecond);
  // The host saw each interrupt no earlier than the doorbell's 300 ns delay plus the
  // interrupt latency after the word was seen.
  for (uint32_t i = 0; i < kRounds; ++i)
    EXPECT_GE(o.host_times[i], Time(o.seen_ns[i]) * sim::kNanosecond + 300 * sim::kNanosecond +
                                   2 * sim::kMicrosecond)
        << i;
  EXPECT_GT(o.exact_accesses, 0u);
}

TEST(RegisterBlock, BatchingNeverChangesTheResultOrTheTrace) {
  const Outcome ref = mailbox_run(1); // one instruction per batch: the reference schedule
  for (const uint64_t max_batch : {uint64_t(7), uint64_t(0)}) {
    const Outcome o = mailbox_run(max_batch);
    EXPECT_EQ(o.trace_hash, ref.trace_hash) << max_batch;
    EXPECT_EQ(o.instructions, ref.instructions) << max_batch;
    EXPECT_EQ(o.seen_ns, ref.seen_ns) << max_batch;
    EXPECT_EQ(o.answers, ref.answers) << max_batch;
    EXPECT_EQ(o.host_times, ref.host_times) << max_batch;
    EXPECT_EQ(o.halted_at, ref.halted_at) << max_batch;
    EXPECT_EQ(o.sum, ref.sum) << max_batch;
    EXPECT_LT(o.batches, ref.batches) << max_batch; // the batches did differ
  }
}

// The default (every access exact) gives the same results; the block's own list ends
// fewer batches (the polled COUNT reads stay in the batch).
TEST(RegisterBlock, SayingWhichAccessesNeedExactTimeOnlyChangesSpeed) {
  const Outcome listed = mailbox_run(0, false);
  const Outcome all = mailbox_run(0, true);
  EXPECT_EQ(all.trace_hash, listed.trace_hash);
  EXPECT_EQ(all.instructions, listed.instructions);
  EXPECT_EQ(all.seen_ns, listed.seen_ns);
  EXPECT_EQ(all.host_times, listed.host_times);
  EXPECT_GT(all.exact_accesses, listed.exact_accesses);
}

struct BlockFaultCase {
  uint32_t test;
  const char* detail;
};

class RegisterBlockFault : public ::testing::TestWithParam<BlockFaultCase> {};

TEST_P(RegisterBlockFault, StopsTheCpuWithAReportNamingTheBlock) {
  BlockRig r(GetParam().test, 0);
  r.run();
  const auto& cpu = r.node->chip().cpu();
  ASSERT_TRUE(cpu.fault().has_value()) << r.node->chip().report();
  EXPECT_EQ(cpu.fault()->kind, vm::FaultKind::MmioError);
  const std::string report = cpu.fault_report();
  EXPECT_NE(report.find(GetParam().detail), std::string::npos) << report;
  EXPECT_NE(report.find("r31"), std::string::npos) << report;
  EXPECT_FALSE(r.node->chip().running());
}

INSTANTIATE_TEST_SUITE_P(
    Misuse, RegisterBlockFault,
    ::testing::Values(
        BlockFaultCase{2, "mailbox: byte access at offset 0x3; its registers are 32-bit words"},
        BlockFaultCase{
            3, "no register block at 0xfffff210 (attached: mailbox [0xfffff200, 0xfffff210))"},
        BlockFaultCase{4, "mailbox offset 0x4: COUNT is read-only"},
        BlockFaultCase{5, "mailbox offset 0x8: DOORBELL is write-only"}),
    [](const ::testing::TestParamInfo<BlockFaultCase>& info) {
      return "scenario" + std::to_string(info.param.test);
    });

TEST(RegisterBlock, AttachingRefusesOverlapsAndBlocksOutsideTheWindow) {
  sim::Kernel kernel;
  vm::Chip chip(kernel, vm::ChipParams::lanaikit_default());
  chip.attach_block(kBase, std::make_unique<MailboxBlock>());
  try {
    chip.attach_block(kBase + 8, std::make_unique<MailboxBlock>());
    FAIL() << "an overlapping block was attached";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("overlaps mailbox at [0xfffff200, 0xfffff210)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(chip.attach_block(vm::kBlockWindowEnd - 8, std::make_unique<MailboxBlock>()),
               std::invalid_argument); // runs into the LANai registers
  EXPECT_THROW(chip.attach_block(0x1000, std::make_unique<MailboxBlock>()), std::invalid_argument);
  EXPECT_THROW(chip.attach_block(kBase + 18, std::make_unique<MailboxBlock>()),
               std::invalid_argument);
  chip.attach_block(kBase + 16, std::make_unique<MailboxBlock>()); // adjacent is fine
}

TEST(RegisterBlock, HostMisuseIsAnErrorNamingTheBlock) {
  sim::Kernel kernel;
  vm::Chip chip(kernel, vm::ChipParams::lanaikit_default());
  chip.attach_block(kBase, std::make_unique<MailboxBlock>());
  chip.host_write_block(kBase + MailboxBlock::MAILBOX, 5);
  EXPECT_EQ(chip.host_read_block(kBase + MailboxBlock::COUNT), 1u);
  auto message = [&](auto fn) {
    try {
      fn();
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message([&] {
              chip.host_write_block(kBase + MailboxBlock::COUNT, 1);
            }).find("mailbox offset 0x4: COUNT is read-only"),
            std::string::npos);
  EXPECT_NE(
      message([&] { chip.host_read_block(kBase + 0x40); }).find("no register block at 0xfffff240"),
      std::string::npos);
  EXPECT_NE(message([&] {
              chip.host_read_block(kBase + 2);
            }).find("not a word in the register-block window"),
            std::string::npos);
}

// A block may raise only its own ISR bits: a LANai engine's bit is a programming error.
TEST(RegisterBlock, PortRefusesTheLanaiEnginesIsrBits) {
  struct Rogue final : vm::RegisterBlock {
    std::string name() const override { return "rogue"; }
    uint32_t size_bytes() const override { return 4; }
    vm::MmioStatus read(uint32_t, bool, uint32_t&) override { return vm::MmioStatus::Unmapped; }
    vm::MmioStatus write(uint32_t, bool, uint32_t v) override {
      port().raise_isr(v);
      return vm::MmioStatus::Ok;
    }
  };
  sim::Kernel kernel;
  vm::Chip chip(kernel, vm::ChipParams::lanaikit_default());
  chip.attach_block(kBase, std::make_unique<Rogue>());
  chip.host_write_block(kBase, 0x200);
  EXPECT_EQ(chip.isr() & 0x200, 0x200u);
  EXPECT_THROW(chip.host_write_block(kBase, vm::regs::RECV_INT_BIT), std::logic_error);
}

} // namespace
} // namespace lanaikit
