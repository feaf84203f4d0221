// The Lanai NIC processor core.
//
// Two executors share one architectural state:
//   * step_reference(): decodes every instruction from SRAM and follows the pipeline model
//     below literally. It is the specification, used for --trace and as the oracle the fast
//     interpreter is tested against.
//   * run(): the fast interpreter (vm/interp.cpp). SRAM code is predecoded lazily into an
//     array of slots (handler + operands) and run with threaded dispatch; delay slots are
//     handled by dispatching the next slot through a per-mode handler table, so no
//     per-instruction delay-slot bookkeeping exists on the fast path.
//     The slot array and the code map are reserved address space (vm/host_memory.h): only
//     the host pages holding slots of code that ran are ever committed (docs/vm.md,
//     "Host memory").
//
// Pipeline model (delay slots). The fetch stream is three addresses: pc (executing now),
// npc and nnpc (the next two). After an ordinary instruction: pc <- npc, npc <- nnpc,
// nnpc <- nnpc + 4. A taken branch (BR, BRR) or an ALU instruction writing %pc to target T
// has one delay slot: pc <- npc, npc <- T, nnpc <- T + 4. A load into %pc has two:
// pc <- npc, npc <- nnpc, nnpc <- T. So a branch in the delay slot of another branch takes
// effect after the first branch's target instruction executes (the target runs as the
// second branch's delay slot, then the second branch's target follows); a control transfer
// in the shadow of a load into %pc overrides the part of the stream it writes. Reading %pc
// yields the address of the instruction doing the read (LLVM's call sequence
// `add %pc, 0x10, %rca` relies on it).
//
// Cycle model (CostModel below): every instruction costs `base_cycles`; a load whose
// destination register is read by the next instruction executed adds `load_use_cycles`
// (the interlock described for RM in LanaiInstrFormats.td); each memory-mapped access adds
// `mmio_cycles`. cycles = instructions * base_cycles + stall_cycles.
#pragma once

#include "isa/inst.h"
#include "vm/host_memory.h"
#include "vm/mmio.h"
#include "vm/sram.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace lanaikit::vm {

struct CostModel {
  uint32_t base_cycles = 1;     // every instruction
  uint32_t load_use_cycles = 1; // next instruction reads the register a load writes
  uint32_t mmio_cycles = 2;     // extra per memory-mapped register access
  // Taking an interrupt or trap, and returning from one (lanaikit's extension, below): the
  // two instructions already in the fetch stream (npc, nnpc) are squashed. lanaikit's
  // figure; the Lanai has no interrupts.
  uint32_t trap_cycles = 2;
};

enum class FaultKind : uint8_t {
  IllegalInstruction, // a word LLVM's Lanai disassembler does not decode
  MisalignedFetch,    // pc not a multiple of 4
  FetchOutsideSram,   // pc beyond the end of SRAM
  MisalignedAccess,   // load/store address not a multiple of the access width
  BusError,           // access outside SRAM and outside the memory-mapped range
  MmioError,          // memory-mapped register missing, or accessed at the wrong width
  InstructionBudget,  // the run's instruction limit was reached (runaway firmware)
  StackOverflow,      // a store into the stack guard (Cpu::set_stack_guard)
  UnhandledTrap,      // a trap or interrupt taken with no trap table (TBR is 0)
  DoubleTrap,         // a trap before the last entry's handler completed an instruction
};
const char* fault_kind_name(FaultKind kind);

struct Fault {
  FaultKind kind;
  uint32_t pc = 0;         // address of the faulting instruction
  uint32_t word = 0;       // its encoding (0 if it could not be fetched)
  bool fetched = false;    // whether `word` is valid
  uint32_t address = 0;    // data address for access faults
  std::string detail;      // one line, for the report
};

enum class StopReason : uint8_t {
  Limit,  // executed the requested number of instructions (or, with interrupts in use,
          // stopped at a trap or return: docs/vm.md "Interrupts and traps"); can resume
  Halted, // the program stopped itself (bare-ABI EXIT)
  Fault,  // see fault()
  Yield,  // a device asked the CPU to stop before an access; resume to retry it
  Break,  // an Instrument asked to stop before an instruction (a breakpoint, a watchpoint)
};

