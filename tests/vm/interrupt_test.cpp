// Interrupts and traps (lanaikit's extension, docs/vm.md "Interrupts and traps"): what is
// saved and restored, privilege, the user alarm, and the fast interpreter against the
// reference model with interrupts landing anywhere (delay slots, the shadow of a load into
// %pc), traps from user code, and the alarm firing between any two instructions.
#include "random_program.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

using namespace random_program;
using lanaikit::vm::RunResult;
using lanaikit::vm::StopReason;
namespace cpuctl = lanaikit::vm::cpuctl;

namespace {

int32_t off(uint32_t addr) { return int32_t(addr); } // an MMIO address as an offset from r0

// A device beside the bare page: interrupt lines the test raises, an acknowledge register,
// an alarm on user cycles, and a register whose every access traps (device code 5).
class LineDevice : public lanaikit::vm::MmioDevice {
public:
  static constexpr uint32_t kAck = 0xFFFFF100;   // W: lower line `value` (ignored >= 32)
  static constexpr uint32_t kAlarm = 0xFFFFF104; // W: line 3 after `value` more user cycles
  static constexpr uint32_t kTrapMe = 0xFFFFF108; // RW: traps, device code 5
  static constexpr uint32_t kUser = 0xFFFFF10C;  // R: readable in user mode
  static constexpr uint32_t kBadRead = 0xFFFFF110; // R: raises line 7 (a device bug)

