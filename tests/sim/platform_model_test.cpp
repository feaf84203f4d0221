// Models built from the platform files reproduce the papers' *parameters* (not results):
// properties of the models in simulated time, deterministic, independent of the machine.
// bench/calibrate prints the full tables; these pin the numbers that matter.
#include "host/model/pci.h"
#include "net/atm.h"
#include "net/link.h"
#include "net/topology.h"
#include "event/kernel.h"
#include "sim/platform.h"

#include <gtest/gtest.h>

#include <array>
#include <functional>
#include <string>

using namespace lanaikit;
using sim::Kernel;
using sim::kMicrosecond;
using sim::kNanosecond;
using sim::Time;

namespace {

sim::Platform platform(const std::string& name) {
  return sim::load_platform(std::string(LANAIKIT_SOURCE_DIR) + "/lua-scripts/platforms/" + name +
                            ".lua");
}

// MB/s of `count` back-to-back DMAs of `block` bytes on a bus built from `p`.
double dma_mb_per_s(const host::PciParams& p, host::DmaDirection dir, uint64_t block,
                    uint64_t count) {
  Kernel k;
  host::PciBus bus(k, p);
  uint64_t left = count;
  std::function<void()> next = [&] {
    if (left-- > 0) bus.dma(dir, block, next);
  };
  next();
  k.run();
  return double(block * count) * 1e6 / double(k.now());
}

// Time until the last of n posted writes lands, issued back to back by one CPU.
Time write_burst(const host::PciParams& p, int n) {
  Kernel k;
  host::PciBus bus(k, p);
  Time landed = 0;
  std::function<void(int)> post = [&](int i) {
    if (i == n) return;
    const Time issue = bus.pio_write(4, [&] { landed = k.now(); });
    k.schedule_in(issue, [&post, i] { post(i + 1); });
  };
  post(0);
  k.run();
  return landed;
}

} // namespace

TEST(PlatformModel, VmmcDmaBandwidthIsThePapersAt4KAnd64K) {
  const sim::Platform p = platform("vmmc");
  for (auto dir : {host::DmaDirection::ToHost, host::DmaDirection::FromHost}) {
    // "110 MB/s at 4 KB blocks", "about 128 MB/s at 64 KB blocks": 1 MB either way.
    EXPECT_NEAR(dma_mb_per_s(*p.pci, dir, 4096, 256), 110.0, 1.1);
    EXPECT_NEAR(dma_mb_per_s(*p.pci, dir, 65536, 16), 128.0, 1.28);
  }
}

TEST(PlatformModel, VmmcPio) {
  const sim::Platform p = platform("vmmc");
  Kernel k;
  host::PciBus bus(k, *p.pci);
  Time back = 0;
  bus.pio_read(4, [&] { back = k.now(); });
  k.run();
  EXPECT_EQ(back, 422 * kNanosecond); // "read 0.422 us"
  EXPECT_EQ(write_burst(*p.pci, 1), 121 * kNanosecond); // "write 0.121 us"
  EXPECT_EQ(write_burst(*p.pci, 8), 8 * 121 * kNanosecond);
}

TEST(PlatformModel, HamlynDmaPerDirectionAndStores) {
  const sim::Platform p = platform("hamlyn");
  EXPECT_NEAR(dma_mb_per_s(*p.pci, host::DmaDirection::ToHost, 4096, 64), 106.0, 1.06);
  EXPECT_NEAR(dma_mb_per_s(*p.pci, host::DmaDirection::FromHost, 4096, 64), 32.0, 0.32);
  EXPECT_EQ(write_burst(*p.pci, 1), 175 * kNanosecond);         // "about 0.175 us"
  EXPECT_EQ(write_burst(*p.pci, 8), 1400 * kNanosecond);        // "8 stores = 1.4 us"
}

TEST(PlatformModel, LinkRatesAndSwitchFallThrough) {
  for (const char* name : {"vmmc", "hamlyn"}) {
    SCOPED_TRACE(name);
    const sim::Platform p = platform(name);
    Kernel k;
    auto net = net::build_single_switch(k, 2, *p.link, *p.net_switch);
    Time tail = 0;
    struct Sink : net::PacketSink {
      Kernel& k;
      Time& tail;
      Sink(Kernel& k, Time& t) : k(k), tail(t) {}
      uint32_t accept(const net::Chunk& c) override {
        if (c.tail) tail = k.now();
        return c.whole();
      }
    } sink(k, tail);
    net->node_rx(1).set_sink(&sink);
    // 4 payload bytes: route + payload + CRC = 6 bytes in the head chunk, 5 bytes leave.
    net->node_tx(0).send(net->make_packet(0, 1, 1, std::vector<uint8_t>(4, 0)));
    k.run();
    const net::LinkConfig& l = *p.link;
    const auto wire = [&](uint64_t b) { return Time(b * 1'000'000'000'000ull / l.bytes_per_s); };
    EXPECT_EQ(tail, 2 * l.latency_ps + wire(6) + p.net_switch->fall_through_ps + wire(5));
  }
}

TEST(PlatformModel, DartMessageIsOneCellOnTheWire) {
  const sim::Platform p = platform("dart");
  const std::array<Time, 3> expected{3'028'571, 2'831'196, 707'799}; // 140, 155.52, 622.08 Mb/s
  std::vector<net::CellLinkConfig> links{p.cells->link};
  links.insert(links.end(), p.cells->projected.begin(), p.cells->projected.end());
  ASSERT_EQ(links.size(), 3u);
  for (size_t i = 0; i < links.size(); ++i) {
    Kernel k;
    net::CellLinkConfig cfg = links[i];
    cfg.raw_vcis = {5};
    net::CellLink link(k, cfg);
    Time arrived = -1;
    struct Sink : net::PacketSink {
      Kernel& k;
      Time& at;
      Sink(Kernel& k, Time& t) : k(k), at(t) {}
      uint32_t accept(const net::Chunk& c) override {
        at = k.now();
        return c.whole();
      }
    } sink(k, arrived);
    link.set_sink(&sink);
    std::array<uint8_t, net::kCellPayloadBytes> cell{}; // 32 data + 16 control bytes
    link.send_cell(5, cell);
    k.run();
    EXPECT_EQ(arrived, expected[i] + cfg.latency_ps) << i;
  }
}
