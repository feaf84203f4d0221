#include "sim/observable_trace.h"

#include "net/crc8.h"
#include "sim/cluster.h"
#include "vm/chip.h"

#include <cinttypes>
#include <stdexcept>

namespace lanaikit::sim {

namespace {
const char* const kLinkKindNames[] = {"head-sent", "tail-sent", "tail-arrived"};
} // namespace

void ObservableTrace::Stream::fold(uint64_t v) {
  constexpr uint64_t kPrime = 0x100000001b3ull;
  for (int i = 0; i < 8; ++i) hash = (hash ^ ((v >> (8 * i)) & 0xFF)) * kPrime;
}

ObservableTrace::ObservableTrace(Cluster& cluster, const std::string& text_path)
    : cluster_(cluster), links_(cluster.network().link_count()) {
  if (!text_path.empty()) {
    text_ = std::fopen(text_path.c_str(), "w");
    if (!text_) throw std::runtime_error("observable trace: cannot open '" + text_path + "' for writing");
  }
  streams_.resize(links_ * kLinkKinds + size_t(cluster.size()) * kChipKinds);
  for (size_t i = 0; i < links_; ++i) {
    net::Link& link = cluster.network().link_at(i);
    link.set_watch([this, i, &link](net::Link::Watch w, const net::Packet& p, Time t, bool crc_ok) {
      const size_t kind = size_t(w);
      Stream& s = link_stream(i, kind);
      ++s.count;
      ++records_;
      s.fold(p.id);
      s.fold(uint64_t(t));
      uint64_t detail = 0;
      if (w != net::Link::Watch::HeadSent) detail = p.bytes.size();
      if (w == net::Link::Watch::TailArrived)
        detail |= uint64_t(p.status) << 32 | uint64_t(crc_ok) << 40 | uint64_t(net::crc8(p.bytes)) << 48;
      s.fold(detail);
      if (text_)
        std::fprintf(text_, "%" PRId64 " link %s %s id=%" PRIu64 " detail=%016" PRIx64 "\n", int64_t(t),
                     link.name().c_str(), kLinkKindNames[kind], p.id, detail);
    });
  }
  for (uint32_t n = 0; n < cluster.size(); ++n) {
    listeners_.push_back(cluster.node(n).chip().on_event([this, n](const vm::ChipEventRecord& r) {
      Stream& s = chip_stream(n, size_t(r.kind));
      ++s.count;
      ++records_;
      s.fold(uint64_t(r.time));
      s.fold(r.instructions);
      s.fold(r.bytes);
      if (text_)
        std::fprintf(text_, "%" PRId64 " chip %u %s insns=%" PRIu64 " bytes=%u\n", int64_t(r.time), n,
                     vm::chip_event_name(r.kind), r.instructions, r.bytes);
    }));
  }
}

ObservableTrace::~ObservableTrace() {
  for (size_t i = 0; i < links_; ++i) cluster_.network().link_at(i).set_watch(nullptr);
  for (uint32_t n = 0; n < listeners_.size(); ++n) cluster_.node(n).chip().remove_event_listener(listeners_[n]);
  if (text_) std::fclose(text_);
}

uint64_t ObservableTrace::hash() const {
  Stream all;
  for (const Stream& s : streams_) {
    all.fold(s.count);
    all.fold(s.hash);
  }
  return all.hash;
}

} // namespace lanaikit::sim
