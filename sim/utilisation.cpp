#include "sim/utilisation.h"

#include <cstdio>
#include <sstream>

namespace lanaikit::sim {

Utilisation utilisation(Cluster& cluster, const std::vector<const vm::Profiler*>& profilers) {
  Utilisation u;
  u.elapsed = cluster.kernel().now();
  auto row = [&](std::string name, Time busy) {
    u.rows.push_back({std::move(name), busy, u.elapsed > 0 ? double(busy) / double(u.elapsed) : 0.0});
  };
  for (uint32_t i = 0; i < cluster.size(); ++i) {
    Node& n = cluster.node(i);
    const std::string node = n.name();
    if (i < profilers.size() && profilers[i]) {
      const vm::Profiler& p = *profilers[i];
      const ClockDomain& clock = n.chip().clock();
      row(node + " cpu in handlers", clock.time_of(p.handler_cycles()));
      row(node + " cpu polling", clock.time_of(p.total_cycles() - p.handler_cycles()));
    }
    row(node + " pci bus", n.pci().stats().busy);
    const vm::ChipCounters& cc = n.chip().counters();
    row(node + " host-dma engine", cc.host_dma_busy_ps);
    row(node + " send-dma engine", cc.send_busy_ps);
    row(node + " receive-dma engine", cc.receive_busy_ps);
  }
  net::Network& net = cluster.network();
  for (size_t i = 0; i < net.link_count(); ++i) {
    net::Link& l = net.link_at(i);
    const net::LinkCounters& c = l.counters();
    // Wire time of what it sent: data plus one CRC byte per packet.
    row("link " + l.name(), l.wire_time(c.bytes_sent + c.packets_sent));
  }
  return u;
}

std::string format_utilisation(const Utilisation& u) {
  std::ostringstream o;
  char buf[160];
  std::snprintf(buf, sizeof buf, "utilisation over %.1f simulated us\n\n| component | busy us | %% |\n|---|---:|---:|\n",
                double(u.elapsed) / 1e6);
  o << buf;
  for (const auto& r : u.rows) {
    std::snprintf(buf, sizeof buf, "| %s | %.1f | %.1f |\n", r.component.c_str(), double(r.busy) / 1e6,
                  100.0 * r.fraction);
    o << buf;
  }
  return o.str();
}

} // namespace lanaikit::sim
