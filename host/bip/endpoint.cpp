// BIP host library: the Endpoint, a node's BIP process (docs/bip.md, "Host library"):
// send (copied, DMAed or long), receive (from the tag's ring or posted to the MCP), their
// non-blocking forms, the pin cache, the MCP's counters.
//
// GCC 12 destroys a lambda temporary written inside a co_await expression twice: every
// condition waited on is a named std::function built outside the co_await.
#include "host/bip/state.h"

#include "host/kit/setup.h"
#include "host/kit/sram.h"

#include <algorithm>

namespace lanaikit::bip {

using namespace detail;

namespace detail {

EpState::EpState(BipState& state, uint32_t n) : b(state), node(n), taken(state.mcp.max_tags, 0) {
  host::AddressSpaceParams ap;
  ap.pin = b.costs.pin;
  space = std::make_unique<host::AddressSpace>(b.cluster.node(n).memory(), ap);
}

sim::Node& EpState::node_ref() { return b.cluster.node(node); }

void EpState::check_process(const host::Process& p) {
  if (&p == checked) return;
  if (const auto i = kit::node_of(b.cluster, p); i && *i != node)
    throw BipError("bip: process '" + p.name() + "' runs on node " + str(*i) + ", the endpoint is node " +
                   str(node) + "'s");
  checked = &p;
}

uint32_t EpState::mem32(host::PhysAddr a) const {
  uint8_t w[4];
  space->memory().read(a, w);
  return load_be32(w);
}

void EpState::check_buffer(VirtAddr va, uint64_t len, const char* what) const {
  if (va % 4 != 0 || len % 4 != 0)
    throw BipError(std::string("bip: ") + what + " buffer " + hex(va) + " of " + str(len) +
                   " bytes: BIP data must be 4-byte aligned and a multiple of 4 bytes long");
  for (uint64_t off = 0; off < len; off += host::kPageSize - (va + off) % host::kPageSize)
    if (!space->is_mapped(va + off))
      throw BipError(std::string("bip: ") + what + " buffer " + hex(va) + " of " + str(len) +
                     " bytes is not mapped at " + hex(va + off));
}

std::vector<std::pair<host::PhysAddr, uint32_t>> EpState::pieces(host::Process& p, VirtAddr va,
                                                                         uint32_t len) {
  std::vector<std::pair<host::PhysAddr, uint32_t>> out;
  uint64_t off = 0;
  while (off < len) {
    const VirtAddr at = va + off;
    const uint64_t vpage = at / host::kPageSize;
    auto it = pinned.find(vpage);
    if (it == pinned.end()) {
      // First use: pin the rest of the buffer's unpinned pages in one call (a system
      // call of the BIP module); the translations stay cached here after.
      uint64_t first = vpage, last = (va + len - 1) / host::kPageSize;
      while (last > first && pinned.count(last)) --last;
      p.advance(space->pin(first * host::kPageSize, (last - first + 1) * host::kPageSize));
      ++pin_calls;
      for (uint64_t v = first; v <= last; ++v)
        if (!pinned.count(v)) pinned.emplace(v, space->translate(v * host::kPageSize));
      it = pinned.find(vpage);
    }
    const uint32_t in_page = uint32_t(at % host::kPageSize);
    const uint32_t n = uint32_t(std::min<uint64_t>(len - off, host::kPageSize - in_page));
    out.emplace_back(it->second + in_page, n);
    off += n;
  }
  return out;
}

void EpState::write_list(host::PhysAddr list, const std::vector<std::pair<host::PhysAddr, uint32_t>>& blocks) {
  if (blocks.size() > list_entries)
    throw BipError("bip: a message of " + str(blocks.size()) + " pieces; the block list holds " + str(list_entries));
  std::vector<uint8_t> bytes(blocks.size() * 8);
  for (size_t i = 0; i < blocks.size(); ++i) {
    store_be32(bytes.data() + 8 * i, uint32_t(blocks[i].first));
    store_be32(bytes.data() + 8 * i + 4, blocks[i].second);
  }
  space->memory().write(list, bytes);
}

host::PhysAddr EpState::slot_addr(uint32_t tag, uint32_t index) const {
  return rings + (uint64_t(tag) * b.ring_slots + (index - 1) % b.ring_slots) * b.slot_bytes;
}

bool EpState::ring_has(uint32_t tag) const {
  const uint32_t want = taken[tag] + 1;
  return mem32(slot_addr(tag, want) + b.mcp.h_index) == want;
}

bool EpState::ring_retires(uint32_t tag, uint32_t seq) const {
  return ring_has(tag) && mem32(slot_addr(tag, taken[tag] + 1) + b.mcp.h_retires) == seq;
}

SendResult EpState::send_result() const {
  SendResult r;
  r.seq = pending;
  r.copied = pending_copied;
  r.packet = pending_packet;
  r.ok = true;
  if (mem32(send_done + b.mcp.sd_failed) != 0 && mem32(send_done + b.mcp.sd_last_failed) == pending) {
    r.ok = false;
    r.error = "send " + str(pending) + " was refused by its receiver: no receive was posted for the long message (ready mode)";
  }
  return r;
}

// Copies the next message of `tag`'s ring into the user's buffer and gives its slot back.
host::Op<RecvResult> EpState::take_ring(host::Process& p, uint32_t tag, VirtAddr va, uint32_t maxlen) {
  const host::PhysAddr slot = slot_addr(tag, taken[tag] + 1);
  RecvResult r;
  r.ok = true;
  r.from_ring = true;
  r.src = mem32(slot + b.mcp.h_src);
  r.len = mem32(slot + b.mcp.h_len);
  r.received = std::min(r.len, maxlen);
  r.truncated = r.len > maxlen;
  if (r.received) {
    std::vector<uint8_t> data(r.received);
    space->memory().read(slot + b.mcp.header_bytes, data);
    space->copy_in(va, data);
    p.advance(b.costs.copy(r.received));
  }
  ++taken[tag];
  node_ref().pio_write_word(p, b.mcp.tag_taken + 4 * tag, taken[tag]);
  co_return r;
}

} // namespace detail

Endpoint::Endpoint(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Endpoint::~Endpoint() = default;

uint32_t Endpoint::mynode() const { return impl_->node; }
uint32_t Endpoint::numnodes() const { return impl_->b.cluster.size(); }
sim::Node& Endpoint::node() { return impl_->node_ref(); }
host::AddressSpace& Endpoint::space() { return *impl_->space; }
VirtAddr Endpoint::alloc(uint64_t bytes) { return impl_->space->map(bytes); }
void Endpoint::write(VirtAddr va, std::span<const uint8_t> bytes) { impl_->space->copy_in(va, bytes); }
std::vector<uint8_t> Endpoint::read(VirtAddr va, uint64_t len) {
  std::vector<uint8_t> out(len);
  impl_->space->copy_out(va, out);
  return out;
}
uint64_t Endpoint::pinned_pages() const { return impl_->pinned.size(); }
uint64_t Endpoint::pin_calls() const { return impl_->pin_calls; }

// ---- send ---------------------------------------------------------------------------------

host::Op<uint32_t> Endpoint::isend(host::Process& p, uint32_t dest, uint32_t tag, VirtAddr va, uint32_t len) {
  Impl& e = *impl_;
  const Mcp& m = e.b.mcp;
  e.check_process(p);
  if (e.pending != 0 && !send_done())
    throw BipError("bip: send " + str(e.pending) + " is still pending (one send at a time): wait for it first");
  if (dest >= numnodes()) throw BipError("bip: send to node " + str(dest) + ", there are " + str(numnodes()));
  if (tag >= m.max_tags) throw BipError("bip: tag " + str(tag) + " (tags are 0.." + str(m.max_tags - 1) + ")");
  e.check_buffer(va, len, "send");
  sim::Node& node = e.node_ref();
  // A free send slot: the MCP's record says which sends are complete.
  const uint32_t seq = e.posted + 1;
  const std::function<bool()> slot_free = [&e, seq, &m] {
    return seq - e.mem32(e.send_done + m.sd_consumed) <= m.send_slots;
  };
  if (!slot_free()) co_await p.wait(node.memory_watch(), slot_free);
  const uint32_t slot = m.sendq[(seq - 1) & (m.send_slots - 1)].addr();
  const Bip::Limits& lim = e.b.limits;
  uint32_t kind, packet = 0;
  if (len <= lim.copy_max) {
    kind = m.send_copy;
    std::vector<uint8_t> data(len);
    e.space->copy_out(va, data);
    if (len) node.pio_write(p, slot + m.s_data, data);
  } else if (len <= m.short_max) {
    kind = m.send_dma;
    const auto pcs = e.pieces(p, va, len);
    node.pio_write_word(p, slot + m.d_addr0, uint32_t(pcs[0].first));
    node.pio_write_word(p, slot + m.d_len0, pcs[0].second);
    if (pcs.size() > 1) node.pio_write_word(p, slot + m.d_addr1, uint32_t(pcs[1].first));
  } else {
    kind = m.send_long;
    // The first two pieces go in the descriptor; the MCP reads the list from the third.
    const auto pcs = e.pieces(p, va, len);
    if (pcs.size() > 2) e.write_list(e.send_list, pcs);
    packet = e.b.options.packet ? e.b.options.packet : e.b.model->best_packet(len);
    node.pio_write_word(p, slot + m.d_addr0, uint32_t(pcs[0].first));
    node.pio_write_word(p, slot + m.d_len0, pcs[0].second);
    if (pcs.size() > 1) {
      node.pio_write_word(p, slot + m.d_addr1, uint32_t(pcs[1].first));
      node.pio_write_word(p, slot + m.d_len1, pcs[1].second);
    }
    if (pcs.size() > 2) node.pio_write_word(p, slot + m.d_list, uint32_t(e.send_list));
    node.pio_write_word(p, slot + m.d_nblocks, uint32_t(pcs.size()));
    node.pio_write_word(p, slot + m.d_pkt, packet);
  }
  node.pio_write_word(p, slot + m.d_head, (dest << m.dest_shift) | (tag << m.tag_shift) | (kind << m.kind_shift));
  node.pio_write_word(p, slot + m.d_len, len);
  node.pio_write_word(p, slot + m.d_seq, seq); // published last (docs/protocols.md, queues)
  p.advance(e.b.costs.send_post);
  e.posted = seq;
  e.pending = seq;
  e.pending_copied = kind == m.send_copy;
  e.pending_packet = packet;
  co_return seq;
}

bool Endpoint::send_done() const {
  const Impl& e = *impl_;
  if (e.pending == 0 || e.pending_copied) return true;
  return int32_t(e.mem32(e.send_done + e.b.mcp.sd_consumed) - e.pending) >= 0;
}

uint32_t Endpoint::sends_in_flight() const {
  const Impl& e = *impl_;
  return e.posted - e.mem32(e.send_done + e.b.mcp.sd_consumed);
}

host::Op<SendResult> Endpoint::wait_send(host::Process& p) {
  Impl& e = *impl_;
  e.check_process(p);
  if (e.pending == 0) throw BipError("bip: wait_send with no send posted");
  const std::function<bool()> done = [this] { return send_done(); };
  if (!done()) co_await p.wait(e.node_ref().memory_watch(), done);
  co_return e.send_result();
}

host::Op<SendResult> Endpoint::send(host::Process& p, uint32_t dest, uint32_t tag, VirtAddr va, uint32_t len) {
  (void)co_await isend(p, dest, tag, va, len);
  co_return co_await wait_send(p);
}

// ---- receive ------------------------------------------------------------------------------

host::Op<void> Endpoint::irecv(host::Process& p, uint32_t tag, VirtAddr va, uint32_t maxlen) {
  Impl& e = *impl_;
  const Mcp& m = e.b.mcp;
  e.check_process(p);
  if (e.recv_pending) throw BipError("bip: a receive is still pending (one at a time): wait for it first");
  if (tag >= m.max_tags) throw BipError("bip: tag " + str(tag) + " (tags are 0.." + str(m.max_tags - 1) + ")");
  e.check_buffer(va, maxlen, "receive");
  e.recv_pending = true;
  e.recv_tag = tag;
  e.recv_va = va;
  e.recv_maxlen = maxlen;
  p.advance(e.b.costs.recv_post);
  e.recv_posted = !e.ring_has(tag);
  if (!e.recv_posted) co_return; // a message is waiting in the ring: no need for the MCP
  // Post it: the buffer's pieces (pinned on first use), then the descriptor, seq last.
  // Fields equal to what the slot already holds are not written again.
  sim::Node& node = e.node_ref();
  std::vector<std::pair<host::PhysAddr, uint32_t>> pcs;
  if (maxlen) pcs = e.pieces(p, va, maxlen);
  if (pcs.size() > 2) e.write_list(e.recv_list, pcs);
  auto piece = [&](size_t i, bool len) -> uint32_t {
    if (i >= pcs.size()) return 0;
    return len ? pcs[i].second : uint32_t(pcs[i].first);
  };
  const std::array<uint32_t, 9> desc = {tag, maxlen, e.taken[tag], piece(0, false), piece(0, true),
                                        piece(1, false), piece(1, true), uint32_t(e.recv_list),
                                        uint32_t(pcs.size())};
  const std::array<uint32_t, 9> addr = {m.r_tag,   m.r_maxlen, m.r_taken, m.r_addr0,  m.r_len0,
                                        m.r_addr1, m.r_len1,   m.r_list,  m.r_nblocks};
  for (size_t i = 0; i < desc.size(); ++i)
    if (!e.desc_written || e.last_desc[i] != desc[i]) node.pio_write_word(p, addr[i], desc[i]);
  e.last_desc = desc;
  e.desc_written = true;
  ++e.rseq;
  node.pio_write_word(p, m.r_seq, e.rseq);
}

bool Endpoint::recv_done() {
  Impl& e = *impl_;
  if (!e.recv_pending) return true;
  if (!e.recv_posted) return true;
  return e.mem32(e.recv_done + e.b.mcp.rd_seq) == e.rseq || e.ring_retires(e.recv_tag, e.rseq);
}

bool Endpoint::probe(uint32_t tag) const {
  const Impl& e = *impl_;
  if (tag >= e.b.mcp.max_tags) throw BipError("bip: probe of tag " + str(tag) + " (tags are 0.." + str(e.b.mcp.max_tags - 1) + ")");
  return e.ring_has(tag);
}

host::Op<RecvResult> Endpoint::wait_recv(host::Process& p) {
  Impl& e = *impl_;
  const Mcp& m = e.b.mcp;
  e.check_process(p);
  if (!e.recv_pending) throw BipError("bip: wait_recv with no receive posted");
  const std::function<bool()> done = [this] { return recv_done(); };
  if (!done()) co_await p.wait(e.node_ref().memory_watch(), done);
  e.recv_pending = false;
  const uint32_t tag = e.recv_tag;
  // The ring's next message: waiting before the post, completing it there, or named by the
  // MCP's record (Rv.IN_RING: it arrived between the host's look and the post).
  const bool by_record = e.recv_posted && e.mem32(e.recv_done + m.rd_seq) == e.rseq;
  const uint32_t status = by_record ? e.mem32(e.recv_done + m.rd_status) : m.rv_in_ring;
  if (status == m.rv_in_ring) co_return co_await e.take_ring(p, tag, e.recv_va, e.recv_maxlen);
  RecvResult r;
  r.src = e.mem32(e.recv_done + m.rd_src);
  r.len = e.mem32(e.recv_done + m.rd_len);
  r.received = std::min(r.len, e.recv_maxlen);
  r.truncated = status == m.rv_truncated;
  r.ok = status == m.rv_ok || status == m.rv_truncated;
  if (!r.ok) {
    r.received = 0;
    r.error = status == m.rv_lost
                  ? "the message from node " + str(r.src) + " lost a packet (or its sender stopped): the buffer holds part of it"
                  : "the MCP answered the receive with status " + str(status) + " (tag out of range?)";
  }
  co_return r;
}

host::Op<RecvResult> Endpoint::recv(host::Process& p, uint32_t tag, VirtAddr va, uint32_t maxlen) {
  co_await irecv(p, tag, va, maxlen);
  co_return co_await wait_recv(p);
}

// ---- counters -----------------------------------------------------------------------------

Endpoint::Counters Endpoint::counters() const {
  const Impl& e = *impl_;
  sim::Node& node = const_cast<Impl&>(e).node_ref();
  auto f = [&](const char* name) { return uint32_t(kit::peek(node, e.b.mcp.ctl.field(name))); };
  return {f("send_consumed"), f("sent"),       f("received"),     f("short_ring"), f("short_direct"),
          f("long_msgs"),     f("credit_packets"), f("credit_waits"), f("bad_send"), f("bad_crc"),
          f("bad_magic"),     f("bad_len"),    f("lost"),         f("stale"),      f("not_posted"),
          f("dropped"),       f("truncated"),  f("ring_overflow"), f("nacked")};
}

} // namespace lanaikit::bip