  lanaikit::vm::Cpu* cpu = nullptr;
  lanaikit::vm::MmioStatus read(uint32_t addr, lanaikit::isa::Width, uint32_t& value) override {
    if (addr == kTrapMe) return lanaikit::vm::MmioStatus::Trap;
    if (addr == kUser) {
      value = 0x1234;
      return lanaikit::vm::MmioStatus::Ok;
    }
    if (addr == kBadRead) {
      cpu->set_interrupt_line(7, true);
      return lanaikit::vm::MmioStatus::Ok;
    }
    return lanaikit::vm::MmioStatus::Unmapped;
  }
  lanaikit::vm::MmioStatus write(uint32_t addr, lanaikit::isa::Width, uint32_t value) override {
    if (addr == kAck) {
      if (value < 32) cpu->set_interrupt_line(value, false);
      return lanaikit::vm::MmioStatus::Ok;
    }
    if (addr == kAlarm) {
      lanaikit::vm::Cpu* c = cpu;
      cpu->set_user_alarm(cpu->user_cycles() + value, [c] { c->set_interrupt_line(3, true); });
      return lanaikit::vm::MmioStatus::Ok;
    }
    if (addr == kTrapMe) return lanaikit::vm::MmioStatus::Trap;
    return lanaikit::vm::MmioStatus::Unmapped;
  }
  uint32_t trap_cause() const override { return 5; }
};

struct IrqMachine {
  explicit IrqMachine(uint32_t size = 64 * 1024) : sram(size), io(size, &dev), cpu(sram, io) {
    dev.cpu = &cpu;
  }
  void load(const std::vector<uint32_t>& words, uint32_t at) {
    for (size_t i = 0; i < words.size(); ++i) sram.write32(at + uint32_t(4 * i), words[i]);
    cpu.invalidate(at, uint32_t(4 * words.size()));
  }
  lanaikit::vm::Sram sram;
  LineDevice dev;
  lanaikit::vm::BareIo io;
  lanaikit::vm::Cpu cpu;
};

constexpr uint32_t kTbr = 0x2000, kHandler = 0x2400, kBoot = 0x3000;

// The trap table: every vector jumps to one handler, which records what the CPU saved
// (r16 entries, r17 cause, r18/r19/r20 folds of EPC/ENPC/ENNPC, r22 of TVAL), lowers the
// line, re-arms the alarm and returns: retrying after an interrupt, skipping a trap.
std::vector<uint32_t> kernel_table() {
  std::vector<uint32_t> t;
  for (uint32_t c = 0; c < cpuctl::kCauses; ++c)
    for (uint32_t w : {bt(kHandler), kNop, kNop, kNop}) t.push_back(w);
  return t;
}
std::vector<uint32_t> kernel_handler() {
  return {
      ld(17, 0, off(cpuctl::kCause)),
      ri(ADD, 16, 16, 1),
      ld(21, 0, off(cpuctl::kEpc)),
      rr(XOR, 18, 18, 21),
      ld(21, 0, off(cpuctl::kEnpc)),
      rr(XOR, 19, 19, 21),
      ld(21, 0, off(cpuctl::kEnnpc)),
      rr(ADD, 20, 20, 21),
      ld(21, 0, off(cpuctl::kTval)),
      rr(ADD, 22, 22, 21),
      st(17, 0, off(LineDevice::kAck)),
      ri(AND, 21, 16, 31),
      ri(ADD, 21, 21, 40),
      st(21, 0, off(LineDevice::kAlarm)),
      ri(SH, 23, 17, uint32_t(-5) & 0xFFFF), // cause >> 5: 0 interrupt, 1 trap
      ri(SH, 23, 23, 3),                     // 0 or 8: RETI or RETI_SKIP
      rr(ADD, 23, 23, 24),                   // r24 = RETI's address (set at boot)
      st(0, 23, 0),
      kNop,
      kNop,
  };
}
// Kernel mode at reset: install the table, enable every line, arm the alarm, and return
// into user mode at 0 (the random program).
std::vector<uint32_t> kernel_boot() {
  return {
      ri(OR, 20, 0, kTbr),        st(20, 0, off(cpuctl::kTbr)),
      st(1, 0, off(cpuctl::kImask)),
      ri(OR, 20, 0, cpuctl::kStatusUser), st(20, 0, off(cpuctl::kEStatus)),
      st(0, 0, off(cpuctl::kEpc)),
      ri(OR, 20, 0, 4),           st(20, 0, off(cpuctl::kEnpc)),
      ri(OR, 20, 0, 8),           st(20, 0, off(cpuctl::kEnnpc)),
      ri(OR, 20, 0, 50),          st(20, 0, off(LineDevice::kAlarm)),
      ri(AND, 20, 20, 0),         // r20 back to 0 (the handler folds into it)
      ri(OR, 24, 0, cpuctl::kReti & 0xFFFF), ri(OR, 24, 24, 0xFFFF, false, true), // r24 = RETI
      st(0, 0, off(cpuctl::kReti)),
      kNop,                       kNop,
  };
}

// The random program of a seed, with now and then a word that traps in user mode: a
// SYSCALL, a load or store of a kernel control register, the device's trapping register;
// and a readable device register.
Case make_irq_case(uint32_t seed) {
  Case c = make_case(seed);
  std::mt19937 rng(seed * 7919u);
  for (size_t i = 0; i + 2 < c.code.size(); ++i) {
    if (rng() % 100 >= 6) continue;
    switch (rng() % 5) {
    case 0: c.code[i] = st(6 + rng() % 8, 0, off(cpuctl::kSyscall)); break;
    case 1: c.code[i] = st(6 + rng() % 8, 0, off(cpuctl::kStatus)); break;
    case 2: c.code[i] = ld(6 + rng() % 8, 0, off(cpuctl::kEpc)); break;
    case 3: c.code[i] = rng() % 2 ? ld(6 + rng() % 8, 0, off(LineDevice::kTrapMe))
                                  : st(6 + rng() % 8, 0, off(LineDevice::kTrapMe));
      break;
    case 4: c.code[i] = ld(6 + rng() % 8, 0, off(LineDevice::kUser)); break;
    }
  }
  return c;
}

std::unique_ptr<IrqMachine> setup_irq(const Case& c) {
  auto m = std::make_unique<IrqMachine>();
  m->load(c.code, 0);
  for (auto [r, v] : c.regs) m->cpu.set_reg(r, v);
  for (size_t i = 0; i < c.jump_table.size(); ++i)
    m->sram.write32(kDataBase + 0x200 + uint32_t(4 * i), c.jump_table[i]);
  m->cpu.set_stack_guard(c.guard_begin, c.guard_bytes);
  m->load(kernel_table(), kTbr);
  m->load(kernel_handler(), kHandler);
  m->load(kernel_boot(), kBoot);
  m->cpu.set_reg(lanaikit::isa::PC, kBoot);
  return m;
}

std::string irq_state(const IrqMachine& m) {
  std::ostringstream out;
  for (unsigned r = 0; r < 32; ++r) out << m.cpu.reg(r) << ' ';
  out << "sw " << m.cpu.sw() << " pc " << m.cpu.pc() << ' ' << m.cpu.npc() << ' ' << m.cpu.nnpc()
      << " insns " << m.cpu.instructions() << " cycles " << m.cpu.cycles() << " halted "
      << m.cpu.halted() << " status " << m.cpu.status() << " lines " << m.cpu.interrupt_lines()
      << " user cycles " << m.cpu.user_cycles() << " alarm " << m.cpu.user_alarm_armed() << '@'
      << m.cpu.user_alarm_at();
  if (m.cpu.fault())
    out << " fault " << int(m.cpu.fault()->kind) << " at " << m.cpu.fault()->pc << " addr "
        << m.cpu.fault()->address;
  return out.str();
}

class NoInstrument : public lanaikit::vm::Instrument {
public:
  bool before(uint32_t) override { return true; }
  void after(uint32_t, uint32_t c) override { cycles += c; }
  uint64_t cycles = 0;
};

// Lines raised at points of the run (cycles or instructions), lowest point first.
struct Raise {
  uint64_t at;
  unsigned line;
};
std::vector<Raise> schedule(uint32_t seed, uint64_t span) {
  std::mt19937 rng(seed * 104729u);
  std::vector<Raise> s;
  const int n = 1 + int(rng() % 12);
  for (int i = 0; i < n; ++i) s.push_back({1 + rng() % span, unsigned(rng() % 8)});
  std::sort(s.begin(), s.end(), [](const Raise& a, const Raise& b) { return a.at < b.at; });
  return s;
}

bool stopped(const RunResult& r) { return r.reason != StopReason::Limit; }

} // namespace

