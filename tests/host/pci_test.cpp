// PCI bus timing: exact PIO read/write times, DMA times from the bandwidth curve (the VMMC
// numbers of PLATFORMS.md), interpolation, first-come-first-served bus sharing, bursts,
// counters and determinism.
#include "host/model/pci.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

using namespace lanaikit::host;
using lanaikit::sim::Kernel;
using lanaikit::sim::kMicrosecond;
using lanaikit::sim::kNanosecond;
using lanaikit::sim::Time;

namespace {
// The VMMC platform (PciParams::vmmc: PIO read 0.422 us, write 0.121 us; DMA 110 MB/s at
// 4 KB blocks, 128 MB/s at 64 KB) with a DMA setup cost of 2 us so that it shows.
PciParams vmmc_with_setup() {
  PciParams p = PciParams::vmmc();
  p.dma_setup = 2 * kMicrosecond;
  return p;
}
} // namespace

TEST(Pci, VmmcParameters) {
  const PciParams p = PciParams::vmmc();
  EXPECT_EQ(p.pio_read_latency, 422000);
  EXPECT_EQ(p.pio_write_issue, 121000);
  EXPECT_EQ(p.pio_write_latency, 121000);
  EXPECT_DOUBLE_EQ(interpolate_bandwidth(p.dma_to_host, 4096), 110.0);
  EXPECT_DOUBLE_EQ(interpolate_bandwidth(p.dma_from_host, 65536), 128.0);
}

TEST(Pci, InvalidParametersAreRejected) {
  Kernel k;
  PciParams p = PciParams::vmmc();
  p.dma_to_host = {};
  EXPECT_THROW(PciBus(k, p), std::invalid_argument);
  p = PciParams::vmmc();
  p.dma_from_host = {{4096, 110}, {4096, 120}};
  EXPECT_THROW(PciBus(k, p), std::invalid_argument);
  p = PciParams::vmmc();
  p.dma_from_host = {{4096, 0}};
  EXPECT_THROW(PciBus(k, p), std::invalid_argument);
}

TEST(Pci, PioReadTakesTheReadLatency) {
  Kernel k;
  PciBus bus(k, PciParams::vmmc());
  Time back = -1;
  k.schedule_at(1 * kMicrosecond, [&] { bus.pio_read(4, [&] { back = k.now(); }); });
  k.run();
  EXPECT_EQ(back, 1 * kMicrosecond + 422 * kNanosecond);
  EXPECT_EQ(bus.stats().pio_reads, 1u);
  EXPECT_EQ(bus.stats().pio_read_bytes, 4u);
  EXPECT_EQ(bus.stats().busy, 422 * kNanosecond);
}

TEST(Pci, PostedWriteReturnsIssueCostAndLandsAfterLatency) {
  Kernel k;
  PciBus bus(k, PciParams::vmmc());
  std::vector<Time> landed;
  const Time issue = bus.pio_write(4, [&] { landed.push_back(k.now()); });
  EXPECT_EQ(issue, 121 * kNanosecond);
  EXPECT_EQ(k.now(), 0); // the bus does not advance anyone's clock
  // A second store posted at the same time waits for the bus behind the first.
  bus.pio_write(4, [&] { landed.push_back(k.now()); });
  bus.pio_write(4); // no callback needed
  k.run();
  EXPECT_EQ(landed, (std::vector<Time>{121000, 242000}));
  EXPECT_EQ(k.now(), 363000);
  EXPECT_EQ(bus.stats().pio_writes, 3u);
  EXPECT_EQ(bus.stats().pio_write_bytes, 12u);
  EXPECT_EQ(bus.stats().wait, 121000 + 242000);
}

TEST(Pci, ReadWaitsBehindPostedWrite) {
  Kernel k;
  PciBus bus(k, PciParams::vmmc());
  Time back = -1;
  bus.pio_write(4);
  bus.pio_read(4, [&] { back = k.now(); });
  k.run();
  EXPECT_EQ(back, 121000 + 422000); // a read observes an earlier posted write
}

