// The LANai-style chip: the CPU (vm/cpu.h), its SRAM, the memory-mapped registers
// (vm/chip_regs.h) and three DMA engines (host, send, receive), as timed models on the
// simulation kernel. docs/chip.md is the manual; this header is the C++ surface.
//
// Time. The CPU is a run-ahead agent (event/kernel.h): it executes batches of instructions
// without events, up to the horizon the kernel gives it (the next event, another chip's
// time plus the network lookahead). It only stops early where it must: at an access to a
// register whose effect others see or whose value depends on the exact time (starting a
// DMA, arming receive, the ISR and mask that drive the host interrupt, the timers). There
// it yields, is resumed at exactly the time of that instruction, performs the access
// and ends the batch. Everything else a register read returns only changes at events,
// which the CPU never runs past, so batching cannot change any result.
//
// Doze (vm/doze.h). A CPU proven to be repeating a loop that stores nothing and reads
// nothing that changes without an event leaves the runnable agents: it no longer bounds
// other chips' horizons nor runs instruction by instruction. Every change the engines, the
// host or a register block make to what the CPU can read goes through touch() (or the
// narrower touch_sram/touch_reg) first; a change to something the loop reads wakes it,
// with its counters advanced by whole iterations and the partial one run for real. The
// environment variable LANAIKIT_DOZE=0 turns it off (results are identical; only the
// speed differs).
#pragma once

#include "net/link.h"
#include "net/packet.h"
#include "event/kernel.h"
#include "event/time.h"
#include "vm/chip_regs.h"
#include "vm/cpu.h"
#include "vm/doze.h"
#include "vm/host_port.h"
#include "vm/mmio.h"
#include "vm/register_block.h"
#include "vm/sram.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace lanaikit::vm {

// The clock and SRAM have no default: they come from a platform's `nic` (sim/platform.h),
// or, where no testbed is meant, from lanaikit_default(). A chip built with either left 0
// throws, so no paper's LANai is ever a silent default.
struct ChipParams {
  uint64_t clock_hz = 0;
  uint32_t sram_bytes = 0;
  CostModel costs;
  // RTC and IT0 tick. lanaikit's default, not from a paper.
  sim::Time rtc_tick_ps = 500 * sim::kNanosecond;
  // The stack guard a loaded image gets above its data (vm::Cpu::set_stack_guard); a tool
  // setting, not hardware: the Lua cluster option `stack_guard`.
  uint32_t stack_guard_bytes = kDefaultStackGuardBytes;

  // lanaikit's own numbers, not any paper's testbed: 100 MHz, 1 MB of SRAM.
  static ChipParams lanaikit_default() {
    ChipParams p;
    p.clock_hz = 100'000'000;
    p.sram_bytes = 1024 * 1024;
    return p;
  }
};

struct ChipCounters {
  uint64_t host_dmas = 0, host_dma_bytes_to_host = 0, host_dma_bytes_from_host = 0;
  sim::Time host_dma_busy_ps = 0;  // summed durations of finished host DMAs
  sim::Time send_busy_ps = 0;      // send DMA: from SML/SMLT to its last byte in the FIFO
  sim::Time receive_busy_ps = 0;   // receive DMA: from a packet's first bytes to its tail
  uint64_t packets_sent = 0, bytes_sent = 0;
  uint64_t packets_received = 0, bytes_received = 0;
  uint64_t crc_errors = 0;
  uint64_t receive_stalls = 0;     // chunks offered while receive was not armed or full
  uint64_t doorbells = 0;
  uint64_t exact_accesses = 0;     // register accesses that ended a batch
};

// Things the chip's engines did, with the time and the CPU's instruction count then: the
// raw material of latency breakdowns and per-packet instruction counts. Reported only to
// an on_event callback, so they cost nothing when nobody listens.
enum class ChipEvent : uint8_t {
  Doorbell,     // the host wrote HOST_SIG
  SendStart,    // the firmware wrote SML/SMLT
  SendDone,     // the send engine handed its last byte to the link
  RecvHead,     // the first bytes of a packet reached the receive engine
  RecvTail,     // a packet's tail was received (RECV_INT)
  HostDmaStart, // the firmware wrote CTR
  HostDmaDone,  // the host DMA finished
  HostWrite,    // a host PIO write landed in SRAM (bytes: its width)
};
const char* chip_event_name(ChipEvent e);