// Cycle budgets, as a chip runs its CPU between events: lines raised when the CPU's cycle
// count reaches points of a schedule. The reference model (run_instrumented, one
// instruction at a time) against run_cycles in one call per segment and in random chunks.
TEST(CpuInterrupts, CycleBudgetsAgreeWithTheReferenceModel) {
  int entries = 0, traps = 0, halted = 0, faulted = 0, user_end = 0;
  for (uint32_t seed = 1; seed <= 1500; ++seed) {
    const Case c = make_irq_case(seed);
    const uint64_t span = 60 + c.budget % 1500;
    const auto plan = schedule(seed, span);
    const uint64_t end = span + 200;

    auto ref = setup_irq(c);
    NoInstrument ins;
    auto fast = setup_irq(c);
    auto chunks = setup_irq(c);
    std::mt19937 rng(seed);
    size_t next = 0;
    for (;;) {
      const uint64_t until = next < plan.size() ? plan[next].at : end;
      RunResult r1{StopReason::Limit, 0}, r2 = r1, r3 = r1;
      if (ref->cpu.cycles() < until) r1 = ref->cpu.run_instrumented(until - ref->cpu.cycles(), true, ins);
      if (fast->cpu.cycles() < until) r2 = fast->cpu.run_cycles(until - fast->cpu.cycles());
      while (chunks->cpu.cycles() < until && !stopped(r3))
        r3 = chunks->cpu.run_cycles(std::min<uint64_t>(until - chunks->cpu.cycles(), 1 + rng() % 9));
      ASSERT_EQ(irq_state(*fast), irq_state(*ref)) << "seed " << seed << " until " << until;
      ASSERT_EQ(irq_state(*chunks), irq_state(*ref)) << "seed " << seed << " until " << until;
      if (stopped(r1) || next == plan.size()) break;
      for (auto* m : {ref.get(), fast.get(), chunks.get()}) m->cpu.set_interrupt_line(plan[next].line, true);
      ++next;
    }
    ASSERT_EQ(0, std::memcmp(fast->sram.data(), ref->sram.data(), ref->sram.size())) << "seed " << seed;
    ASSERT_EQ(0, std::memcmp(chunks->sram.data(), ref->sram.data(), ref->sram.size())) << "seed " << seed;
    // The profiler's view (run_instrumented) accounts for every cycle: an entry's to the
    // first instruction of its vector (so one entry may still be waiting for it).
    EXPECT_LE(ref->cpu.cycles() - ins.cycles, 4u) << "seed " << seed;
    entries += int(ref->cpu.reg(16));
    traps += ref->cpu.reg(17) >= 32;
    halted += ref->cpu.halted();
    faulted += ref->cpu.fault().has_value();
    user_end += ref->cpu.user_mode();
  }
  // The generator must exercise entries and traps, and runs ending every way.
  EXPECT_GT(entries, 3000);
  EXPECT_GT(traps, 100);
  EXPECT_GT(halted, 50);
  EXPECT_GT(faulted, 50);
  EXPECT_GT(user_end, 100);
  std::printf("entries %d, last entry a trap %d, halted %d, faulted %d, ended in user mode %d\n",
              entries, traps, halted, faulted, user_end);
}