TEST(Pci, DmaTimeFollowsTheVmmcCurve) {
  Kernel k;
  PciBus bus(k, vmmc_with_setup());
  // 4 KB at 110 MB/s: 4096 / 110e6 s = 37236363.6 ps -> 37236364, plus 2 us setup.
  EXPECT_EQ(bus.dma_time(DmaDirection::FromHost, 4096), 2000000 + 37236364);
  // 64 KB at 128 MB/s: 65536 / 128e6 s = 512 us exactly.
  EXPECT_EQ(bus.dma_time(DmaDirection::ToHost, 65536), 2000000 + 512000000);
  std::vector<Time> done;
  bus.dma(DmaDirection::FromHost, 4096, [&] { done.push_back(k.now()); });
  k.run();
  k.schedule_in(0, [&] { bus.dma(DmaDirection::ToHost, 65536, [&] { done.push_back(k.now()); }); });
  k.run();
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[0], 2000000 + 37236364);
  EXPECT_EQ(done[1] - done[0], 2000000 + 512000000);
  // The measured bandwidth without the setup is the configured one.
  EXPECT_NEAR(4096.0 / ((done[0] - 2000000) * 1e-12) / 1e6, 110.0, 1e-5);
  EXPECT_NEAR(65536.0 / ((done[1] - done[0] - 2000000) * 1e-12) / 1e6, 128.0, 1e-9);
  EXPECT_EQ(bus.stats().dmas, 2u);
  EXPECT_EQ(bus.stats().dma_from_host_bytes, 4096u);
  EXPECT_EQ(bus.stats().dma_to_host_bytes, 65536u);
  EXPECT_EQ(bus.stats().busy, 4000000 + 37236364 + 512000000);
}

TEST(Pci, BandwidthIsInterpolatedBetweenPointsAndClampedOutside) {
  const std::vector<BandwidthPoint> c = {{4096, 110.0}, {65536, 128.0}};
  EXPECT_DOUBLE_EQ(interpolate_bandwidth(c, 34816), 119.0); // halfway
  EXPECT_DOUBLE_EQ(interpolate_bandwidth(c, 4096 + 15360), 114.5); // a quarter
  EXPECT_DOUBLE_EQ(interpolate_bandwidth(c, 64), 110.0);
  EXPECT_DOUBLE_EQ(interpolate_bandwidth(c, 1 << 20), 128.0);
  const std::vector<BandwidthPoint> three = {{1024, 40.0}, {4096, 110.0}, {65536, 128.0}};
  EXPECT_DOUBLE_EQ(interpolate_bandwidth(three, 2560), 75.0);
  EXPECT_DOUBLE_EQ(interpolate_bandwidth(three, 34816), 119.0);
  Kernel k;
  PciBus bus(k, PciParams::vmmc());
  // 34816 bytes at 119 MB/s = 292571428.57 ps.
  EXPECT_EQ(bus.dma_time(DmaDirection::ToHost, 34816), 292571429);
  EXPECT_EQ(transfer_time(4096, 110.0), 37236364);
}

TEST(Pci, PioReadWaitsForADmaInProgress) {
  Kernel k;
  PciBus bus(k, PciParams::vmmc()); // no bursts: the DMA holds the bus to the end
  Time dma_done = -1, read_done = -1;
  bus.dma(DmaDirection::ToHost, 65536, [&] { dma_done = k.now(); });
  k.schedule_at(100 * kMicrosecond, [&] { bus.pio_read(4, [&] { read_done = k.now(); }); });
  k.run();
  EXPECT_EQ(dma_done, 512 * kMicrosecond);
  EXPECT_EQ(read_done, 512 * kMicrosecond + 422 * kNanosecond);
  EXPECT_EQ(bus.stats().wait, 412 * kMicrosecond);
}

