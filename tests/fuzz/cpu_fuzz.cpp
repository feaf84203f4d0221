// libFuzzer target: the fast interpreter (vm::Cpu::run / run_cycles, vm/interp.cpp) against
// the reference stepper (step_reference / run_instrumented) on arbitrary instruction words.
// The input's words are loaded at 0 (and copied into the data area the r4/r5 bases point
// at), and two identical bare machines (SRAM, the bare-ABI MMIO page, a CPU) run them, one
// per executor, under the same instruction or cycle budget, in one call (called again only
// where run() may return early: after an entry or a return) or in batches.
// Registers, status word, pc/npc/nnpc, instruction, stall and cycle counts, halted, the
// fault (kind, pc, address), the run results, the output and all of SRAM must agree.
// tests/vm/differential_test.cpp does the same over a generator of well-formed programs;
// here libFuzzer picks the words.
//
// Input: mode byte, budget (2 bytes), r6..r9 (4 x 4 bytes), then big-endian words (at
// most kMaxWords). Mode: bits 0-1 one call / batches, instruction / cycle budget; bits
// 2-5 the batch size - 1; bit 6 a 2-cycle load-use stall; bit 7 a stack guard
// (Cpu::set_stack_guard) over the data the r4/r5 bases point at and the program's last
// words, so stores into it fault in every dispatch mode.
//
// Built only with -DLANAIKIT_FUZZ=ON and clang; run with scripts/fuzz.sh cpu [seconds].
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "vm/cpu.h"
#include "vm/mmio.h"
#include "vm/sram.h"

namespace {

namespace vm = lanaikit::vm;

constexpr uint32_t kSramSize = 16 * 1024;
constexpr uint32_t kDataBase = 0x2000; // r4 = +0x100, r5 = +0x200 (as the differential test)
constexpr size_t kMaxWords = 512;
constexpr size_t kHeader = 1 + 2 + 16;

struct Machine {
  explicit Machine(vm::CostModel costs) : sram(kSramSize), io(kSramSize), cpu(sram, io, costs) {}
  vm::Sram sram;
  vm::BareIo io;
  vm::Cpu cpu;
};

struct NoInstrument : vm::Instrument {
  bool before(uint32_t) override { return true; }
  void after(uint32_t, uint32_t) override {}
};

uint32_t be32(const uint8_t* p) {
  return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3];
}

std::unique_ptr<Machine> setup(const uint8_t* data, size_t size, vm::CostModel costs) {
  auto m = std::make_unique<Machine>(costs);
  const size_t words = std::min((size - kHeader) / 4, kMaxWords);
  for (size_t i = 0; i < words; ++i) {
    const uint32_t w = be32(data + kHeader + 4 * i);
    m->sram.write32(uint32_t(4 * i), w);
    m->sram.write32(kDataBase + uint32_t(4 * i), w);
  }
  m->cpu.invalidate(0, kSramSize);
  for (unsigned r = 0; r < 4; ++r) m->cpu.set_reg(6 + r, be32(data + 3 + 4 * r));
  m->cpu.set_reg(4, kDataBase + 0x100);
  m->cpu.set_reg(5, kDataBase + 0x200);
  m->cpu.set_reg(15, uint32_t(4 * (data[0] % (words ? words : 1))));
  if (data[0] & 0x80) {
    if (words > 8 && (data[1] & 1)) m->cpu.set_stack_guard(uint32_t(4 * (words - 8)), 32);
    else m->cpu.set_stack_guard(kDataBase + 0xF0, 0x120);
  }
  return m;
}

[[noreturn]] void differ(const char* what, uint64_t fast, uint64_t ref) {
  std::fprintf(stderr, "cpu_fuzz: %s differs: fast %llu (0x%llx), reference %llu (0x%llx)\n",
               what, (unsigned long long)fast, (unsigned long long)fast,
               (unsigned long long)ref, (unsigned long long)ref);
  std::abort();
}

