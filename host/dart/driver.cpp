#include "host/dart/driver.h"

#include "host/kit/setup.h"
#include "host/kit/sram.h"
#include "vm/chip_regs.h"

#include <stdexcept>
#include <string>

namespace lanaikit::dart {

namespace {
constexpr uint32_t kPageShift = 12;
} // namespace

Driver::Driver(sim::Cluster& cluster, const kit::ImageView& view)
    : cluster_(cluster), view_(view), irq_(cluster, "dart-driver") {
  if (!cluster.atm()) throw std::invalid_argument("dart: the cluster has no ATM network");
  const uint32_t n = cluster.size();
  for (uint32_t i = 0; i < n; ++i)
    send_regs_.push_back(static_cast<SendRegisters*>(
        &cluster.node(i).chip().attach_block(kSendRegistersBase, std::make_unique<SendRegisters>())));
  spaces_.resize(n);
  pinned_.resize(n);
  endpoints_.assign(n, 1); // endpoint 0 stays closed: a zeroed connection names no endpoint
  slots_.assign(n, 0);
  regs_.assign(n, 0);
  events_.resize(n);
  misses_.assign(n, 0);
  for (uint32_t i = 0; i < n; ++i) event_watch_.push_back(std::make_unique<host::WaitList>());
  slot_pages_.resize(n);
  faults_.assign(n, 0);
  ev_tail_.assign(n, 0);
  irq_.on(vm::regs::LAN0_SIG_BIT, [this](host::Process& p, uint32_t node) { return serve(p, node); });
}

Driver::~Driver() = default;

void Driver::poke(uint32_t node, const std::string& path, uint64_t value) {
  kit::poke(cluster_.node(node), view_.ref(path), value);
}

uint32_t Driver::reg_address(uint32_t reg) const {
  return view_.ref("dart_regs[" + std::to_string(reg) + "]").addr();
}

Endpoint Driver::open_endpoint(uint32_t node, host::AddressSpace& space, uint32_t bytes) {
  const uint32_t index = endpoints_.at(node);
  if (index >= view_.constant32("MAX_ENDPOINTS"))
    throw std::invalid_argument("dart: node " + std::to_string(node) + " has no free endpoint");
  uint32_t asid = 0;
  for (const auto& [id, s] : spaces_[node])
    if (s == &space) asid = id;
  if (asid == 0) { // ids from 1: the TLB tag of asid 0 would match a zeroed entry's fields
    asid = uint32_t(spaces_[node].size()) + 1;
    if (asid >= 64) throw std::invalid_argument("dart: node " + std::to_string(node) + " has 63 address spaces already");
    spaces_[node][asid] = &space;
  }
  const host::VirtAddr base = space.map(bytes);
  if (base + bytes > 0xFFFFFFFFull) throw std::invalid_argument("dart: an endpoint must lie below 4 GB");
  endpoints_[node] = index + 1;
  const std::string e = "dart_endpoints[" + std::to_string(index) + "]";
  poke(node, e + ".base", base);
  poke(node, e + ".bound", bytes);
  poke(node, e + ".asid", asid);
  poke(node, e + ".flags", view_.constant32("EP_OPEN"));
  return Endpoint{node, index, asid, uint32_t(base), bytes};
}

uint32_t Driver::alloc_registers(uint32_t node, uint32_t count) {
  if (regs_.at(node) + count > view_.constant32("MAX_REGS"))
    throw std::invalid_argument("dart: node " + std::to_string(node) + " has no " + std::to_string(count) +
                                " free address registers");
  const uint32_t first = regs_[node];
  regs_[node] += count;
  return first;
}

uint32_t Driver::register_value(uint32_t node, uint32_t reg) const {
  return uint32_t(kit::peek(cluster_.node(node), view_.ref("dart_regs[" + std::to_string(reg) + "]")));
}

void Driver::set_register(uint32_t node, uint32_t reg, uint32_t value) {
  poke(node, "dart_regs[" + std::to_string(reg) + "]", value);
}

Connection Driver::connect(const Endpoint& a, const Endpoint& b, uint32_t reg_count, SharedWindows shared) {
  if (a.node == b.node) throw std::invalid_argument("dart: a connection joins two nodes");
  if (next_vci_ + 2 > view_.constant32("MAX_CONNS")) throw std::invalid_argument("dart: no free VCI");
  const uint32_t max_regs = view_.constant32("MAX_REGS");
  const uint32_t max_slots = view_.constant32("SEND_SLOTS");
  for (const auto& [n, at] : {std::pair{a.node, shared.at_a}, std::pair{b.node, shared.at_b}}) {
    if (at ? *at + reg_count > regs_[n] : regs_[n] + reg_count > max_regs)
      throw std::invalid_argument("dart: node " + std::to_string(n) + " has no " + std::to_string(reg_count) +
                                  (at ? " allocated registers from " + std::to_string(*at) : " free address registers"));
    if (slots_[n] >= max_slots) throw std::invalid_argument("dart: node " + std::to_string(n) + " has no free send slot");
  }
  Connection c{a, b};
  c.vci_ab = next_vci_++;
  c.vci_ba = next_vci_++;
  c.reg_count = reg_count;
  c.regs_a = shared.at_a ? *shared.at_a : alloc_registers(a.node, reg_count);
  c.regs_b = shared.at_b ? *shared.at_b : alloc_registers(b.node, reg_count);
  c.slot_a = slots_[a.node]++;
  c.slot_b = slots_[b.node]++;
  // The receiving end of each direction: its connection names its endpoint and window.
  auto open_conn = [&](uint32_t node, uint32_t vci, const Endpoint& ep, uint32_t reg_base, uint32_t reply) {
    const std::string k = "dart_conns[" + std::to_string(vci) + "]";
    poke(node, k + ".endpoint", ep.index);
    poke(node, k + ".reg_base", reg_base);
    poke(node, k + ".reg_count", reg_count);
    poke(node, k + ".reply_vci", reply);
    poke(node, k + ".flags", view_.constant32("CONN_OPEN"));
  };
  open_conn(b.node, c.vci_ab, b, c.regs_b, c.vci_ba);
  open_conn(a.node, c.vci_ba, a, c.regs_a, c.vci_ab);
  auto open_slot = [&](uint32_t node, uint32_t slot, uint32_t vci, const Endpoint& ep) {
    const std::string s = "dart_send_slots[" + std::to_string(slot) + "]";
    poke(node, s + ".vci", vci);
    poke(node, s + ".endpoint", ep.index);
    poke(node, s + ".flags", view_.constant32("SLOT_OPEN"));
  };
  open_slot(a.node, c.slot_a, c.vci_ab, a);
  open_slot(b.node, c.slot_b, c.vci_ba, b);
  cluster_.atm()->connect(a.node, uint16_t(c.vci_ab), b.node, uint16_t(c.vci_ab));
  cluster_.atm()->connect(b.node, uint16_t(c.vci_ba), a.node, uint16_t(c.vci_ba));
  return c;
}

uint32_t Driver::map_send_slot(const Connection& c, bool from_a, const host::AddressSpace& space) {
  const Endpoint& end = from_a ? c.a : c.b;
  const auto owner = spaces_.at(end.node).find(end.asid);
  if (owner == spaces_[end.node].end() || owner->second != &space)
    throw std::invalid_argument("dart: node " + std::to_string(end.node) + ": the address space does not own endpoint " +
                                std::to_string(end.index) + ", whose send slot it asked for");
  const uint32_t slot = from_a ? c.slot_a : c.slot_b;
  const uint32_t page = kSendPages + slot * (1u << kPageShift);
  slot_pages_[end.node][{&space, page}] = slot;
  return page;
}

uint32_t Driver::slot_register(uint32_t node, const host::AddressSpace& space, uint32_t vaddr) {
  const uint32_t page = vaddr & ~((1u << kPageShift) - 1);
  const uint32_t offset = vaddr - page;
  const auto m = slot_pages_.at(node).find({&space, page});
  if (m == slot_pages_[node].end() || offset >= SendRegisters::kSlotBytes || offset % 4 != 0) {
    ++faults_[node];
    throw host::PageFault(vaddr, "a Send Register not mapped in this process's address space (node " +
                                     std::to_string(node) + ")");
  }
  return kSendRegistersBase + m->second * SendRegisters::kSlotBytes + offset;
}

void Driver::send_register_write(host::Process& p, uint32_t node, const host::AddressSpace& space, uint32_t vaddr,
                                 uint32_t value) {
  cluster_.node(node).pio_write_block(p, slot_register(node, space, vaddr), value);
}

host::Process::Awaiter Driver::send_register_read(host::Process& p, uint32_t node, const host::AddressSpace& space,
                                                  uint32_t vaddr, uint32_t& out) {
  return cluster_.node(node).pio_read_block(p, slot_register(node, space, vaddr), out);
}

void Driver::go() {
  for (uint32_t n = 0; n < cluster_.size(); ++n) poke(n, "dart.go", view_.constant32("DART_GO"));
  kit::start(cluster_, &irq_);
}

// The events since the last turn, by PIO. A TLB miss: the page translated in its owner's
// space and pinned while the card maps it, the card's entry filled (frame, then the tag
// that makes it valid), and, once every miss of the turn is served, `resume` set to the
// card's miss count read before the events: each parked cell or send was counted by then.
host::Op<void> Driver::serve(host::Process& p, uint32_t n) {
  sim::Node& node = cluster_.node(n);
  uint32_t head = 0, seq = 0;
  co_await node.pio_read_word(p, view_.ref("dart.ev_head").addr(), head);
  co_await node.pio_read_word(p, view_.ref("dart.miss_seq").addr(), seq);
  const uint32_t ring = view_.constant32("EVENTS");
  const uint32_t tlb_entries = view_.constant32("TLB_ENTRIES");
  bool missed = false;
  for (; ev_tail_[n] != head; ++ev_tail_[n]) {
    const kit::Ref e = view_.ref("dart_events[" + std::to_string(ev_tail_[n] % ring) + "]");
    Event ev;
    co_await node.pio_read_word(p, e.field("kind").addr(), ev.kind);
    co_await node.pio_read_word(p, e.field("vci").addr(), ev.vci);
    co_await node.pio_read_word(p, e.field("a").addr(), ev.a);
    co_await node.pio_read_word(p, e.field("b").addr(), ev.b);
    events_[n].push_back(ev);
    if (ev.kind != view_.constant32("DartEventKind.TLB_MISS")) {
      if (handler_) handler_(n, ev);
      continue;
    }
    const auto s = spaces_[n].find(ev.a);
    if (s == spaces_[n].end()) continue; // no such space: the card stays parked, visibly
    const uint32_t vpage = ev.b >> kPageShift;
    if (pinned_[n].insert({ev.a, vpage}).second) p.advance(s->second->pin(ev.b, 1u << kPageShift));
    const uint32_t frame = uint32_t(s->second->translate(ev.b) >> kPageShift);
    // The same hash as tlb_frame() in dart.fw.
    const uint32_t index = (vpage ^ (ev.a << 4)) & (tlb_entries - 1);
    const kit::Ref entry = view_.ref("dart_tlb[" + std::to_string(index) + "]");
    node.pio_write_word(p, entry.field("frame").addr(), frame);
    node.pio_write_word(p, entry.field("tag").addr(), view_.constant32("TLB_VALID") | ev.a << 20 | vpage);
    ++misses_[n];
    missed = true;
  }
  node.pio_write_word(p, view_.ref("dart.ev_tail").addr(), head);
  if (missed) node.pio_write_word(p, view_.ref("dart.resume").addr(), seq);
  event_watch_[n]->notify();
}

} // namespace lanaikit::dart
