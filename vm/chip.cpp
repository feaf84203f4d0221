#include "vm/chip.h"

#include "base/hex.h"

#include <algorithm>
#include <cstdlib>
#include <cstdio>
#include <stdexcept>

namespace lanaikit::vm {

namespace {

const char* reg_name(uint32_t offset) {
  const regs::RegisterName* r = regs::register_at(offset);
  return r ? r->name : nullptr;
}

bool read_only(uint32_t offset) {
  const regs::RegisterName* r = regs::register_at(offset);
  return r && !r->writable;
}

bool write_only(uint32_t offset) {
  const regs::RegisterName* r = regs::register_at(offset);
  return r && !r->readable;
}

// Kernel tags of the chip's events (for the trace hash).
constexpr uint32_t kTagTimer = 0x43480001;
constexpr uint32_t kTagHostDma = 0x43480002;

const char* width_name(isa::Width w) {
  return w == isa::Width::Word ? "word" : w == isa::Width::Half ? "half-word" : "byte";
}

} // namespace

const char* chip_event_name(ChipEvent e) {
  switch (e) {
  case ChipEvent::Doorbell: return "doorbell";
  case ChipEvent::SendStart: return "send-start";
  case ChipEvent::SendDone: return "send-done";
  case ChipEvent::RecvHead: return "recv-head";
  case ChipEvent::RecvTail: return "recv-tail";
  case ChipEvent::HostDmaStart: return "host-dma-start";
  case ChipEvent::HostDmaDone: return "host-dma-done";
  case ChipEvent::HostWrite: return "host-write";
  }
  return "?";
}

// Checked before any member is built from them.
static const ChipParams& checked(const ChipParams& p, const std::string& name) {
  if (p.clock_hz == 0 || p.sram_bytes == 0)
    throw std::invalid_argument(name + ": ChipParams.clock_hz and sram_bytes are required (a "
                                       "platform's `nic` section, or ChipParams::lanaikit_default())");
  return p;
}

Chip::Chip(sim::Kernel& kernel, ChipParams params, std::string name)
    : kernel_(kernel), params_(checked(params, name)), name_(std::move(name)), clock_(params.clock_hz),
      sram_(params.sram_bytes), io_(params.sram_bytes, this), cpu_(sram_, io_, params.costs) {
  if (params_.rtc_tick_ps <= 0) throw std::invalid_argument(name_ + ": rtc_tick_ps must be > 0");
  const CostModel& c = params_.costs;
  max_insn_cycles_ = c.base_cycles + c.load_use_cycles + c.mmio_cycles;
  if (max_insn_cycles_ == 0) max_insn_cycles_ = 1;
  agent_ = kernel_.add_agent(this);
  if (const char* v = std::getenv("LANAIKIT_DOZE")) doze_enabled_ = std::string(v) != "0";
}

Chip::~Chip() {
  if (tx_) tx_->set_on_tx_space(nullptr);
  if (rx_) rx_->set_sink(nullptr);
  kernel_.sleep(agent_);
}

void Chip::attach_links(net::Link* tx, net::Link* rx) {
  touch();
  if (tx_) tx_->set_on_tx_space(nullptr);
  if (rx_) rx_->set_sink(nullptr);
  tx_ = tx;
  rx_ = rx;
  if (tx_) tx_->set_on_tx_space([this] {
      if (send_busy_) pump_send();
    });
  if (rx_) {
    rx_->set_sink(this);
    set_take_held(take_held_);
  }
}

void Chip::set_take_held(bool on) {
  take_held_ = on;
  if (rx_) rx_->set_sink_takes_promised(on && net::Link::hold_enabled());
}

// ---- driver controls --------------------------------------------------------------------

void Chip::reset(uint32_t entry) {
  touch();
  end_watch();
  known_pcs_.clear(); // a new program may be loaded
  known_heads_.clear();
  ++generation_;
  kernel_.sleep(agent_);
  started_ = false;
  exact_ok_ = false;
  cpu_.reset(entry);
  cpu_.invalidate(0, sram_.size());
  isr_ = 0;
  eimr_ = 0;
  rtc_origin_ = kernel_.now();
  rtc_base_ = 0;
  if (timer_event_) kernel_.cancel(timer_event_);
  timer_event_ = 0;
  timer_expiry_ = -1;
  lar_ = ear_ = ctr_ = dma_dir_ = 0;
  host_dma_busy_ = false;
  rmp_ = rml_ = 0;
  rx_armed_ = false;
  rx_head_seen_ = false;
  smp_ = send_limit_ = 0;
  send_busy_ = false;
  send_tail_ = false;
  end_open_packet();
  host_sig_ = 0;
  recv_status_ = 0;
  for (auto& b : blocks_) b.block->reset();
  update_irq();
}

void Chip::start() {
  if (!powered_) throw std::logic_error(name_ + ": start() while powered off");
  touch();
  started_ = true;
  const uint64_t first = clock_.next_cycle(kernel_.now());
  cycle_origin_ = first - cpu_.cycles();
  kernel_.wake(agent_, clock_.time_of(first));
}

bool Chip::running() const {
  return started_ && powered_ && !cpu_.halted() && !cpu_.fault().has_value();
}

void Chip::set_powered(bool on) {
  if (on == powered_) return;
  touch();
  powered_ = on;
  if (!on) {
    ++generation_; // engines' pending completions are lost with the power
    started_ = false;
    kernel_.sleep(agent_);
    host_dma_busy_ = false;
    send_busy_ = false;
    end_open_packet();
    rx_armed_ = false;
    if (timer_event_) kernel_.cancel(timer_event_);
    timer_event_ = 0;
    for (auto& b : blocks_) b.block->reset();
    irq_level_ = false;
    if (host_) host_->interrupt(false);
    if (irq_cpu_line_ >= 0) cpu_.set_interrupt_line(unsigned(irq_cpu_line_), false);
  }
}

// A packet cut off (reset, power loss) is ended with what it had and marked truncated, so
// the link is not left waiting for its tail.
void Chip::end_open_packet() {
  if (send_packet_ && tx_) tx_->stream_end(net::kTruncated);
  send_packet_.reset();
}

void Chip::stop_cpu() {
  started_ = false;
  if (on_stop_) on_stop_(*this);
}

// ---- the CPU as a run-ahead agent -------------------------------------------------------

sim::Time Chip::advance(sim::Time horizon) {
  if (!running()) return -1;
  if (exact_pending_) {
    // The access that yielded, now at its exact time: perform it and end the batch, so
    // whatever it scheduled bounds the next one.
    exact_pending_ = false;
    exact_ok_ = true;
    const RunResult r = run_cpu(1, false);
    exact_ok_ = false;
    if (r.reason == StopReason::Halted || r.reason == StopReason::Fault) {
      stop_cpu();
      return -1;
    }
    if (r.reason == StopReason::Break) {
      exact_pending_ = true; // the access is still to be done when the CPU resumes
      return pause();
    }
    return local_time();
  }
  const uint64_t end = clock_.next_cycle(horizon);
  if (!watch_.watching()) start_watch();
  for (;;) {
    const uint64_t c = cycle_origin_ + cpu_.cycles();
    if (c >= end) break;
    const RunResult r = run_toward(end);
    switch (r.reason) {
    case StopReason::Limit: break;
    case StopReason::Break:
      if (!watch_.stopped_it()) return pause();
      if (watch_.state() == SpinWatch::State::Proven) return begin_doze();
      end_watch(); // failed: go on without it
      continue;
    case StopReason::Yield:
      watch_.fail(); // an access at its exact time is not part of an idle loop
      end_watch();
      exact_pending_ = true;
      ++counters_.exact_accesses;
      return local_time();
    case StopReason::Halted:
    case StopReason::Fault: end_watch(); stop_cpu(); return -1;
    }
    if (max_batch_) break;
  }
  if (watch_.state() == SpinWatch::State::Failed) end_watch();
  return local_time();
}

// Instructions start while their first cycle begins before the horizon: a cycle budget
// (Cpu::run_cycles) does exactly that in one call. With another base cost, or a batch
// limit, each call runs as many as surely fit even if every one costs the most cycles an
// instruction can.
RunResult Chip::run_toward(uint64_t end) {
  const uint64_t c = cycle_origin_ + cpu_.cycles();
  if (!max_batch_ && params_.costs.base_cycles == 1) return run_cpu(end - c, true);
  // With interrupts in use an instruction may also carry a return and an entry.
  const uint64_t most = cpu_.interrupts_used() ? cpu_.max_instruction_cycles() : max_insn_cycles_;
  uint64_t n = std::max<uint64_t>(1, (end - c) / most);
  if (max_batch_) n = std::min(n, max_batch_);
  return run_cpu(n, false);
}

RunResult Chip::run_cpu(uint64_t budget, bool cycle_budget) {
  if (watch_.watching()) return watch_.run(budget, cycle_budget);
  if (instrument_) return cpu_.run_instrumented(budget, cycle_budget, *instrument_);
  return cycle_budget ? cpu_.run_cycles(budget) : cpu_.run(budget);
}

// ---- doze (vm/doze.h) -------------------------------------------------------------------

void Chip::set_doze(bool on) {
  touch();
  doze_enabled_ = on;
  if (!on) end_watch();
}

// A watch starts when enough instructions ran since the last one failed (the wait doubles
// with each failure), or when a batch ends in a loop that dozed before (a woken poll loop
// is back in it at once) and a few instructions ran since such a watch last failed.
void Chip::start_watch() {
  if (!doze_enabled_ || cpu_.interrupts_used() || exact_pending_) return;
  if (instrument_ && !instrument_->can_repeat()) return;
  const uint64_t n = cpu_.instructions();
  if (n < watch_after_) {
    const uint32_t pc = cpu_.pc();
    if (n < known_after_ || !known_pc(pc)) return;
    watch_in_known_ = true;
  }
  watch_.begin(instrument_, kWatchInstructions);
  ++doze_counters_.watches;
}

void Chip::end_watch() {
  if (watch_.state() == SpinWatch::State::Off) return;
  if (watch_.state() != SpinWatch::State::Proven) {
    ++doze_counters_.failed;
    if (watch_in_known_) {
      known_after_ = cpu_.instructions() + kKnownBackoff;
    } else {
      watch_after_ = cpu_.instructions() + watch_backoff_;
      watch_backoff_ = std::min<uint32_t>(watch_backoff_ * 2, kMaxWatchBackoff);
    }
  }
  watch_in_known_ = false;
  watch_.stop();
}

// The CPU stands before the loop's head, the state one iteration ago: leave the kernel's
// runnable agents until a touch or the end of the run.
sim::Time Chip::begin_doze() {
  ++doze_counters_.proven;
  doze_loop_ = watch_.loop();

  watch_.stop();
  watch_in_known_ = false;
  remember_loop(doze_loop_);
  doze_sram_.clear();
  doze_regs_[0] = doze_regs_[1] = 0;
  doze_reads_other_ = false;
  for (const Cpu::LoadRecord& l : doze_loop_.loads) {
    if (sram_.contains(l.addr, l.bytes)) {
      doze_sram_.emplace_back(l.addr, l.addr + l.bytes);
    } else if (l.addr >= regs::kBase) {
      const uint32_t w = (l.addr - regs::kBase) / 4;
      doze_regs_[w / 64] |= uint64_t(1) << (w % 64);
    } else {
      doze_reads_other_ = true;
    }
  }
  dozing_ = true;
  kernel_.doze(agent_);
  return -1;
}

bool Chip::loop_reads_sram(uint32_t offset, uint32_t len) const {
  if (doze_reads_other_) return true;
  for (const auto& [lo, hi] : doze_sram_)
    if (offset < hi && lo < uint64_t(offset) + len) return true;
  return false;
}

bool Chip::loop_reads_reg(uint32_t offset) const {
  const uint32_t w = offset / 4;
  return doze_reads_other_ || ((doze_regs_[w / 64] >> (w % 64)) & 1);
}

void Chip::touch_sram(uint32_t offset, uint32_t len) {
  if (watch_.watching()) watch_.changing(offset, len);
  if (dozing_ && loop_reads_sram(offset, len)) wake_from_doze();
}

void Chip::touch_reg(uint32_t offset) {
  if (watch_.watching()) watch_.changing(regs::kBase + offset, 4);
  if (dozing_ && loop_reads_reg(offset)) wake_from_doze();
}

// As wake_from_doze counts them: whole iterations, then the instructions of the partial
// one that start before now().
uint64_t Chip::instructions_now() const {
  if (!dozing_) return cpu_.instructions();
  const uint64_t end = clock_.next_cycle(kernel_.now());
  const uint64_t c = cycle_origin_ + cpu_.cycles();
  const uint64_t period = doze_loop_.instructions * params_.costs.base_cycles + doze_loop_.stall_cycles;
  if (c >= end || period == 0) return cpu_.instructions();
  const uint64_t k = (end - c) / period;
  uint64_t at = c + k * period, n = cpu_.instructions() + k * doze_loop_.instructions;
  for (const RepeatStep& s : doze_loop_.steps) {
    if (at >= end) break;
    ++n;
    at += s.cycles;
  }
  return n;
}

void Chip::remember_loop(const DozeLoop& loop) {
  // A loop proven from any of its pcs (a watch compares where it started, vm/doze.h) is
  // known once: a head already among the known pcs (every known head is) adds nothing.
  if (known_pc(loop.head)) return;
  watch_backoff_ = kMinWatchBackoff; // a new loop: there may be more to find
  known_heads_.push_back(loop.head);
  if (known_heads_.size() > kKnownLoops) {
    // Forget everything but this loop: the program moved on (rare; a list this short is
    // rebuilt as loops doze again).
    known_heads_.assign(1, loop.head);
    known_pcs_.clear();
  }
  known_pcs_.resize((sram_.size() / 4 + 63) / 64); // zeros when new or just cleared
  for (const RepeatStep& s : loop.steps) {
    const uint32_t w = s.pc / 4;
    if (w / 64 < known_pcs_.size()) known_pcs_[w / 64] |= uint64_t(1) << (w % 64);
  }
}

// Everything up to now() as the CPU would have run it: whole iterations by arithmetic
// (counters, and the instrument's counts), then the instructions of the partial iteration
// that start before now(), for real, with the state as it still is (touch() comes before
// the change). Then the CPU is an ordinary runnable agent again.
void Chip::wake_from_doze() {
  // The CPU may change what held chunks were promised (RML, arming receive, its loop).
  if (rx_ && rx_->holding()) rx_->release_held();
  dozing_ = false;
  ++doze_counters_.wakes;
  const uint64_t end = clock_.next_cycle(kernel_.now());
  const uint64_t c = cycle_origin_ + cpu_.cycles();
  const uint64_t period = doze_loop_.instructions * params_.costs.base_cycles + doze_loop_.stall_cycles;
  if (c < end && period > 0) {
    const uint64_t k = (end - c) / period;
    if (k > 0) {
      cpu_.skip_repeats(k * doze_loop_.instructions, k * doze_loop_.stall_cycles);
      if (instrument_) instrument_->repeat(doze_loop_.steps, k);
      doze_counters_.skipped_iterations += k;
      doze_counters_.skipped_instructions += k * doze_loop_.instructions;
    }
    while (cycle_origin_ + cpu_.cycles() < end) {
      const RunResult r = run_toward(end);
      if (r.reason != StopReason::Limit)
        throw std::logic_error(name_ + ": doze: the repeated loop at " + hex(doze_loop_.head) +
                               " did not run as it did when proven");
    }
  }
  kernel_.wake(agent_, local_time());
}

sim::Time Chip::pause() {
  paused_ = true;
  if (on_break_) on_break_(*this);
  // Resumed from inside the callback: go on from here (the kernel takes the agent's
  // return value, not a wake made during advance()).
  return paused_ || !running() ? -1 : local_time();
}

// A debugger normally stops the kernel when the CPU pauses, so it resumes where it was. If
// the world went on meanwhile, the CPU's clock jumps to the next edge: a paused CPU does
// not execute, so that time is lost to it.
void Chip::resume() {
  touch();
  if (!paused_) return;
  paused_ = false;
  if (!running()) return;
  if (local_time() < kernel_.now())
    cycle_origin_ = clock_.next_cycle(kernel_.now()) - cpu_.cycles();
  kernel_.wake(agent_, local_time());
}

// ---- registers --------------------------------------------------------------------------

// Accesses whose effect another component sees, or whose value depends on the exact time,
// run with the kernel at the instruction's time. Everything else only changes at events,
// which a batch never crosses.
bool Chip::needs_exact_time(uint32_t offset, bool is_write) const {
  switch (offset) {
  case regs::RTC:
  case regs::IT0: return true;
  case regs::ISR:
  case regs::EIMR:
  case regs::CTR:
  case regs::RML:
  case regs::SML:
  case regs::SMLT:
  case regs::SIG: return is_write;
  default: return false;
  }
}

uint32_t Chip::isr() const {
  uint32_t v = isr_;
  if (!host_dma_busy_) v |= regs::DMA_INT_BIT;
  if (!send_busy_) v |= regs::SEND_INT_BIT;
  return v;
}

uint32_t Chip::rtc_now() const {
  return rtc_base_ + uint32_t((kernel_.now() - rtc_origin_) / params_.rtc_tick_ps);
}

uint32_t Chip::peek(uint32_t offset) const {
  switch (offset) {
  case regs::ISR: return isr();
  case regs::EIMR: return eimr_;
  case regs::IT0:
    if (timer_expiry_ < 0 || timer_expiry_ <= kernel_.now()) return 0;
    return uint32_t((timer_expiry_ - kernel_.now() + params_.rtc_tick_ps - 1) / params_.rtc_tick_ps);
  case regs::RTC: return rtc_now();
  case regs::LAR: return lar_;
  case regs::EAR: return ear_;
  case regs::CTR: return ctr_;
  case regs::DMA_DIR: return dma_dir_;
  case regs::RMP: settle_rx(); return rmp_;
  case regs::RML: return rml_;
  case regs::SMP: return smp_;
  case regs::HOST_SIG: return host_sig_;
  case regs::RECV_STATUS: return recv_status_;
  case regs::LINK_STATUS: {
    uint32_t v = 0;
    if (powered_ && tx_ && rx_) v |= regs::kLinkUp;
    if (tx_ && tx_->stopped()) v |= regs::kLinkStopped;
    return v;
  }
  case regs::CRC_ERRORS: return uint32_t(counters_.crc_errors);
  default: return 0;
  }
}

MmioStatus Chip::fail(std::string detail) {
  error_ = std::move(detail);
  return MmioStatus::Error;
}

MmioStatus Chip::privileged() {
  trap_cause_ = kTrapPrivileged;
  return MmioStatus::Trap;
}

// The CPU's access to a register block: routed and checked, ending the batch where the
// block says the access needs its exact time.
MmioStatus Chip::block_access(uint32_t addr, isa::Width width, bool is_write, uint32_t& value) {
  // A block's registers may change without a touch (its own network input): no doze.
  watch_.fail();
  AttachedBlock* b = block_at(addr, width);
  if (!b) return MmioStatus::Error;
  const uint32_t off = addr - b->base;
  // Privilege first: it depends on the CPU alone, not on the time.
  if (cpu_.user_mode() && !b->block->user_access(off, is_write)) return privileged();
  if (b->block->needs_exact_time(off, is_write) && !exact_ok_) return MmioStatus::Yield;
  const MmioStatus s = is_write ? b->block->write(off, false, value) : b->block->read(off, false, value);
  if (s == MmioStatus::Ok || s == MmioStatus::Busy) return s;
  if (s == MmioStatus::Trap) {
    trap_cause_ = b->block->trap_cause();
    return s;
  }
  return fail(block_error(*b, addr, s));
}

MmioStatus Chip::read(uint32_t addr, isa::Width width, uint32_t& value) {
  if (addr >= kBlockWindowBase && addr < kBlockWindowEnd) return block_access(addr, width, false, value);
  if (addr < regs::kBase) return MmioStatus::Unmapped;
  const uint32_t off = addr - regs::kBase;
  if (!reg_name(off)) return MmioStatus::Unmapped;
  if (width != isa::Width::Word) return MmioStatus::BadWidth;
  if (cpu_.user_mode()) return privileged(); // the LANai's registers are the kernel's
  if (needs_exact_time(off, false) && !exact_ok_) return MmioStatus::Yield;
  if (off == regs::LINK_STATUS) watch_.fail(); // the link's STOP changes it without a touch
  return reg_read(off, value);
}

MmioStatus Chip::write(uint32_t addr, isa::Width width, uint32_t value) {
  if (addr >= kBlockWindowBase && addr < kBlockWindowEnd) return block_access(addr, width, true, value);
  if (addr < regs::kBase) return MmioStatus::Unmapped;
  const uint32_t off = addr - regs::kBase;
  if (!reg_name(off)) return MmioStatus::Unmapped;
  if (width != isa::Width::Word) return MmioStatus::BadWidth;
  if (cpu_.user_mode()) return privileged();
  if (needs_exact_time(off, true) && !exact_ok_) return MmioStatus::Yield;
  return reg_write(off, value, false);
}

MmioStatus Chip::reg_read(uint32_t offset, uint32_t& value) {
  if (write_only(offset))
    return fail(std::string(reg_name(offset)) + " is write-only");
  value = peek(offset);
  return MmioStatus::Ok;
}

MmioStatus Chip::reg_write(uint32_t offset, uint32_t value, bool from_host) {
  if (read_only(offset) && !(from_host && offset == regs::HOST_SIG))
    return fail(std::string(reg_name(offset)) + " is read-only");
  touch_reg(offset); // the host's writes (the CPU's own are stores: it is not dozing)
  switch (offset) {
  case regs::ISR:
    isr_ &= ~(value & ~regs::kLevelBits);
    update_irq();
    return MmioStatus::Ok;
  case regs::EIMR:
    eimr_ = value;
    update_irq();
    return MmioStatus::Ok;
  case regs::IT0: {
    if (timer_event_) kernel_.cancel(timer_event_);
    timer_event_ = 0;
    timer_expiry_ = -1;
    if (value == 0) return MmioStatus::Ok;
    timer_expiry_ = kernel_.now() + sim::Time(value) * params_.rtc_tick_ps;
    const uint32_t gen = generation_;
    timer_event_ = kernel_.schedule_at(
        timer_expiry_,
        [this, gen] {
          if (gen != generation_) return;
          timer_event_ = 0;
          set_isr(regs::TIME0_INT_BIT);
        },
        kTagTimer);
    return MmioStatus::Ok;
  }
  case regs::RTC:
    rtc_base_ = value;
    rtc_origin_ = kernel_.now();
    return MmioStatus::Ok;
  case regs::LAR: lar_ = value; return MmioStatus::Ok;
  case regs::EAR: ear_ = value; return MmioStatus::Ok;
  case regs::DMA_DIR:
    if (value != regs::kDmaL2E && value != regs::kDmaE2L)
      return fail("DMA_DIR must be 0 (SRAM to host) or 1 (host to SRAM), got " + hex(value));
    dma_dir_ = value;
    return MmioStatus::Ok;
  case regs::CTR:
    if (host_dma_busy_)
      return fail("host DMA started while the previous one is running (wait for DMA_INT_BIT)");
    start_host_dma(value);
    return error_.empty() ? MmioStatus::Ok : MmioStatus::Error;
  case regs::RMP: rmp_ = value; return MmioStatus::Ok;
  case regs::RML:
    rml_ = value;
    arm_receive();
    return MmioStatus::Ok;
  case regs::SMP:
    if (send_busy_) return fail("SMP written while the send DMA is running (wait for SEND_INT_BIT)");
    smp_ = value;
    return MmioStatus::Ok;
  case regs::SML: return start_send(value, false);
  case regs::SMLT: return start_send(value, true);
  case regs::HOST_SIG:
    host_sig_ = value;
    ++counters_.doorbells;
    set_isr(regs::HOST_SIG_BIT);
    emit(ChipEvent::Doorbell, 0);
    return MmioStatus::Ok;
  case regs::SIG:
    set_isr(value & regs::kLanSigBits);
    return MmioStatus::Ok;
  default: return MmioStatus::Unmapped;
  }
}

void Chip::set_isr(uint32_t bits) {
  touch_reg(regs::ISR);
  isr_ |= bits & ~regs::kLevelBits;
  update_irq();
}

void Chip::update_irq() {
  const bool level = powered_ && (isr() & eimr_) != 0;
  if (level == irq_level_) return;
  irq_level_ = level;
  if (host_) host_->interrupt(level);
  if (irq_cpu_line_ >= 0) cpu_.set_interrupt_line(unsigned(irq_cpu_line_), level);
}

void Chip::route_interrupt_to_cpu(int line) {
  touch();
  if (line >= 32) throw std::invalid_argument("route_interrupt_to_cpu: line " + std::to_string(line) + " (0..31)");
  if (irq_cpu_line_ >= 0) cpu_.set_interrupt_line(unsigned(irq_cpu_line_), false);
  irq_cpu_line_ = line;
  if (line >= 0) cpu_.set_interrupt_line(unsigned(line), irq_level_);
}

// ---- host DMA ---------------------------------------------------------------------------

void Chip::start_host_dma(uint32_t count) {
  error_.clear();
  if (count == 0) return;
  const bool to_host = dma_dir_ == regs::kDmaL2E;
  if (!host_) {
    error_ = "host DMA with no host attached";
    return;
  }
  if (!sram_.contains(lar_, count)) {
    error_ = "host DMA of " + std::to_string(count) + " bytes at LAR " + hex(lar_) +
             " runs past the end of SRAM (" + hex(sram_.size()) + ")";
    return;
  }
  if (!host_->host_range_ok(ear_, count)) {
    error_ = "host DMA of " + std::to_string(count) + " bytes at EAR " + hex(ear_) +
             " is outside host memory";
    return;
  }
  host_dma_busy_ = true;
  ctr_ = count;
  update_irq();
  emit(ChipEvent::HostDmaStart, count);
  const uint32_t gen = generation_, lar = lar_, ear = ear_;
  const sim::Time start = kernel_.now();
  host_->dma(to_host, count, [this, gen, to_host, lar, ear, count, start] {
    if (gen == generation_) host_dma_done(to_host, lar, ear, count, start);
  });
}

void Chip::host_dma_done(bool to_host, uint32_t lar, uint64_t ear, uint32_t count,
                         sim::Time start) {
  settle_rx();
  if (!to_host) touch_sram(lar, count);
  touch_reg(regs::CTR);
  touch_engines();
  if (to_host) {
    host_->host_write(ear, std::span<const uint8_t>(sram_.data() + lar, count));
    counters_.host_dma_bytes_to_host += count;
  } else {
    host_->host_read(ear, std::span<uint8_t>(sram_.data() + lar, count));
    cpu_.invalidate(lar, count);
    counters_.host_dma_bytes_from_host += count;
  }
  ++counters_.host_dmas;
  counters_.host_dma_busy_ps += kernel_.now() - start;
  kernel_.trace(kTagHostDma ^ count);
  host_dma_busy_ = false;
  ctr_ = 0;
  update_irq();
  emit(ChipEvent::HostDmaDone, count);
}

// ---- send DMA ---------------------------------------------------------------------------

MmioStatus Chip::start_send(uint32_t limit, bool tail) {
  if (send_busy_)
    return fail("send DMA started while the previous one is running (wait for SEND_INT_BIT)");
  if (limit < smp_)
    return fail(std::string(tail ? "SMLT" : "SML") + " " + hex(limit) + " is below SMP " + hex(smp_));
  if (!sram_.contains(smp_, limit - smp_))
    return fail("send DMA [" + hex(smp_) + ", " + hex(limit) + ") runs past the end of SRAM");
  if (!tx_) return fail("send DMA with no link attached");
  if (!send_packet_) {
    send_packet_ = std::make_shared<net::Packet>();
    send_packet_->id = next_packet_id_++;
    tx_->stream_begin(send_packet_);
  }
  // The bytes arrive a FIFO's worth at a time: room for this piece now, not by doubling.
  send_packet_->bytes.reserve(send_packet_->bytes.size() + (limit - smp_));
  send_limit_ = limit;
  send_tail_ = tail;
  send_busy_ = true;
  send_started_ = kernel_.now();
  update_irq();
  emit(ChipEvent::SendStart, limit - smp_);
  pump_send();
  return MmioStatus::Ok;
}

// Moves what the link's transmit FIFO can take; the engine is idle once the last byte is
// in the FIFO (the link then sends it at its own rate).
void Chip::pump_send() {
  settle_rx();
  while (smp_ < send_limit_) {
    const uint32_t space = tx_->tx_space();
    if (space == 0) return; // on_tx_space calls us again
    const uint32_t n = std::min(space, send_limit_ - smp_);
    auto& bytes = send_packet_->bytes;
    bytes.insert(bytes.end(), sram_.data() + smp_, sram_.data() + smp_ + n);
    touch_reg(regs::SMP);
    smp_ += n;
    counters_.bytes_sent += n;
    const bool last = send_tail_ && smp_ == send_limit_;
    tx_->stream_append(n, last);
    if (last) {
      send_packet_.reset();
      ++counters_.packets_sent;
    }
  }
  if (send_tail_ && send_packet_) { // an empty last piece
    tx_->stream_end();
    send_packet_.reset();
    ++counters_.packets_sent;
  }
  touch_engines();
  send_busy_ = false;
  counters_.send_busy_ps += kernel_.now() - send_started_;
  update_irq();
  emit(ChipEvent::SendDone, 0);
}

// ---- receive DMA ------------------------------------------------------------------------

void Chip::arm_receive() {
  rx_armed_ = true;
  isr_ &= ~(regs::RECV_INT_BIT | regs::BUFF_INT_BIT);
  update_irq();
  if (rx_stalled_ && rx_) {
    rx_stalled_ = false;
    rx_->sink_ready();
  }
}

// A middle chunk of the packet being received, taken whole into SRAM while the CPU dozes in
// a loop that reads neither its bytes nor RMP: what accept() then does (bytes, RMP, the
// byte count) is the same whenever it happens, as long as nothing else changes first, and
// everything that could goes through a wake, which releases held chunks.
bool Chip::promise_whole(const net::Chunk& chunk, uint32_t ahead) {
  if (!dozing_ || !powered_ || !rx_armed_ || !rx_head_seen_ || rx_stalled_ || receive_started_ < 0 ||
      chunk.head() || chunk.tail || chunk.length == 0)
    return false;
  const uint64_t at = uint64_t(rmp_) + ahead;
  if (at + chunk.length > rml_ || at + chunk.length > sram_.size()) return false;
  return !loop_reads_reg(regs::RMP) && !loop_reads_sram(uint32_t(at), chunk.length);
}

uint32_t Chip::accept(const net::Chunk& chunk) {
  if (!powered_) return chunk.whole(); // a dead node's receiver eats nothing useful
  if (chunk.head() && !rx_head_seen_) {
    rx_head_seen_ = true;
    set_isr(regs::HEAD_INT_BIT);
    emit(ChipEvent::RecvHead, chunk.length);
  }
  if (!rx_armed_) {
    ++counters_.receive_stalls;
    rx_stalled_ = true;
    return 0;
  }
  const uint32_t room = rml_ > rmp_ ? rml_ - rmp_ : 0;
  uint32_t take = std::min(chunk.length, room);
  if (take > 0 && !sram_.contains(rmp_, take)) take = rmp_ < sram_.size() ? sram_.size() - rmp_ : 0;
  if (take > 0) {
    if (receive_started_ < 0) receive_started_ = kernel_.now();
    touch_sram(rmp_, take);
    touch_reg(regs::RMP);
    std::copy_n(chunk.packet->bytes.data() + chunk.offset, take, sram_.data() + rmp_);
    cpu_.invalidate(rmp_, take);
    rmp_ += take;
    counters_.bytes_received += take;
  }
  if (take < chunk.length) {
    ++counters_.receive_stalls;
    rx_stalled_ = true;
    set_isr(regs::BUFF_INT_BIT);
    return take;
  }
  if (chunk.tail) {
    rx_armed_ = false;
    rx_head_seen_ = false;
    if (receive_started_ >= 0) counters_.receive_busy_ps += kernel_.now() - receive_started_;
    receive_started_ = -1;
    touch_reg(regs::RECV_STATUS);
    recv_status_ = chunk.packet->status & (net::kCrcError | net::kTruncated);
    ++counters_.packets_received;
    uint32_t bits = regs::RECV_INT_BIT;
    if (chunk.packet->status & net::kCrcError) {
      touch_reg(regs::CRC_ERRORS);
      ++counters_.crc_errors;
      bits |= regs::CRC_INT_BIT;
    }
    set_isr(bits);
    emit(ChipEvent::RecvTail, uint32_t(chunk.packet->bytes.size()));
    return take + 1; // the packet's end is taken too (net/packet.h)
  }
  return take;
}

// ---- register blocks ----------------------------------------------------------------------

RegisterBlock& Chip::attach_block(uint32_t base, std::unique_ptr<RegisterBlock> block) {
  touch();
  if (!block) throw std::invalid_argument(name_ + ": attach_block with no block");
  const std::string what = block->name() + " at " + hex(base);
  const uint64_t size = block->size_bytes();
  if (size == 0 || size % 4 != 0)
    throw std::invalid_argument(name_ + ": register block " + what + " has size " +
                                std::to_string(size) + "; expected a positive multiple of 4");
  if (base % 4 != 0 || base < kBlockWindowBase || uint64_t(base) + size > kBlockWindowEnd)
    throw std::invalid_argument(name_ + ": register block " + what + " (" + std::to_string(size) +
                                " bytes) must be word-aligned inside the block window [" +
                                hex(kBlockWindowBase) + ", " + hex(kBlockWindowEnd) + ")");
  for (const auto& b : blocks_)
    if (base < uint64_t(b.base) + b.block->size_bytes() && b.base < uint64_t(base) + size)
      throw std::invalid_argument(name_ + ": register block " + what + " overlaps " +
                                  b.block->name() + " at [" + hex(b.base) + ", " +
                                  hex(uint64_t(b.base) + b.block->size_bytes()) + ")");
  block->bind(this);
  RegisterBlock& ref = *block;
  auto at = std::find_if(blocks_.begin(), blocks_.end(), [&](const auto& b) { return b.base > base; });
  blocks_.insert(at, AttachedBlock{base, std::move(block)});
  return ref;
}

Chip::AttachedBlock* Chip::block_at(uint32_t addr, isa::Width width) {
  for (auto& b : blocks_) {
    if (addr < b.base || addr - b.base >= b.block->size_bytes()) continue;
    if (width != isa::Width::Word) {
      fail(b.block->name() + ": " + width_name(width) + " access at offset " + hex(addr - b.base) +
           "; its registers are 32-bit words");
      return nullptr;
    }
    return &b;
  }
  std::string attached;
  for (const auto& b : blocks_)
    attached += (attached.empty() ? "" : ", ") + b.block->name() + " [" + hex(b.base) + ", " +
                hex(uint64_t(b.base) + b.block->size_bytes()) + ")";
  fail("no register block at " + hex(addr) + " (attached: " +
       (attached.empty() ? std::string("none") : attached) + ")");
  return nullptr;
}

std::string Chip::block_error(const AttachedBlock& b, uint32_t addr, MmioStatus s) const {
  const std::string where = b.block->name() + " offset " + hex(addr - b.base);
  switch (s) {
  case MmioStatus::Unmapped: return where + ": no register there";
  case MmioStatus::BadWidth: return where + ": its registers are 32-bit words";
  default: return where + ": " + b.block->error_detail();
  }
}

sim::EventId Chip::schedule_in(sim::Time delay, std::function<void()> fn, uint32_t tag) {
  const uint32_t gen = generation_;
  return kernel_.schedule_in(
      delay,
      [this, gen, fn = std::move(fn)] {
        if (gen != generation_) return;
        touch();
        fn();
      },
      tag);
}

void Chip::raise_isr(uint32_t bits) {
  if (bits & ~regs::kBlockIsrBits)
    throw std::logic_error(name_ + ": a register block raised ISR bits " + hex(bits) +
                           " outside kBlockIsrBits (" + hex(regs::kBlockIsrBits) + ")");
  touch();
  if (powered_) set_isr(bits);
}

bool Chip::sram_write(uint32_t offset, std::span<const uint8_t> bytes) {
  settle_rx();
  touch();
  if (!sram_.contains(offset, uint32_t(bytes.size())) || bytes.size() > sram_.size()) return false;
  std::copy(bytes.begin(), bytes.end(), sram_.data() + offset);
  cpu_.invalidate(offset, uint32_t(bytes.size()));
  return true;
}

bool Chip::sram_read(uint32_t offset, std::span<uint8_t> bytes) const {
  settle_rx();
  if (!sram_.contains(offset, uint32_t(bytes.size())) || bytes.size() > sram_.size()) return false;
  std::copy_n(sram_.data() + offset, bytes.size(), bytes.begin());
  return true;
}

void Chip::host_write_block(uint32_t addr, uint32_t value) {
  touch();
  AttachedBlock* b = addr >= kBlockWindowBase && addr < kBlockWindowEnd && addr % 4 == 0
                         ? block_at(addr, isa::Width::Word)
                         : nullptr;
  if (!b) {
    if (addr % 4 != 0 || addr < kBlockWindowBase || addr >= kBlockWindowEnd)
      error_ = hex(addr) + " is not a word in the register-block window";
    throw std::invalid_argument(name_ + ": host write: " + error_);
  }
  const MmioStatus s = b->block->write(addr - b->base, true, value);
  if (s != MmioStatus::Ok)
    throw std::invalid_argument(name_ + ": host write: " + block_error(*b, addr, s));
}

uint32_t Chip::host_read_block(uint32_t addr) {
  touch(); // a block's read may change its state
  AttachedBlock* b = addr >= kBlockWindowBase && addr < kBlockWindowEnd && addr % 4 == 0
                         ? block_at(addr, isa::Width::Word)
                         : nullptr;
  if (!b) {
    if (addr % 4 != 0 || addr < kBlockWindowBase || addr >= kBlockWindowEnd)
      error_ = hex(addr) + " is not a word in the register-block window";
    throw std::invalid_argument(name_ + ": host read: " + error_);
  }
  uint32_t value = 0;
  const MmioStatus s = b->block->read(addr - b->base, true, value);
  if (s != MmioStatus::Ok)
    throw std::invalid_argument(name_ + ": host read: " + block_error(*b, addr, s));
  return value;
}

std::string Chip::report() const {
  settle_rx();
  std::string out = name_ + (cpu_.fault() ? ":\n" + cpu_.fault_report() : " (running):\n" + cpu_.state_report());
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "  ISR %08x EIMR %08x  LAR %08x EAR %08x CTR %08x DMA_DIR %u  SMP %08x RMP %08x RML %08x\n",
                isr(), eimr_, lar_, ear_, ctr_, dma_dir_, smp_, rmp_, rml_);
  out += buf;
  for (const auto& b : blocks_) {
    const std::string r = b.block->report();
    if (!r.empty()) out += "  " + b.block->name() + ": " + r + "\n";
  }
  return out;
}

