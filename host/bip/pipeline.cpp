// BIP's packet-size model: the flow-shop recurrence of pipeline.h.
#include "host/bip/pipeline.h"

#include <algorithm>
#include <stdexcept>

namespace lanaikit::bip {

PipelineModel::PipelineModel(PipelineParams params) : params_(std::move(params)) {
  if (params_.dma_from_host.empty() || params_.dma_to_host.empty() || params_.link_mb_per_s <= 0 ||
      params_.step == 0 || params_.step % 4 != 0 || params_.max_packet < params_.step)
    throw std::invalid_argument("bip pipeline model: needs both PCI curves, a link rate, and 4 <= step <= max_packet, step a multiple of 4");
}

// MB/s = bytes per microsecond, so bytes / MB/s * 1000 is ns.
double PipelineModel::fetch_ns(uint32_t bytes) const {
  const double dma = params_.dma_setup_ns + bytes / host::interpolate_bandwidth(params_.dma_from_host, bytes) * 1000.0;
  return std::max(params_.send_cpu_ns, params_.send_gap_ns + dma);
}

double PipelineModel::wire_ns(uint32_t bytes) const {
  return (params_.header_bytes + bytes) / params_.link_mb_per_s * 1000.0;
}

double PipelineModel::store_ns(uint32_t bytes) const {
  const double dma = params_.dma_setup_ns + bytes / host::interpolate_bandwidth(params_.dma_to_host, bytes) * 1000.0;
  return std::max(params_.recv_cpu_ns, params_.recv_gap_ns + dma);
}

double PipelineModel::time_ns(uint64_t len, uint32_t packet) const {
  if (packet == 0) throw std::invalid_argument("bip pipeline model: packet size 0");
  const uint64_t full = len / packet;
  const uint32_t rest = uint32_t(len % packet);
  // Identical packets: after the first, each stage advances by the slowest stage's time
  // once the pipeline is full; the recurrence is run exactly for the first few and the
  // last, so the cost is independent of the packet count.
  double f1 = 0, f2 = 0, f4 = 0;
  auto one = [&](uint32_t p) {
    f1 += fetch_ns(p);
    f2 = std::max(f1, f2) + wire_ns(p);
    f4 = std::max(f2 + params_.latency_ns, f4) + store_ns(p);
  };
  const uint64_t exact = std::min<uint64_t>(full, 4);
  for (uint64_t i = 0; i < exact; ++i) one(packet);
  if (full > exact) {
    // In steady state every stage finishes one packet per bottleneck period.
    // (Stage 1 is never held; stage 2 runs at the slower of 1 and 2; stage 4 at the
    // slowest of all.)
    const double k = double(full - exact);
    const double fetch = fetch_ns(packet), wire = wire_ns(packet), store = store_ns(packet);
    f1 += k * fetch;
    f2 += k * std::max(fetch, wire);
    f4 += k * std::max({fetch, wire, store});
  }
  if (rest != 0 || len == 0) one(rest);
  return f4 + params_.message_ns;
}

uint32_t PipelineModel::best_packet(uint64_t len) const {
  if (auto it = best_.find(len); it != best_.end()) return it->second;
  uint32_t best = params_.step;
  double best_t = time_ns(len, best);
  // Powers of two only: a packet that divides the page never straddles two pages of a
  // page-aligned buffer (a straddling packet costs a second DMA on each side, which the
  // recurrence does not count).
  for (uint32_t p = 2 * params_.step; p <= params_.max_packet; p *= 2) {
    if (p >= len + params_.step) break; // one packet already holds the message
    const double t = time_ns(len, p);
    if (t < best_t) best = p, best_t = t;
  }
  best_.emplace(len, best);
  return best;
}

} // namespace lanaikit::bip
