// VMMC host library: the Vmmc (docs/vmmc.md, "Host side"). Set-up of the LCP on every node
// (node index, host memory size, routes, interrupt mask, go), one driver process per node,
// opening endpoints into free process slots, the interface counters, and the host software
// costs taken from the platform. The other concerns are in the files state.h lists.
#include "host/vmmc/state.h"

#include <algorithm>

namespace lanaikit::vmmc {

using namespace detail;

namespace {

constexpr uint32_t kGo = 1;               // VMMC_GO
constexpr uint32_t kNoRoute = 0xFFFFFFFF; // VmmcRoute.len > 8: no route

} // namespace

// ---- VmmcState: the image, untimed SRAM access --------------------------------------------

namespace detail {

VmmcState::VmmcState(sim::Cluster& c, const assembler::FirmwareImage& image, Costs k)
    : cluster(c), lcp(image), costs(std::move(k)), m(resolve(lcp)) {}

uint32_t VmmcState::peek(uint32_t node, uint32_t addr) const {
  uint8_t b[4];
  cluster.node(node).chip().host_read_sram(addr, b);
  return be32(b);
}

void VmmcState::poke(uint32_t node, uint32_t addr, uint32_t value) {
  uint8_t b[4];
  put_be32(b, value);
  cluster.node(node).chip().host_write_sram(addr, b);
}

uint32_t VmmcState::proc_base(uint32_t slot) const { return m.procs + slot * m.proc_size; }

} // namespace detail

// ---- costs --------------------------------------------------------------------------------

Costs costs_from_platform(const sim::Platform& platform) {
  Costs c;
  const std::map<std::string, sim::Time> none;
  const auto& have = platform.host ? platform.host->costs : none;
  auto take = [&](const char* name, sim::Time fallback) {
    const auto it = have.find(name);
    if (it != have.end()) return it->second;
    c.defaulted.emplace_back(name);
    return fallback;
  };
  c.send_post = take("send_post", 0);
  c.daemon_call = take("daemon_call", 20 * sim::kMicrosecond);
  c.control_message = take("control_message", 150 * sim::kMicrosecond);
  c.signal = take("signal", 10 * sim::kMicrosecond);
  c.pin.per_call = take("pin_call", 5 * sim::kMicrosecond);
  c.pin.per_page = take("pin_page", 1 * sim::kMicrosecond);
  return c;
}

// ---- Vmmc ---------------------------------------------------------------------------------

struct Vmmc::Impl : VmmcState {
  using VmmcState::VmmcState;
};

Vmmc::Vmmc(sim::Cluster& cluster, const assembler::FirmwareImage& lcp, Costs costs)
    : impl_(std::make_unique<Impl>(cluster, lcp, std::move(costs))) {
  VmmcState& v = *impl_;
  const Map& m = v.m;
  const uint32_t n = cluster.size();
  if (n > m.limits.max_nodes)
    throw VmmcError("vmmc: " + str(n) + " nodes, the LCP's route table holds " +
                    str(m.limits.max_nodes));
  v.nodes.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    sim::Node& node = cluster.node(i);
    v.nodes[i].node = &node;
    v.nodes[i].slots.assign(m.limits.max_procs, nullptr);
    node.load(v.lcp);
    v.poke(i, m.c_node, i);
    v.poke(i, m.c_host_pages, uint32_t(std::min<uint64_t>(node.memory().pages(), m.limits.ipt_pages)));
    for (uint32_t j = 0; j < m.limits.max_nodes; ++j) {
      const uint32_t at = m.routes + j * m.route_size;
      const std::vector<uint8_t>* route = j < n ? &cluster.network().route(i, j) : nullptr;
      if (route && route->size() <= m.route_max) {
        std::vector<uint8_t> hops(m.route_max, 0); // right-aligned
        std::copy(route->begin(), route->end(), hops.end() - ptrdiff_t(route->size()));
        v.poke(i, at + m.route_len, uint32_t(route->size()));
        node.chip().host_write_sram(at + m.route_hops, hops);
      } else {
        v.poke(i, at + m.route_len, kNoRoute);
      }
    }
    node.chip().host_write_reg(vm::regs::EIMR, kIrqBits);
    v.poke(i, m.c_go, kGo);
  }
  for (uint32_t i = 0; i < n; ++i) {
    sim::Node& node = cluster.node(i);
    node.start();
    VmmcState* vs = &v;
    std::shared_ptr<bool> alive = v.alive;
    node.spawn("vmmc-driver", [vs, i, alive](host::Process& p) { return driver_loop(p, vs, i, alive); });
  }
}