// Instruction budgets: lines raised after given instruction counts; the reference stepper
// against run() in one call per segment and in batches of 1..7.
TEST(CpuInterrupts, InstructionBudgetsAgreeWithTheReferenceModel) {
  for (uint32_t seed = 1; seed <= 1500; ++seed) {
    const Case c = make_irq_case(seed);
    const auto plan = schedule(seed, 40 + c.budget % 800);
    auto ref = setup_irq(c);
    auto fast = setup_irq(c);
    auto batched = setup_irq(c);
    std::mt19937 rng(seed);
    // run() may return early after an entry or a return (vm/cpu.h): callers go on.
    auto run_n = [&](IrqMachine& m, uint64_t n, bool small) {
      uint64_t done = 0;
      RunResult r{StopReason::Limit, 0};
      while (done < n && !stopped(r)) {
        r = m.cpu.run(small ? std::min<uint64_t>(n - done, 1 + rng() % 7) : n - done);
        done += r.executed;
      }
      return r;
    };
    uint64_t at = 0;
    for (size_t next = 0; next <= plan.size(); ++next) {
      const uint64_t until = next < plan.size() ? plan[next].at : at + 300;
      const uint64_t n = until > at ? until - at : 0;
      at = std::max(at, until);
      const RunResult r1 = ref->cpu.step_reference(n);
      run_n(*fast, n, false);
      run_n(*batched, n, true);
      ASSERT_EQ(irq_state(*fast), irq_state(*ref)) << "seed " << seed << " at " << at;
      ASSERT_EQ(irq_state(*batched), irq_state(*ref)) << "seed " << seed << " at " << at;
      if (stopped(r1) || next == plan.size()) break;
      for (auto* m : {ref.get(), fast.get(), batched.get()}) m->cpu.set_interrupt_line(plan[next].line, true);
    }
    ASSERT_EQ(0, std::memcmp(fast->sram.data(), ref->sram.data(), ref->sram.size())) << "seed " << seed;
    ASSERT_EQ(0, std::memcmp(batched->sram.data(), ref->sram.data(), ref->sram.size())) << "seed " << seed;
  }
}

// ---- the semantics, case by case ----------------------------------------------------------

namespace {

// A kernel program at 0x100 with the trap table at kTbr; vectors left as NOPs unless a test
// writes one. Runs on the reference model one instruction at a time.
struct Kernel {
  IrqMachine m;
  Kernel(const std::vector<uint32_t>& code) {
    std::vector<uint32_t> table(cpuctl::kCauses * 4, kNop);
    m.load(table, kTbr);
    m.load(code, 0x100);
    m.cpu.set_reg(lanaikit::isa::PC, 0x100);
  }
  void step(uint64_t n = 1) { m.cpu.step_reference(n); }
  uint32_t ctl(uint32_t addr) const { return m.cpu.control_register(addr); }
};

std::vector<uint32_t> set_tbr_and_mask(uint32_t mask_reg_value_reg) {
  return {ri(OR, 20, 0, kTbr), st(20, 0, off(cpuctl::kTbr)), st(mask_reg_value_reg, 0, off(cpuctl::kImask))};
}

// Kernel code that returns into user mode at `at` (9 instructions, r20 scratch).
std::vector<uint32_t> enter_user_at(uint32_t at) {
  return {ri(OR, 20, 0, cpuctl::kStatusUser), st(20, 0, off(cpuctl::kEStatus)),
          ri(OR, 20, 0, at),                  st(20, 0, off(cpuctl::kEpc)),
          ri(OR, 20, 0, at + 4),              st(20, 0, off(cpuctl::kEnpc)),
          ri(OR, 20, 0, at + 8),              st(20, 0, off(cpuctl::kEnnpc)),
          st(0, 0, off(cpuctl::kReti))};
}

} // namespace

