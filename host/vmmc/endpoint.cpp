// VMMC host library: the Endpoint, one user process's VMMC state (docs/vmmc.md, "Host
// library", API): send (short or long by size, posted into the process's send queue by
// PIO), test and wait on the completion word, notifications, wait_word(s), the LCP's
// per-process counters and post_raw. The send queue is tracked locally: `consumed` is read
// by PIO only when every slot looks used.
//
// GCC 12 destroys a lambda temporary written inside a co_await expression twice: every
// condition a coroutine here waits on is a named std::function, built outside the co_await.
#include "host/vmmc/state.h"

#include "host/kit/setup.h"

namespace lanaikit::vmmc::detail {

// ---- EpState ------------------------------------------------------------------------------

sim::Node& EpState::node_ref() { return v.cluster.node(node); }

void EpState::check_process(const host::Process& p) {
  if (&p == checked) return;
  // A process the nodes do not list (made by hand) is trusted.
  if (const auto i = kit::node_of(v.cluster, p); i && *i != node)
    throw VmmcError("vmmc: process '" + p.name() + "' runs on node " + str(*i) + ", the endpoint (node " +
                    str(node) + " slot " + str(slot) + ") on node " + str(node));
  checked = &p;
}

uint32_t EpState::done_word() const {
  uint8_t b[4];
  space->memory().read(done_pa, b);
  return load_be32(b);
}

void EpState::observe() const {
  const uint32_t w = done_word();
  const uint32_t seq = w & ~v.lcp.done_rejected;
  if (w & v.lcp.done_rejected) rejected.insert(seq);
  long_pending.erase(long_pending.begin(), long_pending.upper_bound(seq));
}

bool EpState::complete(uint32_t seq) const {
  if (seq == 0 || seq > sendq->posted()) return false;
  observe();
  return long_pending.count(seq) == 0;
}

SendResult EpState::result(uint32_t seq, bool is_short) const {
  SendResult r;
  r.seq = seq;
  r.is_short = is_short;
  r.ok = rejected.count(seq) == 0;
  if (!r.ok)
    r.error = "request " + str(seq) +
              " was rejected by the LCP (completion word bit 31; see the bad_* counters)";
  return r;
}

const Import* EpState::import_for(ProxyAddr dst, uint32_t len) const {
  for (const Import& i : imports)
    if (uint64_t(dst) >= i.proxy && uint64_t(dst) + len <= uint64_t(i.proxy) + i.len) return &i;
  return nullptr;
}

} // namespace lanaikit::vmmc::detail

// ---- Endpoint -----------------------------------------------------------------------------

