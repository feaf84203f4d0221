// Hamlyn's control program (firmware/hamlyn/hamlyn.fw) on the LCP bench, with the driver's
// set-up (host/hamlyn/driver.h) and work-queue entries written straight into SRAM (the
// application library's job, not under test here): direct I/O and fast mode, DMA sends
// gathered from several send buffers and cut into packets, the packet accumulator, group
// receive, the paranoid modes, every refusal counted with nothing written outside the
// permitted areas, the handshake timer, and round robin between termini.
#include "../kit/lcp_bench.h"
#include "../kit/payload.h"

#include "host/hamlyn/driver.h"

#include <map>

#include <gtest/gtest.h>

namespace lanaikit {
namespace {

using hamlyn::Region;
using hamlyn::SlotMode;

const assembler::FirmwareImage& image(uint32_t packet_bytes = 256) {
  static std::map<uint32_t, assembler::FirmwareImage> built;
  auto it = built.find(packet_bytes);
  if (it == built.end())
    it = built.emplace(packet_bytes,
                       test::build_firmware({test::source("firmware/hamlyn/hamlyn.fw")},
                                            {"PACKET_BYTES=" + std::to_string(packet_bytes)}))
             .first;
  return it->second;
}

constexpr uint64_t kKey = 0x0123456789ABCDEFull;

struct Tuple {
  uint32_t tag, offset, len;
};

// A request block's fields (HamlynRequest).
struct Request {
  uint32_t dest = 1, slot = 0, meta_index = 0;
  uint64_t key = kKey;
  uint32_t offset = 0, delta = 0, fast_word = 0;
};

class HamlynBench {
public:
  explicit HamlynBench(uint32_t nodes = 2, uint32_t packet_bytes = 256,
                       const std::function<void(sim::ClusterParams&)>& tweak = {})
      : h(image(packet_bytes), "lua-scripts/platforms/hamlyn.lua", nodes, "hamlyn", tweak) {
    for (uint32_t n = 0; n < nodes; ++n) {
      drivers.push_back(std::make_unique<hamlyn::Driver>(h.node(n), h.view()));
      kit::write_routes(h.cluster(), n, h.ref("hamlyn.routes"));
      kit::write_paths(h.cluster(), n, h.ref("hamlyn.paths"), h.constant("MAX_PATHS"));
    }
  }

  hamlyn::Driver& driver(uint32_t n) { return *drivers.at(n); }

  // Node n: slot 0 (and `slots` more alike, keys kKey + i) over one message area, one
  // notification queue.
  void receiver(uint32_t n, uint32_t area_bytes = 64 * 1024, SlotMode mode = SlotMode::Normal,
                uint32_t meta_entries = 16, uint32_t queue_entries = 64) {
    driver(n).open_nqcb(0, queue_entries);
    area = driver(n).allocate(area_bytes);
    meta = driver(n).allocate(meta_entries * 128);
    driver(n).open_slot(0, {mode, area, kKey, meta, 0});
  }

  // Node n: terminus t with two send buffers of 8 KB.
  void sender(uint32_t n, uint32_t t = 0) {
    Region a = driver(n).allocate(8192), b = driver(n).allocate(8192);
    Region seq = driver(n).allocate(4);
    sendbufs[{n, t}] = {a, b};
    seqword[{n, t}] = seq.addr;
    driver(n).open_terminus(t, {a, b}, seq.addr);
  }

  void go(uint32_t handshake_ticks = 0) {
    for (uint32_t n = 0; n < h.size(); ++n) driver(n).go(n, h.size(), handshake_ticks);
    h.start();
  }

  std::string entry(uint32_t n, uint32_t t) {
    const uint32_t k = posted[{n, t}] % h.constant("QUEUE_ENTRIES");
    return "queues[" + std::to_string(t) + "].entries[" + std::to_string(k) + "]";
  }

