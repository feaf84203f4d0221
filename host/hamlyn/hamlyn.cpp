#include "host/hamlyn/hamlyn.h"

#include "base/bytes.h"
#include "host/kit/costs.h"
#include "host/kit/driver.h"
#include "host/kit/setup.h"
#include "host/kit/sram.h"
#include "vm/chip_regs.h"

#include <algorithm>

namespace lanaikit::hamlyn {

// ---------------------------------------------------------------- costs

Costs costs_from_platform(const sim::Platform& platform) {
  kit::CostTable t(platform);
  Costs c;
  // lanaikit's estimates from the work each call does on a 100 MHz PA-RISC at about one
  // instruction a cycle (docs/hamlyn.md, "Costs"): not fitted to Table 4.
  c.send_call = t.take("send_call", 500 * sim::kNanosecond);     // ~50 instructions
  c.recv_call = t.take("recv_call", 200 * sim::kNanosecond);     // ~20
  c.recv_poll = t.take("recv_poll", 50 * sim::kNanosecond);      // ~5
  c.context_switch = t.take("context_switch", 30 * sim::kMicrosecond);
  // Paper 5.4: a tagged remote write "consumes 260 processor cycles ... most of which are
  // consumed when the processor stalls while writing to the I/O bus, and a receive
  // consumes 120 cycles". The platform gives them (less the stores, which are modelled).
  c.trw_send = t.take("trw_send", 1200 * sim::kNanosecond);
  c.trw_recv = t.take("trw_recv", 1200 * sim::kNanosecond);
  c.proto_call = t.take("proto_call", 500 * sim::kNanosecond);  // ~50 instructions
  c.defaulted = t.defaulted();
  return c;
}

// ---------------------------------------------------------------- tickets

std::array<uint8_t, Ticket::kBytes> Ticket::encode() const {
  std::array<uint8_t, kBytes> b{};
  store_be32(&b[0], node);
  store_be32(&b[4], slot);
  store_be32(&b[8], meta_index);
  store_be32(&b[12], uint32_t(key >> 32));
  store_be32(&b[16], uint32_t(key));
  store_be32(&b[20], base);
  store_be32(&b[24], bound);
  store_be32(&b[28], delta);
  return b;
}

Ticket Ticket::decode(std::span<const uint8_t> b) {
  if (b.size() < kBytes)
    throw HamlynError("Ticket::decode: " + std::to_string(b.size()) + " bytes, a ticket is " +
                      std::to_string(kBytes));
  Ticket t;
  t.node = load_be32(&b[0]);
  t.slot = load_be32(&b[4]);
  t.meta_index = load_be32(&b[8]);
  t.key = uint64_t(load_be32(&b[12])) << 32 | load_be32(&b[16]);
  t.base = load_be32(&b[20]);
  t.bound = load_be32(&b[24]);
  t.delta = load_be32(&b[28]);
  return t;
}

// ---------------------------------------------------------------- the image's layout

struct Hamlyn::Layout {
  explicit Layout(const kit::ImageView& v)
      : entry_bytes(v.constant32("ENTRY_BYTES")), request_bytes(v.constant32("REQUEST_BYTES")),
        inline_max(v.constant32("INLINE_MAX")), queue_entries(v.constant32("QUEUE_ENTRIES")),
        send_buffers(v.constant32("SEND_BUFFERS")), meta_max(v.constant32("META_MAX")),
        meta_entry(v.constant32("META_ENTRY_BYTES")), packet_bytes(v.constant32("PACKET_BYTES")),
        max_termini(v.constant32("MAX_TERMINI")), max_nqcbs(v.constant32("MAX_NQCBS")),
        max_slots(v.constant32("MAX_SLOTS")), max_tuples(v.constant32("MAX_TUPLES")),
        note_bytes(v.size("HamlynNote")), tuple_bytes(v.size("HamlynTuple")),
        kind_direct(v.constant32("ReqKind.DIRECT")), kind_dma(v.constant32("ReqKind.DMA")),
        dest(v.offset("HamlynRequest", "dest")), slot(v.offset("HamlynRequest", "slot")),
        meta_index(v.offset("HamlynRequest", "meta_index")), kind(v.offset("HamlynRequest", "kind")),
        ntuples(v.offset("HamlynRequest", "ntuples")), key_hi(v.offset("HamlynRequest", "key_hi")),
        key_lo(v.offset("HamlynRequest", "key_lo")), offset(v.offset("HamlynRequest", "offset")),
        delta(v.offset("HamlynRequest", "delta")), len(v.offset("HamlynRequest", "len")),
        meta_len(v.offset("HamlynRequest", "meta_len")),
        fast_word(v.offset("HamlynRequest", "fast_word")), seq(v.offset("HamlynRequest", "seq")),
        accumulator(v.offset("HamlynMeta", "accumulator")), p_key_hi(v.offset("HamlynMeta", "p_key_hi")),
        p_key_lo(v.offset("HamlynMeta", "p_key_lo")), p_low(v.offset("HamlynMeta", "p_low")),
        p_high(v.offset("HamlynMeta", "p_high")), armed(v.offset("HamlynMeta", "armed")) {
    // The request overlays the route bytes and the packet header (hamlyn_defs.fw): from
    // `len` on, each field is the header's; `seq` is where the card writes `src`.
    const uint32_t hdr = v.constant32("MAX_ROUTE");
    const uint32_t pkt = v.offset("HamlynHeader", "pkt");
    auto same = [&](uint32_t req, uint32_t at, const char* what) {
      if (req != hdr + at) v.fail(std::string("HamlynRequest.") + what + " is not over the header's");
    };
    same(len, pkt + v.offset("PacketHeader", "len"), "len");
    same(seq, pkt + v.offset("PacketHeader", "src"), "seq");
    for (const char* f : {"slot", "meta_index", "key_hi", "key_lo", "offset", "delta", "meta_len", "fast_word"})
      same(v.offset("HamlynRequest", f), v.offset("HamlynHeader", f), f);
    if (request_bytes != hdr + v.size("HamlynHeader") || dest >= hdr || kind >= hdr || ntuples >= hdr)
      v.fail("HamlynRequest must be the route bytes and the header");
  }
  uint32_t entry_bytes, request_bytes, inline_max, queue_entries, send_buffers, meta_max, meta_entry,
      packet_bytes, max_termini, max_nqcbs, max_slots, max_tuples, note_bytes, tuple_bytes;
  uint32_t kind_direct, kind_dma;
  uint32_t dest, slot, meta_index, kind, ntuples, key_hi, key_lo, offset, delta, len, meta_len,
      fast_word, seq;
  uint32_t accumulator, p_key_hi, p_key_lo, p_low, p_high, armed;
};

// ---------------------------------------------------------------- the cluster

struct Hamlyn::Irq {
  explicit Irq(sim::Cluster& c) : driver(c, "hamlyn-driver") {}
  kit::Driver driver;
};

Hamlyn::Hamlyn(sim::Cluster& cluster, const assembler::FirmwareImage& image, Costs costs, Options options)
    : cluster_(cluster), image_(image), view_(image_, "hamlyn"), costs_(std::move(costs)),
      options_(options), layout_(std::make_unique<Layout>(view_)) {
  options_.direct_max = std::min(options_.direct_max, layout_->inline_max);
  kit::load(cluster_, image_);
  const uint32_t n = cluster_.size();
  apps_.resize(n);
  next_slot_.assign(n, 0);
  for (uint32_t i = 0; i < n; ++i) {
    drivers_.push_back(std::make_unique<Driver>(cluster_.node(i), view_));
    kit::write_routes(cluster_, i, view_.ref("hamlyn.routes"));
    kit::write_paths(cluster_, i, view_.ref("hamlyn.paths"), view_.constant32("MAX_PATHS"));
    kit::poke(cluster_.node(i), view_.ref("hamlyn.multipath"), options_.multipath ? 1 : 0);
    drivers_.back()->go(i, n, options_.handshake_period > 0 ? options_.handshake_ticks : 0);
  }
  // The driver's interrupt service: a card raised LAN0 for a queue whose receiver sleeps;
  // every sleeping application on the node looks at its queue (the card raises one
  // interrupt while one is pending, so one turn may cover several queues).
  irq_ = std::make_unique<Irq>(cluster_);
  irq_->driver.on(vm::regs::LAN0_SIG_BIT, [this](host::Process&, uint32_t node) -> host::Op<void> {
    for (auto& a : apps_.at(node)) a->wakeups().notify();
    co_return;
  });
  kit::start(cluster_, &irq_->driver);
  // The handshake: the driver changes the word every period (paper 2.8).
  if (options_.handshake_period > 0) {
    const kit::Ref hs = view_.ref("hamlyn.handshake");
    for (uint32_t i = 0; i < n; ++i) {
      sim::Node& node = cluster_.node(i);
      const sim::Time period = options_.handshake_period;
      node.spawn("hamlyn-handshake", [&node, hs, period](host::Process& p) -> host::Task {
        for (uint32_t beat = 1;; ++beat) {
          p.advance(period);
          co_await p.sync();
          node.pio_write_word(p, hs.addr(), beat);
        }
      });
    }
  }
}

Hamlyn::~Hamlyn() = default;

Application& Hamlyn::open(uint32_t node) {
  auto& apps = apps_.at(node);
  const uint32_t t = uint32_t(apps.size());
  if (t >= layout_->max_termini || t >= layout_->max_nqcbs)
    throw HamlynError("hamlyn: node " + std::to_string(node) + " has no free send terminus (" +
                      std::to_string(layout_->max_termini) + " per card)");
  apps.push_back(std::make_unique<Application>(*this, node, t, t));
  return *apps.back();
}

std::vector<std::pair<std::string, uint64_t>> Hamlyn::counters(uint32_t node) {
  return kit::read_fields(cluster_.node(node), view_.ref("hamlyn"));
}

uint64_t Hamlyn::next_key() {
  // splitmix64: sparse, deterministic keys (the paper's are cryptographic; these need only
  // be distinct and unguessable by the tests' senders).
  uint64_t z = (key_state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// ---------------------------------------------------------------- an application

Application::Application(Hamlyn& h, uint32_t node, uint32_t terminus, uint32_t nqcb)
    : h_(h), node_(node), terminus_(terminus), nqcb_(nqcb) {
  Driver& d = h_.driver(node_);
  queue_entries_ = h_.options().queue_entries;
  d.open_nqcb(nqcb_, queue_entries_);
  queue_ = d.nqcb_queue(nqcb_);
  seq_word_ = d.allocate(4).addr;
  d.open_terminus(terminus_, {}, seq_word_);
}

const Costs& Application::costs() const { return h_.costs(); }

Region Application::alloc_send(uint32_t bytes) {
  if (send_buffers_.size() >= h_.layout().send_buffers)
    throw HamlynError("alloc_send: terminus " + std::to_string(terminus_) + " already has " +
                      std::to_string(send_buffers_.size()) + " send buffers");
  const Region r = h_.driver(node_).allocate(bytes);
  send_buffers_.push_back(r);
  h_.driver(node_).open_terminus(terminus_, send_buffers_, seq_word_);
  return r;
}

uint32_t Application::open_slot(uint32_t area_bytes, uint32_t meta_entries, SlotMode mode) {
  uint32_t& next = h_.next_slot_.at(node_);
  if (next >= h_.layout().max_slots)
    throw HamlynError("open_slot: node " + std::to_string(node_) + " has no free slot");
  Driver& d = h_.driver(node_);
  SlotSpec s;
  s.mode = mode;
  s.area = d.allocate(area_bytes);
  s.meta = d.allocate(meta_entries * h_.layout().meta_entry);
  s.key = h_.next_key();
  s.nqcb = nqcb_;
  d.open_slot(next, s);
  info_.emplace(next, SlotInfo{s.area, s.meta, s.key, mode});
  return next++;
}

const SlotInfo& Application::slot(uint32_t index) const {
  auto it = info_.find(index);
  if (it == info_.end()) throw HamlynError("slot " + std::to_string(index) + " is not this application's");
  return it->second;
}

Ticket Application::ticket(uint32_t s, uint32_t meta_index, uint32_t base, uint32_t bound, uint32_t delta) const {
  const SlotInfo& si = slot(s);
  if (base > si.area.bytes || bound > si.area.bytes - base)
    throw HamlynError("ticket: [" + std::to_string(base) + ", +" + std::to_string(bound) +
                      ") is outside slot " + std::to_string(s) + "'s " + std::to_string(si.area.bytes) +
                      "-byte message area");
  if (meta_index != Ticket::kFastIndex && meta_index >= si.meta.bytes / h_.layout().meta_entry)
    throw HamlynError("ticket: slot " + std::to_string(s) + " has no metadata entry " + std::to_string(meta_index));
  return Ticket{node_, s, meta_index, si.key, base, bound, delta, 0};
}

void Application::guard(uint32_t s, uint32_t meta_index, uint64_t key, uint32_t low, uint32_t high, bool armed) {
  const SlotInfo& si = slot(s);
  const auto& l = h_.layout();
  const uint64_t e = si.meta.addr + uint64_t(meta_index) * l.meta_entry;
  auto put = [&](uint32_t off, uint32_t v) {
    uint8_t b[4];
    store_be32(b, v);
    h_.cluster().node(node_).memory().write(e + off, b);
  };
  put(l.p_key_hi, uint32_t(key >> 32));
  put(l.p_key_lo, uint32_t(key));
  put(l.p_low, low);
  put(l.p_high, high);
  put(l.armed, armed ? 1 : 0);
}

Application::Piece Application::locate(uint64_t addr, uint32_t len, const char* what) const {
  for (uint32_t i = 0; i < send_buffers_.size(); ++i) {
    const Region& r = send_buffers_[i];
    if (addr >= r.addr && addr - r.addr <= r.bytes && len <= r.bytes - (addr - r.addr))
      return {i, uint32_t(addr - r.addr)};
  }
  throw HamlynError(std::string("h_send_msg: the ") + what + " (" + std::to_string(len) +
                    " bytes) is in none of terminus " + std::to_string(terminus_) +
                    "'s send buffers; DMA sends come from buffers made by alloc_send");
}

uint32_t Application::sent() const {
  uint8_t b[4];
  h_.cluster().node(node_).memory().read(seq_word_, b);
  return load_be32(b);
}

bool Application::released(Handle hd) const { return int32_t(sent() - hd.seq) >= 0; }

host::Op<Handle> Application::h_send_msg(host::Process& p, const Ticket& t, uint64_t data, uint32_t len,
                                         uint64_t meta, uint32_t meta_len, uint32_t fast_word) {
  const auto& l = h_.layout();
  sim::Node& node = host();
  if (t.node >= h_.cluster().size())
    throw HamlynError("h_send_msg: the ticket names node " + std::to_string(t.node) + " of " +
                      std::to_string(h_.cluster().size()));
  if (meta_len > l.meta_max)
    throw HamlynError("h_send_msg: " + std::to_string(meta_len) + " bytes of metadata, at most " +
                      std::to_string(l.meta_max));
  if (len > t.bound)
    throw HamlynError("h_send_msg: " + std::to_string(len) + " bytes do not fit the ticket's " +
                      std::to_string(t.bound));
  const bool fast = t.meta_index == Ticket::kFastIndex;
  if (fast && (meta_len != 0 || len > l.packet_bytes || t.delta != 0))
    throw HamlynError("h_send_msg: a fast-mode ticket sends one packet (at most " +
                      std::to_string(l.packet_bytes) + " bytes), no metadata, delta 0");
  const bool direct = h_.options().direct_max > 0 && meta_len + len <= h_.options().direct_max;
  Piece dp{0, 0}, mp{0, 0};
  if (!direct) {
    dp = locate(data, len, "data");
    if (meta_len) mp = locate(meta, meta_len, "metadata");
  }
  // A free queue entry: 63 of the 64 may be in flight (the sequence word is DMAed to host
  // memory as entries leave).
  const std::function<bool()> room = [this, &l] { return posted_ - sent() < l.queue_entries - 1; };
  co_await p.sync();
  if (!room()) co_await p.wait(node.memory_watch(), room);
  p.advance(h_.costs().send_call);

  const uint32_t seq = posted_ + 1;
  std::vector<uint8_t> req(l.request_bytes, 0);
  auto be16 = [&](uint32_t off, uint32_t v) { req[off] = uint8_t(v >> 8), req[off + 1] = uint8_t(v); };
  be16(l.dest, t.node);
  // (magic, where the card writes the header's, stays 0.)
  be16(l.slot, t.slot);
  be16(l.meta_index, t.meta_index);
  req[l.kind] = uint8_t(direct ? l.kind_direct : l.kind_dma);
  req[l.ntuples] = uint8_t(direct ? 0 : 2);
  store_be32(&req[l.key_hi], uint32_t(t.key >> 32));
  store_be32(&req[l.key_lo], uint32_t(t.key));
  store_be32(&req[l.offset], t.base);
  store_be32(&req[l.delta], t.delta);
  store_be32(&req[l.len], meta_len + len);    // the header's: the whole payload
  store_be32(&req[l.meta_len], meta_len);
  store_be32(&req[l.fast_word], fast_word);
  store_be32(&req[l.seq], seq);

  std::vector<uint8_t> body;
  if (direct) {
    body.resize(meta_len + len);
    if (meta_len) node.memory().read(meta, std::span<uint8_t>(body.data(), meta_len));
    if (len) node.memory().read(data, std::span<uint8_t>(body.data() + meta_len, len));
  } else {
    body.resize(2 * l.tuple_bytes);
    store_be32(&body[0], mp.tag);
    store_be32(&body[4], mp.offset);
    store_be32(&body[8], meta_len);
    store_be32(&body[l.tuple_bytes], dp.tag);
    store_be32(&body[l.tuple_bytes + 4], dp.offset);
    store_be32(&body[l.tuple_bytes + 8], len);
  }
  // The header part, the body, the route part, then the store holding `seq` last: the
  // card takes the entry when it sees seq (docs/protocols.md, "Queues").
  const uint32_t entry = h_.view().ref("queues[" + std::to_string(terminus_) + "]").addr() +
                         (posted_ % l.queue_entries) * l.entry_bytes;
  const uint32_t width = node.pci().params().pio_store_bytes;
  const uint32_t last = l.seq / width * width;        // the store that carries seq
  const uint32_t hdr_from = l.seq + 4;                // `len` on
  node.pio_write(p, entry + hdr_from, std::span<const uint8_t>(req.data() + hdr_from, l.request_bytes - hdr_from));
  if (!body.empty()) node.pio_write(p, entry + l.request_bytes, body);
  node.pio_write(p, entry, std::span<const uint8_t>(req.data(), last));
  node.pio_write(p, entry + last, std::span<const uint8_t>(req.data() + last, l.seq + 4 - last));
  posted_ = seq;
  co_return Handle{seq};
}

std::optional<Notification> Application::peek_note() const {
  const auto& l = h_.layout();
  uint8_t b[8];
  host().memory().read(queue_.addr + uint64_t(cursor_) * l.note_bytes, b);
  const uint32_t word = load_be32(b), meta = load_be32(b + 4);
  if ((word >> 31) != wrap_) return std::nullopt;
  Notification n;
  n.slot = (word >> 16) & 0x7FFF;
  n.meta_index = word & 0xFFFF;
  if (n.fast())
    n.fast_word = meta;
  else
    n.meta_addr = meta;
  return n;
}

sim::Node& Application::host() const { return h_.cluster().node(node_); }

bool Application::pending() const { return peek_note().has_value(); }

void Application::take_note() {
  if (++cursor_ == queue_entries_) {
    cursor_ = 0;
    wrap_ ^= 1;
  }
}

host::Op<std::optional<Notification>> Application::h_recv(host::Process& p) {
  co_await p.sync();
  std::optional<Notification> n = peek_note();
  if (!n) {
    p.advance(h_.costs().recv_poll);
    co_return std::nullopt;
  }
  take_note();
  p.advance(h_.costs().recv_call);
  co_return n;
}

host::Op<std::optional<Notification>> Application::h_recv_block(host::Process& p, sim::Time timeout, bool sleep) {
  sim::Kernel& k = h_.cluster().kernel();
  const sim::Time deadline = p.local() + timeout;
  sim::Node& node = host();
  host::WaitList& list = sleep ? wakeups_ : node.memory_watch();
  // The deadline wakes the waiter too.
  const sim::EventId timer = k.schedule_at(std::max(deadline, k.now()), [&list] { list.notify(); });
  std::optional<Notification> n = co_await h_recv(p);
  if (!n && sleep) {
    // Ask for an interrupt, then look once more: a message that landed before the card
    // saw `asleep` raised none.
    const uint32_t asleep = h_.view().ref("hamlyn.nqcbs[" + std::to_string(nqcb_) + "].asleep").addr();
    node.pio_write_word(p, asleep, 1);
    n = co_await h_recv(p);
  }
  if (!n) {
    const std::function<bool()> ready = [this, &k, deadline] { return pending() || k.now() >= deadline; };
    co_await p.wait(list, ready);
    if (sleep && pending()) {
      ++woken_;
      p.advance(h_.costs().context_switch);
    }
    n = co_await h_recv(p);
  }
  k.cancel(timer);
  co_return n;
}

} // namespace lanaikit::hamlyn