TEST(CpuInterrupts, AnInterruptInADelaySlotSavesTheWholeFetchStream) {
  // 0x100.. set-up (IMASK = r1: all lines, IE on), then a branch whose delay slot is where
  // the line is raised.
  std::vector<uint32_t> code = set_tbr_and_mask(1);
  code.push_back(ri(OR, 20, 0, cpuctl::kStatusIe));
  code.push_back(st(20, 0, off(cpuctl::kStatus)));
  const uint32_t branch = 0x100 + 4 * uint32_t(code.size());
  code.push_back(bt(0x180));
  code.push_back(ri(ADD, 9, 9, 1)); // the delay slot
  code.push_back(kNop);
  Kernel k(code);
  k.m.sram.write32(0x180, ri(ADD, 10, 10, 1));
  k.m.cpu.invalidate(0x180, 4);
  while (k.m.cpu.pc() != branch + 4) k.step();
  EXPECT_EQ(k.m.cpu.npc(), 0x180u); // in the delay slot: the stream is not pc+4, pc+8
  const uint64_t cycles = k.m.cpu.cycles();
  k.m.cpu.set_interrupt_line(6, true);
  k.step(); // the entry, then the vector's first instruction
  EXPECT_EQ(k.ctl(cpuctl::kCause), 6u);
  EXPECT_EQ(k.ctl(cpuctl::kEpc), branch + 4);
  EXPECT_EQ(k.ctl(cpuctl::kEnpc), 0x180u);
  EXPECT_EQ(k.ctl(cpuctl::kEnnpc), 0x184u);
  EXPECT_EQ(k.ctl(cpuctl::kEStatus), cpuctl::kStatusIe);
  EXPECT_EQ(k.ctl(cpuctl::kStatus), 0u); // kernel, interrupts off
  EXPECT_EQ(k.m.cpu.pc(), kTbr + 6 * 16 + 4);
  EXPECT_EQ(k.m.cpu.cycles(), cycles + 2 + 1); // trap_cycles, then one NOP
  EXPECT_EQ(k.m.cpu.reg(9), 0u);               // the delay slot has not run yet
  // Return (retry): the delay slot runs, then the branch target.
  k.m.cpu.set_interrupt_line(6, false);
  k.m.sram.write32(kTbr + 6 * 16 + 4, st(0, 0, off(cpuctl::kReti)));
  k.m.cpu.invalidate(kTbr + 6 * 16 + 4, 4);
  k.m.cpu.set_reg(lanaikit::isa::PC, kTbr + 6 * 16 + 4);
  k.step(2); // the RETI store, then the delay slot
  EXPECT_EQ(k.m.cpu.reg(9), 1u);
  EXPECT_EQ(k.m.cpu.pc(), 0x180u);
  EXPECT_EQ(k.ctl(cpuctl::kStatus), cpuctl::kStatusIe);
  k.step();
  EXPECT_EQ(k.m.cpu.reg(10), 1u);
}

TEST(CpuInterrupts, KernelModeTakesLinesOnlyWithIeAndAtTheStoreThatSetsIt) {
  std::vector<uint32_t> code = set_tbr_and_mask(1);
  code.push_back(ri(ADD, 9, 9, 1));
  code.push_back(ri(OR, 20, 0, cpuctl::kStatusIe));
  code.push_back(st(20, 0, off(cpuctl::kStatus))); // 0x114
  code.push_back(ri(ADD, 9, 9, 1));                 // 0x118: must not run before the entry
  Kernel k(code);
  k.m.cpu.set_interrupt_line(1, true);
  k.step(5); // IE off: nothing taken
  EXPECT_EQ(k.m.cpu.reg(9), 1u);
  EXPECT_EQ(k.m.cpu.pc(), 0x114u);
  // The fast interpreter too: the store that sets IE ends its run.
  ASSERT_EQ(k.m.cpu.run(1).executed, 1u);
  k.m.cpu.run(1);
  EXPECT_EQ(k.ctl(cpuctl::kCause), 1u);
  EXPECT_EQ(k.ctl(cpuctl::kEpc), 0x118u);
  EXPECT_EQ(k.m.cpu.reg(9), 1u);
}