// One instruction of a loop iteration the CPU is known to repeat unchanged (vm/doze.h):
// where it is, its cycles (base cost plus stalls) and its stall cycles.
struct RepeatStep {
  uint32_t pc, cycles, stalls;
};

// Hooks around every instruction, for the profiler and the debugger. Only
// Cpu::run_instrumented calls them (on the reference model): the fast interpreter knows
// nothing of them, so they cost nothing when nobody instruments.
class Instrument {
public:
  virtual ~Instrument() = default;
  // Before the instruction at `pc` (pc/npc/nnpc are the Cpu's). Returning false stops the
  // run before it with StopReason::Break; the next run calls before() again.
  virtual bool before(uint32_t pc) = 0;
  // After it completed (not after a fault or a yield): its cycles, base cost plus stalls.
  virtual void after(uint32_t pc, uint32_t cycles) = 0;

  // Doze (vm/doze.h). An idle chip's CPU skips whole iterations of a loop it is proven to
  // repeat unchanged; an instrument that can account for them without seeing each says so
  // (can_repeat) and gets repeat(): `times` more runs of `iteration`, each instruction's
  // before()/after() as if they had been called. The default (a debugger, whose
  // breakpoints must see every instruction) keeps the CPU stepping.
  virtual bool can_repeat() const { return false; }
  virtual void repeat(const std::vector<RepeatStep>& iteration, uint64_t times) {
    (void)iteration;
    (void)times;
  }
  // Changes whenever before()/after() did more than count (the profiler: a handler
  // invocation began or ended). A loop whose iteration leaves it unchanged repeats
  // arithmetically; one that moves it does not doze.
  virtual uint64_t epoch() const { return 0; }
};

struct RunResult {
  StopReason reason;
  uint64_t executed; // instructions completed by this call
};

struct Slot; // vm/interp.h

inline constexpr unsigned kSwReg = 33; // index of the status word in the register array

// Interrupts and traps: lanaikit's extension of the Lanai (which has none), for control
// programs that multiplex a node between a kernel and user code (UDM on FUGU). docs/vm.md,
// "Interrupts and traps", is the manual. The CPU's own control registers live in the bare
// page; only kernel mode may touch them, except SYSCALL.
namespace cpuctl {
inline constexpr uint32_t kBase = 0xFFFFF080;
inline constexpr uint32_t kStatus = 0xFFFFF080;  // RW  bit 0 USER (read only), bit 1 IE
inline constexpr uint32_t kEStatus = 0xFFFFF084; // RW  STATUS before the last entry
inline constexpr uint32_t kEpc = 0xFFFFF088;     // RW  the fetch stream at the entry:
inline constexpr uint32_t kEnpc = 0xFFFFF08C;    // RW    pc, npc, nnpc
inline constexpr uint32_t kEnnpc = 0xFFFFF090;   // RW
inline constexpr uint32_t kEsw = 0xFFFFF094;     // RW  %sw at the entry
inline constexpr uint32_t kCause = 0xFFFFF098;   // R   cause of the last entry
inline constexpr uint32_t kTval = 0xFFFFF09C;    // R   access address, or SYSCALL's value
inline constexpr uint32_t kTbr = 0xFFFFF0A0;     // RW  trap table base (1 KB aligned)
inline constexpr uint32_t kImask = 0xFFFFF0A4;   // RW  interrupt lines enabled
inline constexpr uint32_t kIpend = 0xFFFFF0A8;   // R   interrupt line levels
inline constexpr uint32_t kReti = 0xFFFFF0AC;    // W   return to EPC (retry it)
inline constexpr uint32_t kSyscall = 0xFFFFF0B0; // W   (any mode) trap kCauseSyscall
inline constexpr uint32_t kRetiSkip = 0xFFFFF0B4; // W  return past EPC (skip it)
inline constexpr uint32_t kEnd = 0xFFFFF0C0;

inline constexpr uint32_t kStatusUser = 1, kStatusIe = 2;
// Causes: interrupt line n is cause n (0..31); then the synchronous traps. A device's
// trap code c (MmioDevice::trap_cause) is cause kCauseDevice + c.
inline constexpr uint32_t kCausePrivileged = 32; // user access to a kernel register
inline constexpr uint32_t kCauseSyscall = 33;    // a store to SYSCALL
inline constexpr uint32_t kCauseDevice = 40;
inline constexpr uint32_t kCauses = 64;
inline constexpr uint32_t kVectorBytes = 16; // four instructions per vector
} // namespace cpuctl
// The cause a device's trap code (MmioDevice::trap_cause) raises.
uint32_t device_cause(uint32_t code);

