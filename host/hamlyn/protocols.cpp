#include "host/hamlyn/protocols.h"

#include "base/bytes.h"

#include <algorithm>

namespace lanaikit::hamlyn {

namespace {

sim::Time minus(sim::Time a, sim::Time b) { return a > b ? a - b : 0; }

void put32s(sim::Node& node, uint64_t at, std::initializer_list<uint32_t> words) {
  std::vector<uint8_t> b(4 * words.size());
  size_t i = 0;
  for (uint32_t w : words) store_be32(&b[4 * i++], w);
  node.memory().write(at, b);
}

uint32_t get32(sim::Node& node, uint64_t at) {
  uint8_t b[4];
  node.memory().read(at, b);
  return load_be32(b);
}

// Waits until `h` is released (its buffers may be written again).
host::Op<void> wait_released(host::Process& p, Application& app, Handle h) {
  if (h.seq == 0) co_return;
  const std::function<bool()> done = [&app, h] { return app.released(h); };
  co_await p.sync();
  if (!done()) co_await p.wait(app.host().memory_watch(), done);
}

} // namespace

// ---------------------------------------------------------------- the manager

Manager::Manager(Application& app, uint32_t buffer_bytes) : app_(app), pool_(app.alloc_send(buffer_bytes)) {}

uint64_t Manager::alloc(uint32_t bytes) {
  const uint32_t n = (bytes + 7) & ~7u;
  if (n > pool_.bytes - used_)
    throw HamlynError("Manager::alloc: " + std::to_string(bytes) + " bytes, " +
                      std::to_string(pool_.bytes - used_) + " left in the send buffer");
  const uint64_t a = pool_.addr + used_;
  used_ += n;
  return a;
}

void Manager::attach(uint32_t slot, Receiver* r) { receivers_[slot] = r; }

host::Op<bool> Manager::poll_nowait(host::Process& p) {
  std::optional<Notification> n = co_await app_.h_recv(p);
  if (!n) co_return false;
  auto it = receivers_.find(n->slot);
  if (it == receivers_.end()) ++unclaimed_;
  else it->second->process_arrival(*n);
  co_return true;
}

host::Op<bool> Manager::poll(host::Process& p, sim::Time timeout) {
  std::optional<Notification> n = co_await app_.h_recv_block(p, timeout);
  if (!n) co_return false;
  auto it = receivers_.find(n->slot);
  if (it == receivers_.end()) ++unclaimed_;
  else it->second->process_arrival(*n);
  co_return true;
}

// Polls `m` until `ready()` or the deadline; returns ready().
static host::Op<bool> poll_until(host::Process& p, Manager& m, sim::Time deadline,
                                 const std::function<bool()>& ready) {
  while (!ready()) {
    if (p.local() >= deadline) co_return false;
    co_await m.poll(p, deadline - p.local());
  }
  co_return true;
}

// ---------------------------------------------------------------- datagram

DatagramReceiver::DatagramReceiver(Manager& m, uint32_t area_bytes, uint32_t entries)
    : m_(m), slot_(m.app().open_slot(area_bytes, entries)), ready_(entries) {
  m_.attach(slot_, this);
}

Ticket DatagramReceiver::ticket(uint32_t entry, uint32_t base, uint32_t bound) const {
  return m_.app().ticket(slot_, entry, base, bound);
}

uint64_t DatagramReceiver::area() const { return m_.app().slot(slot_).area.addr; }

void DatagramReceiver::process_arrival(const Notification& n) {
  if (n.fast() || n.meta_index >= ready_.size()) return;
  sim::Node& node = m_.app().host();
  Datagram d;
  d.offset = get32(node, n.meta_addr);
  d.len = get32(node, n.meta_addr + 4);
  if (get32(node, n.meta_addr + 8) != 0) {
    std::vector<uint8_t> b(Ticket::kBytes);
    node.memory().read(n.meta_addr + 12, b);
    d.reply = Ticket::decode(b);
  }
  ready_[n.meta_index] = d;
}

host::Op<std::optional<Datagram>> DatagramReceiver::receive(host::Process& p, uint32_t entry, sim::Time timeout) {
  if (entry >= ready_.size()) throw HamlynError("DatagramReceiver::receive: no entry " + std::to_string(entry));
  const std::function<bool()> ready = [this, entry] { return ready_[entry].has_value(); };
  const bool ok = co_await poll_until(p, m_, p.local() + timeout, ready);
  if (!ok) co_return std::nullopt;
  p.advance(m_.app().costs().proto_call);
  std::optional<Datagram> d = std::move(ready_[entry]);
  ready_[entry].reset();
  co_return d;
}

host::Op<Handle> DatagramSender::send(host::Process& p, const Ticket& t, uint64_t data, uint32_t len,
                                      const std::optional<Ticket>& reply) {
  co_await wait_released(p, m_.app(), last_);
  sim::Node& node = m_.app().host();
  put32s(node, meta_, {t.base, len, reply ? 1u : 0u});
  uint32_t meta_len = 12;
  if (reply) {
    const auto b = reply->encode();
    node.memory().write(meta_ + 12, b);
    meta_len += Ticket::kBytes;
  }
  p.advance(m_.app().costs().proto_call);
  last_ = co_await m_.app().h_send_msg(p, t, data, len, meta_, meta_len);
  co_return last_;
}

// ---------------------------------------------------------------- stream

StreamReceiver::StreamReceiver(Manager& m, uint32_t ring_bytes, uint32_t tickets)
    : m_(m), slot_(m.app().open_slot(ring_bytes, tickets)), tickets_(tickets) {
  m_.attach(slot_, this);
}

Seed StreamReceiver::make_seed() const {
  return Seed{m_.app().ticket(slot_, 0, 0, m_.app().slot(slot_).area.bytes), tickets_};
}

void StreamReceiver::process_arrival(const Notification& n) {
  if (n.fast()) return;
  sim::Node& node = m_.app().host();
  Record r;
  r.seq = get32(node, n.meta_addr);
  r.start = m_.app().slot(slot_).area.addr + get32(node, n.meta_addr + 4);
  r.len = get32(node, n.meta_addr + 8);
  if (r.seq != next_ + uint32_t(arrived_.size())) ++out_of_order_;
  arrived_[r.seq] = r;
}

host::Op<std::optional<Record>> StreamReceiver::receive(host::Process& p, sim::Time timeout) {
  const std::function<bool()> ready = [this] { return arrived_.count(next_) != 0; };
  const bool ok = co_await poll_until(p, m_, p.local() + timeout, ready);
  if (!ok) co_return std::nullopt;
  p.advance(m_.app().costs().proto_call);
  auto it = arrived_.find(next_);
  Record r = it->second;
  arrived_.erase(it);
  ++next_;
  co_return r;
}

host::Op<void> StreamReceiver::release(host::Process& p, uint32_t seq) {
  if (ack_.bound == 0 && ack_.key == 0) throw HamlynError("StreamReceiver::release: no sender accepted");
  p.advance(m_.app().costs().proto_call);
  co_await m_.app().h_send_msg(p, ack_, 0, 0, 0, 0, seq);
}

StreamSender::StreamSender(Manager& m, const Seed& seed, uint32_t coalesce, uint32_t stage_bytes)
    : m_(m), seed_(seed), coalesce_(coalesce), stage_(m.alloc(stage_bytes)), stage_bytes_(stage_bytes),
      meta_(m.alloc(16 * std::max<uint32_t>(seed.tickets, 1))), ack_slot_(m.app().open_slot(4096, 0)) {
  if (seed_.tickets == 0) throw HamlynError("StreamSender: the seed has no tickets");
  m_.attach(ack_slot_, this);
}

Ticket StreamSender::ack_ticket() const { return m_.app().ticket(ack_slot_, Ticket::kFastIndex, 0, 0); }

void StreamSender::process_arrival(const Notification& n) {
  if (!n.fast()) return;
  if (int32_t(n.fast_word - released_) > 0) released_ = n.fast_word;
  while (!ends_.empty() && int32_t(ends_.front().first - released_) <= 0) {
    tail_ = ends_.front().second;
    ends_.pop_front();
  }
}

host::Op<void> StreamSender::post(host::Process& p, uint64_t data, uint32_t len) {
  const uint64_t ring = seed_.ring.bound;
  if (len > ring) throw HamlynError("StreamSender::send: " + std::to_string(len) + " bytes, the ring has " +
                                    std::to_string(ring));
  // A record never wraps: one that would is placed at the ring's start.
  const std::function<bool()> room = [this, ring, len] {
    if (seq_ - released_ >= seed_.tickets) return false;
    const uint64_t pos = head_ % ring;
    const uint64_t need = (pos + len > ring ? ring - pos : 0) + len;
    return head_ + need - tail_ <= ring;
  };
  if (!room()) {
    ++blocked_;
    co_await poll_until(p, m_, sim::kMaxTime, room);
  }
  const uint64_t pos = head_ % ring;
  if (pos + len > ring) head_ += ring - pos;
  const uint32_t offset = uint32_t(head_ % ring);
  head_ += len;
  const uint32_t seq = ++seq_;
  // One metadata buffer per ticket: entry seq % tickets is free (fewer than `tickets`
  // records are unreleased), and so is its buffer.
  const uint32_t entry = seq % seed_.tickets;
  const uint64_t meta = meta_ + 16 * entry;
  put32s(m_.app().host(), meta, {seq, offset, len});
  Ticket t = seed_.ring;
  t.meta_index = entry;
  t.base = seed_.ring.base + offset;
  t.bound = len;
  ends_.emplace_back(seq, head_);
  ++messages_;
  p.advance(m_.app().costs().proto_call);
  co_await m_.app().h_send_msg(p, t, data, len, meta, 12);
}

host::Op<void> StreamSender::send(host::Process& p, uint64_t data, uint32_t len) {
  if (len >= coalesce_) {
    co_await flush(p);
    co_await post(p, data, len);
    co_return;
  }
  if (staged_ + len > stage_bytes_) co_await flush(p);
  if (staged_ == 0) co_await wait_released(p, m_.app(), stage_handle_);
  // Coalesced by copying (the host's memcpy is in proto_call for these sizes).
  std::vector<uint8_t> b(len);
  sim::Node& node = m_.app().host();
  node.memory().read(data, b);
  node.memory().write(stage_ + staged_, b);
  staged_ += len;
  p.advance(m_.app().costs().proto_call);
}

host::Op<void> StreamSender::flush(host::Process& p) {
  if (staged_ == 0) co_return;
  const uint32_t n = staged_;
  staged_ = 0;
  co_await post(p, stage_, n);
  stage_handle_ = Handle{m_.app().posted()};
}

// ---------------------------------------------------------------- tagged remote write

TrwReceiver::TrwReceiver(Manager& m, uint32_t area_bytes) : m_(m), slot_(m.app().open_slot(area_bytes, 0)) {
  m_.attach(slot_, this);
}

Ticket TrwReceiver::ticket(uint32_t base, uint32_t bound) const {
  return m_.app().ticket(slot_, Ticket::kFastIndex, base, bound);
}

uint64_t TrwReceiver::area() const { return m_.app().slot(slot_).area.addr; }

void TrwReceiver::process_arrival(const Notification& n) {
  if (n.fast()) tags_.push_back(n.fast_word);
}

host::Op<std::optional<uint32_t>> TrwReceiver::get_tag(host::Process& p, sim::Time timeout) {
  const std::function<bool()> ready = [this] { return !tags_.empty(); };
  const bool ok = co_await poll_until(p, m_, p.local() + timeout, ready);
  if (!ok) co_return std::nullopt;
  p.advance(minus(m_.app().costs().trw_recv, m_.app().costs().recv_call));
  const uint32_t tag = tags_.front();
  tags_.pop_front();
  co_return tag;
}

host::Op<bool> TrwReceiver::get_specific_tag(host::Process& p, uint32_t tag, sim::Time timeout) {
  const std::function<bool()> ready = [this, tag] {
    return std::find(tags_.begin(), tags_.end(), tag) != tags_.end();
  };
  const bool ok = co_await poll_until(p, m_, p.local() + timeout, ready);
  if (!ok) co_return false;
  p.advance(minus(m_.app().costs().trw_recv, m_.app().costs().recv_call));
  tags_.erase(std::find(tags_.begin(), tags_.end(), tag));
  co_return true;
}

host::Op<Handle> TrwSender::send(host::Process& p, const Ticket& t, uint64_t src, uint32_t len,
                                 uint32_t dest_offset, uint32_t tag) {
  if (dest_offset > t.bound || len > t.bound - dest_offset)
    throw HamlynError("TrwSender::send: " + std::to_string(len) + " bytes at offset " +
                      std::to_string(dest_offset) + " do not fit the ticket's " + std::to_string(t.bound));
  Ticket w = t;
  w.base = t.base + dest_offset;
  w.bound = len;
  p.advance(minus(m_.app().costs().trw_send, m_.app().costs().send_call));
  co_return co_await m_.app().h_send_msg(p, w, src, len, 0, 0, tag);
}

} // namespace lanaikit::hamlyn
