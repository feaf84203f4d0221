#include "host/model/pci.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace lanaikit::host {

namespace {
// Trace tags of the bus's kernel events.
constexpr uint32_t kTagPioRead = 0x50430001;
constexpr uint32_t kTagPioWrite = 0x50430002;
constexpr uint32_t kTagDma = 0x50430003;

void validate_curve(const std::vector<BandwidthPoint>& c, const char* name) {
  if (c.empty()) throw std::invalid_argument(std::string("PciParams.") + name + ": no points");
  for (size_t i = 0; i < c.size(); ++i) {
    if (!(c[i].mb_per_s > 0) || !std::isfinite(c[i].mb_per_s))
      throw std::invalid_argument(std::string("PciParams.") + name + "[" + std::to_string(i) +
                                  "]: bandwidth must be a positive number");
    if (c[i].block_bytes == 0 || (i > 0 && c[i].block_bytes <= c[i - 1].block_bytes))
      throw std::invalid_argument(std::string("PciParams.") + name +
                                  ": block sizes must be positive and strictly increasing");
  }
}
} // namespace

void PciParams::validate() const {
  if (pio_read_latency < 0) throw std::invalid_argument("PciParams.pio_read_latency < 0");
  if (pio_write_issue < 0) throw std::invalid_argument("PciParams.pio_write_issue < 0");
  if (pio_store_bytes != 4 && pio_store_bytes != 8)
    throw std::invalid_argument("PciParams.pio_store_bytes must be 4 or 8");
  if (pio_write_latency < 0) throw std::invalid_argument("PciParams.pio_write_latency < 0");
  if (dma_setup < 0) throw std::invalid_argument("PciParams.dma_setup < 0");
  validate_curve(dma_to_host, "dma_to_host");
  validate_curve(dma_from_host, "dma_from_host");
}

PciParams PciParams::vmmc() {
  PciParams p;
  // PLATFORMS.md, VMMC: "PIO over PCI: read 0.422 us, write 0.121 us".
  p.pio_read_latency = 422 * sim::kNanosecond;
  // The paper gives one number for a write, the cost of a store as the host sees it; we
  // use it for the CPU's issue cost and for the bus time of the write alike, so a stream
  // of stores runs at one per 0.121 us on both sides.
  p.pio_write_issue = 121 * sim::kNanosecond;
  p.pio_write_latency = 121 * sim::kNanosecond;
  // The paper's DMA bandwidths are measured end to end per block, so the per-transfer
  // overhead is already in them: no separate setup cost.
  p.dma_setup = 0;
  // "PCI host<->SRAM DMA bandwidth rises with block size to about 128 MB/s at 64 KB blocks
  // and is 110 MB/s at 4 KB blocks"; one curve for both directions (no split is given).
  p.dma_to_host = {{4096, 110.0}, {65536, 128.0}};
  p.dma_from_host = p.dma_to_host;
  // Not in the paper: a transfer holds the bus until it is done.
  p.dma_burst_bytes = 0;
  return p;
}

double interpolate_bandwidth(const std::vector<BandwidthPoint>& curve, uint64_t bytes) {
  if (curve.empty()) throw std::invalid_argument("interpolate_bandwidth: empty curve");
  if (bytes <= curve.front().block_bytes) return curve.front().mb_per_s;
  if (bytes >= curve.back().block_bytes) return curve.back().mb_per_s;
  size_t i = 1;
  while (curve[i].block_bytes < bytes) ++i;
  const BandwidthPoint& a = curve[i - 1];
  const BandwidthPoint& b = curve[i];
  const double f = double(bytes - a.block_bytes) / double(b.block_bytes - a.block_bytes);
  return a.mb_per_s + (b.mb_per_s - a.mb_per_s) * f;
}

sim::Time transfer_time(uint64_t bytes, double mb_per_s) {
  // bytes / (mb_per_s * 10^6) seconds = bytes * 10^6 / mb_per_s picoseconds.
  return sim::Time(std::llround(double(bytes) * 1e6 / mb_per_s));
}

PciBus::PciBus(sim::Kernel& kernel, PciParams params)
    : kernel_(kernel), params_(std::move(params)) {
  params_.validate();
}

const std::vector<BandwidthPoint>& PciBus::curve(DmaDirection dir) const {
  return dir == DmaDirection::ToHost ? params_.dma_to_host : params_.dma_from_host;
}

