// The VMMC LANai control program (firmware/vmmc/vmmc.fw) driven without the host library:
// a small harness writes set-up, page tables and routes straight into SRAM (untimed, as
// the daemons would have at set-up), host processes post send-queue entries with PIO
// writes, and an interrupt handler plays the driver for TLB misses. Everything the harness
// touches in SRAM it finds through the image's layout table (docs/vmmc.md).
#include "../chip/firmware.h"
#include "../kit/lcp_bench.h"
#include "host/kit/ring.h"
#include "assembler/elf.h"
#include "sim/cluster.h"
#include "sim/platform.h"
#include "sim/profile_report.h"
#include "vm/profiler.h"
#include "vm/chip_regs.h"

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

namespace lanaikit {
namespace {

using sim::Time;
namespace regs = vm::regs;

// VMMC_ELF=path runs a prebuilt image instead (e.g. `lanaikit build -O2 -g`, for per-line
// profiles with LK_PROFILE=1).
const assembler::FirmwareImage& lcp_image() {
  static const assembler::FirmwareImage img = [] {
    if (const char* elf = std::getenv("VMMC_ELF")) {
      auto r = assembler::read_elf(elf);
      if (r) return std::move(*r);
      ADD_FAILURE() << llvm::toString(r.takeError());
    }
    return test::build_firmware({test::source("firmware/vmmc/vmmc.fw")});
  }();
  return img;
}

// The host's page (the LCP's PAGE must match it: LayoutMatchesTheContract checks).
constexpr uint32_t kPage = host::kPageSize;
// Physical memory plan of every node (the LCP tests need no allocator).
constexpr uint64_t kDoneArea = 0x1000;   // completion word of process p at + 16 p
constexpr uint64_t kRingArea = 0x2000;   // notification ring of process p at + 0x400 p
constexpr uint32_t kRingSlots = 8;
constexpr uint64_t kSendPage0 = 0x100;   // physical pages backing send buffers
constexpr uint64_t kRecvPage0 = 0x800;   // physical pages of receive buffers (exported)
constexpr uint32_t kVBase = 0x40000;     // virtual page of the first send page

// The LCP on the kit's test bench (tests/kit/lcp_bench.h), with VMMC's driver played by an
// interrupt callback: every constant and place comes from the image.
struct Lcp : test::LcpBench {
  // The LCP's constants (firmware/vmmc/vmmc_defs.fw).
  const uint32_t kShort = constant("CTL_SHORT"), kNotify = constant("CTL_NOTIFY"),
                 kRejected = constant("DONE_REJECTED"), kOptValid = constant("OPT_VALID"),
                 kOptNodeShift = constant("OPT_NODE_SHIFT"), kIptW = constant("IPT_W"),
                 kSqSlots = constant("SQ_SLOTS"), kOptPages = constant("OPT_PAGES"), kFillMax = constant("FILL_MAX");
  // The driver: per (node, process) the virtual -> physical pages it can pin.
  std::map<std::pair<uint32_t, uint32_t>, std::map<uint32_t, uint32_t>> maps;
  std::vector<uint32_t> misses_served, notify_irqs;

  explicit Lcp(uint32_t nodes, const std::function<void(sim::ClusterParams&)>& tweak = {})
      : LcpBench(lcp_image(), "lua-scripts/platforms/vmmc.lua", nodes, "vmmc", tweak) {
    misses_served.assign(nodes, 0);
    notify_irqs.assign(nodes, 0);
    setup("vmmc.node", "vmmc_routes");
    for (uint32_t n = 0; n < nodes; ++n) {
      poke(n, "vmmc.host_pages", node(n).memory().pages());
      poke(n, "vmmc.go", constant("VMMC_GO"));
      on_interrupt(n, regs::LAN0_SIG_BIT | regs::LAN1_SIG_BIT, [this, n] { driver(n); });
    }
  }

  static std::string proc(uint32_t p) { return "vmmc_procs[" + std::to_string(p) + "]"; }
  uint32_t f(const char* s, const char* field) const { return offset(s, field); }
  uint32_t cf(const char* field) const { return addr(std::string("vmmc.") + field); }
  uint32_t pf(uint32_t p, const char* field) const { return addr(proc(p) + "." + field); }
  uint32_t req(uint32_t p, uint32_t slot) const { return addr(proc(p) + ".sendq[" + std::to_string(slot) + "]"); }
  void put(uint32_t n, uint32_t at, uint32_t v) { poke32(n, at, v); }
  uint32_t get(uint32_t n, uint32_t at) { return peek32(n, at); }
  uint32_t counter(uint32_t n, const char* name) { return uint32_t(peek(n, std::string("vmmc.") + name)); }
  uint32_t pcounter(uint32_t n, uint32_t p, const char* name) { return uint32_t(peek(n, proc(p) + "." + name)); }

  // Opens process slot p on node n (completion word and notification ring in host memory).
  void open(uint32_t n, uint32_t p) {
    put(n, pf(p, "done_addr"), uint32_t(kDoneArea + 16 * p));
    put(n, pf(p, "notify_ring"), uint32_t(kRingArea + 0x400 * p));
    put(n, pf(p, "notify_slots"), kRingSlots);
    put(n, pf(p, "active"), 1);
  }
  // Starts the chips and runs until every LCP has initialised (it clears its TLBs, about
  // 1 ms) and seen `go`.
  void start() { LcpBench::start("vmmc.ready"); }

  void set_opt(uint32_t n, uint32_t p, uint32_t page, uint32_t entry) {
    put(n, addr("vmmc_opt") + (p * kOptPages + page) * 4, entry);
  }
  void map_proxy(uint32_t n, uint32_t p, uint32_t page, uint32_t dest, uint32_t ppage) {
    set_opt(n, p, page, kOptValid | dest << kOptNodeShift | ppage);
  }
  void set_ipt(uint32_t n, uint32_t page, uint8_t v) { node(n).chip().host_write_sram(addr("vmmc_ipt") + page, {&v, 1}); }
  // The driver's view of process p's address space: virtual page -> physical page.
  void map_virt(uint32_t n, uint32_t p, uint32_t vpage, uint32_t ppage) { maps[{n, p}][vpage] = ppage; }