  void write_request(uint32_t n, const std::string& e, const Request& r, uint32_t kind,
                     uint32_t ntuples, uint32_t len, uint32_t meta_len) {
    auto set = [&](const char* f, uint64_t v) { h.poke(n, e + ".req." + f, v); };
    set("dest", r.dest);
    set("slot", r.slot);
    set("meta_index", r.meta_index);
    set("kind", kind);
    set("ntuples", ntuples);
    set("key_hi", r.key >> 32);
    set("key_lo", r.key & 0xFFFFFFFFu);
    set("offset", r.offset);
    set("delta", r.delta);
    set("len", meta_len + len);   // the header's: the whole payload
    set("meta_len", meta_len);
    set("fast_word", r.fast_word);
  }
  void publish(uint32_t n, uint32_t t, const std::string& e) {
    h.poke(n, e + ".req.seq", ++posted[{n, t}]);
  }

  // Direct I/O: metadata and data STOREd into the entry.
  void post_direct(uint32_t n, uint32_t t, const Request& r, const std::vector<uint8_t>& m,
                   const std::vector<uint8_t>& d) {
    const std::string e = entry(n, t);
    write_request(n, e, r, h.constant("ReqKind.DIRECT"), 0, uint32_t(d.size()), uint32_t(m.size()));
    std::vector<uint8_t> bytes = m;
    bytes.insert(bytes.end(), d.begin(), d.end());
    h.node(n).chip().host_write_sram(h.addr(e + ".inline"), bytes);
    publish(n, t, e);
  }

  // DMA: the metadata tuple, then data tuples.
  void post_dma(uint32_t n, uint32_t t, const Request& r, Tuple meta_tuple,
                const std::vector<Tuple>& data) {
    const std::string e = entry(n, t);
    uint32_t len = 0;
    for (const Tuple& x : data) len += x.len;
    write_request(n, e, r, h.constant("ReqKind.DMA"), uint32_t(data.size() + 1), len, meta_tuple.len);
    const uint32_t at = h.addr(e + ".inline");
    std::vector<Tuple> all{meta_tuple};
    all.insert(all.end(), data.begin(), data.end());
    for (size_t i = 0; i < all.size(); ++i) {
      h.poke32(n, at + uint32_t(12 * i), all[i].tag);
      h.poke32(n, at + uint32_t(12 * i + 4), all[i].offset);
      h.poke32(n, at + uint32_t(12 * i + 8), all[i].len);
    }
    publish(n, t, e);
  }

  void fill_sendbuf(uint32_t n, uint32_t t, uint32_t tag, uint32_t off, const std::vector<uint8_t>& v) {
    h.node(n).memory().write(sendbufs[{n, t}].at(tag).addr + off, v);
  }

  // Notification entry i of node n's queue 0: {word, meta}.
  std::pair<uint32_t, uint32_t> note(uint32_t n, uint32_t i) {
    const uint64_t q = driver(n).nqcb_queue(0).addr + 16 * i;
    return {h.mem32(n, q), h.mem32(n, q + 4)};
  }
  uint64_t counter(uint32_t n, const std::string& c) { return h.peek(n, "hamlyn." + c); }
  uint32_t sent(uint32_t n, uint32_t t = 0) { return h.mem32(n, seqword[{n, t}]); }

