// PCI bus timing on the simulation kernel: PIO reads and posted PIO writes from the host
// CPU, DMA transfers by a device, all sharing one bus.
//
// The model moves no data: it decides *when* things happen and calls back at that time;
// the caller moves the bytes in its callback (so host/ needs nothing from vm/).
//
// Transactions. Each one occupies the bus for a fixed time and completes at its end:
//   - PIO read: occupies pio_read_latency; the data is back at the end (the CPU stalls
//     for the whole time, including any wait for the bus).
//   - posted PIO write: the writer is free after pio_write_issue (returned to the caller,
//     which advances its own clock); the write enters the bus queue at the time of the
//     call, occupies pio_write_latency, and lands at the end of it.
//   - DMA of n bytes: occupies dma_setup once, then n bytes at the bandwidth the curve
//     gives for a block of n bytes; done at the end. Uncontended: dma_setup + n / bw(n).
//
// Arbitration: first come, first served. Requests wait in one queue in the order they were
// made (simulated time, and at equal times the order of the calls); the bus serves the
// head, never preempts, and is never idle while the queue is not empty. A DMA may be cut
// into bursts (dma_burst_bytes): after each burst the rest of the transfer goes to the back
// of the queue, so a PIO read that arrived during a burst is served right after it, and
// two DMAs share the bus burst by burst. The burst cut changes no durations: the bursts of
// one transfer add up exactly to its uncontended transfer time.
//
// Bandwidth curve: (block size, MB/s) points, MB = 10^6 bytes, sorted by size. Between two
// points the bandwidth is interpolated linearly in block size; below the first point it is
// the first point's, above the last the last's. Durations are rounded to the picosecond.
#pragma once

#include "event/fifo.h"
#include "event/kernel.h"
#include "event/time.h"

#include <cstdint>
#include <string>
#include <vector>

namespace lanaikit::host {

struct BandwidthPoint {
  uint64_t block_bytes; // size of one DMA transfer
  double mb_per_s;      // its sustained bandwidth, 10^6 bytes per second
};

enum class DmaDirection : uint8_t {
  ToHost,   // device -> host memory (a NIC writing received data)
  FromHost, // host memory -> device (a NIC fetching data to send)
};

struct PciParams {
  // Host CPU load from a device register: issue to data back, uncontended. Also the time
  // the read holds the bus.
  sim::Time pio_read_latency = 0;
  // Host CPU store to a device register: how long the CPU is busy posting it.
  sim::Time pio_write_issue = 0;
  // From posting a store to its landing in the device, uncontended. Also the time the
  // write holds the bus.
  sim::Time pio_write_latency = 0;
  // Bytes one host store carries to the card: 4 (a 32-bit store), or 8 where the host CPU
  // has a 64-bit store the bus passes whole (PA-RISC's floating-point double store, which
  // Hamlyn's direct I/O used: paper Table 4, "only 8 STORE instructions"). A block written
  // by Node::pio_write costs one store per this many bytes.
  uint32_t pio_store_bytes = 4;
  // Per DMA transfer, before its first byte moves (arbitration, address phase, engine
  // start); holds the bus.
  sim::Time dma_setup = 0;
  // Bandwidth by block size, per direction; each needs at least one point, sizes strictly
  // increasing, bandwidths > 0.
  std::vector<BandwidthPoint> dma_to_host;
  std::vector<BandwidthPoint> dma_from_host;
  // Largest piece of a DMA served before the bus is re-arbitrated; 0 = never cut.
  uint64_t dma_burst_bytes = 0;

  // Throws std::invalid_argument naming the bad field.
  void validate() const;

  // The VMMC testbed (PLATFORMS.md, "VMMC on Myrinet"): Intel 430FX PCI, Myrinet M2F-PCI32.
  static PciParams vmmc();
};

// Interpolated bandwidth of a block of `bytes` on `curve` (see the top of this file), MB/s.
double interpolate_bandwidth(const std::vector<BandwidthPoint>& curve, uint64_t bytes);
// Time to move `bytes` at `mb_per_s`, rounded to the nearest picosecond.
sim::Time transfer_time(uint64_t bytes, double mb_per_s);

struct PciStats {
  uint64_t pio_reads = 0, pio_writes = 0, dmas = 0; // completed transactions
  uint64_t pio_read_bytes = 0, pio_write_bytes = 0;
  uint64_t dma_to_host_bytes = 0, dma_from_host_bytes = 0;
  sim::Time busy = 0; // bus occupancy of completed transactions and bursts
  sim::Time wait = 0; // summed time transactions spent queued before their first grant
};

class PciBus {
public:
  using Done = sim::Callback;

  PciBus(sim::Kernel& kernel, PciParams params);
  PciBus(const PciBus&) = delete;
  PciBus& operator=(const PciBus&) = delete;

  const PciParams& params() const { return params_; }

  // A PIO read of `bytes` (for the counters; the latency does not depend on it). `done`
  // runs when the data is back at the CPU.
  void pio_read(uint32_t bytes, Done done);
  // A posted PIO write. Returns the time the writer is busy (pio_write_issue); `landed`
  // (optional) runs when the write reaches the device.
  sim::Time pio_write(uint32_t bytes, Done landed = {});
  // A DMA of `bytes` (> 0); `done` runs when the last byte has moved.
  void dma(DmaDirection dir, uint64_t bytes, Done done);

  // Uncontended durations.
  sim::Time dma_time(DmaDirection dir, uint64_t bytes) const;
  double dma_bandwidth(DmaDirection dir, uint64_t bytes) const;

  bool busy() const { return busy_; }
  size_t queued() const { return queue_.size() - (busy_ ? 1 : 0); }
  const PciStats& stats() const { return stats_; }

private:
  enum class Kind : uint8_t { PioRead, PioWrite, Dma };
  struct Txn {
    Kind kind = Kind::PioRead;
    DmaDirection dir = DmaDirection::ToHost;
    uint64_t bytes = 0;      // total
    uint64_t done_bytes = 0; // DMA: bytes moved by earlier bursts
    sim::Time total = 0;     // DMA: transfer time of all the bytes (without setup)
    sim::Time requested = 0;
    bool started = false;
    uint64_t id = 0;
    Done done;
  };
  void submit(Kind kind, DmaDirection dir, uint64_t bytes, sim::Time total, Done&& done);
  void grant();    // serves the head of the queue if the bus is free
  void start();    // the head of the queue takes the bus
  void finished(); // the transaction holding the bus (the head) is at its end
  const std::vector<BandwidthPoint>& curve(DmaDirection dir) const;

  sim::Kernel& kernel_;
  PciParams params_;
  sim::Fifo<Txn> queue_;   // while busy_, the head holds the bus
  sim::Time occupy_ = 0;   // the head's time on the bus
  bool busy_ = false;
  uint64_t next_id_ = 1;
  PciStats stats_;
};

} // namespace lanaikit::host
