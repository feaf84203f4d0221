// Where one message's one-way time went: a host on node `src` posts it, a host on node
// `dst` notices it. The trace listens to both chips' events (vm::ChipEvent) while the
// message travels; the caller marks the three host-side moments (start of posting, end of
// posting, noticed). The components add up to the total, whatever the protocol: a doorbell
// or a polled send queue, data by PIO or by host DMA on the sending side.
//
//   host_send   posting: the sending process's PIO writes (issue cost), up to `posted`
//               or to its last write landing, if that comes first (the process still
//               busy with software time while the firmware already works)
//   pci_send    from `posted` to the last of its writes landing on the card (or 0)
//   cpu_send    sending firmware: last write landed -> send DMA started, minus ...
//   dma_send    ... the host DMAs the sending firmware waited on in between (data fetch)
//   wire        serialisation of the received packet (+ CRC byte) and each link's latency
//   network     the rest of send start -> tail received: switches, engines, FIFOs
//   cpu_recv    receiving firmware between the tail and the host DMAs it starts
//   dma_recv    those host DMAs on the PCI bus
//   host_recv   last DMA done -> the receiving process noticed
//
// Meant for a message of one packet (a short send, one chunk). For a longer one the
// receiving side's components include waiting for later packets.
#pragma once

#include "sim/cluster.h"
#include "event/time.h"
#include "vm/chip.h"

#include <cstdint>
#include <string>
#include <vector>

namespace lanaikit::sim {

struct MessageBreakdown {
  Time host_send = 0, pci_send = 0, cpu_send = 0, dma_send = 0, wire = 0, network = 0,
       cpu_recv = 0, dma_recv = 0, host_recv = 0, total = 0;
  uint64_t send_insns = 0; // sending firmware: last write landed -> send started
  uint64_t recv_insns = 0; // receiving firmware: tail -> its last host DMA started
  uint32_t packet_bytes = 0; // as received (route bytes consumed by the switches)
};

class MessageTrace {
public:
  MessageTrace(Cluster& cluster, uint32_t src, uint32_t dst);
  ~MessageTrace();
  MessageTrace(const MessageTrace&) = delete;
  MessageTrace& operator=(const MessageTrace&) = delete;

  // The sending host starts posting at `t` (forgets anything recorded before).
  void start(Time t);
  void posted(Time t);
  void seen(Time t);
  bool complete() const { return seen_ >= 0; }

  // Throws std::runtime_error naming the missing event if the logs do not show the
  // message's way (e.g. the firmware never started a send after the host's writes).
  MessageBreakdown breakdown() const;

private:
  Cluster& cluster_;
  uint32_t src_, dst_;
  size_t listen_src_ = 0, listen_dst_ = 0;
  std::vector<vm::ChipEventRecord> log_src_, log_dst_;
  Time start_ = -1, posted_ = -1, seen_ = -1;
};

std::string format_breakdown(const MessageBreakdown& b); // one line per component, in us

} // namespace lanaikit::sim
