// VMMC host library: the driver (docs/vmmc.md, "The driver"). One host process per node
// answers the LCP's interrupts: a TLB miss (LAN0) is served by pinning and translating
// pages and writing the fills by PIO; notifications (LAN1) are read from every endpoint's
// ring in host memory, mapped back to the export they landed in and delivered.
#include "host/vmmc/state.h"

#include <algorithm>

namespace lanaikit::vmmc::detail {

// GCC 12 destroys a lambda temporary written inside a co_await expression twice (a
// capture with a destructor, e.g. a shared_ptr, is released twice): every condition a
// coroutine here waits on is a named std::function, built outside the co_await.
//
// One per node: waits for the interrupt, reads ISR, acknowledges (W1C, the bits it saw),
// serves. Loops until ISR shows nothing of ours, so bits that rise while it works are not
// lost. The notification rings are scanned on every turn, after the ISR read: that read
// comes after the previous turn's acknowledgement on the bus, so a record whose LAN1_SIG
// the acknowledgement wiped out (raised between the driver's ISR read and its write
// landing) is in host memory by then and found. Scanning an empty ring costs nothing.
host::Task driver_loop(host::Process& p, VmmcState* v, uint32_t n, std::shared_ptr<bool> alive) {
  sim::Node& node = v->cluster.node(n);
  uint64_t seen = 0;
  const std::function<bool()> interrupted = [&node, &seen, alive] {
    return *alive && node.interrupts_delivered() != seen;
  };
  for (;;) {
    co_await p.wait(node.interrupt_watch(), interrupted);
    seen = node.interrupts_delivered();
    for (;;) {
      uint32_t isr = 0;
      co_await node.pio_read_reg(p, vm::regs::ISR, isr);
      const uint32_t bits = isr & kIrqBits;
      if (bits) node.pio_write_reg(p, vm::regs::ISR, bits); // W1C
      if (bits & vm::regs::LAN0_SIG_BIT) co_await v->serve_miss(p, n);
      co_await v->serve_notifications(p, n);
      if (!bits) break;
    }
  }
}

// A TLB miss: the mailbox by PIO, pin and translate up to FILL_MAX pages, the fills by PIO,
// fill_seq, HOST_SIG.
host::Op<void> VmmcState::serve_miss(host::Process& p, uint32_t n) {
  NodeState& ns = nodes[n];
  sim::Node& node = *ns.node;
  uint32_t seq = 0, proc = 0, vpage = 0, pages = 0;
  co_await node.pio_read_word(p, m.c_miss_seq, seq);
  if (seq == ns.last_fill_seq) co_return; // answered already
  co_await node.pio_read_word(p, m.c_miss_proc, proc);
  co_await node.pio_read_word(p, m.c_miss_vpage, vpage);
  co_await node.pio_read_word(p, m.c_miss_pages, pages);
  std::vector<std::pair<uint32_t, uint32_t>> fills;
  EpState* e = proc < ns.slots.size() ? ns.slots[proc] : nullptr;
  if (e) {
    // Locks and translates every page it hands over (the cost counts them all, as
    // AddressSpace::pin does: the kernel walks each); a page is pinned once per process.
    const uint32_t want = std::clamp<uint32_t>(pages, 1, m.limits.fill_max);
    for (uint32_t i = 0; i < want; ++i) {
      const uint64_t vp = uint64_t(vpage) + i;
      const VirtAddr va = vp << host::kPageShift;
      if (!e->space->is_mapped(va)) break;
      if (e->driver_pinned.insert(vp).second) (void)e->space->pin(va, kPage); // charged below
      fills.emplace_back(uint32_t(vp), uint32_t(e->space->translate(va) >> host::kPageShift));
    }
    if (!fills.empty()) p.advance(costs.pin.of(fills.size()));
  }
  std::vector<uint8_t> buf(fills.size() * m.fill_size, 0);
  for (size_t i = 0; i < fills.size(); ++i) {
    put_be32(&buf[i * m.fill_size + m.f_vpage], fills[i].first);
    put_be32(&buf[i * m.fill_size + m.f_ppage], fills[i].second);
  }
  if (!buf.empty()) node.pio_write(p, m.c_fill, buf);
  node.pio_write_word(p, m.c_fill_proc, proc);
  node.pio_write_word(p, m.c_fill_count, uint32_t(fills.size()));
  node.pio_write_word(p, m.c_fill_seq, seq);
  node.pio_write_reg(p, vm::regs::HOST_SIG, seq);
  ns.last_fill_seq = seq;
}

// Notifications: every endpoint's ring in host memory; each record costs Costs::signal,
// then its handler runs (as an event at the driver's time) and notify_consumed is written
// by PIO.
host::Op<void> VmmcState::serve_notifications(host::Process& p, uint32_t n) {
  NodeState& ns = nodes[n];
  sim::Node& node = *ns.node;
  std::vector<uint8_t> rec(m.note_size);
  for (uint32_t slot = 0; slot < ns.slots.size(); ++slot) {
    EpState* e = ns.slots[slot];
    if (!e) continue;
    for (;;) {
      const host::PhysAddr at = e->ring_pa + uint64_t(e->notes_taken % e->ring_slots) * m.note_size;
      node.memory().read(at, rec);
      if (be32(&rec[m.n_index]) != e->notes_taken + 1) break;
      ++e->notes_taken;
      Notification note;
      note.src_node = be32(&rec[m.n_src]);
      note.len = be32(&rec[m.n_len]);
      const uint32_t addr = be32(&rec[m.n_addr]); // the message's last byte
      const auto owner = ns.page_owner.find(addr >> host::kPageShift);
      if (owner != ns.page_owner.end()) {
        note.export_id = owner->second.first;
        const uint32_t last = owner->second.second * kPage + (addr & (kPage - 1));
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
      node.pio_write_word(p, proc_base(slot) + m.p_notify_consumed, e->notes_taken);
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