class Cpu {
public:
  // Throws HostMemoryError if the host cannot reserve the predecode arrays.
  Cpu(Sram& sram, MmioDevice& mmio, CostModel costs = {});
  ~Cpu();
  Cpu(const Cpu&) = delete;
  Cpu& operator=(const Cpu&) = delete;

  // Registers cleared (r1 = all ones), pc at `entry`, counters and fault cleared.
  void reset(uint32_t entry);

  // Fast interpreter: up to `max_insns` instructions.
  RunResult run(uint64_t max_insns);
  // Fast interpreter with a cycle budget: runs instructions while each starts fewer than
  // `max_cycles` cycles after the call began (the last one may end past it). The
  // reference is stepping one instruction at a time while cycles() - start < max_cycles.
  // Needs a base cost of 1 cycle per instruction.
  RunResult run_cycles(uint64_t max_cycles);
  // The reference model one instruction at a time with `ins` around each, under an
  // instruction budget or (cycle_budget) a cycle budget as run()/run_cycles() define them.
  RunResult run_instrumented(uint64_t budget, bool cycle_budget, Instrument& ins);
  // The same loop for a known instrument class (vm/cpu_instrumented.h).
  template <class I> RunResult run_instrumented_as(uint64_t budget, bool cycle_budget, I& ins);

  // Reference stepper: up to `max_insns` instructions, calling `trace` (if set) before each
  // instruction with its address and word.
  using TraceFn = std::function<void(uint32_t pc, uint32_t word)>;
  RunResult step_reference(uint64_t max_insns, const TraceFn& trace = nullptr);

  // Architectural state.
  uint32_t reg(unsigned r) const;
  void set_reg(unsigned r, uint32_t value);
  // The status word: LLVM's SR ("%sw"), a register of its own (r3 is an ordinary GPR).
  // The flags are its low four bits (vm/semantics.h).
  uint32_t sw() const { return regs_[kSwReg]; }
  void set_sw(uint32_t value) { regs_[kSwReg] = value & 0xF; }
  uint32_t pc() const { return pc_; }   // next instruction to execute
  uint32_t npc() const { return npc_; } // the one after it (differs from pc+4 in a delay slot)
  uint32_t nnpc() const { return nnpc_; }
  bool halted() const { return halted_; }
  const std::optional<Fault>& fault() const { return fault_; }

  // ---- interrupts and traps (docs/vm.md, "Interrupts and traps") ----
  // A device drives interrupt line `line` (0..31) to `level`. Taken before the next
  // instruction when enabled (IMASK) and the CPU is in user mode or has IE set.
  void set_interrupt_line(unsigned line, bool level);
  uint32_t interrupt_lines() const { return lines_; }
  bool user_mode() const { return status_ & cpuctl::kStatusUser; }
  uint32_t status() const { return status_; }
  // Cycles spent in user mode (the atomicity timer's clock).
  uint64_t user_cycles() const {
    return user_cycles_ + (user_mode() ? cycles() - mode_since_ : 0);
  }
  // Calls `fn` before the first instruction that would start once user_cycles() >= at
  // (a one-shot alarm; kernel cycles do not advance it). Replaces any earlier one.
  void set_user_alarm(uint64_t at, std::function<void()> fn);
  void clear_user_alarm() { alarm_armed_ = false; }
  bool user_alarm_armed() const { return alarm_armed_; }
  uint64_t user_alarm_at() const { return alarm_at_; }
  // A control register's value as the kernel would load it (debugger, tests); 0 for an
  // address that is not one.
  uint32_t control_register(uint32_t addr) const;
  // Whether the extension was ever used since reset (reports show its state only then).
  bool interrupts_used() const { return ext_used_; }
  // Upper bound of one instruction's cycles (base, an MMIO access, a load-use stall and a
  // return then an entry): callers planning with instruction budgets use it.
  uint32_t max_instruction_cycles() const {
    return costs_.base_cycles + costs_.mmio_cycles + costs_.load_use_cycles +
           2 * costs_.trap_cycles;
  }