struct ChipEventRecord {
  ChipEvent kind;
  sim::Time time;
  uint64_t instructions; // the CPU's count at that moment
  uint32_t bytes;        // bytes of the transfer or packet (0 if none)
};

class Chip final : public MmioDevice, public net::PacketSink, private sim::Agent, private BlockPort {
public:
  Chip(sim::Kernel& kernel, ChipParams params, std::string name = "chip");
  ~Chip() override;
  Chip(const Chip&) = delete;
  Chip& operator=(const Chip&) = delete;

  const std::string& name() const { return name_; }
  const ChipParams& params() const { return params_; }
  const sim::ClockDomain& clock() const override { return clock_; }
  Sram& sram() {
    settle_rx();
    return sram_;
  }
  Cpu& cpu() { return cpu_; }
  const Cpu& cpu() const { return cpu_; }
  BareIo& bare_io() { return io_; }
  const ChipCounters& counters() const {
    settle_rx();
    return counters_;
  }

  // Wiring (before the run): the host bus, the link the send engine feeds, the link the
  // receive engine drains (the chip becomes its sink).
  void attach_host(HostPort* port) { host_ = port; }
  void attach_links(net::Link* tx, net::Link* rx);

  // The driver's controls. reset() stops the CPU and sets pc = entry; start() lets it run
  // from the next clock edge. Registers and engines are reset too; SRAM is kept.
  void reset(uint32_t entry);
  void start();
  bool running() const;
  // Powering off stops everything; the link is reported down (the node marks its switch
  // port down).
  void set_powered(bool on);
  bool powered() const override { return powered_; }

  // Time of the next instruction the CPU would start (its local clock).
  sim::Time local_time() const { return clock_.time_of(cycle_origin_ + cpu_.cycles()); }

  // At most this many instructions per batch (0 = no limit). 1 is the reference the
  // batching tests compare against.
  void set_max_batch(uint64_t n) {
    touch();
    max_batch_ = n;
  }

  // Doze (vm/doze.h): an idle CPU proven to repeat a loop unchanged stops running until
  // something it reads changes; results are the same with it on (the default) or off.
  void set_doze(bool on);
  bool doze_enabled() const { return doze_enabled_; }
  bool dozing() const { return dozing_; }
  // Whether the receive engine takes chunks its link held back while the CPU dozed
  // (net::Link::set_sink_takes_promised; on unless LANAIKIT_HOLD=0). Results are the same
  // either way; off, every chunk is an event, so a run's event trace is the same with
  // dozing on and off (a test of doze itself).
  void set_take_held(bool on);
  // Brings a dozing CPU to now() (its counters, pc and registers as if it had run all
  // along) and wakes it; nothing otherwise. Whoever reads the CPU's state in the middle of
  // a run (not after run_until, which settles) calls it first.
  void settle() override { touch(); }
  struct DozeCounters {
    uint64_t watches = 0, proven = 0, failed = 0; // fixed-point watches and their outcomes
    uint64_t wakes = 0;                            // dozes ended (a touch or a settle)
    uint64_t skipped_iterations = 0, skipped_instructions = 0;
  };
  const DozeCounters& doze_counters() const { return doze_counters_; }

  // Runs the CPU on the reference model with `ins` around every instruction (the
  // profiler, the debugger); null returns to the fast interpreter. Results are the same
  // either way (only the speed differs).
  void set_instrument(Instrument* ins) {
    touch();
    instrument_ = ins;
  }
  Instrument* instrument() const { return instrument_; }
  // An Instrument stopped the CPU before an instruction (StopReason::Break): the chip
  // pauses (its engines go on) and calls `fn`; resume() lets the CPU go on (also from
  // inside `fn`, which then continues the CPU at once).
  void on_break(std::function<void(Chip&)> fn) { on_break_ = std::move(fn); }
  bool paused() const { return paused_; }
  void resume();
  // Whether the host-DMA or send-DMA engine is busy now (the profiler's DMA wait).
  bool dma_busy() const { return host_dma_busy_ || send_busy_; }

