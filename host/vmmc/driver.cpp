// VMMC host library: the driver (docs/vmmc.md, "The driver"). One host process per node
// answers the LCP's interrupts: a TLB miss (LAN0) is served by pinning and translating
// pages and writing the fills by PIO; notifications (LAN1) are read from every endpoint's
// ring in host memory, mapped back to the export they landed in and delivered.
#include "host/vmmc/state.h"

#include <algorithm>

namespace lanaikit::vmmc::detail {

// The kit's driver skeleton runs one process per node; VMMC owns LAN0 (a TLB miss) and
// LAN1 (notifications), and scans every endpoint's ring on every turn: a record whose
// LAN1_SIG an acknowledgement wiped out is found on the next turn (kit/driver.h).
void VmmcState::install_driver() {
  driver.on(vm::regs::LAN0_SIG_BIT, [this](host::Process& p, uint32_t n) { return serve_miss(p, n); });
  driver.on(vm::regs::LAN1_SIG_BIT);
  driver.every_turn([this](host::Process& p, uint32_t n) { return serve_notifications(p, n); });
}

// A TLB miss: the mailbox by PIO, pin and translate up to FILL_MAX pages, the fills by PIO,
// fill_seq, HOST_SIG.
host::Op<void> VmmcState::serve_miss(host::Process& p, uint32_t n) {
  NodeState& ns = nodes[n];
  sim::Node& node = *ns.node;
  uint32_t seq = 0, proc = 0, vpage = 0, pages = 0;
  co_await node.pio_read_word(p, lcp.miss_seq, seq);
  if (seq == ns.last_fill_seq) co_return; // answered already
  co_await node.pio_read_word(p, lcp.miss_proc, proc);
  co_await node.pio_read_word(p, lcp.miss_vpage, vpage);
  co_await node.pio_read_word(p, lcp.miss_pages, pages);
  std::vector<std::pair<uint32_t, uint32_t>> fills;
  EpState* e = proc < ns.slots.size() ? ns.slots[proc] : nullptr;
  if (e) {
    // Locks and translates every page it hands over (the cost counts them all, as
    // AddressSpace::pin does: the kernel walks each); a page is pinned once per process.
    const uint32_t want = std::clamp<uint32_t>(pages, 1, lcp.limits.fill_max);
    for (uint32_t i = 0; i < want; ++i) {
      const uint64_t vp = uint64_t(vpage) + i;
      const VirtAddr va = vp << host::kPageShift;
      if (!e->space->is_mapped(va)) break;
      if (e->driver_pinned.insert(vp).second) (void)e->space->pin(va, lcp.page); // charged below
      fills.emplace_back(uint32_t(vp), uint32_t(e->space->translate(va) >> host::kPageShift));
    }
    if (!fills.empty()) p.advance(costs.pin.of(fills.size()));
  }
  std::vector<uint8_t> buf(fills.size() * lcp.fill_size, 0);
  for (size_t i = 0; i < fills.size(); ++i) {
    store_be32(&buf[i * lcp.fill_size + lcp.fill_vpage], fills[i].first);
    store_be32(&buf[i * lcp.fill_size + lcp.fill_ppage], fills[i].second);
  }
  if (!buf.empty()) node.pio_write(p, lcp.fill, buf);
  node.pio_write_word(p, lcp.fill_proc, proc);
  node.pio_write_word(p, lcp.fill_count, uint32_t(fills.size()));
  node.pio_write_word(p, lcp.fill_seq, seq);
  node.pio_write_reg(p, vm::regs::HOST_SIG, seq);
  ns.last_fill_seq = seq;
}

// Notifications: every endpoint's ring in host memory; each record costs Costs::signal,
// then its handler runs (as an event at the driver's time) and notify_consumed is written
// by PIO.
host::Op<void> VmmcState::serve_notifications(host::Process& p, uint32_t n) {
  NodeState& ns = nodes[n];
  sim::Node& node = *ns.node;
  std::vector<uint8_t> rec;
  for (uint32_t slot = 0; slot < ns.slots.size(); ++slot) {
    EpState* e = ns.slots[slot];
    if (!e) continue;
    while (e->ring->next(node.memory(), rec)) {
      Notification note;
      note.src_node = load_be32(&rec[lcp.note_src]);
      note.len = load_be32(&rec[lcp.note_len]);
      const uint32_t addr = load_be32(&rec[lcp.note_addr]); // the message's last byte
      const auto owner = ns.page_owner.find(addr >> host::kPageShift);
      if (owner != ns.page_owner.end()) {
        note.export_id = owner->second.first;
        const uint32_t last = owner->second.second * lcp.page + (addr & (lcp.page - 1));
        note.offset = note.len && note.len <= last + 1 ? last + 1 - note.len : 0;
      } else {
        note.export_id = 0; // not in an export of this node: offset is the physical address
        note.offset = addr;
      }
      p.advance(costs.signal);
      p.post([e, note, alive = alive] {
        if (*alive) e->deliver(note);
      });
      // The slot is free again once its handler ran (one posted write per notification, so
      // a long backlog frees slots as it goes instead of at its end).
      node.pio_write_word(p, e->notify_consumed, e->ring->taken());
    }
  }
  co_return;
}

void EpState::deliver(const Notification& n) {
  if (handler) handler(n);
  else {
    notes.push_back(n);
    notes_watch.notify();
  }
}

} // namespace lanaikit::vmmc::detail
