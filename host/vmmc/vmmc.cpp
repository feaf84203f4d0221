// VMMC's basic library, driver and daemons (docs/vmmc.md, "Host library").
#include "host/vmmc/vmmc.h"

#include "vm/chip_regs.h"

#include <algorithm>
#include <deque>
#include <map>
#include <set>

namespace lanaikit::vmmc {

namespace {

constexpr uint32_t kPage = 4096;
constexpr uint32_t kMaxSend = 8u << 20;          // MAX_SEND: "long sends up to 8 MB"
constexpr uint32_t kCtlLenMask = 0x00FFFFFF;     // ctl bits 0..23: length
constexpr uint32_t kCtlShort = 1u << 24;         // ctl bit 24: SHORT
constexpr uint32_t kCtlNotify = 1u << 25;        // ctl bit 25: NOTIFY
constexpr uint32_t kOptValid = 0x80000000;       // outgoing page table: valid
constexpr uint8_t kIptWrite = 0x80;              // incoming page table: W
constexpr uint8_t kIptNotify = 0x40;             // incoming page table: N
constexpr uint32_t kDoneRejected = 0x80000000;   // completion word: the request was rejected
constexpr uint32_t kGo = 1;                      // VMMC_GO
constexpr uint32_t kNoRoute = 0xFFFFFFFF;        // VmmcRoute.len > 8: no route
constexpr uint32_t kIrqBits = vm::regs::LAN0_SIG_BIT | vm::regs::LAN1_SIG_BIT;

uint32_t be32(const uint8_t* b) {
  return uint32_t(b[0]) << 24 | uint32_t(b[1]) << 16 | uint32_t(b[2]) << 8 | b[3];
}

void put_be32(uint8_t* b, uint32_t v) {
  b[0] = uint8_t(v >> 24);
  b[1] = uint8_t(v >> 16);
  b[2] = uint8_t(v >> 8);
  b[3] = uint8_t(v);
}

std::string str(uint64_t v) { return std::to_string(v); }

// Bytes into SRAM by PIO as a driver writes them: whole aligned words where it can, single
// bytes (a PCI write with one byte enable) at an unaligned head or tail, so no neighbouring
// byte is rewritten.
void pio_write_bytes(sim::Node& node, host::Process& p, uint32_t at, std::span<const uint8_t> bytes) {
  size_t i = 0;
  while (i < bytes.size() && (at + i) % 4) {
    node.pio_write(p, uint32_t(at + i), bytes.subspan(i, 1));
    ++i;
  }
  const size_t words = (bytes.size() - i) / 4 * 4;
  if (words) node.pio_write(p, uint32_t(at + i), bytes.subspan(i, words));
  for (i += words; i < bytes.size(); ++i) node.pio_write(p, uint32_t(at + i), bytes.subspan(i, 1));
}

// Every SRAM address and field offset the host uses, resolved once from the image.
struct Map {
  uint32_t ctl = 0; // &vmmc
  // VmmcCtl
  uint32_t c_node, c_host_pages, c_go, c_miss_seq, c_miss_proc, c_miss_vpage, c_miss_pages,
      c_fill_proc, c_fill_count, c_fill, c_fill_seq;
  uint32_t c_sent, c_received, c_bad_crc, c_bad_magic, c_bad_len, c_bad_dest, c_tlb_misses,
      c_tlb_fills;
  std::optional<uint32_t> c_bad_fill; // added by the LCP (docs/vmmc.md, "The LCP")
  uint32_t fill_size, f_vpage, f_ppage;
  // vmmc_procs: VmmcProc[MAX_PROCS]
  uint32_t procs, proc_size;
  uint32_t p_active, p_done_addr, p_notify_ring, p_notify_slots, p_notify_consumed, p_consumed,
      p_done, p_notified, p_bad_proxy, p_bad_len, p_bad_vaddr, p_notify_overflow, p_sendq;
  // VmmcSendReq
  uint32_t req_size, r_data, r_proxy, r_vaddr, r_ctl, r_seq;
  // tables
  uint32_t opt, ipt, routes, route_size, route_len, route_hops, route_max;
  // VmmcNotification
  uint32_t note_size, n_index, n_src, n_addr, n_len;
  Vmmc::Limits limits{};
};

uint32_t global(const assembler::FirmwareImage& img, const char* name, uint32_t& size) {
  std::optional<uint32_t> at = img.symbol(name);
  const assembler::GlobalLayout* g = img.layout_table.find_global(name);
  if (!at && g && g->pinned_address) at = *g->pinned_address;
  if (!at) {
    std::string msg = "vmmc: the LCP image has no global '";
    msg.append(name).append("' (is it firmware/vmmc/vmmc.fw?)");
    throw VmmcError(msg);
  }
  size = g ? g->size : 0;
  if (size == 0)
    for (const assembler::Symbol* s : img.symbols_named(name))
      if (s->size) {
        size = s->size;
        break;
      }
  if (size == 0) {
    std::string msg = "vmmc: the LCP image does not give the size of '";
    msg.append(name).append("'");
    throw VmmcError(msg);
  }
  return *at;
}

Map resolve(const assembler::FirmwareImage& img) {
  try {
    Map m;
    uint32_t size = 0;
    const assembler::StructLayout& ctl = img.layout("VmmcCtl");
    m.ctl = global(img, "vmmc", size);
    auto c = [&](const char* f) { return m.ctl + ctl.field(f).offset; };
    m.c_node = c("node");
    m.c_host_pages = c("host_pages");
    m.c_go = c("go");
    m.c_miss_seq = c("miss_seq");
    m.c_miss_proc = c("miss_proc");
    m.c_miss_vpage = c("miss_vpage");
    m.c_miss_pages = c("miss_pages");
    m.c_fill_proc = c("fill_proc");
    m.c_fill_count = c("fill_count");
    m.c_fill = c("fill");
    m.c_fill_seq = c("fill_seq");
    m.c_sent = c("sent");
    m.c_received = c("received");
    m.c_bad_crc = c("bad_crc");
    m.c_bad_magic = c("bad_magic");
    m.c_bad_len = c("bad_len");
    m.c_bad_dest = c("bad_dest");
    m.c_tlb_misses = c("tlb_misses");
    m.c_tlb_fills = c("tlb_fills");
    if (ctl.has_field("bad_fill")) m.c_bad_fill = c("bad_fill");
    const assembler::StructLayout& fill = img.layout("VmmcFill");
    m.fill_size = fill.size;
    m.f_vpage = fill.field("vpage").offset;
    m.f_ppage = fill.field("ppage").offset;
    m.limits.fill_max = ctl.field("fill").size / fill.size;

    const assembler::StructLayout& proc = img.layout("VmmcProc");
    m.procs = global(img, "vmmc_procs", size);
    m.proc_size = proc.size;
    m.limits.max_procs = size / proc.size;
    m.p_active = proc.field("active").offset;
    m.p_done_addr = proc.field("done_addr").offset;
    m.p_notify_ring = proc.field("notify_ring").offset;
    m.p_notify_slots = proc.field("notify_slots").offset;
    m.p_notify_consumed = proc.field("notify_consumed").offset;
    m.p_consumed = proc.field("consumed").offset;
    m.p_done = proc.field("done").offset;
    m.p_notified = proc.field("notified").offset;
    m.p_bad_proxy = proc.field("bad_proxy").offset;
    m.p_bad_len = proc.field("bad_len").offset;
    m.p_bad_vaddr = proc.field("bad_vaddr").offset;
    m.p_notify_overflow = proc.field("notify_overflow").offset;
    m.p_sendq = proc.field("sendq").offset;

    const assembler::StructLayout& req = img.layout("VmmcSendReq");
    m.req_size = req.size;
    m.r_data = req.field("data").offset;
    m.r_proxy = req.field("proxy").offset;
    m.r_vaddr = req.field("vaddr").offset;
    m.r_ctl = req.field("ctl").offset;
    m.r_seq = req.field("seq").offset;
    m.limits.short_max = req.field("data").size;
    m.limits.sq_slots = proc.field("sendq").size / req.size;
    m.limits.max_send = kMaxSend;

    m.opt = global(img, "vmmc_opt", size);
    m.limits.opt_pages = m.limits.max_procs ? size / 4 / m.limits.max_procs : 0;
    m.ipt = global(img, "vmmc_ipt", size);
    m.limits.ipt_pages = size;

    const assembler::StructLayout& route = img.layout("VmmcRoute");
    m.routes = global(img, "vmmc_routes", size);
    m.route_size = route.size;
    m.route_len = route.field("len").offset;
    m.route_hops = route.field("hops").offset;
    m.route_max = route.field("hops").size;
    m.limits.max_nodes = size / route.size;

    const assembler::StructLayout& note = img.layout("VmmcNotification");
    m.note_size = note.size;
    m.n_index = note.field("index").offset;
    m.n_src = note.field("src").offset;
    m.n_addr = note.field("addr").offset;
    m.n_len = note.field("len").offset;
    m.limits.notify_slots = kPage / note.size;

    if (m.limits.max_procs == 0 || m.limits.sq_slots == 0 ||
        (m.limits.sq_slots & (m.limits.sq_slots - 1)) != 0 || m.limits.opt_pages == 0 ||
        m.limits.fill_max == 0)
      throw VmmcError("vmmc: the LCP's tables have impossible sizes (MAX_PROCS " +
                      str(m.limits.max_procs) + ", SQ_SLOTS " + str(m.limits.sq_slots) +
                      ", OPT_PAGES " + str(m.limits.opt_pages) + ", FILL_MAX " +
                      str(m.limits.fill_max) + ")");
    return m;
  } catch (const std::out_of_range& e) {
    std::string msg = "vmmc: the LCP image does not follow docs/vmmc.md: ";
    msg.append(e.what());
    throw VmmcError(msg);
  }
}

struct Export {
  ExportId id = 0;
  uint32_t slot = 0; // the exporting process
  VirtAddr va = 0;
  uint32_t len = 0;
  std::vector<host::PhysAddr> pages;
  std::vector<EndpointId> allowed;
  bool notify = false;
  sim::Time visible_at = 0; // the daemon knows it from then on
};

struct Import {
  ProxyAddr proxy = 0;
  uint32_t len = 0;
  uint32_t node = 0;
  ExportId id = 0;
};

struct VmmcState;

// One endpoint's state (Endpoint::Impl is this).
struct EpState {
  VmmcState& v;
  uint32_t node = 0;
  uint32_t slot = 0;
  uint32_t proc = 0; // SRAM address of its VmmcProc
  std::unique_ptr<host::AddressSpace> space;
  VirtAddr done_va = 0, ring_va = 0;
  host::PhysAddr done_pa = 0, ring_pa = 0;
  uint32_t ring_slots = 0;
  // Send queue.
  uint32_t posted = 0;   // requests posted (the last seq)
  uint32_t consumed = 0; // the LCP's `consumed` as last read
  uint64_t consumed_reads = 0;
  mutable std::set<uint32_t> long_pending; // long requests not yet seen complete
  mutable std::set<uint32_t> rejected;     // requests whose completion word had bit 31
  std::vector<bool> long_seq;              // [seq - 1]: was request seq long?
  // Imports, in this process's proxy space.
  std::vector<Import> imports;
  std::vector<bool> proxy_used; // per proxy page
  // Pages the driver pinned for TLB fills (virtual page numbers).
  std::set<uint64_t> driver_pinned;
  // Notifications.
  uint32_t notes_taken = 0;
  std::function<void(const Notification&)> handler;
  std::deque<Notification> notes;
  host::WaitList notes_watch;
  const host::Process* checked = nullptr;