  // Turns an instruction-limit stop into an InstructionBudget fault (for `lanaikit exec`).
  void raise_budget_fault();

  // Doze (vm/doze.h): everything that decides what the CPU does next, so two moments with
  // equal snapshots (and nothing else changed) are the same point of a loop; and the
  // counters advanced for whole iterations of such a loop without running them.
  struct Snapshot {
    uint32_t regs[32], sw, pc, npc, nnpc, lazy_sub, lazy_a, lazy_b;
    bool operator==(const Snapshot&) const = default;
  };
  Snapshot snapshot() const;
  // Every data load the reference model makes (address, bytes) is appended to `log`
  // while it is set (the doze watch's read set); null stops it. So is every silent store
  // to SRAM, one that writes the bytes already there (a poll loop that calls a function
  // pushes the same return address to the same stack slot on every pass): it changes
  // nothing, but the loop depends on those bytes staying what they are, as on what it
  // reads. Any other store, while the log is set, counts in loud_stores().
  struct LoadRecord {
    uint32_t addr, bytes;
    bool operator==(const LoadRecord&) const = default;
  };
  void set_load_log(std::vector<LoadRecord>* log) { load_log_ = log; }
  uint64_t loud_stores() const { return loud_stores_; }
  void skip_repeats(uint64_t insns, uint64_t stall_cycles) {
    instructions_ += insns;
    stall_cycles_ += stall_cycles;
  }

  uint64_t instructions() const { return instructions_; }
  uint64_t stall_cycles() const { return stall_cycles_; }
  uint64_t cycles() const { return instructions_ * costs_.base_cycles + stall_cycles_; }
  const CostModel& costs() const { return costs_; }

  // SRAM bytes changed by someone other than the CPU (loader, host PIO, DMA): drop any
  // predecoded instructions that cover them.
  void invalidate(uint32_t addr, uint32_t len);
  // All of SRAM changed (a new image): drops every predecoded instruction, giving their
  // host pages back.
  void invalidate_all();

  // The stack guard: `bytes` from `begin` (begin rounded up to a word, the end rounded up to
  // a word and clipped to SRAM) that no CPU store may touch. A store there faults with
  // StackOverflow before it writes anything (nor updates a pre/post-modified base). The
  // loaders put it right above the image's end and its pinned globals, below the stack,
  // which grows down from the top of SRAM (docs/abi.md, "The stack guard"). Only CPU stores
  // are checked: the host, DMA and loads may use the words. 0 bytes removes the guard. It
  // survives invalidate_all. The fast path pays nothing for it: guard words are marked in
  // the code map, which every store already checks.
  void set_stack_guard(uint32_t begin, uint32_t bytes);
  uint32_t stack_guard_begin() const { return guard_begin_; }
  uint32_t stack_guard_end() const { return guard_end_; }

  // The fault report: kind, pc, the instruction disassembled, the registers.
  std::string fault_report() const;
  std::string register_dump() const;
  // Where the CPU is (a stopped or still running one: e.g. firmware that never finished):
  // pc, the instruction there disassembled, the instruction count, the registers.
  std::string state_report() const;

  Sram& sram() { return sram_; }

private:
  friend struct Interp;
  // Trap: the instruction did not execute, a trap is pending (taken before the next one).
  // Stop: it executed and changed the interrupt state: the run ends after it so that the
  // change is seen before the next instruction.
  enum class StepStatus : uint8_t { Ok, Halt, Fault, Yield, Trap, Stop };

