// BIP host library internals (docs/bip.md, "Host library"): the state its files share.
// Internal to host/bip/; the interface is bip.h.
//
//   mcp.cpp       the MCP's constants and SRAM places, resolved through the kit's image view
//   bip.cpp       Bip: node set-up (rings, records, routes), costs, the pipeline model
//   endpoint.cpp  Endpoint: send, recv, their non-blocking forms, the pin cache, counters
#pragma once

#include "host/bip/bip.h"

#include "base/bytes.h"
#include "host/kit/image_view.h"

#include <array>
#include <map>
#include <optional>

namespace lanaikit::bip::detail {

inline std::string str(uint64_t v) { return std::to_string(v); }

// The MCP as the host sees it (firmware/bip/bip_defs.fw through the layout table; no C++
// copy of any constant or offset). Throws BipError naming what the image lacks.
struct Mcp {
  explicit Mcp(const assembler::FirmwareImage& img);
  Mcp(const Mcp&) = delete;
  Mcp& operator=(const Mcp&) = delete;

  assembler::FirmwareImage image;
  kit::ImageView view;
  uint32_t go = 0, max_nodes = 0, max_tags = 0, short_max = 0, max_pkt = 0, send_slots = 0,
           max_ring = 0, header_bytes = 0;
  uint32_t send_copy = 0, send_dma = 0, send_long = 0;
  uint32_t rv_ok = 0, rv_truncated = 0, rv_in_ring = 0, rv_lost = 0;
  kit::Ref ctl, routes, sendq, recv;
  // Send descriptor: offsets in a slot; dest, tag and kind share one word (`head`).
  uint32_t slot_bytes = 0, d_seq = 0, d_head = 0, d_len = 0, d_addr0 = 0, d_len0 = 0, d_addr1 = 0, d_len1 = 0,
           d_list = 0, d_nblocks = 0, d_pkt = 0, s_data = 0;
  uint32_t dest_shift = 0, tag_shift = 0, kind_shift = 0;
  // The posted receive's fields (SRAM addresses).
  uint32_t r_seq = 0, r_tag = 0, r_maxlen = 0, r_taken = 0, r_addr0 = 0, r_len0 = 0, r_addr1 = 0, r_len1 = 0,
           r_list = 0, r_nblocks = 0;
  uint32_t tag_taken = 0; // address of tag_taken[0]
  // Host-memory records: offsets.
  uint32_t h_src = 0, h_len = 0, h_index = 0, h_retires = 0; // BipHeader in a ring slot
  uint32_t sd_consumed = 0, sd_failed = 0, sd_last_failed = 0, sd_size = 0;
  uint32_t rd_seq = 0, rd_status = 0, rd_len = 0, rd_src = 0, rd_size = 0;
  uint32_t block_size = 0;
};

struct BipState;

// One node's BIP process (Endpoint::Impl).
struct EpState {
  EpState(BipState& b, uint32_t node);

  BipState& b;
  uint32_t node = 0;
  std::unique_ptr<host::AddressSpace> space;
  const host::Process* checked = nullptr;
  // Host memory the driver allocated at start-up (physically contiguous): the tag rings,
  // the two records, the block lists of the pending send and receive.
  host::PhysAddr rings = 0, send_done = 0, recv_done = 0, send_list = 0, recv_list = 0;
  uint32_t list_entries = 0;
  // The pin cache: virtual page -> physical page, filled on first use.
  std::map<uint64_t, host::PhysAddr> pinned;
  uint64_t pin_calls = 0;
  // Send.
  uint32_t posted = 0;          // sends posted (the last seq)
  uint32_t pending = 0;         // the pending send's seq (0: none)
  bool pending_copied = false;
  uint32_t pending_packet = 0;
  // Receive.
  std::vector<uint32_t> taken;  // ring messages taken, per tag
  uint32_t rseq = 0;            // receives posted to the MCP
  bool recv_pending = false;
  bool recv_posted = false;     // posted to the MCP (else: a ring message was waiting)
  uint32_t recv_tag = 0;
  VirtAddr recv_va = 0;
  uint32_t recv_maxlen = 0;
  std::array<uint32_t, 9> last_desc{}; // the receive fields as last written (skip rewrites)
  bool desc_written = false;

  sim::Node& node_ref();
  void check_process(const host::Process& p);
  uint32_t mem32(host::PhysAddr a) const;
  void check_buffer(VirtAddr va, uint64_t len, const char* what) const;
  // The physical pieces of [va, va + len), pinning pages on first use (costs charged to p).
  std::vector<std::pair<host::PhysAddr, uint32_t>> pieces(host::Process& p, VirtAddr va, uint32_t len);
  void write_list(host::PhysAddr list, const std::vector<std::pair<host::PhysAddr, uint32_t>>& blocks);
  host::PhysAddr slot_addr(uint32_t tag, uint32_t index) const; // index from 1
  bool ring_has(uint32_t tag) const;
  bool ring_retires(uint32_t tag, uint32_t rseq) const;
  SendResult send_result() const;
  host::Op<RecvResult> take_ring(host::Process& p, uint32_t tag, VirtAddr va, uint32_t maxlen);
};

struct BipState {
  BipState(sim::Cluster& c, const assembler::FirmwareImage& image, Costs k, Options o);

  sim::Cluster& cluster;
  Mcp mcp;
  Costs costs;
  Options options;
  Bip::Limits limits{};
  std::optional<PipelineModel> model;
  uint32_t ring_slots = 0, slot_bytes = 0;
  std::vector<std::unique_ptr<Endpoint>> endpoints;
};

} // namespace lanaikit::bip::detail

namespace lanaikit::bip {
struct Bip::Impl : detail::BipState {
  using detail::BipState::BipState;
};
struct Endpoint::Impl : detail::EpState {
  using detail::EpState::EpState;
};
} // namespace lanaikit::bip