void same(const char* what, uint64_t fast, uint64_t ref) {
  if (fast != ref) differ(what, fast, ref);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < kHeader + 4)
    return 0;
  const uint8_t mode = data[0];
  const bool batches = mode & 1, cycle_budget = mode & 2;
  const uint64_t batch = 1 + ((mode >> 2) & 15);
  const uint64_t budget = 1 + (uint64_t(data[1]) << 8 | data[2]) % 4096;
  vm::CostModel costs;
  if (mode & 64) costs.load_use_cycles = 2;

  auto fast = setup(data, size, costs);
  vm::RunResult r_fast{vm::StopReason::Limit, 0};
  if (!batches) {
    r_fast = cycle_budget ? fast->cpu.run_cycles(budget) : fast->cpu.run(budget);
    // run(n) may return before n instructions after an entry or a return that cost cycles
    // (vm/cpu.h); its callers call again, as here. Nothing else may end it early.
    uint64_t done = r_fast.executed;
    while (!cycle_budget && r_fast.reason == vm::StopReason::Limit && done < budget) {
      if (!fast->cpu.interrupts_used())
        differ("run's early return (no entry or return) at", done, budget);
      const vm::RunResult r = fast->cpu.run(budget - done);
      done += r.executed;
      r_fast = {r.reason, done};
    }
  } else {
    // Batches of `batch` instructions (or cycles) until the budget or a stop.
    uint64_t done = 0;
    while (true) {
      const uint64_t used = cycle_budget ? fast->cpu.cycles() : done;
      if (used >= budget) break;
      const uint64_t n = std::min(batch, budget - used);
      const vm::RunResult r = cycle_budget ? fast->cpu.run_cycles(n) : fast->cpu.run(n);
      done += r.executed;
      r_fast = {r.reason, done};
      if (r.reason != vm::StopReason::Limit) break;
    }
  }

  auto ref = setup(data, size, costs);
  NoInstrument none;
  vm::RunResult r_ref{vm::StopReason::Limit, 0};
  if (cycle_budget && batches) {
    // A batch's last instruction may end past its share of the budget, so batches of a
    // cycle budget can run further than one call: the reference runs as many instructions
    // (one more if the fast interpreter stopped: the stopping one).
    r_ref = ref->cpu.step_reference(r_fast.executed +
                                    (r_fast.reason == vm::StopReason::Limit ? 0 : 1));
  } else {
    r_ref = cycle_budget ? ref->cpu.run_instrumented(budget, true, none)
                         : ref->cpu.step_reference(budget);
  }

  same("stop reason", int(r_fast.reason), int(r_ref.reason));
  same("executed", r_fast.executed, r_ref.executed);
  for (unsigned r = 0; r < 32; ++r) {
    char name[8];
    std::snprintf(name, sizeof name, "r%u", r);
    same(name, fast->cpu.reg(r), ref->cpu.reg(r));
  }
  same("pc", fast->cpu.pc(), ref->cpu.pc());
  same("npc", fast->cpu.npc(), ref->cpu.npc());
  same("nnpc", fast->cpu.nnpc(), ref->cpu.nnpc());
  same("instructions", fast->cpu.instructions(), ref->cpu.instructions());
  same("stall cycles", fast->cpu.stall_cycles(), ref->cpu.stall_cycles());
  same("cycles", fast->cpu.cycles(), ref->cpu.cycles());
  same("halted", fast->cpu.halted(), ref->cpu.halted());
  same("fault", fast->cpu.fault().has_value(), ref->cpu.fault().has_value());
  if (fast->cpu.fault()) {
    same("fault kind", int(fast->cpu.fault()->kind), int(ref->cpu.fault()->kind));
    same("fault pc", fast->cpu.fault()->pc, ref->cpu.fault()->pc);
    same("fault address", fast->cpu.fault()->address, ref->cpu.fault()->address);
  }
  same("exited", fast->io.exited(), ref->io.exited());
  same("exit status", fast->io.exit_status(), ref->io.exit_status());
  if (fast->io.output() != ref->io.output()) {
    std::fprintf(stderr, "cpu_fuzz: output differs\n");
    std::abort();
  }
  for (uint32_t a = 0; a < kSramSize; a += 4)
    if (fast->sram.read32(a) != ref->sram.read32(a)) {
      std::fprintf(stderr, "cpu_fuzz: SRAM word at 0x%x differs: fast 0x%08x, reference 0x%08x\n",
                   a, fast->sram.read32(a), ref->sram.read32(a));
      std::abort();
    }
  return 0;
}