TEST(Pci, BurstsLetAPioReadInBetween) {
  Kernel k;
  PciParams p = PciParams::vmmc();
  p.dma_burst_bytes = 4096; // 16 bursts of 32 us for a 64 KB block at 128 MB/s
  PciBus bus(k, p);
  Time dma_done = -1, read_done = -1;
  bus.dma(DmaDirection::ToHost, 65536, [&] { dma_done = k.now(); });
  k.schedule_at(100 * kMicrosecond, [&] { bus.pio_read(4, [&] { read_done = k.now(); }); });
  k.run();
  EXPECT_EQ(read_done, 128 * kMicrosecond + 422 * kNanosecond); // after the 4th burst
  EXPECT_EQ(dma_done, 512 * kMicrosecond + 422 * kNanosecond);  // pushed back by the read
  EXPECT_EQ(bus.stats().busy, 512 * kMicrosecond + 422 * kNanosecond);
}

TEST(Pci, BurstsAddUpExactlyAndTwoDmasShareTheBus) {
  Kernel k;
  PciParams p = vmmc_with_setup();
  p.dma_burst_bytes = 4096;
  PciBus bus(k, p);
  const Time ta = transfer_time(8192, interpolate_bandwidth(p.dma_to_host, 8192));
  const Time tb = transfer_time(12288, interpolate_bandwidth(p.dma_to_host, 12288));
  Time a_done = -1, b_done = -1;
  bus.dma(DmaDirection::ToHost, 8192, [&] { a_done = k.now(); });
  bus.dma(DmaDirection::ToHost, 12288, [&] { b_done = k.now(); });
  k.run();
  // Order on the bus: A1 B1 A2 B2 B3; each transfer pays its setup once.
  const Time setup = 2 * kMicrosecond;
  EXPECT_EQ(a_done, setup + ta + setup + tb / 3);
  EXPECT_EQ(b_done, 2 * setup + ta + tb);
  EXPECT_EQ(bus.stats().busy, 2 * setup + ta + tb);
}

TEST(Pci, RequestsFromCompletionCallbacksQueueInOrder) {
  Kernel k;
  PciBus bus(k, PciParams::vmmc());
  std::string log;
  bus.dma(DmaDirection::FromHost, 4096, [&] {
    log += "d";
    bus.pio_read(4, [&] { log += "r2"; }); // arrives after the read below
  });
  k.schedule_at(1 * kMicrosecond, [&] { bus.pio_read(4, [&] { log += "r1"; }); });
  k.run();
  EXPECT_EQ(log, "dr1r2");
  EXPECT_EQ(k.now(), 37236364 + 2 * 422000);
  EXPECT_FALSE(bus.busy());
  EXPECT_EQ(bus.queued(), 0u);
}

namespace {
// A mixed workload from a seeded generator; returns the kernel trace hash and end time.
std::pair<uint64_t, Time> run_mix(uint32_t seed) {
  Kernel k;
  PciParams p = vmmc_with_setup();
  p.dma_burst_bytes = 1024;
  PciBus bus(k, p);
  std::mt19937 rng(seed);
  for (int i = 0; i < 300; ++i) {
    const Time at = Time(rng() % 2000) * kMicrosecond;
    const unsigned what = rng() % 3;
    const uint64_t bytes = 64 + rng() % 65536;
    k.schedule_at(at, [&bus, &k, what, bytes] {
      if (what == 0) bus.pio_read(4, [&k] { k.trace(k.now()); });
      else if (what == 1) bus.pio_write(4, [&k] { k.trace(k.now()); });
      else bus.dma(bytes & 1 ? DmaDirection::ToHost : DmaDirection::FromHost, bytes,
                   [&k] { k.trace(k.now()); });
    });
  }
  k.run();
  return {k.trace_hash(), k.now()};
}
} // namespace

TEST(Pci, DeterministicTrace) {
  const auto a = run_mix(42), b = run_mix(42), c = run_mix(43);
  EXPECT_EQ(a, b);
  EXPECT_NE(a.first, c.first);
}