TEST(CpuInterrupts, UserModeTrapsOnKernelRegistersSyscallsAndDeviceTraps) {
  // Kernel: enter user mode at 0x200. User: a privileged store, a SYSCALL, a device trap,
  // a readable device register. Vectors: return skipping the trapping instruction.
  std::vector<uint32_t> code = set_tbr_and_mask(0);
  for (uint32_t w : enter_user_at(0x200)) code.push_back(w);
  Kernel k(code);
  k.m.load({st(9, 0, off(cpuctl::kStatus)), ri(OR, 9, 0, 77), st(9, 0, off(cpuctl::kSyscall)),
            ld(10, 0, off(LineDevice::kTrapMe)), ld(11, 0, off(LineDevice::kUser)), kNop},
           0x200);
  for (uint32_t cause : {cpuctl::kCausePrivileged, cpuctl::kCauseSyscall, cpuctl::kCauseDevice + 5}) {
    const uint32_t at = kTbr + cause * 16;
    k.m.load({st(0, 0, off(cpuctl::kRetiSkip)), kNop, kNop, kNop}, at);
  }
  k.step(12); // the boot: 3 + 9 instructions, the last the RETI (taken at the next boundary)
  EXPECT_FALSE(k.m.cpu.user_mode());
  k.step(); // the return; 0x200 traps (not counted); the vector's first instruction runs
  EXPECT_EQ(k.ctl(cpuctl::kCause), cpuctl::kCausePrivileged);
  EXPECT_EQ(k.ctl(cpuctl::kTval), cpuctl::kStatus);
  EXPECT_EQ(k.ctl(cpuctl::kEpc), 0x200u);
  EXPECT_EQ(k.ctl(cpuctl::kEStatus), cpuctl::kStatusUser);
  EXPECT_FALSE(k.m.cpu.user_mode());
  k.step(2); // the RETI (skip), then user 0x204, and the SYSCALL traps
  EXPECT_EQ(k.ctl(cpuctl::kCause), cpuctl::kCauseSyscall);
  EXPECT_EQ(k.ctl(cpuctl::kTval), 77u);
  EXPECT_EQ(k.ctl(cpuctl::kEpc), 0x208u);
  k.step(1); // the RETI; back, and the device's trapping load: the vector again
  EXPECT_EQ(k.ctl(cpuctl::kCause), cpuctl::kCauseDevice + 5);
  EXPECT_EQ(k.ctl(cpuctl::kTval), LineDevice::kTrapMe);
  EXPECT_EQ(k.m.cpu.reg(10), 0u); // the load did not happen
  k.step(2);
  EXPECT_EQ(k.m.cpu.reg(11), 0x1234u); // a register user code may read
  EXPECT_TRUE(k.m.cpu.user_mode());
  EXPECT_FALSE(k.m.cpu.fault().has_value());
}

TEST(CpuInterrupts, AlarmCountsUserCyclesOnly) {
  // Kernel: arm the alarm 100 user cycles ahead, spend 50 kernel cycles, enter user mode at
  // 0x200 (a loop). Line 3 is taken at the first boundary with 100 user cycles done.
  std::vector<uint32_t> code = set_tbr_and_mask(1);
  for (uint32_t w : {ri(OR, 20, 0, 100), st(20, 0, off(LineDevice::kAlarm))}) code.push_back(w);
  for (int i = 0; i < 50; ++i) code.push_back(kNop);
  for (uint32_t w : enter_user_at(0x200)) code.push_back(w);
  Kernel k(code);
  k.m.load({ri(ADD, 9, 9, 1), ld(10, 0, 0x1000), rr(ADD, 11, 11, 10), bt(0x200), kNop}, 0x200);
  // Fast interpreter with a generous cycle budget: it must stop at the alarm.
  k.m.cpu.run_cycles(100000);
  EXPECT_EQ(k.ctl(cpuctl::kCause), 3u);
  EXPECT_FALSE(k.m.cpu.user_mode());
  const uint64_t user = k.m.cpu.user_cycles();
  EXPECT_GE(user, 100u);
  EXPECT_LT(user, 100u + 3); // the last instruction started before the deadline
  EXPECT_GT(k.m.cpu.cycles(), user + 50);
}

