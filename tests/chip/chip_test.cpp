// One node, no network: the chip's registers, the host DMA engine, timers, the doorbell,
// the host interrupt, and faults from misused registers.
#include "firmware.h"
#include "host/model/address_space.h"
#include "sim/cluster.h"
#include "host/kit/sram.h"
#include "sim/node.h"
#include "vm/profiler.h"

#include <gtest/gtest.h>

namespace lanaikit {
namespace {

using sim::Time;
using vm::regs::Offset;

vm::ChipParams vmmc_nic() {
  static const vm::ChipParams chip =
      sim::cluster_params(sim::load_platform(test::source("lua-scripts/platforms/vmmc.lua")), 1).node.chip;
  return chip;
}

struct Rig {
  sim::Kernel kernel;
  std::unique_ptr<sim::Node> node;
  bool stopped = false;

  explicit Rig(uint32_t test, uint32_t arg0 = 0, uint32_t arg1 = 0, sim::NodeParams params = {}) {
    static const assembler::FirmwareImage image = test::build_firmware({test::source("tests/chip/fw/chiptest.c")});
    // VMMC's testbed (a LANai 4.1 at 33 MHz with 256 KB, its PCI): the timings below are its.
    if (params.chip.clock_hz == 0) params.chip = vmmc_nic();
    if (params.pci.dma_to_host.empty()) params.pci = host::PciParams::vmmc();
    node = std::make_unique<sim::Node>(kernel, params, 0, "n0");
    node->load(image);
    put(0x10000, test);
    put(0x10004, arg0);
    put(0x10008, arg1);
    node->chip().on_stop([this](vm::Chip&) { stopped = true; });
    node->start();
  }
  void put(uint32_t addr, uint32_t v) { kit::poke32(*node, addr, v); }
  uint32_t get(uint32_t addr) { return kit::peek32(*node, addr); }
  uint32_t result(int i) { return get(0x1000C + 4 * i); }
  void run(Time until = 10 * sim::kMillisecond) {
    while (!stopped && kernel.now() < until) kernel.run_until(until);
  }
};

TEST(Chip, HostDmaRoundTripMovesBytesAndTakesTheBusTime) {
  const uint64_t host = 0x20000;
  Rig r(1, host, 4096);
  r.run();
  ASSERT_TRUE(r.node->chip().cpu().halted()) << r.node->chip().cpu().fault_report();
  EXPECT_EQ(r.result(0), 0u); // every byte came back
  std::vector<uint8_t> in_host(4096);
  r.node->memory().read(host, in_host);
  for (uint32_t i = 0; i < 4096; ++i) ASSERT_EQ(in_host[i], uint8_t(i * 7 + 3)) << i;
  // Two 4 KB DMAs at the VMMC platform's 110 MB/s take 2 x 37.236 us; the RTC (0.5 us
  // ticks) brackets them with the firmware's few instructions around.
  const double us = (r.result(2) - r.result(1)) * 0.5;
  EXPECT_GE(us, 2 * 4096 / 110.0);
  EXPECT_LE(us, 2 * 4096 / 110.0 + 2.0);
  EXPECT_EQ(r.node->chip().counters().host_dmas, 2u);
  EXPECT_EQ(r.node->pci().stats().dma_to_host_bytes, 4096u);
  EXPECT_EQ(r.node->pci().stats().dma_from_host_bytes, 4096u);
}

TEST(Chip, IntervalTimerExpiresAfterItsTicksAndClearsOnWrite) {
  Rig r(2, 40);
  r.run();
  ASSERT_TRUE(r.node->chip().cpu().halted()) << r.node->chip().cpu().fault_report();
  EXPECT_GE(r.result(0), 40u);
  EXPECT_LE(r.result(0), 41u);
  EXPECT_EQ(r.result(1), 0u); // write-one-to-clear
}

TEST(Chip, SignalRaisesTheHostInterruptOnlyWhenUnmasked) {
  sim::NodeParams p;
  p.interrupt_latency = 2 * sim::kMicrosecond;
  Rig r(3, 2, 0, p);
  int delivered = 0;
  Time at = 0;
  r.node->on_interrupt([&] {
    ++delivered;
    at = r.kernel.now();
    // The driver acknowledges by clearing the bit (a host write to ISR).
    r.node->chip().host_write_reg(Offset::ISR, vm::regs::LAN2_SIG_BIT);
  });
  // Masked first: the firmware's signal stays pending, no interrupt.
  r.kernel.run_until(50 * sim::kMicrosecond);
  EXPECT_EQ(delivered, 0);
  EXPECT_NE(r.node->chip().isr() & vm::regs::LAN2_SIG_BIT, 0u);
  // Unmasking raises the line; the handler runs interrupt_latency later.
  r.node->chip().host_write_reg(Offset::EIMR, vm::regs::LAN2_SIG_BIT);
  const Time unmasked = r.kernel.now();
  r.run();
  EXPECT_EQ(delivered, 1);
  EXPECT_EQ(at, unmasked + 2 * sim::kMicrosecond);
  EXPECT_EQ(r.result(0), 1u);
  EXPECT_FALSE(r.node->chip().interrupt_asserted());
}

TEST(Chip, DoorbellFromAHostProcessByPostedPioWrite) {
  Rig r(7);
  Time issued = 0;
  r.node->spawn("ring", [&](host::Process& p) -> host::Task {
    p.advance(10 * sim::kMicrosecond);
    r.node->pio_write_reg(p, Offset::HOST_SIG, 0xC0FFEE);
    issued = p.local();
    co_return;
  });
  Time rang = 0;
  r.node->chip().on_event([&](const vm::ChipEventRecord& e) {
    if (e.kind == vm::ChipEvent::Doorbell) rang = e.time;
  });
  r.run();
  ASSERT_TRUE(r.node->chip().cpu().halted()) << r.node->chip().cpu().fault_report();
  EXPECT_EQ(r.result(0), 0xC0FFEEu);
  EXPECT_EQ(r.result(1), 0u);
  // Posted: the process paid the issue cost; the write landed one bus time after posting.
  EXPECT_EQ(issued, 10 * sim::kMicrosecond + 121 * sim::kNanosecond);
  EXPECT_EQ(rang, 10 * sim::kMicrosecond + 121 * sim::kNanosecond);
}

// Idle chips doze (vm/doze.h): a CPU polling one SRAM word dozes; host writes to other
// words do not wake it, the write to its word does, at once; the run is the same as with
// every instruction executed (counts, cycles, the time the loop ended).
struct DozeRun {
  uint64_t instructions, cycles, dozed, wakes;
  uint32_t ended_rtc;
  uint32_t stored_word; // test 11: the word its loop stores to, read after the host changed it
  std::vector<uint64_t> doorbell_insns; // the CPU's count at each host write (chip events)
};

DozeRun poll_with_host_writes(bool doze, uint32_t test = 10) {
  Rig r(test, 0x14000, 0x600D);
  r.node->chip().set_doze(doze);
  DozeRun out{};
  r.node->chip().on_event([&](const vm::ChipEventRecord& e) {
    if (e.kind == vm::ChipEvent::HostWrite) out.doorbell_insns.push_back(e.instructions);
  });
  r.node->spawn("host", [&](host::Process& p) -> host::Task {
    for (int i = 0; i < 20; ++i) { // words the loop never reads
      p.advance(3 * sim::kMicrosecond);
      r.node->pio_write_word(p, 0x14100 + 4 * uint32_t(i), 0x1234 + uint32_t(i));
    }
    if (test == 11) { // the word its loop stores 5 to: the next pass's store puts it back
      r.node->pio_write_word(p, 0x14008, 0x77);
      p.advance(2 * sim::kMicrosecond);
      co_await r.node->pio_read_word(p, 0x14008, out.stored_word);
    }
    p.advance(5 * sim::kMicrosecond);
    r.node->pio_write_word(p, 0x14000, 0x600D);
    co_return;
  });
  r.run();
  vm::Chip& chip = r.node->chip();
  EXPECT_TRUE(chip.cpu().halted()) << chip.cpu().fault_report();
  out.instructions = chip.cpu().instructions();
  out.cycles = chip.cpu().cycles();
  out.dozed = chip.doze_counters().skipped_instructions;
  out.wakes = chip.doze_counters().wakes;
  out.ended_rtc = r.result(0);
  return out;
}

TEST(Chip, AnIdleCpuDozesUntilWhatItReadsChanges) {
  const DozeRun ref = poll_with_host_writes(false), d = poll_with_host_writes(true);
  EXPECT_EQ(ref.dozed, 0u);
  EXPECT_EQ(d.instructions, ref.instructions);
  EXPECT_EQ(d.cycles, ref.cycles);
  EXPECT_EQ(d.ended_rtc, ref.ended_rtc);
  EXPECT_EQ(d.doorbell_insns, ref.doorbell_insns); // counts at events while dozing
  ASSERT_EQ(d.doorbell_insns.size(), 21u);
  // Most of the run is the poll loop: dozed, and only the flag's write woke it (plus the
  // end of each run_until, which settles it).
  EXPECT_GT(d.dozed, ref.instructions * 9 / 10);
  EXPECT_LE(d.wakes, 3u);
}

// A poll loop that calls a function stores on every pass (the return address, and here a
// constant into SRAM), but the same bytes each time: silent stores keep the fixed point,
// so it dozes too. A host write to a word it stores to wakes it (its next store is loud),
// and it puts its 5 back as it does without dozing.
TEST(Chip, APollLoopWithSilentStoresDozes) {
  const DozeRun ref = poll_with_host_writes(false, 11), d = poll_with_host_writes(true, 11);
  EXPECT_EQ(ref.dozed, 0u);
  EXPECT_EQ(ref.stored_word, 5u);
  EXPECT_EQ(d.stored_word, 5u);
  EXPECT_EQ(d.instructions, ref.instructions);
  EXPECT_EQ(d.cycles, ref.cycles);
  EXPECT_EQ(d.ended_rtc, ref.ended_rtc);
  EXPECT_EQ(d.doorbell_insns, ref.doorbell_insns);
  ASSERT_EQ(d.doorbell_insns.size(), 22u);
  EXPECT_GT(d.dozed, ref.instructions * 3 / 4); // two wakes, and a watch after each
  EXPECT_LE(d.wakes, 4u);
}

// A run that fails (here an event throws while the CPU dozes in its poll loop) still
// brings the dozing CPU to the failure's time, so a report made then reads the CPU as if
// it had run every instruction: the same count, cycles and pc as without dozing.
TEST(Chip, AFailedRunSettlesADozingCpu) {
  struct At {
    uint64_t instructions, cycles;
    uint32_t pc;
    bool dozing;
    uint64_t dozed;
  };
  auto fail_at_40us = [](bool doze) {
    Rig r(10, 0x14000, 0x600D); // polls SRAM word 0x14000 for 0x600D, which never comes
    r.node->chip().set_doze(doze);
    r.node->spawn("host", [&](host::Process& p) -> host::Task {
      for (uint32_t i = 0; i < 20; ++i) { // words the loop never reads: it dozes on
        p.advance(3 * sim::kMicrosecond);
        r.node->pio_write_word(p, 0x14100 + 4 * i, i);
      }
      co_return;
    });
    r.kernel.schedule_at(40 * sim::kMicrosecond, [] { throw std::runtime_error("a model failed"); });
    EXPECT_THROW(r.kernel.run_until(sim::kMillisecond), std::runtime_error);
    const vm::Chip& chip = r.node->chip();
    return At{chip.cpu().instructions(), chip.cpu().cycles(), chip.cpu().pc(), chip.dozing(),
              chip.doze_counters().skipped_instructions};
  };
  const At ref = fail_at_40us(false), d = fail_at_40us(true);
  EXPECT_GT(d.dozed, 0u); // it did doze before the failure
  EXPECT_FALSE(d.dozing);
  EXPECT_EQ(d.instructions, ref.instructions);
  EXPECT_EQ(d.cycles, ref.cycles);
  EXPECT_EQ(d.pc, ref.pc);
}

TEST(Chip, PioReadBlocksTheProcessForTheBusTransaction) {
  Rig r(7);
  uint32_t value = 0;
  Time back = 0;
  r.node->spawn("reader", [&](host::Process& p) -> host::Task {
    p.advance(sim::kMicrosecond);
    co_await r.node->pio_read_word(p, 0x10000, value);
    back = p.local();
  });
  r.kernel.run_until(20 * sim::kMicrosecond);
  EXPECT_EQ(value, 7u); // the test number in the control block
  EXPECT_EQ(back, sim::kMicrosecond + 422 * sim::kNanosecond);
}

// pio_poll_word is a loop of pio_read_word with events saved: the same reads at the same
// times, seen by the bus, the process and the firmware alike. A process polls a word that
// another process writes by PIO after 30 us (and that the firmware polls too: test 10).
// Either the chip's firmware DMAs to and from the host meanwhile (test 1: the poll meets a
// busy bus), or a third process posts a write at the very instant a read ends, from an
// event that comes after the read's end (its post runs after the read is done and before
// the process would post the next: the next read must wait behind the write).
TEST(Chip, PioPollWordIsALoopOfPioReadsWithFewerEvents) {
  struct Outcome {
    uint32_t value;
    uint64_t reads;
    Time back, waited;
    host::PciStats pci;
    uint64_t chip_instructions, events;
  };
  auto run = [](uint32_t test, bool poll) {
    Rig r(test, test == 1 ? 0x20000 : 0x14000, test == 1 ? 4096 : 0x600D);
    Outcome o{};
    r.node->spawn("poller", [&](host::Process& p) -> host::Task {
      p.advance(2 * sim::kMicrosecond);
      if (poll) {
        sim::Node::WordPoll w{0x14000, [](uint32_t v) { return v == 0x600D; }, &o.value, &o.reads};
        while (o.value != 0x600D) co_await r.node->pio_poll_word(p, w);
      } else {
        while (o.value != 0x600D) {
          co_await r.node->pio_read_word(p, 0x14000, o.value);
          ++o.reads;
        }
      }
      o.back = p.local();
      o.waited = p.waited();
    });
    r.node->spawn("setter", [&](host::Process& p) -> host::Task {
      p.advance(30 * sim::kMicrosecond);
      r.node->pio_write_word(p, 0x14000, 0x600D);
      co_return;
    });
    if (test == 10) {
      r.node->spawn("tie", [&](host::Process& p) -> host::Task {
        // Reads from 2 us, 422 ns each: the third ends at 3.266 us. The post is made
        // from an event at 3 us, after that read's end was scheduled.
        p.advance(3 * sim::kMicrosecond);
        co_await p.sync();
        p.advance(266 * sim::kNanosecond);
        r.node->pio_write_word(p, 0x14100, 1);
      });
    }
    r.run();
    EXPECT_TRUE(r.node->chip().cpu().halted()) << r.node->chip().cpu().fault_report();
    o.pci = r.node->pci().stats();
    o.chip_instructions = r.node->chip().cpu().instructions();
    o.events = r.kernel.events_run();
    return o;
  };
  for (uint32_t test : {1u, 10u}) {
    SCOPED_TRACE(test);
    const Outcome loop = run(test, false), poll = run(test, true);
    EXPECT_EQ(poll.value, 0x600Du);
    EXPECT_GT(loop.reads, 50u); // 28 us of 422 ns reads
    EXPECT_EQ(poll.reads, loop.reads);
    EXPECT_EQ(poll.back, loop.back);
    EXPECT_EQ(poll.waited, loop.waited);
    EXPECT_EQ(poll.pci.pio_reads, loop.pci.pio_reads);
    EXPECT_EQ(poll.pci.pio_writes, loop.pci.pio_writes);
    EXPECT_EQ(poll.pci.dmas, loop.pci.dmas);
    EXPECT_EQ(poll.pci.busy, loop.pci.busy);
    EXPECT_EQ(poll.pci.wait, loop.pci.wait);
    EXPECT_GT(loop.pci.wait, 0); // the bus was contended
    EXPECT_EQ(poll.chip_instructions, loop.chip_instructions);
    EXPECT_LT(poll.events + loop.reads, loop.events); // most reads saved two events
  }
}

// The driver answers a firmware's service request (here: a translation, as VMMC's LCP
// asks on a TLB miss): the firmware raises a host signal; the driver process, woken by the
// interrupt, reads the request by PIO, pins the page, writes the answer by PIO and
// acknowledges. Every step costs simulated time.
TEST(Chip, DriverAnswersAServiceRequestFromFirmware) {
  sim::NodeParams params;
  params.interrupt_latency = 5 * sim::kMicrosecond;
  host::AddressSpaceParams asp;
  asp.pin = {2 * sim::kMicrosecond, sim::kMicrosecond};
  // The process's buffer is mapped before the firmware asks about it.
  Rig r(9, 0, 0, params);
  host::AddressSpace as(r.node->memory(), asp);
  const host::VirtAddr buf = as.map(3 * host::kPageSize);
  r.put(0x10004, uint32_t(buf + host::kPageSize + 40)); // the address the firmware asks for
  r.node->chip().host_write_reg(Offset::EIMR, vm::regs::LAN0_SIG_BIT);
  Time answered = 0;
  r.node->spawn("driver", [&](host::Process& p) -> host::Task {
    co_await p.wait(r.node->interrupt_watch(), [&] { return r.node->interrupts_delivered() > 0; });
    uint32_t vaddr = 0;
    co_await r.node->pio_read_word(p, 0x10018, vaddr);
    p.advance(as.pin(vaddr, 1));
    const uint64_t phys = as.translate(vaddr);
    r.node->pio_write_word(p, 0x1001C, uint32_t(phys));
    r.node->pio_write_reg(p, Offset::ISR, vm::regs::LAN0_SIG_BIT);
    answered = p.local();
  });
  r.run();
  ASSERT_TRUE(r.node->chip().cpu().halted()) << r.node->chip().cpu().fault_report();
  EXPECT_EQ(r.result(0), uint32_t(as.translate(buf + host::kPageSize + 40)));
  EXPECT_EQ(as.pin_count(buf + host::kPageSize), 1u);
  EXPECT_EQ(as.pin_count(buf), 0u);
  EXPECT_EQ(r.node->chip().isr() & vm::regs::LAN0_SIG_BIT, 0u);
  // interrupt latency + PIO read + pin (2 us + 1 page) + two posted writes.
  EXPECT_GE(answered, 5 * sim::kMicrosecond + 422 * sim::kNanosecond + 3 * sim::kMicrosecond);
  EXPECT_GE(r.result(1) * 500 * sim::kNanosecond, answered - 500 * sim::kNanosecond);
}

struct FaultCase {
  uint32_t test;
  const char* detail;
};

class ChipFault : public ::testing::TestWithParam<FaultCase> {};

TEST_P(ChipFault, StopsTheCpuWithAReport) {
  Rig r(GetParam().test, 0x20000);
  r.run();
  const auto& cpu = r.node->chip().cpu();
  ASSERT_TRUE(cpu.fault().has_value());
  EXPECT_EQ(cpu.fault()->kind, vm::FaultKind::MmioError);
  const std::string report = cpu.fault_report();
  EXPECT_NE(report.find(GetParam().detail), std::string::npos) << report;
  EXPECT_NE(report.find("pc"), std::string::npos) << report;
  EXPECT_NE(report.find("r31"), std::string::npos) << report; // the register dump
  EXPECT_FALSE(r.node->chip().running());
}

INSTANTIATE_TEST_SUITE_P(
    Misuse, ChipFault,
    ::testing::Values(FaultCase{4, "host DMA started while the previous one is running"},
                      FaultCase{5, "is outside host memory"},
                      FaultCase{6, "does not support this load width"},
                      FaultCase{8, "CRC_ERRORS is read-only"}),
    [](const ::testing::TestParamInfo<FaultCase>& info) {
      return "scenario" + std::to_string(info.param.test);
    });

TEST(Chip, HostMayOnlyTouchItsRegisters) {
  Rig r(7);
  EXPECT_THROW(r.node->chip().host_write_reg(Offset::CTR, 4), std::invalid_argument);
  EXPECT_THROW(r.node->chip().host_write_reg(0x44, 4), std::out_of_range);
  EXPECT_THROW(r.node->chip().host_write_sram(256 * 1024 - 2, std::vector<uint8_t>(4)), std::out_of_range);
}

} // namespace
} // namespace lanaikit

