// Timelines and captures of a cluster run: a Chrome trace-event file (Perfetto,
// chrome://tracing) with handler spans per CPU, host DMA transfers and send/receive DMA per
// chip, packets on every link; and a pcapng capture of every link (Wireshark). Formats and
// limits: docs/report.md. Attach before the run, finish() after it.
#pragma once

#include "sim/cluster.h"
#include "report/chrome_trace.h"
#include "report/pcapng.h"
#include "vm/profiler.h"

#include <memory>
#include <ostream>
#include <vector>

namespace lanaikit::sim {

class Timeline {
public:
  // Either stream may be null (no trace, or no capture).
  Timeline(Cluster& cluster, std::ostream* trace, std::ostream* pcap,
           report::TraceLimits limits = {});
  ~Timeline();

  // Handler spans for node i come from its profiler's invocations, written at finish().
  void add_profiler(uint32_t node, const vm::Profiler* profiler);
  // A span on a host track (host library calls, from C++ or Lua).
  void host_span(uint32_t node, const std::string& thread, std::string_view name, Time begin, Time end);

  void finish();
  const report::TraceStats* trace_stats() const { return trace_ ? &trace_->stats() : nullptr; }
  uint64_t packets_captured() const { return pcap_ ? pcap_->packets() : 0; }

private:
  Cluster& cluster_;
  std::unique_ptr<report::TraceWriter> trace_;
  std::unique_ptr<report::PcapngWriter> pcap_;
  std::vector<const vm::Profiler*> profilers_;
  std::vector<Time> dma_start_, send_start_, recv_start_;
  std::vector<size_t> listeners_; // per node, on the chip
  bool finished_ = false;
};

} // namespace lanaikit::sim