TEST(CpuInterrupts, NoTrapTableIsAFaultAndAReadMayNotRaiseALine) {
  Kernel k({ri(OR, 9, 0, 5), st(9, 0, off(cpuctl::kSyscall)), kNop});
  k.m.cpu.run(10);
  ASSERT_TRUE(k.m.cpu.fault().has_value());
  EXPECT_EQ(k.m.cpu.fault()->kind, lanaikit::vm::FaultKind::UnhandledTrap);
  const std::string report = k.m.cpu.fault_report();
  EXPECT_NE(report.find("trap with no trap table (cause 33 (SYSCALL) with TBR 0)"), std::string::npos)
      << report;
  EXPECT_NE(report.find("kernel mode, IE off"), std::string::npos) << report;
  // The control registers are words, and RETI is write-only.
  Kernel r({ld(9, 0, off(cpuctl::kReti))});
  r.m.cpu.run(10);
  ASSERT_TRUE(r.m.cpu.fault().has_value());
  EXPECT_NE(r.m.cpu.fault_report().find("load from a write-only CPU control register"), std::string::npos);
  // A device that changes a line on a read breaks the rule the fast interpreter relies on
  // (only stores end its run): a fault naming it, in both executors.
  for (bool fast : {false, true}) {
    Kernel b(set_tbr_and_mask(1));
    b.m.load({ri(OR, 20, 0, cpuctl::kStatusIe), st(20, 0, off(cpuctl::kStatus)),
              ld(9, 0, off(LineDevice::kBadRead)), kNop},
             0x10c);
    if (fast) b.m.cpu.run(10);
    else b.m.cpu.step_reference(10);
    ASSERT_TRUE(b.m.cpu.fault().has_value());
    EXPECT_EQ(b.m.cpu.fault()->pc, 0x114u);
    EXPECT_NE(b.m.cpu.fault_report().find("a register read changed the CPU's interrupt state"),
              std::string::npos);
  }
}

// A vector whose first instruction traps again would spin through entries without ever
// completing an instruction: an instruction budget never ended (step_reference hung, and
// so did a caller calling run() again as vm/cpu.h asks). It is a double trap, a fault at
// the vector, in every executor. A handler that completes an instruction before trapping
// again nests legally and runs out its budget.
TEST(CpuInterrupts, ATrapAtTheFirstInstructionOfAVectorIsADoubleTrap) {
  const uint32_t vector = kTbr + cpuctl::kCauseSyscall * cpuctl::kVectorBytes;
  const uint32_t syscall = st(0, 0, off(cpuctl::kSyscall));
  std::vector<uint32_t> code = set_tbr_and_mask(0);
  code.push_back(syscall);
  struct Nothing : lanaikit::vm::Instrument {
    bool before(uint32_t) override { return true; }
    void after(uint32_t, uint32_t) override {}
  } nothing;
  // The executors that ended without the rule first: without it, the test fails on them
  // (an ASSERT) before the reference model would hang.
  for (int executor : {2, 3, 0, 1}) {
    SCOPED_TRACE(executor);
    for (bool nested_after_one : {false, true}) {
      Kernel k(code);
      if (nested_after_one) k.m.load({kNop, syscall}, vector);
      else k.m.load({syscall}, vector);
      RunResult r{StopReason::Limit, 0};
      switch (executor) {
      case 0: r = k.m.cpu.step_reference(100); break;
      case 1: r = k.m.cpu.run_instrumented(100, false, nothing); break;
      case 2: r = k.m.cpu.run_cycles(1000); break;
      case 3: // run() returns after each entry; a caller goes on
        for (uint64_t done = 0, calls = 0;
             done < 100 && r.reason == StopReason::Limit && calls < 1000; ++calls) {
          r = k.m.cpu.run(100 - done);
          done += r.executed;
        }
        break;
      }
      if (nested_after_one) {
        EXPECT_EQ(r.reason, StopReason::Limit);
        EXPECT_FALSE(k.m.cpu.fault().has_value());
        EXPECT_EQ(k.ctl(cpuctl::kEpc), vector + 4); // the nested SYSCALL
        continue;
      }
      ASSERT_EQ(r.reason, StopReason::Fault);
      ASSERT_TRUE(k.m.cpu.fault().has_value());
      EXPECT_EQ(k.m.cpu.fault()->kind, lanaikit::vm::FaultKind::DoubleTrap);
      EXPECT_EQ(k.m.cpu.fault()->pc, vector);
      EXPECT_EQ(k.ctl(cpuctl::kEpc), 0x10cu); // the first entry's state is kept
      EXPECT_EQ(k.m.cpu.instructions(), 3u);
      const std::string report = k.m.cpu.fault_report();
      EXPECT_NE(report.find("trap in a vector before its handler ran (cause 33 at the first "
                            "instruction of the vector for cause 33)"),
                std::string::npos)
          << report;
    }
  }
}