  explicit EpState(VmmcState& vs) : v(vs) {}
  sim::Node& node_ref();
  void check_process(const host::Process& p);
  uint32_t done_word() const {
    uint8_t b[4];
    space->memory().read(done_pa, b);
    return be32(b);
  }
  // Reads the completion word and records what it says.
  void observe() const {
    const uint32_t w = done_word();
    const uint32_t seq = w & ~kDoneRejected;
    if (w & kDoneRejected) rejected.insert(seq);
    long_pending.erase(long_pending.begin(), long_pending.upper_bound(seq));
  }
  bool complete(uint32_t seq) const {
    if (seq == 0 || seq > posted) return false;
    observe();
    return long_pending.count(seq) == 0;
  }
  SendResult result(uint32_t seq, bool is_short) const {
    SendResult r;
    r.seq = seq;
    r.is_short = is_short;
    r.ok = rejected.count(seq) == 0;
    if (!r.ok)
      r.error = "request " + str(seq) +
                " was rejected by the LCP (completion word bit 31; see the bad_* counters)";
    return r;
  }
  const Import* import_for(ProxyAddr dst, uint32_t len) const {
    for (const Import& i : imports)
      if (uint64_t(dst) >= i.proxy && uint64_t(dst) + len <= uint64_t(i.proxy) + i.len) return &i;
    return nullptr;
  }
  void deliver(const Notification& n) {
    if (handler) handler(n);
    else {
      notes.push_back(n);
      notes_watch.notify();
    }
  }
};

struct NodeState {
  sim::Node* node = nullptr;
  std::vector<EpState*> slots; // by process slot; null: free
  std::map<ExportId, Export> exports;
  std::map<uint64_t, std::pair<ExportId, uint32_t>> page_owner; // ppage -> (export, page)
  ExportId next_export = 1;
  uint32_t last_fill_seq = 0;
};

struct VmmcState {
  sim::Cluster& cluster;
  assembler::FirmwareImage lcp;
  Costs costs;
  Map m;
  std::vector<NodeState> nodes;
  std::vector<std::unique_ptr<Endpoint>> endpoints;
  std::shared_ptr<bool> alive = std::make_shared<bool>(true);