double PciBus::dma_bandwidth(DmaDirection dir, uint64_t bytes) const {
  return interpolate_bandwidth(curve(dir), bytes);
}

sim::Time PciBus::dma_time(DmaDirection dir, uint64_t bytes) const {
  return params_.dma_setup + transfer_time(bytes, dma_bandwidth(dir, bytes));
}

void PciBus::pio_read(uint32_t bytes, Done done) {
  submit(Kind::PioRead, DmaDirection::ToHost, bytes, 0, std::move(done));
}

sim::Time PciBus::pio_write(uint32_t bytes, Done landed) {
  submit(Kind::PioWrite, DmaDirection::ToHost, bytes, 0, std::move(landed));
  return params_.pio_write_issue;
}

void PciBus::dma(DmaDirection dir, uint64_t bytes, Done done) {
  if (bytes == 0) throw std::invalid_argument("PciBus::dma: zero-length transfer");
  submit(Kind::Dma, dir, bytes, transfer_time(bytes, dma_bandwidth(dir, bytes)), std::move(done));
}

// Queues the request; on a free bus (nobody is waiting then) it takes the bus at once.
void PciBus::submit(Kind kind, DmaDirection dir, uint64_t bytes, sim::Time total, Done&& done) {
  Txn& t = queue_.emplace_back();
  t.kind = kind;
  t.dir = dir;
  t.bytes = bytes;
  t.total = total;
  t.requested = kernel_.now();
  t.id = next_id_++;
  t.done = std::move(done);
  if (!busy_) start();
}

void PciBus::grant() {
  if (busy_ || queue_.empty()) return;
  start();
}

// The head of the queue takes the bus; it stays there until its end.
void PciBus::start() {
  Txn& t = queue_.front();
  sim::Time occupy = 0;
  uint32_t tag = 0;
  switch (t.kind) {
  case Kind::PioRead:
    occupy = params_.pio_read_latency;
    tag = kTagPioRead;
    break;
  case Kind::PioWrite:
    occupy = params_.pio_write_latency;
    tag = kTagPioWrite;
    break;
  case Kind::Dma: {
    tag = kTagDma;
    const uint64_t left = t.bytes - t.done_bytes;
    const uint64_t piece =
        params_.dma_burst_bytes == 0 ? left : std::min(left, params_.dma_burst_bytes);
    // The time at which byte x of the transfer has moved, floor(total * x / bytes): the
    // bursts partition [0, total] exactly.
    auto at = [&](uint64_t x) {
      return sim::Time((unsigned __int128)t.total * x / t.bytes);
    };
    occupy = at(t.done_bytes + piece) - at(t.done_bytes);
    if (!t.started) occupy += params_.dma_setup;
    t.done_bytes += piece;
    break;
  }
  }
  if (!t.started) {
    stats_.wait += kernel_.now() - t.requested;
    t.started = true;
  }
  busy_ = true;
  occupy_ = occupy;
  kernel_.schedule_in(occupy, [this] { finished(); }, tag);
}

void PciBus::finished() {
  busy_ = false;
  stats_.busy += occupy_;
  Txn& t = queue_.front();
  if (t.kind == Kind::Dma && t.done_bytes < t.bytes) {
    Txn rest = std::move(t); // the rest of the transfer waits its turn again
    queue_.pop_front();
    queue_.push_back(std::move(rest));
    grant();
    return;
  }
  switch (t.kind) {
  case Kind::PioRead:
    ++stats_.pio_reads;
    stats_.pio_read_bytes += t.bytes;
    break;
  case Kind::PioWrite:
    ++stats_.pio_writes;
    stats_.pio_write_bytes += t.bytes;
    break;
  case Kind::Dma:
    ++stats_.dmas;
    (t.dir == DmaDirection::ToHost ? stats_.dma_to_host_bytes : stats_.dma_from_host_bytes) +=
        t.bytes;
    break;
  }
  kernel_.trace((uint64_t(t.kind) << 56) ^ (t.id << 32) ^ t.bytes);
  // The callback may make requests (a PIO read's completion posting the next one): the
  // finished transaction leaves the queue first.
  Done done = std::move(t.done);
  queue_.pop_front();
  if (done) done();
  grant();
}

} // namespace lanaikit::host