  void driver(uint32_t n) {
    if (take_isr(n, regs::LAN1_SIG_BIT)) ++notify_irqs[n];
    if (take_isr(n, regs::LAN0_SIG_BIT)) {
      const uint32_t seq = counter(n, "miss_seq"), p = counter(n, "miss_proc");
      const uint32_t vpage = counter(n, "miss_vpage"), pages = counter(n, "miss_pages");
      const auto& m = maps[{n, p}];
      uint32_t count = 0;
      for (uint32_t i = 0; i < std::min(pages, kFillMax); ++i) {
        auto it = m.find(vpage + i);
        if (it == m.end()) break;
        const std::string fill = "vmmc.fill[" + std::to_string(count) + "]";
        poke(n, fill + ".vpage", vpage + i);
        poke(n, fill + ".ppage", it->second);
        ++count;
      }
      poke(n, "vmmc.fill_proc", p);
      poke(n, "vmmc.fill_count", count);
      poke(n, "vmmc.fill_seq", seq);
      node(n).chip().host_write_reg(regs::HOST_SIG, 1);
      ++misses_served[n];
    }
  }
};

// Wait conditions are named std::functions built outside the co_await: GCC 12 destroys a
// lambda temporary inside a co_await expression twice (see host/model/process.h, Process::wait).

// Posts requests into one process slot's send queue with PIO writes, as the library does,
// through the kit's SramQueue (fields first, the seq that publishes them last).
struct Poster {
  Lcp& h;
  uint32_t n, p;
  kit::SramQueue q;
  Poster(Lcp& lcp, uint32_t node, uint32_t proc)
      : h(lcp), n(node), p(proc), q(h.ref(Lcp::proc(p) + ".sendq"), "seq", h.ref(Lcp::proc(p) + ".consumed")) {}