  // Called when the CPU faults or halts (after it stopped). The fault report is
  // cpu().fault_report().
  void on_stop(std::function<void(Chip&)> fn) { on_stop_ = std::move(fn); }
  // Adds a listener for the engines' events (several may listen: an experiment's log, a
  // timeline); returns its id for remove_event_listener.
  size_t on_event(std::function<void(const ChipEventRecord&)> fn) {
    on_event_.push_back(std::move(fn));
    return on_event_.size() - 1;
  }
  void remove_event_listener(size_t id) {
    if (id < on_event_.size()) on_event_[id] = nullptr;
  }

  // The host's view (PIO through the PCI window; the node times it). Offsets into SRAM,
  // register offsets as in chip_regs.h.
  void host_write_sram(uint32_t offset, std::span<const uint8_t> bytes);
  void host_read_sram(uint32_t offset, std::span<uint8_t> bytes) const;
  void host_write_reg(uint32_t offset, uint32_t value);
  uint32_t host_read_reg(uint32_t offset);
  bool interrupt_asserted() const { return irq_level_; }
  // The chip's interrupt (ISR & EIMR, what the host sees) also drives the CPU's interrupt
  // `line` (docs/vm.md, "Interrupts and traps"), or no line (-1, the default): how a kernel
  // on the node itself takes the interval timer (UDM's gang scheduler).
  void route_interrupt_to_cpu(int line);

  // A protocol's register block (vm/register_block.h) at `base` in the block window; the
  // chip owns it from now on. Throws std::invalid_argument if it does not fit the window,
  // is not word-aligned, or overlaps a block already attached (naming both).
  RegisterBlock& attach_block(uint32_t base, std::unique_ptr<RegisterBlock> block);
  // The host's view of the blocks (PIO; the node times it): a word at a chip address in
  // the block window. Throws std::invalid_argument naming the block and the problem.
  void host_write_block(uint32_t addr, uint32_t value);
  uint32_t host_read_block(uint32_t addr);

  // MmioDevice (the CPU's view).
  MmioStatus read(uint32_t addr, isa::Width width, uint32_t& value) override;
  MmioStatus write(uint32_t addr, isa::Width width, uint32_t value) override;
  std::string error_detail() const override { return error_; }
  uint32_t trap_cause() const override { return trap_cause_; }

  // net::PacketSink (the receive engine).
  uint32_t accept(const net::Chunk& chunk) override;
  bool promise_whole(const net::Chunk& chunk, uint32_t ahead) override;

  // The CPU's state (or fault) and the engines' registers, for "the simulation stopped"
  // messages.
  std::string report() const;

