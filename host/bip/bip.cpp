// BIP host library: set-up of the MCP on every node (docs/bip.md, "Host library"), costs,
// the pipeline model's parameters.
#include "host/bip/state.h"

#include "host/kit/costs.h"
#include "host/kit/setup.h"
#include "host/kit/sram.h"

#include <cmath>

namespace lanaikit::bip {

using namespace detail;

namespace {

// The MCP's per-packet costs of a long message, in LANai cycles (so a faster NIC scales),
// measured on firmware/bip/bip.fw by lua-scripts/bip/packet_size.lua --calibrate (the DMA
// engines' idle gaps between packets with large packets; the period per packet with
// packets small enough for the CPU to be the bottleneck); tests/bip checks the model's
// times against simulated transfers.
constexpr double kGapCycles = 22;        // both sides: from one DMA's end to the next's start
constexpr double kSendCpuCycles = 150;   // bip_send_packet and the loop around it
constexpr double kRecvCpuCycles = 300;   // bip_recv's long path, its scatter and the loop
constexpr double kMessageCycles = 550;   // a message's own: posting to noticing, both hosts

// Default thresholds (docs/bip.md, "Thresholds"): measured on the modelled BIP testbed by
// lua-scripts/bip/thresholds.lua, which prints both crossovers.
constexpr uint32_t kCopyMax = 28;
constexpr uint32_t kDirectMin = 12;

constexpr uint32_t kListPages = 8; // block-list entries for one message: 16 MB at 4 KB pages

// `n` physically contiguous fresh pages of the node (the driver's start-up allocation).
host::PhysAddr contiguous(sim::Node& node, uint64_t n, const char* what) {
  const std::vector<uint64_t> pages = node.memory().allocate_pages(n);
  for (uint64_t i = 1; i < pages.size(); ++i)
    if (pages[i] != pages[0] + i)
      throw BipError(std::string("bip: node ") + node.name() + " has no " + str(n) +
                     " contiguous free pages for its " + what + " (BIP allocates them at start-up)");
  return pages[0] << host::kPageShift;
}

uint64_t pages_for(uint64_t bytes) { return (bytes + host::kPageSize - 1) / host::kPageSize; }

} // namespace

sim::Time Costs::copy(uint64_t bytes) const {
  if (copy_mb_per_s <= 0 || bytes == 0) return 0;
  return sim::Time(std::llround(double(bytes) / copy_mb_per_s * 1e6)); // ps: bytes / (MB/s) us
}

Costs costs_from_platform(const sim::Platform& platform) {
  kit::CostTable t(platform);
  Costs c;
  c.pin.per_call = t.take("pin_call", 5 * sim::kMicrosecond);
  c.pin.per_page = t.take("pin_page", 1 * sim::kMicrosecond);
  c.send_post = t.take("send_post", 0);
  c.recv_post = t.take("recv_post", 0);
  // A rate, not a time: read the platform's table directly.
  const sim::Time none = -1;
  const sim::Time rate = t.take("copy_mb_per_s", none);
  c.copy_mb_per_s = rate == none ? 0 : double(rate) / double(sim::kNanosecond);
  c.defaulted = t.defaulted();
  return c;
}

BipState::BipState(sim::Cluster& c, const assembler::FirmwareImage& image, Costs k, Options o)
    : cluster(c), mcp(image), costs(std::move(k)), options(o) {
  const uint32_t n = cluster.size();
  if (n > mcp.max_nodes)
    throw BipError("bip: " + str(n) + " nodes, the MCP's route table holds " + str(mcp.max_nodes));
  if (options.credits == 0 || uint64_t(options.credits) * n > mcp.max_ring)
    throw BipError("bip: credits " + str(options.credits) + " x " + str(n) +
                   " nodes must be between 1 and MAX_RING (" + str(mcp.max_ring) + ") slots per tag ring");
  if (options.packet != 0 && (options.packet % 4 != 0 || options.packet > mcp.max_pkt))
    throw BipError("bip: packet size " + str(options.packet) + " must be a multiple of 4 and at most MAX_PKT (" +
                   str(mcp.max_pkt) + ")");
  ring_slots = options.credits * n;
  slot_bytes = mcp.header_bytes + mcp.short_max;
  limits = {mcp.max_nodes, mcp.max_tags, mcp.short_max, mcp.max_pkt, mcp.send_slots, mcp.max_ring,
            std::min(options.copy_max ? options.copy_max : kCopyMax, mcp.short_max),
            options.direct_min ? options.direct_min : kDirectMin, options.credits};

  // The model of the long-message pipeline, from this cluster's hardware.
  const sim::ClusterParams& cp = cluster.params();
  const double cycle_ns = 1e9 / double(cp.node.chip.clock_hz);
  PipelineParams pp;
  pp.dma_from_host = cp.node.pci.dma_from_host;
  pp.dma_to_host = cp.node.pci.dma_to_host;
  pp.dma_setup_ns = double(cp.node.pci.dma_setup) / double(sim::kNanosecond);
  pp.link_mb_per_s = double(cp.link.bytes_per_s) / 1e6;
  pp.latency_ns = (2 * double(cp.link.latency_ps) + double(cp.switch_config.fall_through_ps)) /
                  double(sim::kNanosecond);
  pp.header_bytes = mcp.header_bytes + 1 + 1; // one route byte and the CRC
  pp.send_gap_ns = pp.recv_gap_ns = kGapCycles * cycle_ns;
  pp.send_cpu_ns = kSendCpuCycles * cycle_ns;
  pp.recv_cpu_ns = kRecvCpuCycles * cycle_ns;
  pp.message_ns = kMessageCycles * cycle_ns;
  pp.max_packet = mcp.max_pkt;
  model.emplace(pp);

  kit::load(cluster, mcp.image);
  const kit::Ref& ctl = mcp.ctl;
  const kit::Ref state = mcp.view.global("st");
  for (uint32_t i = 0; i < n; ++i) {
    sim::Node& node = cluster.node(i);
    // The MCP's own state and the control block start zeroed (the driver clears them at
    // load, as it would a card's memory; the MCP does not spend 0.7 ms doing it).
    node.chip().host_write_sram(state.addr(), std::vector<uint8_t>(state.size(), 0));
    node.chip().host_write_sram(ctl.addr(), std::vector<uint8_t>(ctl.size(), 0));
    auto impl = std::make_unique<Endpoint::Impl>(*this, i);
    Endpoint::Impl& e = *impl;
    const uint64_t ring_bytes = uint64_t(ring_slots) * slot_bytes;
    e.rings = contiguous(node, pages_for(ring_bytes * mcp.max_tags), "tag rings");
    const host::PhysAddr records = contiguous(node, 1, "send and receive records");
    e.send_done = records;
    e.recv_done = records + 64;
    e.send_list = contiguous(node, kListPages, "send block list");
    e.recv_list = contiguous(node, kListPages, "receive block list");
    e.list_entries = kListPages * host::kPageSize / mcp.block_size;
    auto poke = [&](const char* f, uint64_t v) { kit::poke(node, ctl.field(f), v); };
    poke("node", i);
    poke("nnodes", n);
    poke("credits", options.credits);
    poke("credit_batch", std::max<uint32_t>(1, options.credits / 2));
    poke("direct_min", limits.direct_min);
    poke("ring_slots", ring_slots);
    poke("slot_bytes", slot_bytes);
    for (uint32_t t = 0; t < mcp.max_tags; ++t)
      kit::poke(node, ctl.field("rings")[t], uint32_t(e.rings + t * ring_bytes));
    poke("send_done_addr", uint32_t(e.send_done));
    poke("recv_done_addr", uint32_t(e.recv_done));
    kit::write_routes(cluster, i, mcp.routes);
    poke("go", mcp.go);
    endpoints.push_back(std::unique_ptr<Endpoint>(new Endpoint(std::move(impl))));
  }
  kit::start(cluster);
}

Bip::Bip(sim::Cluster& cluster, const assembler::FirmwareImage& mcp, Costs costs, Options options)
    : impl_(std::make_unique<Impl>(cluster, mcp, std::move(costs), options)) {}

Bip::~Bip() = default;

Endpoint& Bip::endpoint(uint32_t node) {
  if (node >= impl_->endpoints.size())
    throw BipError("bip: no node " + str(node) + " (the cluster has " + str(impl_->endpoints.size()) + ")");
  return *impl_->endpoints[node];
}

sim::Cluster& Bip::cluster() { return impl_->cluster; }
const Bip::Limits& Bip::limits() const { return impl_->limits; }
const Costs& Bip::costs() const { return impl_->costs; }
const PipelineModel& Bip::model() const { return *impl_->model; }

} // namespace lanaikit::bip