namespace lanaikit::vmmc {

using namespace detail;

Endpoint::Endpoint(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Endpoint::~Endpoint() = default;

EndpointId Endpoint::id() const { return EndpointId{impl_->node, impl_->slot}; }
sim::Node& Endpoint::node() { return impl_->node_ref(); }
host::AddressSpace& Endpoint::space() { return *impl_->space; }

VirtAddr Endpoint::alloc(uint64_t bytes) { return impl_->space->map(bytes); }
void Endpoint::write(VirtAddr va, std::span<const uint8_t> bytes) { impl_->space->copy_in(va, bytes); }
std::vector<uint8_t> Endpoint::read(VirtAddr va, uint64_t len) {
  std::vector<uint8_t> out(len);
  impl_->space->copy_out(va, out);
  return out;
}

namespace {

// Writes one entry of the send queue: payload words, proxy, vaddr, ctl, then the seq that
// publishes it (PIO, posted; the kit's SramQueue keeps the order). Returns the seq.
uint32_t write_entry(EpState& e, host::Process& p, ProxyAddr dst, std::optional<VirtAddr> src,
                     uint32_t ctl, std::span<const uint8_t> payload) {
  const Lcp& lcp = e.v.lcp;
  sim::Node& node = e.node_ref();
  kit::SramQueue& q = *e.sendq;
  e.long_seq.push_back(src.has_value());
  const uint32_t at = q.entry(q.next_seq());
  uint32_t writes = 3;
  if (!payload.empty()) {
    node.pio_write(p, at + lcp.req_data, payload);
    writes += uint32_t((payload.size() + 3) / 4);
  }
  node.pio_write_word(p, at + lcp.req_proxy, dst);
  if (src) {
    node.pio_write_word(p, at + lcp.req_vaddr, uint32_t(*src));
    ++writes;
  }
  node.pio_write_word(p, at + lcp.req_ctl, ctl);
  const uint32_t seq = q.publish(p, node);
  // send_post is the whole cost of posting; the PIO writes already charged theirs.
  const sim::Time pio = sim::Time(writes) * node.pci().params().pio_write_issue;
  if (e.v.costs.send_post > pio) p.advance(e.v.costs.send_post - pio);
  return seq;
}

} // namespace

host::Op<SendResult> Endpoint::send(host::Process& p, VirtAddr src, ProxyAddr dst, uint32_t len,
                                    SendOptions opt) {
  EpState& e = *impl_;
  e.check_process(p);
  SendResult r;
  if (len == 0 || len > e.v.lcp.limits.max_send) {
    r.error = "length " + str(len) + " is outside 1.." + str(e.v.lcp.limits.max_send);
    co_return r;
  }
  if (!e.import_for(dst, len)) {
    r.error = "proxy range [" + hex(dst) + ", " + hex(uint64_t(dst) + len) +
              ") is outside node " + str(e.node) + " slot " + str(e.slot) + "'s imports";
    co_return r;
  }
  const bool is_short = len <= e.v.lcp.limits.short_max;
  uint32_t ctl = len | (opt.notify ? e.v.lcp.ctl_notify : 0);
  std::vector<uint8_t> payload;
  if (is_short) {
    payload.assign((len + 3) & ~3u, 0);
    e.space->copy_out(src, std::span<uint8_t>(payload.data(), len)); // PageFault if unmapped
    ctl |= e.v.lcp.ctl_short;
  }
  co_await e.sendq->acquire(p, e.node_ref());
  const uint32_t seq = is_short ? write_entry(e, p, dst, std::nullopt, ctl, payload)
                                : write_entry(e, p, dst, src, ctl, {});
  if (is_short) co_return e.result(seq, true); // the data is in SRAM: the buffer is free
  e.long_pending.insert(seq);
  if (opt.async) {
    r.ok = true;
    r.seq = seq;
    co_return r;
  }
  co_return co_await wait(p, seq);
}

bool Endpoint::test(uint32_t seq) const { return impl_->complete(seq); }

host::Op<SendResult> Endpoint::wait(host::Process& p, uint32_t seq) {
  EpState& e = *impl_;
  e.check_process(p);
  if (seq == 0 || seq > e.sendq->posted())
    throw VmmcError("vmmc: wait for request " + str(seq) + ", but node " + str(e.node) +
                    " slot " + str(e.slot) + " posted " + str(e.sendq->posted()));
  const std::function<bool()> done = [&e, seq] { return e.complete(seq); };
  if (!e.complete(seq)) co_await p.wait(e.node_ref().memory_watch(), done);
  co_return e.result(seq, !e.long_seq[seq - 1]);
}

void Endpoint::on_notification(std::function<void(const Notification&)> handler) {
  impl_->handler = std::move(handler);
}

host::Op<Notification> Endpoint::next_notification(host::Process& p) {
  EpState& e = *impl_;
  e.check_process(p);
  const std::function<bool()> pending = [&e] { return !e.notes.empty(); };
  if (e.notes.empty()) co_await p.wait(e.notes_watch, pending);
  Notification n = e.notes.front();
  e.notes.pop_front();
  co_return n;
}

host::Op<void> Endpoint::wait_word(host::Process& p, VirtAddr va, uint32_t value) {
  std::vector<kit::WordWait> one(1, kit::WordWait{va, kit::WordWait::Test::Equal, value});
  co_await wait_words(p, std::move(one));
}

host::Op<size_t> Endpoint::wait_words(host::Process& p, std::vector<kit::WordWait> conditions) {
  EpState& e = *impl_;
  e.check_process(p);
  co_return co_await kit::wait_words(p, e.node_ref(), *e.space, std::move(conditions));
}

Endpoint::Counters Endpoint::counters() const {
  const EpState& e = *impl_;
  const VmmcState& v = e.v;
  Counters c{};
  c.bad_proxy = v.peek(e.node, e.proc.field("bad_proxy"));
  c.bad_len = v.peek(e.node, e.proc.field("bad_len"));
  c.bad_vaddr = v.peek(e.node, e.proc.field("bad_vaddr"));
  c.notify_overflow = v.peek(e.node, e.proc.field("notify_overflow"));
  c.consumed = v.peek(e.node, e.proc.field("consumed"));
  c.done = v.peek(e.node, e.proc.field("done"));
  c.notified = v.peek(e.node, e.proc.field("notified"));
  return c;
}

uint32_t Endpoint::posted() const { return impl_->sendq->posted(); }
uint64_t Endpoint::consumed_reads() const { return impl_->sendq->consumed_reads(); }

host::Op<uint32_t> Endpoint::post_raw(host::Process& p, ProxyAddr dst, VirtAddr src, uint32_t ctl,
                                      std::vector<uint8_t> payload) {
  EpState& e = *impl_;
  e.check_process(p);
  if (payload.size() > e.v.lcp.limits.short_max || payload.size() % 4)
    throw VmmcError("vmmc: post_raw: a payload is whole words, at most " +
                    str(e.v.lcp.limits.short_max) + " bytes");
  co_await e.sendq->acquire(p, e.node_ref());
  const bool is_short = (ctl & e.v.lcp.ctl_short) != 0;
  const uint32_t seq = is_short ? write_entry(e, p, dst, std::nullopt, ctl, payload)
                                : write_entry(e, p, dst, src, ctl, payload);
  if (!is_short) e.long_pending.insert(seq);
  co_return seq;
}

} // namespace lanaikit::vmmc
