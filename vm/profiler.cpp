#include "vm/profiler.h"

#include "isa/inst.h"

#include <algorithm>
#include <bit>
#include <stdexcept>

namespace lanaikit::vm {

namespace {
constexpr unsigned kRca = 15; // return address of the call sequence (docs/abi.md)
constexpr unsigned kSp = 4;
} // namespace

Profiler::Profiler(Cpu& cpu, std::function<sim::Time()> clock)
    : cpu_(cpu), clock_(std::move(clock)) {
  const size_t words = cpu.sram().size() / 4;
  // The 64-bit counts first, so each array is aligned for its type.
  per_word_ = HostMemory(words * (2 * sizeof(uint64_t) + sizeof(uint32_t)), "the profiler's counts");
  auto* counts = static_cast<uint64_t*>(per_word_.data());
  insns_ = {counts, words};
  cycles_ = {counts + words, words};
  handler_at_ = {reinterpret_cast<uint32_t*>(counts + 2 * words), words};
}

uint32_t Profiler::add_handler(std::string name, uint32_t entry) {
  if (entry % 4 || entry / 4 >= handler_at_.size())
    throw std::invalid_argument("handler '" + name + "': entry " + std::to_string(entry) +
                                " is not a word in SRAM");
  if (handler_at_[entry / 4])
    throw std::invalid_argument("handler '" + name + "': entry already belongs to '" +
                                handlers_[handler_at_[entry / 4] - 1].name + "'");
  handlers_.push_back({std::move(name), entry});
  handler_at_[entry / 4] = uint32_t(handlers_.size());
  return uint32_t(handlers_.size() - 1);
}

uint32_t Profiler::add_trap_vector(std::string name, uint32_t entry) {
  const uint32_t h = add_handler(std::move(name), entry);
  handlers_[h].trap = true;
  return h;
}

void Profiler::finish_innermost() {
  ++epoch_;
  Active a = std::move(active_.back());
  active_.pop_back();
  a.inv.end = now();
  if (invocations_.size() < max_invocations_) invocations_.push_back(a.inv);
  else ++dropped_;
}

void Profiler::reset_counts() {
  per_word_.zero(0, 2 * insns_.size_bytes()); // both count arrays (pages go back)
  invocations_.clear();
  dropped_ = 0;
  handler_cycles_ = total_cycles_ = total_insns_ = 0;
}

bool Profiler::before(uint32_t pc) {
  // Returns first: the innermost invocation ends when its return point is next (at the
  // same stack depth, so a recursive call returning to the same address does not count).
  // A trap episode ends when user code runs again.
  const bool user = cpu_.user_mode();
  while (!active_.empty() && (handlers_[active_.back().handler].trap
                                  ? user
                                  : pc == active_.back().return_pc && cpu_.reg(kSp) >= active_.back().sp))
    finish_innermost();
  if (pc / 4 < handler_at_.size()) {
    const uint32_t h = handler_at_[pc / 4];
    if (h && !(handlers_[h - 1].trap && user)) { // a vector is entered in kernel mode
      Active a;
      a.handler = h - 1;
      a.return_pc = cpu_.reg(kRca);
      a.sp = cpu_.reg(kSp);
      a.inv.handler = h - 1;
      a.inv.start = now();
      active_.push_back(a);
      ++epoch_;
    }
  }
  stalls_at_before_ = cpu_.stall_cycles();
  return true;
}

void Profiler::after(uint32_t pc, uint32_t cycles) {
  if (pc / 4 < insns_.size()) {
    insns_[pc / 4] += 1;
    cycles_[pc / 4] += cycles;
  }
  ++total_insns_;
  total_cycles_ += cycles;
  if (active_.empty()) return;
  handler_cycles_ += cycles;
  const uint64_t stalls = cpu_.stall_cycles() - stalls_at_before_;
  const bool dma = dma_busy_ && dma_busy_();
  // Every enclosing invocation includes the instruction (inclusive counts).
  for (Active& a : active_) {
    a.inv.instructions += 1;
    a.inv.cycles += cycles;
    a.inv.stall_cycles += stalls;
    if (dma) a.inv.dma_wait_cycles += cycles;
  }
}

void Profiler::repeat(const std::vector<RepeatStep>& iteration, uint64_t times) {
  uint64_t insns = 0, cycles = 0, stalls = 0;
  for (const RepeatStep& s : iteration) {
    if (s.pc / 4 < insns_.size()) {
      insns_[s.pc / 4] += times;
      cycles_[s.pc / 4] += times * s.cycles;
    }
    insns += 1;
    cycles += s.cycles;
    stalls += s.stalls;
  }
  total_insns_ += times * insns;
  total_cycles_ += times * cycles;
  if (active_.empty()) return;
  handler_cycles_ += times * cycles;
  // The engines' state cannot change while the CPU dozes (a change wakes it first).
  const bool dma = dma_busy_ && dma_busy_();
  for (Active& a : active_) {
    a.inv.instructions += times * insns;
    a.inv.cycles += times * cycles;
    a.inv.stall_cycles += times * stalls;
    if (dma) a.inv.dma_wait_cycles += times * cycles;
  }
}

namespace {

Distribution distribution(std::vector<uint64_t> v) {
  Distribution d;
  d.count = v.size();
  if (v.empty()) return d;
  std::sort(v.begin(), v.end());
  d.min = v.front();
  d.max = v.back();
  d.median = v[(v.size() - 1) / 2];
  // p99 by the nearest-rank method: the smallest value with at least 99% at or below it.
  const size_t rank = (99 * v.size() + 99) / 100; // ceil(0.99 n)
  d.p99 = v[std::max<size_t>(rank, 1) - 1];
  double sum = 0;
  for (uint64_t x : v) {
    sum += double(x);
    const size_t b = x == 0 ? 0 : size_t(std::bit_width(x));
    if (d.log2_histogram.size() <= b) d.log2_histogram.resize(b + 1, 0);
    ++d.log2_histogram[b];
  }
  d.mean = sum / double(v.size());
  return d;
}

} // namespace

std::vector<HandlerSummary> Profiler::summaries() const {
  std::vector<HandlerSummary> out(handlers_.size());
  std::vector<std::vector<uint64_t>> ins(handlers_.size()), cyc(handlers_.size()),
      stall(handlers_.size()), dma(handlers_.size()), dur(handlers_.size());
  for (const Invocation& i : invocations_) {
    ins[i.handler].push_back(i.instructions);
    cyc[i.handler].push_back(i.cycles);
    stall[i.handler].push_back(i.stall_cycles);
    dma[i.handler].push_back(i.dma_wait_cycles);
    dur[i.handler].push_back(uint64_t(i.end - i.start));
  }
  for (size_t h = 0; h < handlers_.size(); ++h) {
    out[h].name = handlers_[h].name;
    out[h].instructions = distribution(std::move(ins[h]));
    out[h].cycles = distribution(std::move(cyc[h]));
    out[h].stall_cycles = distribution(std::move(stall[h]));
    out[h].dma_wait_cycles = distribution(std::move(dma[h]));
    out[h].duration_ps = distribution(std::move(dur[h]));
  }
  return out;
}

} // namespace lanaikit::vm