  // Register values as the CPU would read them now (tests, debugger).
  uint32_t isr() const;
  uint32_t peek(uint32_t offset) const;

private:
  sim::Time advance(sim::Time horizon) override;
  // One run of the CPU toward absolute cycle `end` (a cycle budget, or an instruction
  // budget that surely fits), as a batch makes it.
  RunResult run_toward(uint64_t end);
  // Doze (vm/doze.h). touch(): something the CPU may read is about to change (or the
  // run's state is about to be read): a dozing CPU is brought to now() first; a watch
  // starts over.
  void touch() {
    if (watch_.watching()) watch_.restart();
    if (dozing_) wake_from_doze();
  }
  // Narrower touches, for the engines' frequent changes: SRAM bytes about to be written;
  // one LANai register's value about to change; an engine's busy flag (ISR's DMA and SEND
  // bits, and the profiler's DMA wait). A dozing CPU whose loop reads none of it dozes on.
  void touch_sram(uint32_t offset, uint32_t len);
  void touch_reg(uint32_t offset);
  // Whether the dozing loop reads any of [offset, offset + len) of SRAM, or LANai register
  // `offset` (or something else, which counts as everything).
  bool loop_reads_sram(uint32_t offset, uint32_t len) const;
  bool loop_reads_reg(uint32_t offset) const;
  void touch_engines() {
    if (instrument_) touch();
    else touch_reg(regs::ISR);
  }
  void wake_from_doze();
  // Held-back arrivals (Link::set_sink_takes_promised): chunks the receive engine promised
  // to take whole while the CPU dozes arrive when someone looks. settle_rx(): before a
  // read or write of what they change (SRAM, RMP, the receive counters) from outside the
  // dozing CPU; the chip is logically const (it is only brought up to now), hence const.
  // A wake releases them (Link::release_held), since the CPU may change what was promised.
  void settle_rx() const {
    if (rx_ && rx_->holding()) [[unlikely]] rx_->settle();
  }
  // The CPU's instruction count at now(): a dozing CPU's by arithmetic.
  uint64_t instructions_now() const;
  void start_watch();
  sim::Time begin_doze();
  void end_watch();
  // Register semantics shared by the CPU and the host.
  bool needs_exact_time(uint32_t offset, bool is_write) const;
  struct AttachedBlock {
    uint32_t base;
    std::unique_ptr<RegisterBlock> block;
  };
  // The block holding `addr`, or null (then error_ says why).
  AttachedBlock* block_at(uint32_t addr, isa::Width width);
  MmioStatus block_access(uint32_t addr, isa::Width width, bool is_write, uint32_t& value);
  std::string block_error(const AttachedBlock& b, uint32_t addr, MmioStatus s) const;
  // BlockPort.
  sim::Time now() const override { return kernel_.now(); }
  sim::EventId schedule_in(sim::Time delay, std::function<void()> fn, uint32_t tag) override;
  void cancel(sim::EventId id) override { kernel_.cancel(id); }
  void raise_isr(uint32_t bits) override;
  bool sram_write(uint32_t offset, std::span<const uint8_t> bytes) override;
  bool sram_read(uint32_t offset, std::span<uint8_t> bytes) const override;
  uint32_t sram_size() const override { return sram_.size(); }
  void set_cpu_line(unsigned line, bool level) override {
    touch();
    cpu_.set_interrupt_line(line, level);
  }
  bool cpu_user_mode() const override { return cpu_.user_mode(); }
  uint64_t cpu_user_cycles() const override { return cpu_.user_cycles(); }
  void set_cpu_user_alarm(uint64_t at, std::function<void()> fn) override {
    touch();
    cpu_.set_user_alarm(at, std::move(fn));
  }
  void clear_cpu_user_alarm() override {
    touch();
    cpu_.clear_user_alarm();
  }
  MmioStatus reg_read(uint32_t offset, uint32_t& value);
  MmioStatus reg_write(uint32_t offset, uint32_t value, bool from_host);
  MmioStatus fail(std::string detail);
  MmioStatus privileged(); // a user-mode access to a kernel register: the CPU traps
  void update_irq();
  void set_isr(uint32_t bits);
  uint32_t rtc_now() const;
  void start_host_dma(uint32_t count);
  void host_dma_done(bool to_host, uint32_t lar, uint64_t ear, uint32_t count, sim::Time start);
  MmioStatus start_send(uint32_t limit, bool tail);
  void pump_send();
  void end_open_packet();
  void arm_receive();
  void stop_cpu();

  sim::Kernel& kernel_;
  ChipParams params_;
  std::string name_;
  sim::ClockDomain clock_;
  Sram sram_;
  BareIo io_;
  Cpu cpu_;
  size_t agent_ = 0;
  HostPort* host_ = nullptr;
  net::Link* tx_ = nullptr;
  net::Link* rx_ = nullptr;
  ChipCounters counters_;
  std::function<void(Chip&)> on_stop_;
  std::function<void(Chip&)> on_break_;
  Instrument* instrument_ = nullptr;
  bool paused_ = false;
  RunResult run_cpu(uint64_t budget, bool cycle_budget);
  sim::Time pause();
  std::vector<std::function<void(const ChipEventRecord&)>> on_event_;
  void emit(ChipEvent kind, uint32_t bytes) {
    if (on_event_.empty()) return;
    const ChipEventRecord r{kind, kernel_.now(), instructions_now(), bytes};
    for (auto& fn : on_event_)
      if (fn) fn(r);
  }
  std::string error_;
  std::vector<AttachedBlock> blocks_; // sorted by base