  // One instruction by the reference model. Counts stall cycles but not instructions.
  StepStatus step_one();
  StepStatus set_fault(FaultKind kind, uint32_t address, std::string detail);
  StepStatus set_fetch_fault(FaultKind kind, std::string detail);
  void log_store(const uint8_t* p, isa::Width width, uint32_t value, uint32_t addr);
  // Data access by the reference model (SRAM or MMIO, with faults).
  StepStatus load(uint32_t addr, isa::Width width, bool zero_ext, uint32_t& value);
  StepStatus store(uint32_t addr, isa::Width width, uint32_t value);
  uint32_t read_reg(unsigned r) const { return r == isa::PC ? pc_ : regs_[r]; }
  void write_reg(unsigned r, uint32_t value) {
    if (r > isa::R1) regs_[r] = value; // r0 and r1 are constants; pc is handled by callers
  }
  // Interrupts and traps (cpu_control.cpp).
  // Runs the fast interpreter with interrupts, traps and the user alarm in play.
  RunResult run_serviced(uint64_t budget, bool cycle_budget);
  RunResult run_fast(uint64_t budget, bool cycle_budget); // Interp::run on this CPU
  // At an instruction boundary: fires a due alarm, performs a pending return, takes a
  // pending trap or an enabled interrupt. True if it redirected the fetch stream.
  bool service();
  void enter(uint32_t cause, uint32_t tval);
  void set_mode(uint32_t status);
  void update_attention();
  StepStatus control_load(uint32_t addr, uint32_t& value);
  StepStatus control_store(uint32_t addr, uint32_t value);
  StepStatus raise_trap(uint32_t cause, uint32_t tval);
  // A device access that blocks (MmioStatus::Busy): not executed, one cycle passes, the run
  // ends (StepStatus::Trap with no trap pending) and the next one tries again.
  StepStatus busy() {
    stall_cycles_ += 1; // instead of the access's memory-mapped cost
    stall_cycles_ -= costs_.mmio_cycles;
    return StepStatus::Trap;
  }
  std::string control_report() const;

  // Does the instruction at `addr` (if any) read register `r`? For the load-use interlock.
  bool next_reads(uint32_t addr, unsigned r) const;
  // isa::decode, remembered: the reference model (the profiler, the debugger, doze watches)
  // decodes the same few words over and over. A direct-mapped table by word, allocated on
  // first use (a CPU that only ever runs the fast interpreter pays nothing). 2048 entries
  // (64 KB) hold a control program's hot code: at 256, VMMC's main job decoded 1% of its
  // host instructions over again.
  struct DecodeEntry {
    uint32_t word = 0;
    bool valid = false;
    uint32_t reads = 0; // isa::regs_read(*inst), for the load-use interlock's look ahead
    std::optional<isa::Inst> inst;
  };
  static constexpr size_t kDecodeEntries = 2048;
  static size_t decode_index(uint32_t word) {
    return (word ^ (word >> 11) ^ (word >> 22)) % kDecodeEntries;
  }
  const std::optional<isa::Inst>& decoded(uint32_t word) const { return decode_entry(word).inst; }
  const DecodeEntry& decode_entry(uint32_t word) const { // a hit inline: every step asks
    if (decode_cache_) [[likely]] {
      const DecodeEntry& e = decode_cache_[decode_index(word)];
      if (e.valid && e.word == word) [[likely]] return e;
    }
    return decode_miss(word);
  }
  const DecodeEntry& decode_miss(uint32_t word) const;
  mutable std::unique_ptr<DecodeEntry[]> decode_cache_;

  // Fast-interpreter support (vm/interp.cpp).
  void build_slot(uint32_t index);
  void build_segment(uint32_t index); // the segment holding slot `index`, with its runs
  int fused_branch(uint32_t index);
  bool delay_slot_is_nop(uint32_t index) const;
  bool next_reads_flags_directly(uint32_t index) const;
  void invalidate_words(uint32_t first_word, uint32_t last_word);
  // Makes the slots of the host page holding slot `index` dispatchable: those still all
  // zero (never touched) become DECODE. The interpreter dispatches only ready slots.
  void ready_slots(uint32_t index);
  // ready_slots for pc, npc and nnpc (re-entering the fast interpreter).
  [[gnu::noinline]] void ready_pipeline();
  Slot* slots() const { return static_cast<Slot*>(slots_.data()); }
  uint8_t* code_map() const { return static_cast<uint8_t*>(code_map_.data()); }

  Sram& sram_;
  MmioDevice& mmio_;
  CostModel costs_;

