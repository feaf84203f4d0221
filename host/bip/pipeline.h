// BIP's packet-size model (docs/bip.md, "Packet size"): a long message is cut into equal
// packets that cross four stages one after another, each stage a resource of its own:
//
//   1. host -> SRAM DMA at the sender     (the sender's PCI bus and DMA engine)
//   2. SRAM -> wire                       (the sender's link)
//   3. wire -> SRAM at the receiver       (the same bytes, cut through: only latency)
//   4. SRAM -> host DMA at the receiver   (the receiver's PCI bus and DMA engine)
//
// Packet i enters a stage when it has left the previous one and packet i-1 has left this
// one (a flow shop), so the message's time is
//
//   F1[i] = F1[i-1] + fetch(p_i)                   fetch = max(c_send, g_send + dma(p))
//   F2[i] = max(F1[i], F2[i-1]) + wire(p_i)        wire  = (h + p) / B_link
//   F4[i] = max(F2[i] + lat, F4[i-1]) + store(p_i) store = max(c_recv, g_recv + dma(p))
//
// with dma(p) = dma_setup + p / B_pci(p), and T(L, P) = F4[n] + m, m the message's own
// cost (posting, the MCP taking the send and the receive, the completion record, the
// receiving host noticing it). A stage is either its DMA
// engine's (the transfer and the gap g the MCP leaves between two of them) or its CPU's
// (c: the MCP's cycles per packet, when they exceed the transfer: small packets). Small
// packets pay the per-packet costs n times, large ones fill and drain the pipeline slowly;
// best_packet(L) is the P (step times a power of two) minimising T. Everything comes from the
// platform (PCI curve and setup, link rate and latency, switch) and the MCP's measured
// cycles (host/bip/bip.cpp says how); nothing from the paper's results.
#pragma once

#include "event/time.h"
#include "host/model/pci.h"

#include <cstdint>
#include <map>
#include <vector>

namespace lanaikit::bip {

struct PipelineParams {
  std::vector<host::BandwidthPoint> dma_from_host, dma_to_host; // the PCI curves (MB/s)
  double dma_setup_ns = 0;
  double link_mb_per_s = 160;
  double latency_ns = 0;       // head of a packet: links and switches on the path
  uint32_t header_bytes = 40;  // route and BIP header on the wire
  double send_gap_ns = 0;      // the DMA engine's idle time between two packets, sender
  double recv_gap_ns = 0;      //   and receiver
  double send_cpu_ns = 0;      // the MCP's time per packet, sender (fetch) side
  double recv_cpu_ns = 0;      //   and receiver (store) side
  double message_ns = 0;       // per message, outside the pipeline
  uint32_t max_packet = 4096;
  uint32_t step = 256;         // candidate packet sizes: step, 2 step, 4 step, ... max_packet
};

class PipelineModel {
public:
  explicit PipelineModel(PipelineParams params);
  const PipelineParams& params() const { return params_; }

  // Predicted time (ns) from the first fetch starting to the last byte in host memory.
  double time_ns(uint64_t len, uint32_t packet) const;
  // The packet size (step times a power of two, <= max_packet) minimising time_ns(len, .);
  // memoised per length.
  uint32_t best_packet(uint64_t len) const;

private:
  double fetch_ns(uint32_t bytes) const;
  double wire_ns(uint32_t bytes) const;
  double store_ns(uint32_t bytes) const;

  PipelineParams params_;
  mutable std::map<uint64_t, uint32_t> best_;
};

} // namespace lanaikit::bip