  // CPU clock: the absolute cycle at which cpu_.cycles() was 0.
  uint64_t cycle_origin_ = 0;
  bool started_ = false;
  bool powered_ = true;
  bool exact_ok_ = false;      // the retried access may go ahead (the kernel is at its time)
  bool exact_pending_ = false; // the CPU stopped before an access that needs its exact time
  uint64_t max_batch_ = 0;
  uint32_t max_insn_cycles_ = 1;
  uint32_t trap_cause_ = kTrapPrivileged; // of the last access that returned Trap

  // Registers.
  uint32_t isr_ = 0; // latched bits only
  uint32_t eimr_ = 0;
  bool irq_level_ = false;
  int irq_cpu_line_ = -1; // route_interrupt_to_cpu
  sim::Time rtc_origin_ = 0;
  uint32_t rtc_base_ = 0;
  sim::EventId timer_event_ = 0;
  sim::Time timer_expiry_ = -1;
  uint32_t lar_ = 0, ear_ = 0, ctr_ = 0, dma_dir_ = 0;
  bool host_dma_busy_ = false;
  uint32_t rmp_ = 0, rml_ = 0;
  bool rx_armed_ = false;
  bool rx_stalled_ = false; // the link holds bytes we did not take
  bool rx_head_seen_ = false; // HEAD_INT raised for the packet arriving now
  uint32_t smp_ = 0, send_limit_ = 0;
  bool send_busy_ = false, send_tail_ = false;
  sim::Time send_started_ = 0, receive_started_ = -1;
  net::PacketPtr send_packet_;
  uint64_t next_packet_id_ = 1;
  uint32_t host_sig_ = 0;
  uint32_t recv_status_ = 0;
  uint32_t generation_ = 0; // bumps on reset/power-off, so stale engine callbacks are ignored

  // Doze. A watch gives up after kWatchInstructions (a poll loop that checks several
  // queues is tens of instructions); after a failure the next one waits kMaxWatchBackoff
  // instructions at most (a failed watch runs on the reference model: a busy CPU pays for
  // it about 1%).
  static constexpr uint32_t kWatchInstructions = 256;
  static constexpr uint32_t kMaxWatchBackoff = 4096;
  static constexpr size_t kKnownLoops = 8;
  SpinWatch watch_{cpu_};
  bool doze_enabled_ = true;
  bool take_held_ = true;
  bool dozing_ = false;
  DozeLoop doze_loop_;
  // What the dozing loop reads: SRAM ranges [first, second), LANai registers (a bit per
  // word of the register page), or something else (the CPU's control registers, the bare
  // ABI words), which any touch counts as changed.
  std::vector<std::pair<uint32_t, uint32_t>> doze_sram_;
  uint64_t doze_regs_[2] = {0, 0};
  bool doze_reads_other_ = false;
  uint64_t watch_after_ = 0;      // the next watch starts at this instruction count
  static constexpr uint32_t kMinWatchBackoff = 32;
  uint32_t watch_backoff_ = kMinWatchBackoff; // instructions to wait after a failed watch (doubles)
  uint64_t known_after_ = 0;      // the next watch started by a known loop's pc starts here
  bool watch_in_known_ = false;   // this watch was
  static constexpr uint32_t kKnownBackoff = 64;
  // The instruction addresses of loops that dozed before, one bit per SRAM word (empty
  // until the first; the last kKnownLoops loops' heads in known_heads_): a batch that ends
  // at one starts a watch. A bit test, since every batch asks.
  std::vector<uint64_t> known_pcs_;
  bool known_pc(uint32_t pc) const {
    const uint32_t w = pc / 4;
    return w / 64 < known_pcs_.size() && (known_pcs_[w / 64] >> (w % 64) & 1);
  }
  std::vector<uint32_t> known_heads_;
  void remember_loop(const DozeLoop& loop);
  DozeCounters doze_counters_;
};

} // namespace lanaikit::vm
