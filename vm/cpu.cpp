// The reference model: one instruction at a time, straight from the decoded word.
#include "vm/cpu.h"
#include "vm/cpu_instrumented.h"

#include "vm/interp.h"
#include "vm/semantics.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <type_traits>
#include <cstdio>

namespace lanaikit::vm {

using isa::AddrMode;
using isa::AluOp;
using isa::Opcode;
using isa::Width;

const char* fault_kind_name(FaultKind kind) {
  switch (kind) {
  case FaultKind::IllegalInstruction: return "illegal instruction";
  case FaultKind::MisalignedFetch: return "misaligned instruction fetch";
  case FaultKind::FetchOutsideSram: return "instruction fetch outside SRAM";
  case FaultKind::MisalignedAccess: return "misaligned memory access";
  case FaultKind::BusError: return "access outside SRAM and the memory-mapped region";
  case FaultKind::MmioError: return "memory-mapped register error";
  case FaultKind::InstructionBudget: return "instruction budget exceeded";
  case FaultKind::StackOverflow: return "stack overflow";
  case FaultKind::UnhandledTrap: return "trap with no trap table";
  case FaultKind::DoubleTrap: return "trap in a vector before its handler ran";
  }
  return "fault";
}

Cpu::Cpu(Sram& sram, MmioDevice& mmio, CostModel costs)
    : sram_(sram), mmio_(mmio), costs_(costs), core_(*new (sram.header()) Core{}) {
  static_assert(sizeof(Core) <= Sram::kHeaderBytes, "the core state must fit the SRAM header");
  static_assert(std::is_trivially_destructible_v<Core>);
  num_words_ = sram.size() / 4;
  const std::string of = " of a " + std::to_string(sram.size()) + "-byte SRAM";
  slots_ = HostMemory((size_t(num_words_) + 1) * sizeof(Slot), "the predecoded slots" + of);
  code_map_ = HostMemory((size_t(sram.size()) >> kCodeMapShift) + 1, "the code map" + of);
  core_.sram_size = sram.size();
  core_.sram_halves = sram.size() / 2;
  core_.sram_words = sram.size() / 4;
  core_.code_map = code_map();
  core_.slots = slots();
  core_.cpu = this;
  invalidate_words(0, 0); // sets the sentinel past the end
  reset(0);
}

Cpu::~Cpu() = default;

void Cpu::reset(uint32_t entry) {
  for (auto& r : core_.regs) r = 0;
  regs_[isa::R1] = 0xFFFFFFFF;
  pc_ = entry;
  npc_ = entry + 4;
  nnpc_ = entry + 8;
  halted_ = false;
  fault_.reset();
  instructions_ = 0;
  stall_cycles_ = 0;
  // Interrupts and traps: kernel mode, interrupts off, nothing pending.
  attention_ = trap_pending_ = return_pending_ = ext_used_ = alarm_armed_ = false;
  status_ = estatus_ = epc_ = enpc_ = ennpc_ = esw_ = cause_ = tval_ = tbr_ = imask_ = lines_ = 0;
  user_cycles_ = mode_since_ = 0;
  entered_at_ = ~uint64_t(0);
  alarm_fn_ = nullptr;
  unattributed_stalls_ = 0;
}

uint32_t Cpu::reg(unsigned r) const { return r < 32 ? read_reg(r) : 0; }

void Cpu::set_reg(unsigned r, uint32_t value) {
  if (r == isa::PC) {
    pc_ = value;
    npc_ = value + 4;
    nnpc_ = value + 8;
  } else if (r < 32) {
    write_reg(r, value);
  }
}

void Cpu::invalidate(uint32_t addr, uint32_t len) {
  if (len == 0 || addr >= sram_.size()) return;
  const uint64_t end = std::min<uint64_t>(uint64_t(addr) + len, sram_.size());
  const uint32_t first = addr / 4, last = uint32_t((end + 3) / 4);
  // Most writers (PIO, DMA, the receive engine) fill data buffers: nothing to drop unless
  // a word in the range, or one of the two before it (whose predecoded slots looked
  // ahead), was ever decoded.
  const uint32_t from = first > 1 ? first - 2 : 0;
  static_assert(kCodeMapShift == 2, "a code-map byte per word");
  const uint8_t* map = code_map();
  bool code = false;
  uint32_t w = from;
  // Eight map bytes at a time (a DMA of 4 KB checks 1,026 of them).
  constexpr uint64_t kMarks = 0x0101010101010101ull * kCodeMark;
  for (; w + 8 <= last && !code; w += 8) {
    uint64_t m;
    std::memcpy(&m, map + w, 8);
    code = (m & kMarks) != 0;
  }
  if (!code && w < last && last - from >= 8) {
    // The rest in one load: the eight bytes that end at `last`, overlapping some already
    // seen (a 32-byte receive chunk checks ten map bytes: two loads instead of a load and
    // two byte steps, on every chunk a chip receives).
    uint64_t m;
    std::memcpy(&m, map + last - 8, 8);
    code = (m & kMarks) != 0;
    w = last;
  }
  for (; w < last && !code; ++w) code = map[w] & kCodeMark;
  if (code) invalidate_words(first, last);
}

void Cpu::invalidate_all() {
  slots_.zero(0, slots_.size());
  code_map_.zero(0, code_map_.size());
  core_.ready_limit = 0;
  invalidate_words(0, 0); // the sentinel
  mark_guard(kGuardMark);
}

void Cpu::set_stack_guard(uint32_t begin, uint32_t bytes) {
  mark_guard(0);
  const uint64_t b = (uint64_t(begin) + 3) & ~uint64_t(3);
  const uint64_t e = std::min<uint64_t>((b + bytes + 3) & ~uint64_t(3), sram_.size());
  guard_begin_ = b < e ? uint32_t(b) : 0;
  guard_end_ = b < e ? uint32_t(e) : 0;
  mark_guard(kGuardMark);
}

void Cpu::mark_guard(uint8_t mark) {
  for (uint32_t a = guard_begin_; a < guard_end_; a += 4) {
    uint8_t& m = code_map()[a >> kCodeMapShift];
    m = uint8_t((m & ~kGuardMark) | mark);
  }
}

Cpu::StepStatus Cpu::set_fault(FaultKind kind, uint32_t address, std::string detail) {
  Fault f{kind, pc_, 0, false, address, std::move(detail)};
  if (pc_ % 4 == 0 && sram_.contains(pc_, 4)) {
    f.word = sram_.read32(pc_);
    f.fetched = true;
  }
  fault_ = std::move(f);
  return StepStatus::Fault;
}

Cpu::StepStatus Cpu::set_fetch_fault(FaultKind kind, std::string detail) {
  fault_ = Fault{kind, pc_, 0, false, pc_, std::move(detail)};
  return StepStatus::Fault;
}

void Cpu::raise_budget_fault() {
  if (!fault_ && !halted_)
    set_fault(FaultKind::InstructionBudget, 0,
              "stopped after " + std::to_string(instructions_) + " instructions");
}

static uint32_t width_bytes(Width w) { return w == Width::Word ? 4 : w == Width::Half ? 2 : 1; }

Cpu::StepStatus Cpu::load(uint32_t addr, Width width, bool zero_ext, uint32_t& value) {
  const uint32_t n = width_bytes(width);
  if (addr & (n - 1)) return set_fault(FaultKind::MisalignedAccess, addr, "load");
  if (load_log_) [[unlikely]]
    load_log_->push_back(LoadRecord{addr, n});
  if (sram_.contains(addr, n)) {
    const uint8_t* p = sram_.data() + addr;
    switch (width) {
    case Width::Word: value = load_be32(p); break;
    case Width::Half: value = zero_ext ? load_be16(p) : uint32_t(int32_t(int16_t(load_be16(p)))); break;
    case Width::Byte: value = zero_ext ? *p : uint32_t(int32_t(int8_t(*p))); break;
    }
    return StepStatus::Ok;
  }
  if (addr < kMmioBase) return set_fault(FaultKind::BusError, addr, "load");
  if (addr - cpuctl::kBase < cpuctl::kEnd - cpuctl::kBase) { // the CPU's own registers
    if (width != Width::Word)
      return set_fault(FaultKind::MmioError, addr, "the CPU's control registers are words");
    if (user_mode()) return raise_trap(cpuctl::kCausePrivileged, addr);
    stall_cycles_ += costs_.mmio_cycles;
    return control_load(addr, value);
  }
  stall_cycles_ += costs_.mmio_cycles;
  uint32_t raw = 0;
  switch (mmio_.read(addr, width, raw)) {
  case MmioStatus::Ok:
  case MmioStatus::Halt: break;
  case MmioStatus::Yield: stall_cycles_ -= costs_.mmio_cycles; return StepStatus::Yield;
  case MmioStatus::Busy: return busy();
  case MmioStatus::Trap:
    stall_cycles_ -= costs_.mmio_cycles;
    return raise_trap(device_cause(mmio_.trap_cause()), addr);
  case MmioStatus::Unmapped:
    return set_fault(FaultKind::MmioError, addr, "load from unmapped register");
  case MmioStatus::BadWidth:
    return set_fault(FaultKind::MmioError, addr, "register does not support this load width");
  case MmioStatus::Error: return set_fault(FaultKind::MmioError, addr, mmio_.error_detail());
  }
  // Only stores may change what the CPU takes next (the fast interpreter ends its run after
  // a store that did, not after a load): a device doing it on a read is a device bug.
  // (attention_ is clear whenever an instruction starts: every run serves it first.)
  if (attention_)
    return set_fault(FaultKind::MmioError, addr,
                     "a register read changed the CPU's interrupt state (only stores may)");
  if (width == Width::Half) raw = zero_ext ? (raw & 0xFFFF) : uint32_t(int32_t(int16_t(raw)));
  if (width == Width::Byte) raw = zero_ext ? (raw & 0xFF) : uint32_t(int32_t(int8_t(raw)));
  value = raw;
  return StepStatus::Ok;
}

// The doze watch's view of a store to SRAM (set_load_log): silent, or loud.
void Cpu::log_store(const uint8_t* p, Width width, uint32_t value, uint32_t addr) {
  bool silent = false;
  switch (width) {
  case Width::Word: silent = load_be32(p) == value; break;
  case Width::Half: silent = load_be16(p) == uint16_t(value); break;
  case Width::Byte: silent = *p == uint8_t(value); break;
  }
  if (silent) load_log_->push_back(LoadRecord{addr, width_bytes(width)});
  else ++loud_stores_;
}

Cpu::StepStatus Cpu::store(uint32_t addr, Width width, uint32_t value) {
  const uint32_t n = width_bytes(width);
  if (addr & (n - 1)) return set_fault(FaultKind::MisalignedAccess, addr, "store");
  if (sram_.contains(addr, n)) {
    const uint8_t mark = code_map()[addr >> kCodeMapShift];
    if (mark & kGuardMark) {
      char what[128];
      std::snprintf(what, sizeof what,
                    "a store into the stack guard [%08x, %08x) above the image's data",
                    guard_begin_, guard_end_);
      return set_fault(FaultKind::StackOverflow, addr, what);
    }
    uint8_t* p = sram_.data() + addr;
    if (load_log_) [[unlikely]]
      log_store(p, width, value, addr);
    switch (width) {
    case Width::Word: store_be32(p, value); break;
    case Width::Half: store_be16(p, uint16_t(value)); break;
    case Width::Byte: *p = uint8_t(value); break;
    }
    if (mark) invalidate_words(addr / 4, addr / 4 + 1);
    return StepStatus::Ok;
  }
  if (addr < kMmioBase) return set_fault(FaultKind::BusError, addr, "store");
  if (load_log_) [[unlikely]]
    ++loud_stores_; // a register: never silent
  if (addr - cpuctl::kBase < cpuctl::kEnd - cpuctl::kBase) { // the CPU's own registers
    if (width != Width::Word)
      return set_fault(FaultKind::MmioError, addr, "the CPU's control registers are words");
    if (user_mode() && addr != cpuctl::kSyscall) return raise_trap(cpuctl::kCausePrivileged, addr);
    stall_cycles_ += costs_.mmio_cycles;
    return control_store(addr, value);
  }
  stall_cycles_ += costs_.mmio_cycles;
  switch (mmio_.write(addr, width, value)) {
  // A store after which an interrupt may be taken ends the fast interpreter's run.
  case MmioStatus::Ok: return attention_ ? StepStatus::Stop : StepStatus::Ok;
  case MmioStatus::Halt: return StepStatus::Halt;
  case MmioStatus::Yield: stall_cycles_ -= costs_.mmio_cycles; return StepStatus::Yield;
  case MmioStatus::Busy: return busy();
  case MmioStatus::Trap:
    stall_cycles_ -= costs_.mmio_cycles;
    return raise_trap(device_cause(mmio_.trap_cause()), addr);
  case MmioStatus::Unmapped:
    return set_fault(FaultKind::MmioError, addr, "store to unmapped register");
  case MmioStatus::BadWidth:
    return set_fault(FaultKind::MmioError, addr, "register does not support this store width");
  case MmioStatus::Error: return set_fault(FaultKind::MmioError, addr, mmio_.error_detail());
  }
  return StepStatus::Ok;
}

const Cpu::DecodeEntry& Cpu::decode_miss(uint32_t word) const {
  if (!decode_cache_) decode_cache_ = std::make_unique<DecodeEntry[]>(kDecodeEntries);
  DecodeEntry& e = decode_cache_[decode_index(word)];
  e = DecodeEntry{word, true, 0, isa::decode(word)};
  if (e.inst) e.reads = isa::regs_read(*e.inst);
  return e;
}

bool Cpu::next_reads(uint32_t addr, unsigned r) const {
  if (r <= isa::R1 || r == isa::PC) return false;
  if (addr % 4 != 0 || !sram_.contains(addr, 4)) return false;
  return (decode_entry(load_be32(sram_.data() + addr)).reads >> r) & 1;
}

static AluOp ri_alu_op(Opcode op) {
  switch (op) {
  case Opcode::ADD_I: case Opcode::ADD_R: return AluOp::Add;
  case Opcode::ADDC_I: case Opcode::ADDC_R: return AluOp::Addc;
  case Opcode::SUB_I: case Opcode::SUB_R: return AluOp::Sub;
  case Opcode::SUBB_I: case Opcode::SUBB_R: return AluOp::Subb;
  case Opcode::AND_I: case Opcode::AND_R: return AluOp::And;
  case Opcode::OR_I: case Opcode::OR_R: return AluOp::Or;
  case Opcode::XOR_I: case Opcode::XOR_R: return AluOp::Xor;
  case Opcode::SL_I: case Opcode::SHL_R: return AluOp::Shl;
  default: return AluOp::Sra; // SA_I, SRA_R
  }
}

Cpu::StepStatus Cpu::step_one() {
  if (pc_ % 4 != 0) return set_fetch_fault(FaultKind::MisalignedFetch, "pc not word aligned");
  if (!sram_.contains(pc_, 4))
    return set_fetch_fault(FaultKind::FetchOutsideSram, "pc beyond the end of SRAM");
  const uint32_t word = load_be32(sram_.data() + pc_);
  const auto& inst = decoded(word);
  if (!inst) return set_fault(FaultKind::IllegalInstruction, 0, "LLVM does not decode this word");
  const isa::Inst in = *inst; // a copy: an instruction's own loads may decode other words

  // The fetch stream after this instruction, unless it redirects it.
  uint32_t new_pc = npc_, new_npc = nnpc_, new_nnpc = nnpc_ + 4;
  auto jump1 = [&](uint32_t target) { new_npc = target; new_nnpc = target + 4; };
  auto jump2 = [&](uint32_t target) { new_nnpc = target; };
  const uint32_t sw = regs_[kSwReg];
  int loaded_reg = -1; // for the load-use interlock

  // Writes an ALU result: to %pc it is a jump with one delay slot.
  auto write_alu = [&](uint32_t value) {
    if (in.rd == isa::PC) jump1(value);
    else write_reg(in.rd, value);
  };
  auto alu = [&](AluOp op, uint32_t a, uint32_t b, bool rr) {
    const uint32_t value = alu_value(op, a, b, sw);
    const uint32_t flags = in.set_flags ? alu_flags(op, a, b, sw, rr) : 0;
    write_alu(value);
    if (in.set_flags) regs_[kSwReg] = flags;
  };
  // Effective address and base update for RM, RRM and SPLS.
  auto address = [&](uint32_t operand, AluOp op, uint32_t& ea) {
    const uint32_t base = read_reg(in.rs1);
    const uint32_t modified = alu_value(op, base, operand, sw);
    switch (in.mode) {
    case AddrMode::Plain: ea = base; return;
    case AddrMode::Offset: ea = modified; return;
    case AddrMode::PostMod: ea = base; break;
    case AddrMode::PreMod: ea = modified; break;
    }
    if (in.rs1 == isa::PC) jump1(modified);
    else write_reg(in.rs1, modified);
  };

  StepStatus status = StepStatus::Ok;
  switch (in.op) {
  case Opcode::ADD_I: case Opcode::ADDC_I: case Opcode::SUB_I: case Opcode::SUBB_I:
  case Opcode::AND_I: case Opcode::OR_I: case Opcode::XOR_I: case Opcode::SL_I:
  case Opcode::SA_I:
    alu(ri_alu_op(in.op), read_reg(in.rs1), in.imm, false);
    break;
  case Opcode::ADD_R: case Opcode::ADDC_R: case Opcode::SUB_R: case Opcode::SUBB_R:
  case Opcode::AND_R: case Opcode::OR_R: case Opcode::XOR_R: case Opcode::SHL_R:
  case Opcode::SRA_R:
    if (cond_holds(in.cond, sw))
      alu(ri_alu_op(in.op), read_reg(in.rs1), read_reg(in.rs2), true);
    else if (in.set_flags)
      regs_[kSwReg] = predicated_off_flags(read_reg(in.rd), sw);
    break;
  case Opcode::SELECT:
    write_alu(cond_holds(in.cond, sw) ? read_reg(in.rs1) : read_reg(in.rs2));
    break;
  case Opcode::SCC: write_alu(cond_holds(in.cond, sw) ? 1 : 0); break;
  case Opcode::POPC: write_alu(popc(read_reg(in.rs1))); break;
  case Opcode::LEADZ: write_alu(leadz(read_reg(in.rs1))); break;
  case Opcode::TRAILZ: write_alu(trailz(read_reg(in.rs1))); break;
  case Opcode::SLI: write_alu(in.imm); break;
  case Opcode::NOP: break;
  case Opcode::BR:
    if (cond_holds(in.cond, sw)) jump1(in.imm);
    break;
  case Opcode::BRR:
    // "Branch relative": LLVM decodes BRR only with Rs1 = r0, which under the .td's literal
    // "Rs1 + offset" would make it an absolute branch into the first or last 32 KB. The
    // .td also calls the offset "PC relative", the only reading that makes the instruction
    // useful; lanaikit takes it: target = address of this BRR + offset (docs/vm.md).
    if (cond_holds(in.cond, sw)) jump1(pc_ + in.imm);
    break;
  case Opcode::LOAD:
  case Opcode::LDADDR: {
    uint32_t ea = in.imm;
    const uint32_t saved_base = read_reg(in.rs1);
    const uint32_t saved_npc = new_npc, saved_nnpc = new_nnpc;
    if (in.op == Opcode::LOAD) {
      if (in.format == isa::Format::RRM) address(read_reg(in.rs2), in.mem_op, ea);
      else address(in.imm, AluOp::Add, ea);
    }
    uint32_t value = 0;
    status = load(ea, in.width, in.zero_ext, value);
    if (status != StepStatus::Ok) { // undo the base update: the instruction did not happen
      if (in.rs1 != isa::PC) write_reg(in.rs1, saved_base);
      new_npc = saved_npc;
      new_nnpc = saved_nnpc;
      break;
    }
    if (in.rd == isa::PC) jump2(value);
    else {
      write_reg(in.rd, value); // after the base update: the loaded value wins if rd == rs1
      loaded_reg = in.rd;
    }
    break;
  }
  case Opcode::STORE:
  case Opcode::STADDR: {
    uint32_t ea = in.imm;
    const uint32_t value = read_reg(in.rd); // read before any base update
    const uint32_t saved_base = read_reg(in.rs1);
    const uint32_t saved_npc = new_npc, saved_nnpc = new_nnpc;
    if (in.op == Opcode::STORE) {
      if (in.format == isa::Format::RRM) address(read_reg(in.rs2), in.mem_op, ea);
      else address(in.imm, AluOp::Add, ea);
    }
    status = store(ea, in.width, value);
    if (status == StepStatus::Fault || status == StepStatus::Yield || status == StepStatus::Trap) {
      if (in.rs1 != isa::PC) write_reg(in.rs1, saved_base);
      new_npc = saved_npc;
      new_nnpc = saved_nnpc;
    }
    break;
  }
  case Opcode::Count_: break;
  }
  if (status == StepStatus::Fault || status == StepStatus::Yield || status == StepStatus::Trap)
    return status;

  if (loaded_reg >= 0 && next_reads(new_pc, unsigned(loaded_reg)))
    stall_cycles_ += costs_.load_use_cycles;
  pc_ = new_pc;
  npc_ = new_npc;
  nnpc_ = new_nnpc;
  return status;
}

RunResult Cpu::step_reference(uint64_t max_insns, const TraceFn& trace) {
  uint64_t done = 0;
  if (fault_) return {StopReason::Fault, 0};
  if (halted_) return {StopReason::Halted, 0};
  while (done < max_insns) {
    if (attention_ || alarm_armed_) {
      service();
      if (fault_) break;
    }
    if (trace) {
      const bool fetchable = pc_ % 4 == 0 && sram_.contains(pc_, 4);
      trace(pc_, fetchable ? sram_.read32(pc_) : 0);
    }
    const StepStatus s = step_one();
    if (s == StepStatus::Fault) break;
    if (s == StepStatus::Yield) return {StopReason::Yield, done};
    if (s == StepStatus::Trap) {
      if (trap_pending_) continue; // did not execute; taken at the next boundary
      break;                       // blocked (MmioStatus::Busy): the caller goes on
    }
    ++done;
    ++instructions_; // now, not at the end: an entry or return reads cycles()
    if (s == StepStatus::Halt) {
      halted_ = true;
      break;
    }
  }
  if (fault_) return {StopReason::Fault, done};
  if (halted_) return {StopReason::Halted, done};
  return {StopReason::Limit, done};
}

Cpu::Snapshot Cpu::snapshot() const {
  Snapshot s;
  std::copy_n(regs_, 32, s.regs);
  s.sw = regs_[kSwReg];
  s.pc = pc_;
  s.npc = npc_;
  s.nnpc = nnpc_;
  s.lazy_sub = core_.lazy_sub;
  s.lazy_a = core_.lazy_a;
  s.lazy_b = core_.lazy_b;
  return s;
}

RunResult Cpu::run_instrumented(uint64_t budget, bool cycle_budget, Instrument& ins) {
  return run_instrumented_as(budget, cycle_budget, ins);
}

std::string Cpu::register_dump() const {
  std::string out;
  char buf[64];
  for (unsigned r = 0; r < 32; ++r) {
    const std::string_view name = isa::reg_name(r);
    std::snprintf(buf, sizeof buf, "%*s%%%.*s %08x%s", int(4 - std::min<size_t>(name.size(), 4)),
                  "", int(name.size()), name.data(), read_reg(r), r % 4 == 3 ? "\n" : "   ");
    out += buf;
  }
  const uint32_t sw = regs_[kSwReg];
  std::snprintf(buf, sizeof buf, "  %%sw %08x (flags %c%c%c%c)   npc %08x nnpc %08x\n", sw,
                sw & kFlagZ ? 'Z' : 'z', sw & kFlagN ? 'N' : 'n', sw & kFlagV ? 'V' : 'v',
                sw & kFlagC ? 'C' : 'c', npc_, nnpc_);
  out += buf;
  if (ext_used_) out += control_report();
  return out;
}

std::string Cpu::state_report() const {
  char buf[160];
  std::snprintf(buf, sizeof buf, "  pc %08x: ", pc_);
  std::string out = buf;
  if (pc_ % 4 == 0 && sram_.contains(pc_, 4)) {
    const uint32_t word = sram_.read32(pc_);
    std::snprintf(buf, sizeof buf, "%08x  ", word);
    out += buf;
    std::string text = isa::disassemble(word);
    for (char& c : text)
      if (c == '\t') c = ' ';
    out += text;
  } else {
    out += "(outside SRAM)";
  }
  std::snprintf(buf, sizeof buf, "\n  after %llu instructions\n", static_cast<unsigned long long>(instructions_));
  out += buf;
  return out + register_dump();
}

std::string Cpu::fault_report() const {
  if (!fault_) return {};
  const Fault& f = *fault_;
  char buf[160];
  std::string out = "fault: ";
  out += fault_kind_name(f.kind);
  if (!f.detail.empty()) out += " (" + f.detail + ")";
  out += "\n";
  std::snprintf(buf, sizeof buf, "  pc %08x: ", f.pc);
  out += buf;
  if (f.fetched) {
    std::snprintf(buf, sizeof buf, "%08x  ", f.word);
    out += buf;
    std::string text = isa::disassemble(f.word);
    for (char& c : text)
      if (c == '\t') c = ' ';
    out += text;
  } else {
    out += "(no instruction fetched)";
  }
  out += "\n";
  if (f.kind == FaultKind::MisalignedAccess || f.kind == FaultKind::BusError ||
      f.kind == FaultKind::MmioError || f.kind == FaultKind::StackOverflow) {
    std::snprintf(buf, sizeof buf, "  address %08x\n", f.address);
    out += buf;
  }
  std::snprintf(buf, sizeof buf, "  after %llu instructions\n",
                static_cast<unsigned long long>(instructions_));
  out += buf;
  out += register_dump();
  return out;
}

} // namespace lanaikit::vm