  VmmcState(sim::Cluster& c, const assembler::FirmwareImage& image, Costs k)
      : cluster(c), lcp(image), costs(std::move(k)), m(resolve(lcp)) {}

  // Untimed SRAM access (set-up, counters).
  uint32_t peek(uint32_t node, uint32_t addr) const {
    uint8_t b[4];
    cluster.node(node).chip().host_read_sram(addr, b);
    return be32(b);
  }
  void poke(uint32_t node, uint32_t addr, uint32_t value) {
    uint8_t b[4];
    put_be32(b, value);
    cluster.node(node).chip().host_write_sram(addr, b);
  }
  uint32_t proc_base(uint32_t slot) const { return m.procs + slot * m.proc_size; }

  host::Op<void> serve_miss(host::Process& p, uint32_t node);
  host::Op<void> serve_notifications(host::Process& p, uint32_t node);
};

sim::Node& EpState::node_ref() { return v.cluster.node(node); }

void EpState::check_process(const host::Process& p) {
  if (&p == checked) return;
  for (uint32_t i = 0; i < v.cluster.size(); ++i)
    for (const auto& q : v.cluster.node(i).processes())
      if (q.get() == &p) {
        if (i != node)
          throw VmmcError("vmmc: process '" + p.name() + "' runs on node " + str(i) +
                          ", the endpoint (node " + str(node) + " slot " + str(slot) +
                          ") on node " + str(node));
        checked = &p;
        return;
      }
  checked = &p; // a process the nodes do not list (made by hand): trusted
}

// ---- the driver ---------------------------------------------------------------------------

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

} // namespace

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

// ---- Endpoint -----------------------------------------------------------------------------

struct Endpoint::Impl : EpState {
  using EpState::EpState;
};

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

host::Op<ExportId> Endpoint::export_buffer(host::Process& p, VirtAddr va, uint32_t len,
                                           std::vector<EndpointId> allowed, bool notify) {
  EpState& e = *impl_;
  VmmcState& v = e.v;
  e.check_process(p);
  if (len == 0 || va % kPage || len % kPage)
    throw VmmcError("vmmc: export of [" + host::hex(va) + ", +" + str(len) +
                    "): exports are whole pages, page-aligned");
  for (VirtAddr a = va; a < va + len; a += kPage)
    if (!e.space->is_mapped(a))
      throw VmmcError("vmmc: export of [" + host::hex(va) + ", +" + str(len) + "): page " +
                      host::hex(a) + " is not mapped");
  sim::Node& node = e.node_ref();
  NodeState& ns = v.nodes[e.node];
  // The process asks its daemon; the daemon pins the pages and opens them in the incoming
  // page table.
  p.advance(v.costs.daemon_call);
  p.advance(e.space->pin(va, len));
  std::vector<host::PhysAddr> pages = e.space->pinned_pages(va, len);
  const uint8_t entry = uint8_t(kIptWrite | (notify ? kIptNotify : 0) | (e.slot & 7));
  for (size_t i = 0; i < pages.size();) {
    // One PIO write per word of consecutive entries.
    size_t j = i + 1;
    while (j < pages.size() && pages[j] == pages[j - 1] + kPage) ++j;
    const uint64_t first = pages[i] >> host::kPageShift;
    if (first + (j - i) > v.m.limits.ipt_pages)
      throw VmmcError("vmmc: export of [" + host::hex(va) + ", +" + str(len) +
                      "): physical page " + host::hex(first) + " is beyond the incoming page table");
    const std::vector<uint8_t> bytes(j - i, entry);
    pio_write_bytes(node, p, v.m.ipt + uint32_t(first), bytes);
    i = j;
  }
  Export x;
  x.id = ns.next_export++;
  x.slot = e.slot;
  x.va = va;
  x.len = len;
  x.pages = pages;
  x.allowed = std::move(allowed);
  x.notify = notify;
  x.visible_at = p.local();
  for (size_t i = 0; i < pages.size(); ++i)
    ns.page_owner.emplace(pages[i] >> host::kPageShift, std::make_pair(x.id, uint32_t(i)));
  const ExportId id = x.id;
  ns.exports.emplace(id, std::move(x));
  co_return id;
}

host::Op<ImportResult> Endpoint::import(host::Process& p, uint32_t node, ExportId id) {
  EpState& e = *impl_;
  VmmcState& v = e.v;
  e.check_process(p);
  ImportResult r;
  if (node >= v.cluster.size()) {
    r.error = "no node " + str(node) + " (the cluster has " + str(v.cluster.size()) + ")";
    co_return r;
  }
  const bool remote = node != e.node;
  // Process -> local daemon -> (Ethernet) exporter's daemon, which looks its table up now.
  p.advance(v.costs.daemon_call);
  if (remote) p.advance(v.costs.control_message);
  co_await p.sync();
  const NodeState& xs = v.nodes[node];
  const auto it = xs.exports.find(id);
  const Export* x = it != xs.exports.end() && it->second.visible_at <= p.local() ? &it->second : nullptr;
  if (!x) {
    r.error = "export " + str(id) + " on node " + str(node) + " does not exist";
  } else if (!x->allowed.empty() &&
             std::find(x->allowed.begin(), x->allowed.end(), EndpointId{e.node, e.slot}) ==
                 x->allowed.end()) {
    r.error = "export " + str(id) + " on node " + str(node) + " does not allow node " +
              str(e.node) + " slot " + str(e.slot);
  }
  std::vector<host::PhysAddr> pages;
  uint32_t len = 0;
  if (x && r.error.empty()) {
    pages = x->pages;
    len = x->len;
  }
  if (remote) p.advance(v.costs.control_message); // the answer (pages or refusal) comes back
  if (!r.error.empty()) co_return r;
  // A fresh proxy range: the lowest run of free outgoing page table entries.
  const uint32_t n = uint32_t(pages.size());
  const uint32_t total = v.m.limits.opt_pages;
  uint32_t start = total;
  for (uint32_t s = 0, run = 0; s < total; ++s) {
    run = e.proxy_used[s] ? 0 : run + 1;
    if (run == n) {
      start = s + 1 - n;
      break;
    }
  }
  if (start == total) {
    r.error = "export " + str(id) + " on node " + str(node) + " (" + str(n) +
              " pages) does not fit in the proxy space of node " + str(e.node) + " slot " +
              str(e.slot) + " (" + str(total) + " pages)";
    co_return r;
  }
  std::vector<uint8_t> words(size_t(n) * 4);
  for (uint32_t i = 0; i < n; ++i) {
    e.proxy_used[start + i] = true;
    put_be32(&words[size_t(i) * 4],
             kOptValid | (node & 0x7F) << 24 | uint32_t(pages[i] >> host::kPageShift));
  }
  const uint32_t opt = v.m.opt + (e.slot * total + start) * 4;
  e.node_ref().pio_write(p, opt, words);
  Import imp;
  imp.proxy = start * kPage;
  imp.len = len;
  imp.node = node;
  imp.id = id;
  e.imports.push_back(imp);
  r.ok = true;
  r.proxy = imp.proxy;
  r.len = len;
  co_return r;
}

namespace {

// Waits for a free send-queue slot: the local count says so, or `consumed` read by PIO
// (only when every slot looks used).
host::Op<void> acquire_slot(EpState& e, host::Process& p) {
  const uint32_t slots = e.v.m.limits.sq_slots;
  while (e.posted - e.consumed >= slots) {
    uint32_t c = 0;
    co_await e.node_ref().pio_read_word(p, e.proc + e.v.m.p_consumed, c);
    ++e.consumed_reads;
    e.consumed = c;
  }
}

// Writes one entry: payload words, proxy, vaddr, ctl, seq (PIO, posted). Returns the seq.
uint32_t write_entry(EpState& e, host::Process& p, ProxyAddr dst, std::optional<VirtAddr> src,
                     uint32_t ctl, std::span<const uint8_t> payload) {
  const Map& m = e.v.m;
  sim::Node& node = e.node_ref();
  const uint32_t seq = ++e.posted;
  e.long_seq.push_back(src.has_value());
  const uint32_t at = e.proc + m.p_sendq + ((seq - 1) & (m.limits.sq_slots - 1)) * m.req_size;
  uint32_t writes = 3;
  if (!payload.empty()) {
    node.pio_write(p, at + m.r_data, payload);
    writes += uint32_t((payload.size() + 3) / 4);
  }
  node.pio_write_word(p, at + m.r_proxy, dst);
  if (src) {
    node.pio_write_word(p, at + m.r_vaddr, uint32_t(*src));
    ++writes;
  }
  node.pio_write_word(p, at + m.r_ctl, ctl);
  node.pio_write_word(p, at + m.r_seq, seq);
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
  if (len == 0 || len > e.v.m.limits.max_send) {
    r.error = "length " + str(len) + " is outside 1.." + str(e.v.m.limits.max_send);
    co_return r;
  }
  if (!e.import_for(dst, len)) {
    r.error = "proxy range [" + host::hex(dst) + ", " + host::hex(uint64_t(dst) + len) +
              ") is outside node " + str(e.node) + " slot " + str(e.slot) + "'s imports";
    co_return r;
  }
  const bool is_short = len <= e.v.m.limits.short_max;
  uint32_t ctl = len | (opt.notify ? kCtlNotify : 0);
  std::vector<uint8_t> payload;
  if (is_short) {
    payload.assign((len + 3) & ~3u, 0);
    e.space->copy_out(src, std::span<uint8_t>(payload.data(), len)); // PageFault if unmapped
    ctl |= kCtlShort;
  }
  co_await acquire_slot(e, p);
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
  if (seq == 0 || seq > e.posted)
    throw VmmcError("vmmc: wait for request " + str(seq) + ", but node " + str(e.node) +
                    " slot " + str(e.slot) + " posted " + str(e.posted));
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
  EpState& e = *impl_;
  e.check_process(p);
  const std::function<bool()> holds = [&e, va, value] {
    uint8_t b[4];
    e.space->copy_out(va, b);
    return be32(b) == value;
  };
  if (!holds()) co_await p.wait(e.node_ref().memory_watch(), holds);
}

Endpoint::Counters Endpoint::counters() const {
  const EpState& e = *impl_;
  const VmmcState& v = e.v;
  const Map& m = v.m;
  Counters c{};
  c.bad_proxy = v.peek(e.node, e.proc + m.p_bad_proxy);
  c.bad_len = v.peek(e.node, e.proc + m.p_bad_len);
  c.bad_vaddr = v.peek(e.node, e.proc + m.p_bad_vaddr);
  c.notify_overflow = v.peek(e.node, e.proc + m.p_notify_overflow);
  c.consumed = v.peek(e.node, e.proc + m.p_consumed);
  c.done = v.peek(e.node, e.proc + m.p_done);
  c.notified = v.peek(e.node, e.proc + m.p_notified);
  return c;
}

uint32_t Endpoint::posted() const { return impl_->posted; }
uint64_t Endpoint::consumed_reads() const { return impl_->consumed_reads; }

host::Op<uint32_t> Endpoint::post_raw(host::Process& p, ProxyAddr dst, VirtAddr src, uint32_t ctl,
                                      std::vector<uint8_t> payload) {
  EpState& e = *impl_;
  e.check_process(p);
  if (payload.size() > e.v.m.limits.short_max || payload.size() % 4)
    throw VmmcError("vmmc: post_raw: a payload is whole words, at most " +
                    str(e.v.m.limits.short_max) + " bytes");
  co_await acquire_slot(e, p);
  const bool is_short = (ctl & kCtlShort) != 0;
  const uint32_t seq = is_short ? write_entry(e, p, dst, std::nullopt, ctl, payload)
                                : write_entry(e, p, dst, src, ctl, payload);
  if (!is_short) e.long_pending.insert(seq);
  co_return seq;
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