// ---- the host's view --------------------------------------------------------------------

void Chip::host_write_sram(uint32_t offset, std::span<const uint8_t> bytes) {
  settle_rx();
  if (!sram_.contains(offset, uint32_t(bytes.size())))
    throw std::out_of_range(name_ + ": host PIO write of " + std::to_string(bytes.size()) +
                            " bytes at SRAM " + hex(offset) + " is outside SRAM");
  touch_sram(offset, uint32_t(bytes.size()));
  std::copy(bytes.begin(), bytes.end(), sram_.data() + offset);
  cpu_.invalidate(offset, uint32_t(bytes.size()));
  emit(ChipEvent::HostWrite, uint32_t(bytes.size()));
}

void Chip::host_read_sram(uint32_t offset, std::span<uint8_t> bytes) const {
  settle_rx();
  if (!sram_.contains(offset, uint32_t(bytes.size())))
    throw std::out_of_range(name_ + ": host PIO read of " + std::to_string(bytes.size()) +
                            " bytes at SRAM " + hex(offset) + " is outside SRAM");
  std::copy_n(sram_.data() + offset, bytes.size(), bytes.begin());
}

void Chip::host_write_reg(uint32_t offset, uint32_t value) {
  if (!reg_name(offset)) throw std::out_of_range(name_ + ": host write to no register at " + hex(offset));
  // The host may ring the doorbell, acknowledge interrupts and set the mask; engine
  // registers belong to the firmware.
  if (offset != regs::HOST_SIG && offset != regs::ISR && offset != regs::EIMR)
    throw std::invalid_argument(name_ + ": the host may write HOST_SIG, ISR and EIMR, not " +
                                reg_name(offset));
  reg_write(offset, value, true);
}

uint32_t Chip::host_read_reg(uint32_t offset) {
  if (!reg_name(offset) || write_only(offset))
    throw std::out_of_range(name_ + ": host read of no readable register at " + hex(offset));
  return peek(offset);
}

} // namespace lanaikit::vm