Vmmc::~Vmmc() { *impl_->alive = false; }

Endpoint& Vmmc::open(uint32_t node) {
  VmmcState& v = *impl_;
  const Map& m = v.m;
  if (node >= v.nodes.size())
    throw VmmcError("vmmc: open on node " + str(node) + ", the cluster has " + str(v.nodes.size()));
  NodeState& ns = v.nodes[node];
  const auto free = std::find(ns.slots.begin(), ns.slots.end(), nullptr);
  if (free == ns.slots.end())
    throw VmmcError("vmmc: node " + str(node) + " has no free process slot (MAX_PROCS " +
                    str(m.limits.max_procs) + ")");
  const uint32_t slot = uint32_t(free - ns.slots.begin());
  auto impl = std::make_unique<Endpoint::Impl>(v);
  EpState& e = *impl;
  e.node = node;
  e.slot = slot;
  e.proc = v.proc_base(slot);
  host::AddressSpaceParams ap;
  ap.pin = v.costs.pin;
  e.space = std::make_unique<host::AddressSpace>(ns.node->memory(), ap);
  // The completion word and the notification ring: a pinned page each, in the process.
  e.done_va = e.space->map(kPage);
  (void)e.space->pin(e.done_va, kPage);
  e.done_pa = e.space->translate(e.done_va);
  e.ring_va = e.space->map(kPage);
  (void)e.space->pin(e.ring_va, kPage);
  e.ring_pa = e.space->translate(e.ring_va);
  e.ring_slots = m.limits.notify_slots;
  e.proxy_used.assign(m.limits.opt_pages, false);
  v.poke(node, e.proc + m.p_done_addr, uint32_t(e.done_pa));
  v.poke(node, e.proc + m.p_notify_ring, uint32_t(e.ring_pa));
  v.poke(node, e.proc + m.p_notify_slots, e.ring_slots);
  v.poke(node, e.proc + m.p_notify_consumed, 0);
  v.poke(node, e.proc + m.p_active, 1);
  // The doorbell makes the LCP read the active flags now (docs/vmmc.md, "The LCP"); without
  // it the slot is served at the LCP's next periodic refresh, up to 200 us later.
  ns.node->chip().host_write_reg(vm::regs::HOST_SIG, 0);
  ns.slots[slot] = &e;
  v.endpoints.push_back(std::unique_ptr<Endpoint>(new Endpoint(std::move(impl))));
  return *v.endpoints.back();
}

Vmmc::InterfaceCounters Vmmc::counters(uint32_t node) const {
  const VmmcState& v = *impl_;
  const Map& m = v.m;
  InterfaceCounters c{};
  c.sent = v.peek(node, m.c_sent);
  c.received = v.peek(node, m.c_received);
  c.bad_crc = v.peek(node, m.c_bad_crc);
  c.bad_magic = v.peek(node, m.c_bad_magic);
  c.bad_len = v.peek(node, m.c_bad_len);
  c.bad_dest = v.peek(node, m.c_bad_dest);
  c.tlb_misses = v.peek(node, m.c_tlb_misses);
  c.tlb_fills = v.peek(node, m.c_tlb_fills);
  c.bad_fill = m.c_bad_fill ? v.peek(node, *m.c_bad_fill) : 0;
  return c;
}

const Vmmc::Limits& Vmmc::limits() const { return impl_->m.limits; }
const assembler::FirmwareImage& Vmmc::lcp() const { return impl_->lcp; }
sim::Cluster& Vmmc::cluster() { return impl_->cluster; }

} // namespace lanaikit::vmmc
