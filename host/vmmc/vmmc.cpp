// VMMC host library: the Vmmc (docs/vmmc.md, "Host side"). Set-up of the LCP on every node
// (node index, host memory size, routes, interrupt mask, go), one driver process per node,
// opening endpoints into free process slots, the interface counters, and the host software
// costs taken from the platform. The other concerns are in the files state.h lists.
#include "host/vmmc/state.h"

#include "host/kit/costs.h"
#include "host/kit/setup.h"

#include <algorithm>

namespace lanaikit::vmmc {

using namespace detail;

// ---- VmmcState: the image, untimed SRAM access --------------------------------------------

namespace detail {

VmmcState::VmmcState(sim::Cluster& c, const assembler::FirmwareImage& image, Costs k)
    : cluster(c), lcp(image), costs(std::move(k)), driver(c, "vmmc-driver") {}

uint32_t VmmcState::peek(uint32_t node, const kit::Ref& place) const {
  return uint32_t(kit::peek(cluster.node(node), place));
}

void VmmcState::poke(uint32_t node, const kit::Ref& place, uint32_t value) {
  kit::poke(cluster.node(node), place, value);
}

} // namespace detail

// ---- costs --------------------------------------------------------------------------------

// lanaikit's estimates where the platform has none: the numbers of
// lua-scripts/platforms/vmmc.lua (which cites them), so a VMMC on another testbed costs the
// same host software.
Costs costs_from_platform(const sim::Platform& platform) {
  kit::CostTable t(platform);
  Costs c;
  c.send_post = t.take("send_post", 0);
  c.daemon_call = t.take("daemon_call", 20 * sim::kMicrosecond);
  c.control_message = t.take("control_message", 150 * sim::kMicrosecond);
  c.signal = t.take("signal", 10 * sim::kMicrosecond);
  c.pin.per_call = t.take("pin_call", 5 * sim::kMicrosecond);
  c.pin.per_page = t.take("pin_page", 1 * sim::kMicrosecond);
  c.defaulted = t.defaulted();
  return c;
}

// ---- Vmmc ---------------------------------------------------------------------------------

struct Vmmc::Impl : VmmcState {
  using VmmcState::VmmcState;
};

Vmmc::Vmmc(sim::Cluster& cluster, const assembler::FirmwareImage& image, Costs costs)
    : impl_(std::make_unique<Impl>(cluster, image, std::move(costs))) {
  VmmcState& v = *impl_;
  const Lcp& lcp = v.lcp;
  const uint32_t n = cluster.size();
  if (n > lcp.limits.max_nodes)
    throw VmmcError("vmmc: " + str(n) + " nodes, the LCP's route table holds " + str(lcp.limits.max_nodes));
  v.nodes.resize(n);
  kit::load(cluster, lcp.image);
  for (uint32_t i = 0; i < n; ++i) {
    sim::Node& node = cluster.node(i);
    v.nodes[i].node = &node;
    v.nodes[i].slots.assign(lcp.limits.max_procs, nullptr);
    v.poke(i, lcp.ctl.field("node"), i);
    v.poke(i, lcp.ctl.field("host_pages"),
           uint32_t(std::min<uint64_t>(node.memory().pages(), lcp.limits.ipt_pages)));
    kit::write_routes(cluster, i, lcp.routes);
    v.poke(i, lcp.ctl.field("go"), lcp.go);
  }
  v.install_driver();
  kit::start(cluster, &v.driver);
}

Vmmc::~Vmmc() { *impl_->alive = false; }

Endpoint& Vmmc::open(uint32_t node) {
  VmmcState& v = *impl_;
  const Lcp& lcp = v.lcp;
  if (node >= v.nodes.size())
    throw VmmcError("vmmc: open on node " + str(node) + ", the cluster has " + str(v.nodes.size()));
  NodeState& ns = v.nodes[node];
  const auto free = std::find(ns.slots.begin(), ns.slots.end(), nullptr);
  if (free == ns.slots.end())
    throw VmmcError("vmmc: node " + str(node) + " has no free process slot (MAX_PROCS " +
                    str(lcp.limits.max_procs) + ")");
  const uint32_t slot = uint32_t(free - ns.slots.begin());
  auto impl = std::make_unique<Endpoint::Impl>(v);
  EpState& e = *impl;
  e.node = node;
  e.slot = slot;
  e.proc = lcp.proc(slot);
  e.sendq.emplace(e.proc.field("sendq"), "seq", e.proc.field("consumed"));
  host::AddressSpaceParams ap;
  ap.pin = v.costs.pin;
  e.space = std::make_unique<host::AddressSpace>(ns.node->memory(), ap);
  // The completion word and the notification ring: a pinned page each, in the process.
  e.done_va = e.space->map(lcp.page);
  (void)e.space->pin(e.done_va, lcp.page);
  e.done_pa = e.space->translate(e.done_va);
  e.ring_va = e.space->map(lcp.page);
  (void)e.space->pin(e.ring_va, lcp.page);
  e.ring.emplace(e.space->translate(e.ring_va), lcp.limits.notify_slots, lcp.note_size, lcp.note_index);
  e.proxy_used.assign(lcp.limits.opt_pages, false);
  v.poke(node, e.proc.field("done_addr"), uint32_t(e.done_pa));
  v.poke(node, e.proc.field("notify_ring"), uint32_t(e.ring->base()));
  v.poke(node, e.proc.field("notify_slots"), e.ring->slots());
  e.notify_consumed = e.proc.field("notify_consumed").addr();
  kit::poke32(*ns.node, e.notify_consumed, 0);
  v.poke(node, e.proc.field("active"), 1);
  // The doorbell makes the LCP read the active flags now (docs/vmmc.md, "The LCP"); without
  // it the slot is served at the LCP's next periodic refresh, up to 200 us later.
  ns.node->chip().host_write_reg(vm::regs::HOST_SIG, 0);
  ns.slots[slot] = &e;
  v.endpoints.push_back(std::unique_ptr<Endpoint>(new Endpoint(std::move(impl))));
  return *v.endpoints.back();
}

Vmmc::InterfaceCounters Vmmc::counters(uint32_t node) const {
  const VmmcState& v = *impl_;
  const kit::Ref& ctl = v.lcp.ctl;
  InterfaceCounters c{};
  c.sent = v.peek(node, ctl.field("sent"));
  c.received = v.peek(node, ctl.field("received"));
  c.bad_crc = v.peek(node, ctl.field("bad_crc"));
  c.bad_magic = v.peek(node, ctl.field("bad_magic"));
  c.bad_len = v.peek(node, ctl.field("bad_len"));
  c.bad_dest = v.peek(node, ctl.field("bad_dest"));
  c.tlb_misses = v.peek(node, ctl.field("tlb_misses"));
  c.tlb_fills = v.peek(node, ctl.field("tlb_fills"));
  c.bad_fill = v.peek(node, ctl.field("bad_fill"));
  return c;
}

const Vmmc::Limits& Vmmc::limits() const { return impl_->lcp.limits; }
const assembler::FirmwareImage& Vmmc::lcp() const { return impl_->lcp.image; }
sim::Cluster& Vmmc::cluster() { return impl_->cluster; }

} // namespace lanaikit::vmmc