  test::LcpBench h;
  std::vector<std::unique_ptr<hamlyn::Driver>> drivers;
  Region area, meta;
  std::map<std::pair<uint32_t, uint32_t>, std::vector<Region>> sendbufs;
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> seqword;
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> posted;
};

TEST(HamlynFirmware, FastModeDirectIoLandsAndNotifies) {
  HamlynBench b;
  b.receiver(1);
  b.sender(0);
  b.go();
  const auto data = test::pattern(16, 1);
  Request r;
  r.meta_index = 0xFFFF;
  r.offset = 64;
  r.fast_word = 0xFEEDF00D;
  b.post_direct(0, 0, r, {}, data);
  b.h.run([&] { return b.counter(1, "messages_in") == 1 && b.sent(0) == 1; });
  EXPECT_EQ(test::difference(b.h.mem(1, b.area.addr + 64, 16), data), "");
  const auto [word, meta] = b.note(1, 0);
  EXPECT_EQ(word, 0x80000000u | 0u << 16 | 0xFFFFu); // wrap 1, slot 0, fast index
  EXPECT_EQ(meta, 0xFEEDF00Du);
  EXPECT_EQ(b.note(1, 1).first, 0u) << "one message, one entry";
  // Nothing else in the area was written.
  EXPECT_EQ(b.h.mem(1, b.area.addr, 64), std::vector<uint8_t>(64, 0));
  EXPECT_EQ(b.h.mem(1, b.area.addr + 80, 4096 - 80), std::vector<uint8_t>(4096 - 80, 0));
  EXPECT_EQ(b.counter(0, "termini[0].packets"), 1u);
}

TEST(HamlynFirmware, DmaSendGathersSegmentsAndAccumulates) {
  HamlynBench b;
  b.receiver(1);
  b.sender(0);
  b.go();
  b.h.profile();
  const auto meta = test::pattern(60, 2);
  const auto d1 = test::pattern(700, 3), d2 = test::pattern(1300, 4);
  b.fill_sendbuf(0, 0, 0, 100, meta);
  b.fill_sendbuf(0, 0, 0, 1000, d1);
  b.fill_sendbuf(0, 0, 1, 12, d2);
  Request r;
  r.meta_index = 5;
  r.offset = 4000;
  b.post_dma(0, 0, r, {0, 100, 60}, {{0, 1000, 700}, {1, 12, 1300}});
  b.h.run([&] { return b.counter(1, "messages_in") == 1 && b.sent(0) == 1; });
  std::vector<uint8_t> want = d1;
  want.insert(want.end(), d2.begin(), d2.end());
  EXPECT_EQ(test::difference(b.h.mem(1, b.area.addr + 4000, 2000), want), "");
  const uint64_t entry = b.meta.addr + 5 * 128;
  EXPECT_EQ(test::difference(b.h.mem(1, entry, 60), meta), "");
  EXPECT_EQ(b.h.mem32(1, entry + 60), 0u) << "the accumulator is back at zero";
  // (60 + 2000) bytes in 256-byte packets: 9 packets.
  EXPECT_EQ(b.counter(0, "termini[0].packets"), 9u);
  EXPECT_EQ(b.counter(1, "packets_in"), 9u);
  const auto [word, at] = b.note(1, 0);
  EXPECT_EQ(word, 0x80000000u | 5u);
  EXPECT_EQ(at, uint32_t(entry));
  b.h.print_profile(0);
  b.h.print_profile(1);
}

TEST(HamlynFirmware, GroupReceiveNotifiesOnceWhenEverySenderArrived) {
  HamlynBench b(3);
  b.receiver(1);
  b.sender(0);
  b.sender(2);
  b.go();
  // Y0 + Y2 = 2^32: one notification when both messages (5 and 3 packets) are in.
  const auto d0 = test::pattern(1200, 5), d2 = test::pattern(700, 6);
  b.fill_sendbuf(0, 0, 0, 0, d0);
  b.fill_sendbuf(2, 0, 0, 0, d2);
  Request r0, r2;
  r0.meta_index = r2.meta_index = 3;
  r0.delta = 0x40000000u;
  r2.delta = 0xC0000000u;
  r2.dest = 1;
  r2.offset = 1200;
  b.post_dma(0, 0, r0, {0, 0, 0}, {{0, 0, 1200}});
  b.h.run([&] { return b.sent(0) == 1; });
  b.h.run_for(200 * sim::kMicrosecond);
  EXPECT_EQ(b.counter(1, "messages_in"), 0u) << "half the group is not a group";
  EXPECT_NE(b.h.mem32(1, b.meta.addr + 3 * 128 + 60), 0u);
  b.post_dma(2, 0, r2, {0, 0, 0}, {{0, 0, 700}});
  b.h.run([&] { return b.counter(1, "messages_in") == 1; });
  std::vector<uint8_t> want = d0;
  want.insert(want.end(), d2.begin(), d2.end());
  EXPECT_EQ(test::difference(b.h.mem(1, b.area.addr, 1900), want), "");
  EXPECT_EQ(b.h.mem32(1, b.meta.addr + 3 * 128 + 60), 0u);
}

TEST(HamlynFirmware, RefusedPacketsAreCountedAndWriteNothing) {
  HamlynBench b;
  b.receiver(1, 4096);
  b.sender(0);
  b.go();
  const auto data = test::pattern(32, 7);
  Request bad_key, past_bound, bad_index, bad_slot, good;
  bad_key.key = kKey ^ 1;
  past_bound.offset = 4096 - 16;      // 32 bytes at 4080: 16 past the area
  bad_index.meta_index = 16;          // 16 entries: 0..15
  bad_slot.slot = 7;                  // never opened
  good.offset = 128;
  good.meta_index = 0xFFFF;
  for (const Request* r : {&bad_key, &past_bound, &bad_index, &bad_slot})
    b.post_direct(0, 0, *r, {}, data);
  b.post_direct(0, 0, good, {}, data);
  b.h.run([&] { return b.counter(1, "messages_in") == 1; });
  EXPECT_EQ(b.counter(1, "bad_key"), 1u);
  EXPECT_EQ(b.counter(1, "bad_bounds"), 1u);
  EXPECT_EQ(b.counter(1, "bad_index"), 1u);
  EXPECT_EQ(b.counter(1, "bad_slot"), 1u);
  std::vector<uint8_t> want(4096, 0);
  std::copy(data.begin(), data.end(), want.begin() + 128);
  EXPECT_EQ(test::difference(b.h.mem(1, b.area.addr, 4096), want), "");
  EXPECT_EQ(b.h.mem(1, b.meta.addr, 16 * 128), std::vector<uint8_t>(16 * 128, 0));
  EXPECT_EQ(b.sent(0), 5u) << "every entry is done, refused at the receiver or not";
}

// Fast-mode packets take the receive fast path (hamlyn_recv.fw, deliver_fast): each one
// that fails a check is refused and counted exactly as the general path would, and
// writes nothing. Slot 64 is slot 0 modulo MAX_SLOTS (the fast path reads that slot
// before it refuses the index): refused all the same.
TEST(HamlynFirmware, FastModePacketsAreRefusedAsTheGeneralPathWould) {
  HamlynBench b;
  b.receiver(1, 4096);
  b.driver(1).open_slot(1, {SlotMode::Paranoid, b.area, kKey, b.meta, 0});
  b.sender(0);
  b.go();
  ASSERT_EQ(b.h.constant("MAX_SLOTS"), 64u);
  const auto data = test::pattern(32, 9);
  auto fast = [] {
    Request r;
    r.meta_index = 0xFFFF;
    return r;
  };
  Request bad_key = fast(), past_bound = fast(), far_off = fast(), free_slot = fast(), aliased_slot = fast(),
          big_slot = fast(), with_delta = fast(), paranoid = fast(), good = fast();
  bad_key.key = kKey ^ 0x100000000ull;    // the high word differs
  past_bound.offset = 4096 - 16;          // 32 bytes at 4080: 16 past the area
  far_off.offset = 0xFFFFFFF0u;           // offset + length wraps past 2^32
  free_slot.slot = 7;                     // never opened
  aliased_slot.slot = 64;                 // 64 % MAX_SLOTS = slot 0, open with this key
  big_slot.slot = 0xFFFF;
  with_delta.delta = 5;                   // fast mode is one packet: delta 0
  paranoid.slot = 1;                      // fast mode only into NORMAL slots
  good.offset = 256;
  good.fast_word = 0x600DF00D;
  for (const Request* r : {&bad_key, &past_bound, &far_off, &free_slot, &aliased_slot, &big_slot, &with_delta, &paranoid})
    b.post_direct(0, 0, *r, {}, data);
  b.post_direct(0, 0, fast(), {1, 2, 3, 4}, data); // metadata in fast mode
  b.post_direct(0, 0, good, {}, data);
  b.h.run([&] { return b.counter(1, "messages_in") == 1; });
  EXPECT_EQ(b.counter(1, "bad_key"), 1u);
  EXPECT_EQ(b.counter(1, "bad_bounds"), 2u);
  EXPECT_EQ(b.counter(1, "bad_slot"), 3u);
  EXPECT_EQ(b.counter(1, "bad_format"), 3u); // delta, paranoid slot, metadata
  EXPECT_EQ(b.counter(1, "packets_in"), 1u);
  EXPECT_EQ(b.note(1, 0), std::make_pair(0x80000000u | 0xFFFFu, 0x600DF00Du));
  EXPECT_EQ(b.note(1, 1), std::make_pair(0u, 0u)) << "one notification only";
  std::vector<uint8_t> want(4096, 0);
  std::copy(data.begin(), data.end(), want.begin() + 256);
  EXPECT_EQ(test::difference(b.h.mem(1, b.area.addr, 4096), want), "");
  EXPECT_EQ(b.h.mem(1, b.meta.addr, 16 * 128), std::vector<uint8_t>(16 * 128, 0));
  EXPECT_EQ(b.sent(0), 10u);
}

TEST(HamlynFirmware, ParanoidOneShotRefusesASecondMessageUntilRearmed) {
  HamlynBench b;
  b.receiver(1, 8192, SlotMode::ParanoidOneShot);
  b.sender(0);
  b.go();
  const uint64_t e = b.meta.addr + 2 * 128;
  auto put = [&](uint64_t at, uint32_t v) {
    uint8_t x[4] = {uint8_t(v >> 24), uint8_t(v >> 16), uint8_t(v >> 8), uint8_t(v)};
    b.h.node(1).memory().write(at, x);
  };
  const uint64_t entry_key = 0xAAAABBBBCCCCDDDDull;
  put(e + 64, uint32_t(entry_key >> 32));
  put(e + 68, uint32_t(entry_key));
  put(e + 72, 1024);     // senders may write [1024, 2048)
  put(e + 76, 2048);
  put(e + 80, 1);        // armed
  const auto data = test::pattern(64, 8);
  Request r;
  r.meta_index = 2;
  r.key = entry_key;
  r.offset = 1024;
  b.post_direct(0, 0, r, {}, data);
  b.h.run([&] { return b.counter(1, "messages_in") == 1; });
  EXPECT_EQ(b.h.mem32(1, e + 80), 0u) << "the card disarmed the entry";
  Request slot_key = r, outside = r;
  slot_key.key = kKey;       // the slot's key does not open a paranoid entry
  outside.offset = 2048 - 32;
  b.post_direct(0, 0, r, {}, test::pattern(64, 9));  // a second message: refused
  b.post_direct(0, 0, slot_key, {}, data);
  b.h.run([&] { return b.counter(1, "bad_one_shot") + b.counter(1, "bad_key") == 2; });
  EXPECT_EQ(b.counter(1, "bad_one_shot"), 1u);
  EXPECT_EQ(b.counter(1, "bad_key"), 1u);
  put(e + 80, 1);                                     // software re-arms ...
  b.post_direct(0, 0, outside, {}, data);             // ... but this one is out of bounds
  b.h.run([&] { return b.counter(1, "bad_bounds") == 1; });
  EXPECT_EQ(test::difference(b.h.mem(1, b.area.addr + 1024, 64), data), "");
  r.offset = 1024 + 64;                               // and this one lands
  b.post_direct(0, 0, r, {}, data);
  b.h.run([&] { return b.counter(1, "messages_in") == 2; });
  EXPECT_EQ(test::difference(b.h.mem(1, b.area.addr + 1088, 64), data), "");
  EXPECT_EQ(b.h.mem(1, b.area.addr, 1024), std::vector<uint8_t>(1024, 0));
  EXPECT_EQ(b.h.mem(1, b.area.addr + 1152, 8192 - 1152), std::vector<uint8_t>(8192 - 1152, 0));
}

TEST(HamlynFirmware, CardDiscardsPacketsWhenTheHandshakeStops) {
  HamlynBench b;
  b.receiver(1);
  b.sender(0);
  // 2000 RTC ticks: the driver must change hamlyn.handshake at least that often.
  b.go(2000);
  const auto data = test::pattern(16, 10);
  Request r;
  r.meta_index = 0xFFFF;
  b.post_direct(0, 0, r, {}, data);
  b.h.run([&] { return b.counter(1, "messages_in") == 1; });
  // Node 1's host falls silent (node 0's keeps shaking hands).
  for (int i = 0; i < 40; ++i) {
    b.h.poke(0, "hamlyn.handshake", i + 1);
    b.h.run_for(100 * sim::kMicrosecond);
  }
  EXPECT_EQ(b.counter(1, "handshake_expired"), 1u);
  b.post_direct(0, 0, r, {}, data);
  b.h.run([&] { return b.sent(0) == 2; });
  b.h.run_for(100 * sim::kMicrosecond);
  EXPECT_EQ(b.counter(1, "messages_in"), 1u);
  EXPECT_EQ(b.counter(1, "discarded"), 1u);
  // The host is back: packets are accepted again.
  b.h.poke(1, "hamlyn.handshake", 77);
  b.h.run_for(200 * sim::kMicrosecond);
  b.post_direct(0, 0, r, {}, data);
  b.h.run([&] { return b.counter(1, "messages_in") == 2; });
}

TEST(HamlynFirmware, TerminiShareTheLinkRoundRobin) {
  HamlynBench b;
  b.receiver(1, 256 * 1024);
  b.sender(0, 0);
  b.sender(0, 1);
  b.go();
  // Two 4 KB messages, one per terminus, posted together: their packets alternate, so
  // both finish within a packet time of each other.
  const auto d = test::pattern(4096, 11);
  b.fill_sendbuf(0, 0, 0, 0, d);
  b.fill_sendbuf(0, 1, 0, 0, d);
  Request r0, r1;
  r0.meta_index = 0;
  r1.meta_index = 1;
  r1.offset = 8192;
  b.post_dma(0, 0, r0, {0, 0, 0}, {{0, 0, 4096}});
  b.post_dma(0, 1, r1, {0, 0, 0}, {{0, 0, 4096}});
  // Terminus 1's packets sent when the first message is complete (sampled every 20 us,
  // about two packet times): without round robin it would not have started.
  uint64_t other_at_first = 0;
  b.h.run([&] {
    if (b.counter(1, "messages_in") >= 1 && other_at_first == 0)
      other_at_first = b.counter(0, "termini[1].packets");
    return b.counter(1, "messages_in") == 2;
  });
  EXPECT_GE(other_at_first, 12u);
  EXPECT_EQ(b.counter(0, "termini[0].packets"), 16u);
  EXPECT_EQ(b.counter(0, "termini[1].packets"), 16u);
  EXPECT_EQ(test::difference(b.h.mem(1, b.area.addr, 4096), d), "");
  EXPECT_EQ(test::difference(b.h.mem(1, b.area.addr + 8192, 4096), d), "");
}

TEST(HamlynFirmware, BadRequestsAreRefusedAtTheSenderAndSendNothing) {
  HamlynBench b;
  b.receiver(1);
  b.sender(0, 0);
  b.sender(0, 1);
  b.go();
  Request r;
  // A tuple past its send buffer (8 KB), a tag no buffer has, a tuple sum short of the
  // length, a direct entry longer than an entry holds, an unknown kind, no route.
  b.post_dma(0, 0, r, {0, 0, 0}, {{0, 8000, 400}});
  b.post_dma(0, 0, r, {0, 0, 0}, {{5, 0, 16}});
  b.post_dma(0, 0, r, {0, 0, 0}, {{0, 0, 16}, {1, 8192, 1}});
  {
    const std::string e = b.entry(0, 0);
    b.write_request(0, e, r, b.h.constant("ReqKind.DIRECT"), 0, b.h.constant("INLINE_MAX") + 1, 0);
    b.publish(0, 0, e);
  }
  {
    const std::string e = b.entry(0, 0);
    b.write_request(0, e, r, 9, 0, 4, 0);
    b.publish(0, 0, e);
  }
  Request far = r;
  far.dest = 40;                       // no such node
  b.post_direct(0, 0, far, {}, test::pattern(8, 1));
  // Terminus 1 names tag 0: its own buffer 0, never terminus 0's (the tags are per terminus).
  const auto mine = test::pattern(64, 2);
  b.fill_sendbuf(0, 1, 0, 0, mine);
  b.fill_sendbuf(0, 0, 0, 0, test::pattern(64, 3));
  Request ok = r;
  ok.offset = 4096;
  b.post_dma(0, 1, ok, {0, 0, 0}, {{0, 0, 64}});
  b.h.run([&] { return b.sent(0, 0) == 6 && b.counter(1, "messages_in") == 1; });
  EXPECT_EQ(b.counter(0, "termini[0].rejected"), 6u);
  EXPECT_EQ(b.counter(0, "termini[0].packets"), 0u);
  EXPECT_EQ(b.counter(1, "packets_in"), 1u);
  EXPECT_EQ(test::difference(b.h.mem(1, b.area.addr + 4096, 64), mine), "");
  EXPECT_EQ(b.h.mem(1, b.area.addr, 4096), std::vector<uint8_t>(4096, 0));
}

TEST(HamlynFirmware, CorruptedPacketsAreCountedAndTheNextMessageArrives) {
  // Node 0's link corrupts its first two packets.
  HamlynBench b(2, 256, [](sim::ClusterParams& cp) { cp.link.faults.corrupt_packets = {0, 1}; });
  b.receiver(1);
  b.sender(0);
  b.go();
  Request r;
  r.meta_index = 0xFFFF;
  const auto d = test::pattern(32, 4);
  for (int i = 0; i < 3; ++i) b.post_direct(0, 0, r, {}, d);
  b.h.run([&] { return b.counter(1, "messages_in") == 1 && b.sent(0) == 3; });
  b.h.run_for(100 * sim::kMicrosecond);
  // Each corrupted packet is refused and counted once.
  EXPECT_EQ(b.counter(1, "bad_crc"), 2u);
  EXPECT_EQ(b.counter(1, "messages_in"), 1u);
  EXPECT_EQ(test::difference(b.h.mem(1, b.area.addr, 32), d), "");
}

TEST(HamlynFirmware, OneShotEntriesBoundTheNotificationQueue) {
  // 4 one-shot entries and a queue of 4 notifications: a sender that sends 12 messages
  // (3 to each entry) gets 4 in and the queue is never overwritten.
  HamlynBench b;
  b.receiver(1, 8192, SlotMode::ParanoidOneShot, 4, 4);
  b.sender(0);
  b.go();
  for (uint32_t i = 0; i < 4; ++i) {
    const uint64_t e = b.meta.addr + 128 * i;
    const uint32_t words[5] = {uint32_t(kKey >> 32), uint32_t(kKey), 0, 8192, 1};
    for (uint32_t k = 0; k < 5; ++k) {
      uint8_t x[4] = {uint8_t(words[k] >> 24), uint8_t(words[k] >> 16), uint8_t(words[k] >> 8), uint8_t(words[k])};
      b.h.node(1).memory().write(e + 64 + 4 * k, x);
    }
  }
  for (uint32_t m = 0; m < 12; ++m) {
    Request r;
    r.meta_index = m % 4;
    r.offset = 64 * m;
    b.post_direct(0, 0, r, {}, test::pattern(16, m));
  }
  b.h.run([&] { return b.sent(0) == 12; });
  b.h.run_for(200 * sim::kMicrosecond);
  EXPECT_EQ(b.counter(1, "messages_in"), 4u);
  EXPECT_EQ(b.counter(1, "bad_one_shot"), 8u);
  // The four entries of the first lap, in order, each naming its metadata entry.
  for (uint32_t i = 0; i < 4; ++i) EXPECT_EQ(b.note(1, i).first, 0x80000000u | i) << i;
}

TEST(HamlynFirmware, OutOfOrderPacketsReassembleAndGroupReceiveHolds) {
  // A two-level Clos (2 leaves of 2 nodes, 2 spines) whose links delay a quarter of their
  // packets by 6 us; with multipath on, each message's packets alternate between the
  // spines, so later packets overtake earlier ones.
  HamlynBench b(4, 256, [](sim::ClusterParams& cp) {
    cp.topology = sim::Topology::Clos;
    cp.nodes_per_switch = 2;
    cp.spines = 2;
    cp.link.faults.seed = 7;
    cp.link.faults.delay_probability = 0.25;
    cp.link.faults.extra_delay_ps = 6 * sim::kMicrosecond;
  });
  b.receiver(3, 128 * 1024);
  b.sender(0);
  b.sender(1);
  for (uint32_t n = 0; n < 4; ++n) b.h.poke(n, "hamlyn.multipath", 1);
  b.go();
  // Message 1: 6000 bytes from node 0 into entry 0, alone. Then a group: nodes 0 and 1
  // write halves of one buffer into entry 1 with deltas summing to 2^32.
  const auto d = test::pattern(6000, 12), g0 = test::pattern(5000, 13), g1 = test::pattern(7000, 14);
  b.fill_sendbuf(0, 0, 0, 0, d);
  b.fill_sendbuf(0, 0, 1, 0, g0);
  b.fill_sendbuf(1, 0, 0, 0, g1);
  Request r;
  r.dest = 3;
  r.meta_index = 0;
  b.post_dma(0, 0, r, {0, 0, 0}, {{0, 0, 6000}});
  Request a = r, c = r;
  a.meta_index = c.meta_index = 1;
  a.offset = 8192;
  c.offset = 8192 + 5000;
  a.delta = 0x12345678u;
  c.delta = 0u - 0x12345678u;
  b.post_dma(0, 0, a, {0, 0, 0}, {{1, 0, 5000}});
  b.post_dma(1, 0, c, {0, 0, 0}, {{0, 0, 7000}});
  b.h.run([&] { return b.counter(3, "messages_in") == 2; });
  b.h.run_for(200 * sim::kMicrosecond);
  EXPECT_EQ(b.counter(3, "messages_in"), 2u);
  EXPECT_GT(b.counter(3, "reordered"), 0u) << "the network did not reorder anything: the test proves nothing";
  EXPECT_EQ(test::difference(b.h.mem(3, b.area.addr, 6000), d), "");
  std::vector<uint8_t> group = g0;
  group.insert(group.end(), g1.begin(), g1.end());
  EXPECT_EQ(test::difference(b.h.mem(3, b.area.addr + 8192, 12000), group), "");
  EXPECT_EQ(b.h.mem32(3, b.meta.addr + 60), 0u);
  EXPECT_EQ(b.h.mem32(3, b.meta.addr + 128 + 60), 0u);
  EXPECT_EQ(b.counter(3, "packets_in"), 24u + 20u + 28u);
}

} // namespace
} // namespace lanaikit