  // Waits (PIO reads) while every slot is in use.
  host::Op<void> reserve(host::Process& pr) { return q.acquire(pr, h.node(n)); }
  uint32_t post_short(host::Process& pr, uint32_t proxy, std::span<const uint8_t> data, bool notify = false) {
    const uint32_t r = q.entry(q.next_seq());
    std::vector<uint8_t> words((data.size() + 3) & ~size_t(3), 0);
    for (size_t i = 0; i < data.size(); ++i) words[i] = data[i];
    if (!words.empty()) h.node(n).pio_write(pr, r + h.f("VmmcSendReq", "data"), words);
    h.node(n).pio_write_word(pr, r + h.f("VmmcSendReq", "proxy"), proxy);
    h.node(n).pio_write_word(pr, r + h.f("VmmcSendReq", "ctl"), uint32_t(data.size()) | h.kShort | (notify ? h.kNotify : 0));
    return q.publish(pr, h.node(n));
  }
  // A raw request (any ctl), for the safety tests.
  uint32_t post(host::Process& pr, uint32_t proxy, uint32_t vaddr, uint32_t ctl) {
    const uint32_t r = q.entry(q.next_seq());
    h.node(n).pio_write_word(pr, r + h.f("VmmcSendReq", "proxy"), proxy);
    h.node(n).pio_write_word(pr, r + h.f("VmmcSendReq", "vaddr"), vaddr);
    h.node(n).pio_write_word(pr, r + h.f("VmmcSendReq", "ctl"), ctl);
    return q.publish(pr, h.node(n));
  }
  uint32_t post_long(host::Process& pr, uint32_t vaddr, uint32_t proxy, uint32_t len, bool notify = false) {
    return post(pr, proxy, vaddr, len | (notify ? h.kNotify : 0));
  }
  uint32_t done_word() { return h.mem32(n, kDoneArea + 16 * p); }
  host::Process::Awaiter wait_done(host::Process& pr, uint32_t seq) {
    return pr.wait(h.node(n).memory_watch(), [this, seq] { return (done_word() & ~h.kRejected) >= seq; });
  }
};

std::vector<uint8_t> pattern(size_t len, uint32_t seed) {
  std::vector<uint8_t> v(len);
  for (size_t i = 0; i < len; ++i) v[i] = uint8_t(seed * 131 + i * 7 + (i >> 8) * 3 + 1);
  return v;
}

// Writes `data` into node n's send area at virtual address va of process p (mapped with
// map_virt; pages kSendPage0 + (vpage - kVBase) * 3 % 1024, scattered on purpose).
uint32_t send_ppage(uint32_t vpage) { return uint32_t(kSendPage0 + ((vpage - kVBase) * 3) % 1024); }
void put_virt(Lcp& h, uint32_t n, uint32_t p, uint32_t va, const std::vector<uint8_t>& data) {
  for (size_t i = 0; i < data.size();) {
    const uint32_t a = va + uint32_t(i), vpage = a >> 12, off = a & 4095;
    h.map_virt(n, p, vpage, send_ppage(vpage));
    const size_t k = std::min<size_t>(data.size() - i, kPage - off);
    h.node(n).memory().write(uint64_t(send_ppage(vpage)) * kPage + off, std::span(data).subspan(i, k));
    i += k;
  }
}

// Exports `pages` receive pages on node r (IPT W, plus N and a process if notify) and maps
// them into process p of node s at proxy page `proxy_page`.
void import_pages(Lcp& h, uint32_t s, uint32_t p, uint32_t proxy_page, uint32_t r, uint32_t ppage, uint32_t pages,
                  uint8_t extra = 0) {
  for (uint32_t i = 0; i < pages; ++i) {
    h.set_ipt(r, ppage + i, uint8_t(h.kIptW | extra));
    h.map_proxy(s, p, proxy_page + i, r, ppage + i);
  }
}

// ------------------------------------------------------------------------------------

TEST(VmmcLcp, LayoutMatchesTheContract) {
  const auto& img = lcp_image();
  for (const char* s : {"vmmc", "vmmc_procs", "vmmc_opt", "vmmc_ipt", "vmmc_routes", "vmmc_tlb"})
    EXPECT_TRUE(img.symbol(s).has_value()) << s;
  for (const char* h : {"vmmc_send_short", "vmmc_send_chunk", "vmmc_recv"})
    EXPECT_TRUE(img.handler_entry(h).has_value()) << h;
  EXPECT_EQ(img.layout("VmmcSendReq").size, 144u);
  EXPECT_EQ(img.layout("VmmcHeader").size, 28u);
  EXPECT_EQ(img.layout("VmmcNotification").size, 16u);
  EXPECT_EQ(img.layout("VmmcRoute").size, 12u);
  EXPECT_EQ(img.layout("VmmcFill").size, 8u);
  for (const char* fld : {"node", "host_pages", "go", "miss_seq", "miss_proc", "miss_vpage", "miss_pages", "fill_proc",
                          "fill_count", "fill", "fill_seq", "sent", "received", "bad_crc", "bad_magic", "bad_len",
                          "bad_dest", "tlb_misses", "tlb_fills"})
    EXPECT_TRUE(img.layout("VmmcCtl").has_field(fld)) << fld;
  for (const char* fld : {"active", "done_addr", "notify_ring", "notify_slots", "notify_consumed", "consumed", "done",
                          "notified", "bad_proxy", "bad_len", "bad_vaddr", "notify_overflow", "sendq"})
    EXPECT_TRUE(img.layout("VmmcProc").has_field(fld)) << fld;
  // The image stays below the first pinned structure.
  EXPECT_LT(*img.symbol("_end"), *img.symbol("vmmc"));
  // The host's page is the LCP's, and the constants the tests and the library read exist.
  EXPECT_EQ(img.constant("PAGE").value, kPage);
  for (const char* c : {"CTL_SHORT", "CTL_NOTIFY", "DONE_REJECTED", "OPT_VALID", "OPT_NODE_SHIFT", "OPT_NODE_MASK",
                        "IPT_W", "IPT_N", "IPT_PROC", "SQ_SLOTS", "OPT_PAGES", "FILL_MAX", "VMMC_GO", "SHORT_MAX",
                        "MAX_SEND"})
    EXPECT_NE(img.layout_table.find_constant(c), nullptr) << c;
}

TEST(VmmcLcp, ShortSendsAreDeliveredByteExact) {
  Lcp h(2);
  h.open(0, 0);
  import_pages(h, 0, 0, 0, 1, kRecvPage0, 2);
  h.start();
  const auto four = pattern(4, 1), full = pattern(128, 2);
  Poster ps(h, 0, 0);
  bool posted = false;
  h.spawn(0, "tx", [&](host::Process& p) -> host::Task {
    co_await p.sync();
    ps.post_short(p, 0x10, four);
    ps.post_short(p, 0xFC0, full); // crosses into the second page: a two-piece scatter
    ps.post_short(p, 0x200, std::span(full).first(5));
    posted = true;
  }, 10 * sim::kMicrosecond);
  h.run([&] { return posted && h.counter(1, "received") == 3; });
  const uint64_t base = kRecvPage0 * kPage;
  EXPECT_EQ(h.mem(1, base + 0x10, 4), four);
  EXPECT_EQ(h.mem(1, base + 0xFC0, 128), full);
  EXPECT_EQ(h.mem(1, base + 0x200, 5), std::vector<uint8_t>(full.begin(), full.begin() + 5));
  // Nothing else in the two pages or around them was written.
  const auto all = h.mem(1, base - kPage, 4 * kPage);
  size_t nonzero = 0;
  for (uint8_t b : all) nonzero += b != 0;
  size_t expect_nonzero = 0;
  for (auto* v : {&four, &full}) for (uint8_t b : *v) expect_nonzero += b != 0;
  for (size_t i = 0; i < 5; ++i) expect_nonzero += full[i] != 0;
  EXPECT_EQ(nonzero, expect_nonzero);
  EXPECT_EQ(h.pcounter(0, 0, "consumed"), 3u);
  EXPECT_EQ(h.counter(0, "sent"), 3u);
  EXPECT_EQ(h.counter(1, "bad_dest") + h.counter(1, "bad_len") + h.counter(1, "bad_crc"), 0u);
}


// A long send of several pages: source and destination at different page offsets, so
// every chunk is scattered in two pieces; TLB misses on the way are served by the driver.
TEST(VmmcLcp, LongSendScattersInTwoPiecesByteExact) {
  Lcp h(2);
  h.open(0, 0);
  import_pages(h, 0, 0, 4, 1, kRecvPage0, 6);
  h.start();
  const uint32_t len = 3 * kPage + 1000, va = (kVBase << 12) + 0x123, proxy = 4 * kPage + 0x456;
  const auto data = pattern(len, 3);
  put_virt(h, 0, 0, va, data);
  Poster ps(h, 0, 0);
  uint32_t seq = 0;
  bool finished = false;
  h.spawn(0, "tx", [&](host::Process& p) -> host::Task {
    seq = ps.post_long(p, va, proxy, len);
    co_await ps.wait_done(p, seq);
    finished = true;
  });
  h.run([&] { return finished && h.counter(1, "received") == 4; });
  EXPECT_EQ(ps.done_word(), seq); // completed, not rejected
  const uint64_t base = kRecvPage0 * kPage;
  const auto got = h.mem(1, base + 0x456, len);
  for (size_t i = 0; i < len; ++i)
    if (got[i] != data[i]) {
      ADD_FAILURE() << "first wrong byte at " << i << " of " << len << ": got " << int(got[i]) << " " << int(got[i + 1])
                    << " " << int(got[i + 2]) << " want " << int(data[i]) << " " << int(data[i + 1]) << " "
                    << int(data[i + 2]);
      break;
    }
  // Nothing before or after the message in the exported pages.
  for (uint8_t b : h.mem(1, base, 0x456)) ASSERT_EQ(b, 0);
  for (uint8_t b : h.mem(1, base + 0x456 + len, 6 * kPage - 0x456 - len)) ASSERT_EQ(b, 0);
  // 4 chunks (first to the source's page boundary, then pages), all two-piece at the
  // destination except where the offsets line up.
  EXPECT_EQ(h.counter(0, "sent"), 4u);
  EXPECT_GE(h.counter(0, "tlb_misses"), 1u);
  EXPECT_EQ(h.counter(0, "tlb_fills"), 4u);
  EXPECT_EQ(h.pcounter(0, 0, "done"), seq);
}

std::vector<uint8_t> be_word(uint32_t v) {
  return {uint8_t(v >> 24), uint8_t(v >> 16), uint8_t(v >> 8), uint8_t(v)};
}

// Completion words: seq when the last chunk is in SRAM, seq | bit 31 when rejected; requests
// of one process complete in order.
TEST(VmmcLcp, CompletionWordsAndRejections) {
  Lcp h(2);
  h.open(0, 0);
  import_pages(h, 0, 0, 0, 1, kRecvPage0, 4);
  h.start();
  const uint32_t va = kVBase << 12;
  const auto data = pattern(2 * kPage, 5);
  put_virt(h, 0, 0, va, data);
  Poster ps(h, 0, 0);
  std::vector<uint32_t> words;
  bool finished = false;
  h.spawn(0, "tx", [&](host::Process& p) -> host::Task {
    uint32_t s = ps.post_long(p, va, 0, 2 * kPage);
    co_await ps.wait_done(p, s);
    words.push_back(ps.done_word());
    s = ps.post_long(p, va, 10 * kPage, 100); // proxy page 10: no OPT entry
    co_await ps.wait_done(p, s);
    words.push_back(ps.done_word());
    s = ps.post_long(p, va, h.kOptPages * kPage, 100); // proxy page OPT_PAGES: past the table
    co_await ps.wait_done(p, s);
    words.push_back(ps.done_word());
    s = ps.post_long(p, va + 10, 2 * kPage + 10, 3000);
    co_await ps.wait_done(p, s);
    words.push_back(ps.done_word());
    finished = true;
  });
  h.run([&] { return finished; });
  ASSERT_EQ(words.size(), 4u);
  EXPECT_EQ(words[0], 1u);
  EXPECT_EQ(words[1], 2u | h.kRejected);
  EXPECT_EQ(words[2], 3u | h.kRejected);
  EXPECT_EQ(words[3], 4u);
  EXPECT_EQ(h.pcounter(0, 0, "bad_proxy"), 2u);
  EXPECT_EQ(h.mem(1, kRecvPage0 * kPage, 2 * kPage), data);
  EXPECT_EQ(h.mem(1, kRecvPage0 * kPage + 2 * kPage + 10, 3000),
            std::vector<uint8_t>(data.begin() + 10, data.begin() + 3010));
}

// More pages than a TLB set holds (six pages in one 2-way set, twice), and a send longer
// than one fill (40 pages > FILL_MAX): every byte arrives, every miss is counted.
TEST(VmmcLcp, TlbMissStormWithConflictingSets) {
  Lcp h(2);
  h.open(0, 0);
  import_pages(h, 0, 0, 0, 1, kRecvPage0, 48);
  h.start();
  std::vector<std::vector<uint8_t>> pages;
  for (uint32_t k = 0; k < 6; ++k) {
    pages.push_back(pattern(kPage, 20 + k));
    put_virt(h, 0, 0, (kVBase + k * 1024) << 12, pages.back());
  }
  const auto big = pattern(40 * kPage, 40);
  put_virt(h, 0, 0, (kVBase + 100) << 12, big);
  Poster ps(h, 0, 0);
  bool finished = false;
  h.spawn(0, "tx", [&](host::Process& p) -> host::Task {
    uint32_t s = 0;
    for (uint32_t round = 0; round < 2; ++round)
      for (uint32_t k = 0; k < 6; ++k) {
        co_await ps.reserve(p);
        s = ps.post_long(p, (kVBase + k * 1024) << 12, (round * 6 + k) * kPage, kPage);
      }
    co_await ps.wait_done(p, s);
    s = ps.post_long(p, (kVBase + 100) << 12, 0, 40 * kPage);
    co_await ps.wait_done(p, s);
    finished = true;
  });
  h.run([&] { return finished; });
  EXPECT_EQ(ps.done_word(), 13u);
  EXPECT_EQ(h.counter(0, "tlb_misses"), 14u);
  EXPECT_EQ(h.counter(0, "tlb_fills"), 52u);
  EXPECT_EQ(h.misses_served[0], 14u);
  EXPECT_EQ(h.mem(1, kRecvPage0 * kPage, 40 * kPage), big); // the last send overwrote the first 40 pages
  for (uint32_t k = 0; k < 6; ++k) EXPECT_EQ(h.mem(1, (kRecvPage0 + 40 + k) * kPage, 0), std::vector<uint8_t>());
  // Round 2's last two pages landed beyond the big message's 40 pages.
  EXPECT_EQ(h.mem(1, (kRecvPage0 + 10) * kPage, kPage), std::vector<uint8_t>(big.begin() + 10 * kPage, big.begin() + 11 * kPage));
  EXPECT_EQ(h.pcounter(0, 0, "bad_vaddr"), 0u);
}

// While the driver takes its time over a miss, the LCP keeps receiving and keeps serving
// the other processes' queues; an unmapped page rejects the request (bad_vaddr).
TEST(VmmcLcp, MissOutstandingDoesNotBlockOthers) {
  Lcp h(2, [](sim::ClusterParams& cp) { cp.node.interrupt_latency = 300 * sim::kMicrosecond; });
  h.open(0, 0);
  h.open(0, 1);
  h.open(1, 0);
  import_pages(h, 0, 0, 0, 1, kRecvPage0, 2);
  import_pages(h, 0, 1, 0, 1, kRecvPage0 + 2, 1);
  import_pages(h, 1, 0, 0, 0, kRecvPage0, 1);
  h.start();
  const Time t0 = h.cluster().kernel().now();
  const auto data = pattern(kPage, 7);
  put_virt(h, 0, 0, kVBase << 12, data);
  Poster a(h, 0, 0), b(h, 0, 1), c(h, 1, 0);
  Time long_done = 0, short_seen = 0, back_seen = 0;
  uint32_t rejected_word = 0;
  h.spawn(0, "a", [&](host::Process& p) -> host::Task {
    uint32_t s = a.post_long(p, kVBase << 12, 0, kPage);
    co_await a.wait_done(p, s);
    long_done = p.local();
    s = a.post_long(p, (kVBase + 500) << 12, 0, 100); // not mapped by the driver
    co_await a.wait_done(p, s);
    rejected_word = a.done_word();
  }, 10 * sim::kMicrosecond);
  h.spawn(0, "b", [&](host::Process& p) -> host::Task {
    co_await p.sync();
    b.post_short(p, 16, be_word(0xB0B0B0B0));
    const std::function<bool()> cond0 = [&] { return h.mem32(1, (kRecvPage0 + 2) * kPage + 16) == 0xB0B0B0B0; };
    co_await p.wait(h.node(1).memory_watch(), cond0);
    short_seen = p.local();
  }, 20 * sim::kMicrosecond);
  h.spawn(1, "c", [&](host::Process& p) -> host::Task {
    co_await p.sync();
    c.post_short(p, 32, be_word(0xC0C0C0C0));
    const std::function<bool()> cond1 = [&] { return h.mem32(0, kRecvPage0 * kPage + 32) == 0xC0C0C0C0; };
    co_await p.wait(h.node(0).memory_watch(), cond1);
    back_seen = p.local();
  }, 30 * sim::kMicrosecond);
  h.run([&] { return rejected_word != 0 && short_seen && back_seen; });
  EXPECT_GT(long_done - t0, 300 * sim::kMicrosecond);
  EXPECT_LT(short_seen - t0, 100 * sim::kMicrosecond);
  EXPECT_LT(back_seen - t0, 100 * sim::kMicrosecond);
  EXPECT_EQ(rejected_word, 2u | h.kRejected);
  EXPECT_EQ(h.pcounter(0, 0, "bad_vaddr"), 1u);
  EXPECT_EQ(h.mem(1, kRecvPage0 * kPage, kPage), data);
}

// Notifications: the record lands in the ring of the process the page's IPT entry names,
// LAN1_SIG interrupts the driver; a full ring counts notify_overflow, data still delivered.
TEST(VmmcLcp, NotificationsRecordedAndSignalled) {
  Lcp h(2);
  h.open(0, 0);
  h.open(1, 2);
  import_pages(h, 0, 0, 0, 1, kRecvPage0, 3, uint8_t(0x40 | 2));
  import_pages(h, 0, 0, 8, 1, kRecvPage0 + 8, 1); // W only
  h.start();
  const auto data = pattern(2 * kPage, 11);
  put_virt(h, 0, 0, kVBase << 12, data);
  Poster ps(h, 0, 0);
  bool finished = false;
  h.spawn(0, "tx", [&](host::Process& p) -> host::Task {
    ps.post_short(p, 100, be_word(0x11223344), true);
    ps.post_short(p, 8 * kPage, be_word(0x55667788), true); // page without N: no record
    uint32_t s = ps.post_long(p, kVBase << 12, 300, 2 * kPage, true);
    co_await ps.wait_done(p, s);
    const std::function<bool()> cond2 = [&] { return h.mem32(1, kRingArea + 0x400 * 2 + 16) == 2; };
    co_await p.wait(h.node(1).memory_watch(), cond2);
    // Fill the ring (8 slots): 6 more fit, 2 overflow.
    for (int i = 0; i < 8; ++i) {
      co_await ps.reserve(p);
      ps.post_short(p, 200 + 4 * i, be_word(i), true);
    }
    finished = true;
  });
  h.run([&] { return finished && h.counter(1, "received") == 4 + 8; });
  const uint64_t ring = kRingArea + 0x400 * 2;
  EXPECT_EQ(h.mem32(1, ring + 0), 1u);
  EXPECT_EQ(h.mem32(1, ring + 4), 0u);                         // src node
  EXPECT_EQ(h.mem32(1, ring + 8), kRecvPage0 * kPage + 103);    // the last byte
  EXPECT_EQ(h.mem32(1, ring + 12), 4u);
  EXPECT_EQ(h.mem32(1, ring + 16), 2u);
  EXPECT_EQ(h.mem32(1, ring + 24), kRecvPage0 * kPage + 300 + 2 * kPage - 1);
  EXPECT_EQ(h.mem32(1, ring + 28), 2 * kPage);
  EXPECT_EQ(h.pcounter(1, 2, "notified"), 8u);
  EXPECT_EQ(h.pcounter(1, 2, "notify_overflow"), 2u);
  EXPECT_GE(h.notify_irqs[1], 1u);
  EXPECT_EQ(h.mem32(1, (kRecvPage0 + 8) * kPage), 0x55667788u);
  EXPECT_EQ(h.mem(1, kRecvPage0 * kPage + 300, 2 * kPage), data);
  EXPECT_EQ(h.mem32(1, kRecvPage0 * kPage + 200 + 28), 7u); // overflowed, still delivered
}

// Two processes on one node, each confined to its own outgoing page table.
TEST(VmmcLcp, TwoProcessesUseOnlyTheirOwnPageTables) {
  Lcp h(2);
  h.open(0, 0);
  h.open(0, 1);
  import_pages(h, 0, 0, 0, 1, kRecvPage0, 1);
  import_pages(h, 0, 1, 0, 1, kRecvPage0 + 1, 1);
  import_pages(h, 0, 0, 5, 1, kRecvPage0 + 5, 1); // only process 0 imported proxy page 5
  h.start();
  Poster a(h, 0, 0), b(h, 0, 1);
  bool done_a = false, done_b = false;
  h.spawn(0, "a", [&](host::Process& p) -> host::Task {
    co_await p.sync();
    a.post_short(p, 0, be_word(0xAAAA0001));
    a.post_short(p, 5 * kPage, be_word(0xAAAA0005));
    done_a = true;
  }, 10 * sim::kMicrosecond);
  h.spawn(0, "b", [&](host::Process& p) -> host::Task {
    co_await p.sync();
    b.post_short(p, 0, be_word(0xBBBB0001));
    b.post_short(p, 5 * kPage, be_word(0xBBBB0005)); // not in b's table
    done_b = true;
  }, 10 * sim::kMicrosecond);
  h.run([&] { return done_a && done_b && h.counter(1, "received") == 3 && h.pcounter(0, 1, "consumed") == 2; });
  EXPECT_EQ(h.mem32(1, kRecvPage0 * kPage), 0xAAAA0001u);
  EXPECT_EQ(h.mem32(1, (kRecvPage0 + 1) * kPage), 0xBBBB0001u);
  EXPECT_EQ(h.mem32(1, (kRecvPage0 + 5) * kPage), 0xAAAA0005u);
  EXPECT_EQ(h.pcounter(0, 1, "bad_proxy"), 1u);
  EXPECT_EQ(h.pcounter(0, 0, "bad_proxy"), 0u);
}

// Every rejection is counted, nothing is written anywhere, and the next legitimate send
// still arrives intact.
TEST(VmmcLcp, BadRequestsAreCountedAndWriteNothing) {
  Lcp h(2);
  h.open(0, 0);
  import_pages(h, 0, 0, 0, 1, kRecvPage0, 1);
  import_pages(h, 0, 0, 1, 1, kRecvPage0 + 1, 1);
  h.map_proxy(0, 0, 2, 0, kRecvPage0 + 2); // proxy page 2 is on another node than page 1
  h.start();
  const auto data = pattern(2 * kPage, 13);
  put_virt(h, 0, 0, kVBase << 12, data);
  Poster ps(h, 0, 0);
  bool finished = false;
  const auto big = pattern(129, 1);
  h.spawn(0, "tx", [&](host::Process& p) -> host::Task {
    co_await p.sync();
    ps.post_short(p, 7 * kPage, be_word(1));                       // invalid OPT entry
    ps.post_short(p, h.kOptPages * kPage, be_word(2));                // past OPT_PAGES
    ps.post_short(p, 2 * kPage - 2, be_word(3));                   // crosses into another node's page
    ps.post_short(p, 0, big);                                      // short > 128
    ps.post(p, 0, 0, 0 | h.kShort);                                  // length 0
    ps.post_long(p, kVBase << 12, 0, 8 * 1024 * 1024 + 1);         // long > 8 MB
    ps.post_long(p, kVBase << 12, 0, 0);                           // long of 0 bytes
    ps.post_long(p, kVBase << 12, kPage - 100, 200 + kPage);       // second page crosses into another node
    uint32_t s = ps.post_long(p, kVBase << 12, 0, kPage);          // and a good one
    co_await ps.wait_done(p, s);
    finished = true;
  }, 10 * sim::kMicrosecond);
  h.run([&] { return finished && h.counter(1, "received") >= 1; });
  EXPECT_EQ(h.pcounter(0, 0, "bad_proxy"), 4u);
  EXPECT_EQ(h.pcounter(0, 0, "bad_len"), 4u);
  EXPECT_EQ(h.pcounter(0, 0, "consumed"), 9u);
  EXPECT_EQ(ps.done_word(), 9u);
  // The long request rejected after its first chunk went out delivered that chunk only.
  EXPECT_EQ(h.counter(1, "received"), 2u);
  EXPECT_EQ(h.mem(1, kRecvPage0 * kPage, kPage), std::vector<uint8_t>(data.begin(), data.begin() + kPage));
  EXPECT_EQ(h.pcounter(0, 0, "bad_vaddr"), 0u);
  EXPECT_EQ(h.counter(1, "bad_dest") + h.counter(1, "bad_len") + h.counter(1, "bad_crc"), 0u);
  // Nothing reached node 0's own pages (the bogus node-0 entry).
  for (uint8_t byte : h.mem(0, (kRecvPage0 + 2) * kPage, kPage)) ASSERT_EQ(byte, 0);
}

// An outgoing entry pointing at a page the receiver did not export (no W in its incoming
// page table), or beyond its memory: dropped and counted at the receiver, not a byte
// written. Then a good send arrives.
TEST(VmmcLcp, DestinationWithoutWriteIsNeverWritten) {
  Lcp h(2);
  h.open(0, 0);
  import_pages(h, 0, 0, 0, 1, kRecvPage0, 1);
  h.map_proxy(0, 0, 1, 1, kRecvPage0 + 1);     // bogus: node 1 never set W for this page
  h.map_proxy(0, 0, 2, 1, 0xFFFFFF);          // beyond host memory
  h.map_proxy(0, 0, 3, 1, kRecvPage0 + 3);    // page 3 exported, page 4 not:
  h.set_ipt(1, kRecvPage0 + 3, uint8_t(h.kIptW));
  h.map_proxy(0, 0, 4, 1, kRecvPage0 + 4);    //   a chunk spanning 3 and 4 is refused whole
  h.set_ipt(1, kRecvPage0 + 1, 0x40);         // N without W is still not writable
  for (uint32_t pg = 1; pg <= 5; ++pg) h.node(1).memory().fill((kRecvPage0 + pg) * kPage, kPage, 0xA5);
  h.start();
  const auto data = pattern(2 * kPage, 17);
  put_virt(h, 0, 0, kVBase << 12, data);
  Poster ps(h, 0, 0);
  bool finished = false;
  h.spawn(0, "tx", [&](host::Process& p) -> host::Task {
    co_await p.sync();
    ps.post_short(p, kPage + 8, be_word(0xDEADBEEF));
    ps.post_short(p, 2 * kPage + 8, be_word(0xDEADBEEF));
    uint32_t s = ps.post_long(p, kVBase << 12, kPage, kPage);
    co_await ps.wait_done(p, s);
    s = ps.post_long(p, kVBase << 12, 4 * kPage - 64, 128);
    co_await ps.wait_done(p, s);
    s = ps.post_long(p, kVBase << 12, 0, kPage);
    co_await ps.wait_done(p, s);
    finished = true;
  }, 10 * sim::kMicrosecond);
  const uint64_t to_host_before = h.node(1).chip().counters().host_dma_bytes_to_host;
  h.run([&] { return finished && h.counter(1, "received") == 1; });
  EXPECT_EQ(h.counter(1, "bad_dest"), 4u);
  EXPECT_EQ(h.counter(1, "received"), 1u);
  EXPECT_EQ(h.node(1).chip().counters().host_dma_bytes_to_host - to_host_before, kPage);
  for (uint32_t pg = 1; pg <= 5; ++pg)
    for (uint8_t byte : h.mem(1, (kRecvPage0 + pg) * kPage, kPage)) ASSERT_EQ(byte, 0xA5) << "page " << pg;
  EXPECT_EQ(h.mem(1, kRecvPage0 * kPage, kPage), std::vector<uint8_t>(data.begin(), data.begin() + kPage));
}

// A packet corrupted on the link: CRC error, counted, dropped; the next one is intact.
TEST(VmmcLcp, CorruptedPacketIsCountedAsBadCrc) {
  Lcp h(2);
  net::FaultPlan f;
  f.corrupt_packets = {1};
  h.cluster().network().node_tx(0).set_faults(f);
  h.open(0, 0);
  import_pages(h, 0, 0, 0, 1, kRecvPage0, 1);
  h.start();
  Poster ps(h, 0, 0);
  bool finished = false;
  h.spawn(0, "tx", [&](host::Process& p) -> host::Task {
    co_await p.sync();
    for (uint32_t i = 0; i < 3; ++i) ps.post_short(p, 64 * i, be_word(0x01010101 * (i + 1)));
    finished = true;
  }, 10 * sim::kMicrosecond);
  h.run([&] { return finished && h.counter(1, "received") + h.counter(1, "bad_crc") == 3; });
  EXPECT_EQ(h.counter(1, "bad_crc"), 1u);
  EXPECT_EQ(h.counter(1, "received"), 2u);
  EXPECT_EQ(h.mem32(1, kRecvPage0 * kPage + 0), 0x01010101u);
  EXPECT_EQ(h.mem32(1, kRecvPage0 * kPage + 64), 0u);
  EXPECT_EQ(h.mem32(1, kRecvPage0 * kPage + 128), 0x03030303u);
}

// Both nodes stream long messages to each other at once: the host-DMA engine serves
// fetches and deliveries in turn, the tight sending loop gives way to arriving packets,
// nothing deadlocks and every byte arrives (the paper's bidirectional case: 91 MB/s total).
TEST(VmmcLcp, BidirectionalLongSends) {
  Lcp h(2);
  h.open(0, 0);
  h.open(1, 0);
  constexpr uint32_t kBytes = 256 * 1024, kCount = 4;
  const uint32_t pages = kBytes / kPage;
  import_pages(h, 0, 0, 0, 1, kRecvPage0, pages + 1);
  import_pages(h, 1, 0, 0, 0, kRecvPage0, pages + 1);
  h.start();
  const auto d0 = pattern(kBytes, 51), d1 = pattern(kBytes, 52);
  put_virt(h, 0, 0, (kVBase << 12) + 0x40, d0);
  put_virt(h, 1, 0, (kVBase << 12) + 0x40, d1);
  Poster a(h, 0, 0), b(h, 1, 0);
  int finished = 0;
  Time t0 = h.cluster().kernel().now(), t_end = 0;
  for (uint32_t n = 0; n < 2; ++n)
    h.spawn(n, "tx", [&, n](host::Process& p) -> host::Task {
      Poster& ps = n == 0 ? a : b;
      uint32_t s = 0;
      for (uint32_t i = 0; i < kCount; ++i) {
        co_await ps.reserve(p);
        s = ps.post_long(p, (kVBase << 12) + 0x40, 0x100, kBytes);
      }
      co_await ps.wait_done(p, s);
      EXPECT_EQ(ps.done_word(), s);
      ++finished;
    });
  std::vector<Time> last_dma(2, 0);
  for (uint32_t n = 0; n < 2; ++n)
    h.node(n).chip().on_event([&, n](const vm::ChipEventRecord& e) {
      if (e.kind == vm::ChipEvent::HostDmaDone) last_dma[n] = e.time;
    });
  const uint32_t packets = (pages + 1) * kCount;  // the source offset makes one more chunk
  h.run([&] { return finished == 2 && h.counter(0, "received") == packets && h.counter(1, "received") == packets; });
  t_end = std::max(last_dma[0], last_dma[1]);
  EXPECT_EQ(h.mem(1, kRecvPage0 * kPage + 0x100, kBytes), d0);
  EXPECT_EQ(h.mem(0, kRecvPage0 * kPage + 0x100, kBytes), d1);
  const double total = 2.0 * kBytes * kCount / (double(t_end - t0) / 1e12) / 1e6;
  std::printf("VMMC LCP bidirectional 256 KB messages: %.1f MB/s total\n", total);
  EXPECT_GT(total, 80.0);
}

// One-word ping-pong between two processes: half the round trip.
TEST(VmmcLcp, OneWordLatency) {
  Lcp h(2);
  h.open(0, 0);
  h.open(1, 0);
  import_pages(h, 0, 0, 0, 1, kRecvPage0, 1);
  import_pages(h, 1, 0, 0, 0, kRecvPage0, 1);
  h.start();
  constexpr int kWarm = 3, kIters = 10;
  Poster a(h, 0, 0), b(h, 1, 0);
  Time t0 = 0, t1 = 0;
  bool finished = false;
  auto word = [](uint32_t v) {
    return std::vector<uint8_t>{uint8_t(v >> 24), uint8_t(v >> 16), uint8_t(v >> 8), uint8_t(v)};
  };
  const uint64_t flag = kRecvPage0 * kPage + 64;
  h.spawn(0, "ping", [&](host::Process& p) -> host::Task {
    for (uint32_t i = 1; i <= kWarm + kIters; ++i) {
      if (i == kWarm + 1) t0 = p.local();
      a.post_short(p, 64, word(i));
      const std::function<bool()> cond3 = [&, i] { return h.mem32(0, flag) == i; };
      co_await p.wait(h.node(0).memory_watch(), cond3);
    }
    t1 = p.local();
    finished = true;
  });
  h.spawn(1, "pong", [&](host::Process& p) -> host::Task {
    for (uint32_t i = 1; i <= kWarm + kIters; ++i) {
      const std::function<bool()> cond4 = [&, i] { return h.mem32(1, flag) == i; };
      co_await p.wait(h.node(1).memory_watch(), cond4);
      b.post_short(p, 64, word(i));
    }
  });
  h.profile();
  h.run([&] { return finished; });
  h.print_profile(0);
  h.print_profile(1);
  const double one_way_us = double(t1 - t0) / kIters / 2 / 1e6;
  std::printf("VMMC LCP one-word one-way latency: %.3f us\n", one_way_us);
  // The paper measured 9.8 us (its estimate of the hardware floor is about 5 us); this
  // LCP gives 9.45 on the simulated testbed (docs/vmmc.md, "The LCP").
  EXPECT_LT(one_way_us, 9.8);
  EXPECT_GT(one_way_us, 1.0);
}

// One long message, one way: from posting the request to the last byte in the receiver's
// memory. The TLB is warmed by an earlier send of the same buffer (the paper's
// measurements assume the translations are present).
struct Bandwidth {
  double single_mb_s = 0, stream_mb_s = 0;
};
Bandwidth measure_bandwidth(uint32_t bytes, uint32_t count, bool profile) {
  Lcp h(2);
  h.open(0, 0);
  const uint32_t pages = (bytes + kPage - 1) / kPage;
  import_pages(h, 0, 0, 0, 1, kRecvPage0, pages);
  h.start();
  if (profile) h.profile();
  const uint32_t va = kVBase << 12;
  const auto data = pattern(bytes, 9);
  put_virt(h, 0, 0, va, data);
  const uint64_t last = kRecvPage0 * kPage + bytes - 4;
  std::vector<uint8_t> tail(data.end() - 4, data.end());
  Poster ps(h, 0, 0);
  Time t0 = 0, t1 = 0, s0 = 0, s1 = 0;
  // The end of the stream: the receiver's last delivery DMA.
  h.node(1).chip().on_event([&](const vm::ChipEventRecord& e) {
    if (e.kind == vm::ChipEvent::HostDmaDone) s1 = e.time;
  });
  bool finished = false;
  h.spawn(0, "tx", [&](host::Process& p) -> host::Task {
    // Warm-up: the same buffer once (TLB misses), then clear the receiver's last word.
    uint32_t seq = ps.post_long(p, va, 0, bytes);
    co_await ps.wait_done(p, seq);
    const std::function<bool()> cond5 = [&] { return h.mem(1, last, 4) == tail; };
    co_await p.wait(h.node(1).memory_watch(), cond5);
    h.node(1).memory().fill(last, 4, 0);
    co_await p.sync();
    t0 = p.local();
    seq = ps.post_long(p, va, 0, bytes);
    const std::function<bool()> cond6 = [&] { return h.mem(1, last, 4) == tail; };
    co_await p.wait(h.node(1).memory_watch(), cond6);
    t1 = p.local();
    // A stream of `count` messages back to back.
    h.node(1).memory().fill(last, 4, 0);
    co_await p.sync();
    s0 = p.local();
    for (uint32_t i = 0; i < count; ++i) {
      co_await ps.reserve(p);
      seq = ps.post_long(p, va, 0, bytes);
    }
    co_await ps.wait_done(p, seq);
    const uint32_t received = h.counter(1, "received") + pages * count;
    (void)received;
    finished = true;
  });
  const uint32_t packets_before_stream = 2 * pages;
  h.run([&] { return finished && h.counter(1, "received") == packets_before_stream + pages * count &&
                     h.mem(1, last, 4) == tail; },
        2000 * sim::kMillisecond);
  EXPECT_EQ(h.mem(1, kRecvPage0 * kPage, bytes), data);
  if (profile) {
    h.print_profile(0);
    h.print_profile(1);
  }
  Bandwidth b;
  b.single_mb_s = double(bytes) / (double(t1 - t0) / 1e12) / 1e6;
  b.stream_mb_s = double(bytes) * count / (double(s1 - s0) / 1e12) / 1e6;
  return b;
}

TEST(VmmcLcp, LongSendBandwidth) {
  for (uint32_t kb : {4u, 64u, 1024u, 8192u}) {
    const Bandwidth b = measure_bandwidth(kb * 1024, kb >= 8192 ? 1 : kb >= 1024 ? 2 : 8,
                                          kb == 64 && std::getenv("LK_PROFILE"));
    std::printf("VMMC LCP one-way bandwidth %5u KB: one message %.2f MB/s, stream %.2f MB/s\n", kb, b.single_mb_s,
                b.stream_mb_s);
    // The target: 98% of the 110 MB/s the PCI DMA gives at 4 KB blocks (the paper: 108.4).
    if (kb == 1024) {
      EXPECT_GE(b.stream_mb_s, 0.98 * 110);
    }
    if (kb == 8192) {
      EXPECT_GE(b.single_mb_s, 0.98 * 110);
    }
    if (kb == 64) {
      EXPECT_GE(b.stream_mb_s, 0.95 * 110);
    }
  }
}

} // namespace
} // namespace lanaikit