namespace lanaikit {
namespace {

// Per-word counts add up to the CPU's own counters, cycle for cycle.
TEST(Profiler, WordCountsAddUpToTheCpuCounters) {
  Rig r(1, 0x20000, 1024);
  vm::Profiler prof(r.node->chip().cpu(), [&] { return r.node->chip().local_time(); });
  const uint64_t insns0 = r.node->chip().cpu().instructions(), cycles0 = r.node->chip().cpu().cycles();
  r.node->chip().set_instrument(&prof);
  r.run();
  ASSERT_TRUE(r.node->chip().cpu().halted());
  uint64_t insns = 0, cycles = 0;
  for (uint64_t v : prof.instructions_by_word()) insns += v;
  for (uint64_t v : prof.cycles_by_word()) cycles += v;
  EXPECT_EQ(insns, r.node->chip().cpu().instructions() - insns0);
  EXPECT_EQ(cycles, r.node->chip().cpu().cycles() - cycles0);
  EXPECT_EQ(prof.total_instructions(), insns);
  EXPECT_EQ(r.result(0), 0u); // and the program still did its job
}

// A breakpoint pauses the chip before the instruction; resuming goes on exactly.
struct BreakAt : vm::Instrument {
  uint32_t at;
  bool armed = true;
  int hits = 0;
  bool before(uint32_t pc) override {
    if (armed && pc == at) {
      armed = false;
      ++hits;
      return false;
    }
    return true;
  }
  void after(uint32_t, uint32_t) override {}
};

TEST(Profiler, BreakPausesTheChipAndResumeContinues) {
  Rig r(2, 40);
  BreakAt b;
  b.at = *test::build_firmware({test::source("tests/chip/fw/chiptest.c")}).symbol("main");
  r.node->chip().set_instrument(&b);
  bool paused = false;
  r.node->chip().on_break([&](vm::Chip&) {
    paused = true;
    r.kernel.stop();
  });
  r.kernel.run_until(10 * sim::kMillisecond); // returns at the break (on_break stops it)
  ASSERT_TRUE(paused);
  const Time at_break = r.kernel.now();
  EXPECT_LT(at_break, 10 * sim::kMicrosecond);
  EXPECT_TRUE(r.node->chip().paused());
  EXPECT_EQ(r.node->chip().cpu().pc(), b.at);
  r.node->chip().resume();
  r.run();
  ASSERT_TRUE(r.node->chip().cpu().halted()) << r.node->chip().report();
  EXPECT_EQ(b.hits, 1);
  EXPECT_FALSE(r.node->chip().paused());
  EXPECT_GE(r.result(0), 40u);
}

} // namespace
} // namespace lanaikit