  // What the fast interpreter's handlers touch, reachable from one base register: r0..r31,
  // a sink at kSinkReg (32) that the fast path writes instead of r0/r1, the status word at
  // kSwReg (33), then the SRAM size and the code map. It is constructed in the SRAM's
  // header (Sram::kHeaderBytes), so SRAM itself sits at a constant offset from it.
  struct Core {
    uint32_t regs[34] = {};
    uint32_t sram_size = 0;
    uint32_t sram_halves = 0; // sram_size / 2 and / 4, for the aligned-access checks
    uint32_t sram_words = 0;
    // Slots of addresses below this are all dispatchable (a prefix of whole host pages of
    // slots made ready, see ready_slots): a computed jump below it needs no other check.
    uint32_t ready_limit = 0;
    const uint8_t* code_map = nullptr;
    Slot* slots = nullptr;
    Cpu* cpu = nullptr;
    // Lazy flags of the fast interpreter: after a `sub.f` it records the operands instead of
    // computing Z N V C (the branch that usually follows decides from the operands). While
    // lazy_sub is set, regs[kSwReg] is stale; anything that reads the flags materialises
    // them first, and the interpreter always does before it leaves its loop.
    uint32_t lazy_sub = 0;
    uint32_t lazy_a = 0, lazy_b = 0;
    // Cycle budgets (run_cycles): set for the call, and the stall cycles charged to the
    // budget so far. Kept here, in memory, rather than in the interpreter's locals: only
    // cold paths touch them, and the hot loop keeps its registers.
    uint32_t cycle_mode = 0;
    int64_t stall_charged = 0;
  };
  Core& core_; // lives in the SRAM's header (Sram::kHeaderBytes), see the constructor
  uint32_t* const regs_ = core_.regs;
  uint32_t pc_ = 0, npc_ = 4, nnpc_ = 8;
  bool halted_ = false;
  std::optional<Fault> fault_;
  uint64_t instructions_ = 0;
  uint64_t stall_cycles_ = 0;

  // Predecoded code: one slot per SRAM word plus a sentinel past the end; a byte per word
  // that is set once its slot is decoded, so stores check one byte to know whether they
  // may be overwriting code. Both are reserved, not committed: a slot that was never
  // touched is all zeros (no handler) and is made ready (DECODE) a host page at a time
  // before the interpreter can reach it: by a static branch target or fall-through
  // (predecode), or by a computed jump or a re-entry (checked at run time).
  HostMemory slots_;
  HostMemory code_map_;
  uint32_t num_words_ = 0;
  uint32_t guard_begin_ = 0, guard_end_ = 0; // the stack guard, word aligned
  void mark_guard(uint8_t mark);

  // Interrupts and traps. attention_: something must happen at the next instruction
  // boundary (an enabled line, a trap, a return); run() checks it once per call, so code
  // that never uses the extension pays one test per run.
  bool attention_ = false;
  bool trap_pending_ = false, return_pending_ = false, ext_used_ = false;
  bool alarm_armed_ = false;
  uint32_t status_ = 0, estatus_ = 0, epc_ = 0, enpc_ = 0, ennpc_ = 0, esw_ = 0;
  uint32_t cause_ = 0, tval_ = 0, tbr_ = 0, imask_ = 0, lines_ = 0;
  uint32_t pending_cause_ = 0, pending_tval_ = 0, return_skip_ = 0;
  uint64_t user_cycles_ = 0, mode_since_ = 0; // user cycles before the last mode change
  uint64_t alarm_at_ = 0;
  // instructions() at the last entry (none yet: all ones). An entry while it still holds
  // is a double trap (Cpu::enter).
  uint64_t entered_at_ = ~uint64_t(0);
  std::function<void()> alarm_fn_;
  uint64_t unattributed_stalls_ = 0; // entry cycles for run_instrumented's next after()
  std::vector<LoadRecord>* load_log_ = nullptr;
  uint64_t loud_stores_ = 0;
};

// Granule of the code map that stores check: one word, so that data next to code (a table
// right after a function, the start of .bss) never shares a granule with predecoded slots.
inline constexpr unsigned kCodeMapShift = 2;
// What a code-map byte holds: bits, so a store checks one byte for both. Code marks are
// only ever added (until invalidate_all); the guard mark follows set_stack_guard.
inline constexpr uint8_t kCodeMark = 1;  // a predecoded slot covers (or looked at) this word
inline constexpr uint8_t kGuardMark = 2; // the word is in the stack guard

// The loaders' stack guard (lanaikit's choice): a frame no larger than this cannot step
// over it unnoticed.
inline constexpr uint32_t kDefaultStackGuardBytes = 256;

} // namespace lanaikit::vm
