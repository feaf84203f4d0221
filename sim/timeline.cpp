#include "sim/timeline.h"

namespace lanaikit::sim {

Timeline::Timeline(Cluster& cluster, std::ostream* trace, std::ostream* pcap, report::TraceLimits limits)
    : cluster_(cluster) {
  if (trace) trace_ = std::make_unique<report::TraceWriter>(*trace, limits);
  if (pcap) pcap_ = std::make_unique<report::PcapngWriter>(*pcap);
  const uint32_t n = cluster.size();
  dma_start_.assign(n, -1);
  send_start_.assign(n, -1);
  recv_start_.assign(n, -1);
  profilers_.assign(n, nullptr);
  if (trace_) {
    for (uint32_t i = 0; i < n; ++i) {
      const std::string node = cluster.node(i).name();
      const int dma = trace_->track(node, "host DMA");
      const int send = trace_->track(node, "send DMA");
      const int recv = trace_->track(node, "receive DMA");
      listeners_.push_back(cluster.node(i).chip().on_event([this, i, dma, send, recv](const vm::ChipEventRecord& e) {
        switch (e.kind) {
        case vm::ChipEvent::HostDmaStart: dma_start_[i] = e.time; break;
        case vm::ChipEvent::HostDmaDone:
          if (dma_start_[i] >= 0)
            trace_->span(dma, "DMA", dma_start_[i], e.time, {{"bytes", int64_t(e.bytes)}});
          dma_start_[i] = -1;
          break;
        case vm::ChipEvent::SendStart: send_start_[i] = e.time; break;
        case vm::ChipEvent::SendDone:
          if (send_start_[i] >= 0) trace_->span(send, "send", send_start_[i], e.time);
          send_start_[i] = -1;
          break;
        case vm::ChipEvent::RecvHead: recv_start_[i] = e.time; break;
        case vm::ChipEvent::RecvTail:
          if (recv_start_[i] >= 0)
            trace_->span(recv, "receive", recv_start_[i], e.time, {{"bytes", int64_t(e.bytes)}});
          recv_start_[i] = -1;
          break;
        case vm::ChipEvent::Doorbell: trace_->instant(send, "doorbell", e.time); break;
        case vm::ChipEvent::HostWrite: break; // one per PIO word: too many to draw
        }
      }));
    }
  }
  // One tap per link serves both the capture and the trace.
  net::Network& net = cluster.network();
  for (size_t l = 0; l < net.link_count(); ++l) {
    net::Link& link = net.link_at(l);
    const uint32_t iface = pcap_ ? pcap_->add_interface(link.name()) : 0;
    const int track = trace_ ? trace_->track("network", link.name()) : -1;
    if (!pcap_ && !trace_) continue;
    link.set_tap([this, &link, iface, track](const net::Packet& p, Time t, bool crc_ok) {
      if (pcap_) pcap_->packet(iface, t, p.bytes, !crc_ok);
      if (trace_) {
        // The tap sees the tail's arrival; the packet was on this link for its wire time
        // (data and CRC) plus the propagation before that.
        const Time begin = std::max<Time>(0, t - link.config().latency_ps - link.wire_time(p.bytes.size() + 1));
        trace_->span(track, crc_ok ? "packet" : "packet (CRC error)", begin, t,
                     {{"bytes", int64_t(p.bytes.size())}, {"id", int64_t(p.id)}});
      }
    });
  }
  // An ATM network's cells (DART): every cell on every cell link, in the capture.
  if (net::AtmNetwork* atm = cluster.atm(); atm && pcap_)
    for (size_t l = 0; l < atm->link_count(); ++l) pcap_->capture(atm->link_at(l));
}

Timeline::~Timeline() {
  for (size_t i = 0; i < listeners_.size(); ++i) cluster_.node(uint32_t(i)).chip().remove_event_listener(listeners_[i]);
  net::Network& net = cluster_.network();
  for (size_t l = 0; l < net.link_count(); ++l) net.link_at(l).set_tap(nullptr);
  if (net::AtmNetwork* atm = cluster_.atm())
    for (size_t l = 0; l < atm->link_count(); ++l) atm->link_at(l).set_tap(nullptr);
  if (!finished_) finish();
}

void Timeline::add_profiler(uint32_t node, const vm::Profiler* profiler) { profilers_.at(node) = profiler; }

void Timeline::host_span(uint32_t node, const std::string& thread, std::string_view name, Time begin, Time end) {
  if (trace_) trace_->span(trace_->track(cluster_.node(node).name() + " host", thread), name, begin, end);
}

void Timeline::finish() {
  if (finished_) return;
  finished_ = true;
  if (!trace_) return;
  for (uint32_t i = 0; i < profilers_.size(); ++i) {
    if (!profilers_[i]) continue;
    const int cpu = trace_->track(cluster_.node(i).name(), "CPU handlers");
    const auto& handlers = profilers_[i]->handlers();
    for (const vm::Invocation& inv : profilers_[i]->invocations())
      trace_->span(cpu, handlers[inv.handler].name, inv.start, inv.end,
                   {{"instructions", int64_t(inv.instructions)}, {"cycles", int64_t(inv.cycles)}});
  }
  trace_->finish();
}

} // namespace lanaikit::sim
