#include "sim/message_trace.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

namespace lanaikit::sim {

using vm::ChipEvent;
using vm::ChipEventRecord;

MessageTrace::MessageTrace(Cluster& cluster, uint32_t src, uint32_t dst)
    : cluster_(cluster), src_(src), dst_(dst) {
  if (src >= cluster.size() || dst >= cluster.size() || src == dst)
    throw std::invalid_argument("message trace: nodes " + std::to_string(src) + " -> " +
                                std::to_string(dst) + " are not two nodes of a " +
                                std::to_string(cluster.size()) + "-node cluster");
  listen_src_ = cluster.node(src).chip().on_event([this](const ChipEventRecord& r) {
    if (start_ >= 0 && seen_ < 0) log_src_.push_back(r);
  });
  listen_dst_ = cluster.node(dst).chip().on_event([this](const ChipEventRecord& r) {
    if (start_ >= 0 && seen_ < 0) log_dst_.push_back(r);
  });
}

MessageTrace::~MessageTrace() {
  cluster_.node(src_).chip().remove_event_listener(listen_src_);
  cluster_.node(dst_).chip().remove_event_listener(listen_dst_);
}

void MessageTrace::start(Time t) {
  log_src_.clear();
  log_dst_.clear();
  start_ = t;
  posted_ = seen_ = -1;
}

void MessageTrace::posted(Time t) { posted_ = t; }
void MessageTrace::seen(Time t) { seen_ = t; }

MessageBreakdown MessageTrace::breakdown() const {
  if (start_ < 0 || posted_ < 0 || seen_ < 0)
    throw std::runtime_error("message trace: mark start, posted and seen before asking for the breakdown");
  auto missing = [](const std::string& what) {
    return std::runtime_error("message trace: " + what);
  };
  // The sending card: the host's writes land (data, request, doorbell); the firmware
  // starts the send after the last of them (possibly after fetching data by host DMA).
  // (The first send after a landing: the firmware cannot send the message before its
  // request is complete, so the landings before it are the message's.)
  const ChipEventRecord* land = nullptr;
  const ChipEventRecord* send = nullptr;
  for (const auto& e : log_src_) {
    if (e.kind == ChipEvent::HostWrite || e.kind == ChipEvent::Doorbell) {
      land = &e;
    } else if (e.kind == ChipEvent::SendStart && land) {
      send = &e;
      break;
    }
  }
  if (!land) throw missing("no host write reached the sending card after the start");
  if (!send) throw missing("the sending firmware started no send after the host's last write landed");
  MessageBreakdown b;
  for (const auto& e : log_src_) {
    if (e.time < land->time || e.time > send->time) continue;
    if (e.kind == ChipEvent::HostDmaStart) b.dma_send -= e.time;
    if (e.kind == ChipEvent::HostDmaDone) b.dma_send += e.time;
  }
  if (b.dma_send < 0) b.dma_send += send->time; // a fetch still running at the send (streamed)
  // The process may still be busy (software cost after its writes) when the last write
  // lands and the firmware starts: then posting ends at the landing, and the overlap is
  // the firmware's time.
  const Time posting_end = std::min(posted_, land->time);
  b.host_send = posting_end - start_;
  b.pci_send = land->time - posting_end;
  b.cpu_send = send->time - land->time - b.dma_send;
  b.send_insns = send->instructions - land->instructions;

  const ChipEventRecord* tail = nullptr;
  for (const auto& e : log_dst_)
    if (e.kind == ChipEvent::RecvTail && e.time >= send->time) {
      tail = &e;
      break;
    }
  if (!tail) throw missing("no packet tail reached the receiving card after the send started");
  b.packet_bytes = tail->bytes;
  const net::LinkConfig& link = cluster_.params().link;
  const auto links = Time(cluster_.network().route(src_, dst_).size() + 1);
  b.wire = links * link.latency_ps +
           Time((unsigned __int128)(tail->bytes + 1) * kSecond / link.bytes_per_s); // + CRC
  b.network = tail->time - send->time - b.wire;

  // The receiving card: firmware work and host DMAs alternate until the host notices.
  Time cursor = tail->time;
  const ChipEventRecord* last_start = nullptr;
  for (const auto& e : log_dst_) {
    if (e.time < tail->time || e.time > seen_) continue;
    if (e.kind == ChipEvent::HostDmaStart) {
      b.cpu_recv += e.time - cursor;
      cursor = e.time;
      last_start = &e;
    } else if (e.kind == ChipEvent::HostDmaDone && last_start) {
      b.dma_recv += e.time - cursor;
      cursor = e.time;
    }
  }
  b.recv_insns = last_start ? last_start->instructions - tail->instructions : 0;
  b.host_recv = seen_ - cursor;
  b.total = seen_ - start_;
  return b;
}

std::string format_breakdown(const MessageBreakdown& b) {
  std::string out;
  auto line = [&](const char* name, Time t, const char* what) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "  %-10s %8.3f  %s\n", name, double(t) / double(kMicrosecond), what);
    out += buf;
  };
  line("host_send", b.host_send, "sending process posting (PIO writes issued)");
  line("pci_send", b.pci_send, "last posted write landing on the card");
  line("cpu_send", b.cpu_send, "sending firmware: pick-up, translation, packet build");
  line("dma_send", b.dma_send, "host DMA the sending firmware waited on (data fetch)");
  line("wire", b.wire, "serialisation and link latency");
  line("network", b.network, "switch, send/receive engines, FIFOs");
  line("cpu_recv", b.cpu_recv, "receiving firmware: checks, scatter set-up");
  line("dma_recv", b.dma_recv, "host DMA into the receiver's memory");
  line("host_recv", b.host_recv, "receiving process noticing");
  line("total", b.total, "");
  return out;
}

} // namespace lanaikit::sim
