// Sinks the net tests put at the receiving end of links.
#pragma once

#include "net/link.h"
#include "net/packet.h"
#include "event/kernel.h"

#include <algorithm>
#include <vector>

namespace lanaikit::net::testing {

struct Arrival {
  uint64_t id = 0;
  std::vector<uint8_t> bytes;
  uint32_t status = 0;
  sim::Time head_ps = -1, tail_ps = -1; // when the first / last chunk was taken
};

// Takes everything at once and reassembles packets.
class Collector : public PacketSink {
public:
  explicit Collector(sim::Kernel& k) : k_(k) {}
  uint32_t accept(const Chunk& c) override {
    if (c.head()) {
      packets.emplace_back();
      packets.back().id = c.packet->id;
      packets.back().head_ps = k_.now();
    }
    Arrival& a = packets.back();
    a.bytes.insert(a.bytes.end(), c.packet->bytes.begin() + c.offset,
                   c.packet->bytes.begin() + c.offset + c.length);
    if (c.tail) {
      a.status = c.packet->status;
      a.tail_ps = k_.now();
    }
    return c.whole();
  }
  std::vector<Arrival> packets;

private:
  sim::Kernel& k_;
};

// A receiver with a `capacity_bytes` buffer that it empties at `drain_bytes_per_s`, as a
// NIC's receive DMA would into host memory; refuses bytes while full.
class SlowSink : public Collector {
public:
  SlowSink(sim::Kernel& k, Link& link, uint32_t capacity_bytes, uint64_t drain_bytes_per_s)
      : Collector(k), k_(k), link_(link), capacity_(capacity_bytes), rate_(drain_bytes_per_s) {}
  uint32_t accept(const Chunk& c) override {
    const uint32_t room = capacity_ - held_;
    const uint32_t n = std::min(room, c.length);
    if (n == c.length) {
      Collector::accept(c);
    } else {
      ++refusals;
      if (n > 0) {
        Chunk part = c;
        part.length = n;
        part.tail = false;
        Collector::accept(part);
      }
    }
    held_ += n;
    if (held_ > 0 && !draining_) drain_next();
    return n == c.length ? c.whole() : n;
  }
  uint64_t refusals = 0;

private:
  // Drains one chunk-sized piece at a time at the sink's rate.
  void drain_next() {
    draining_ = true;
    const uint32_t piece = std::min<uint32_t>(held_, 16);
    const sim::Time t = sim::Time(uint64_t(piece) * uint64_t(sim::kSecond) / rate_);
    k_.schedule_in(t, [this, piece] {
      held_ -= piece;
      draining_ = false;
      link_.sink_ready();
      if (held_ > 0) drain_next();
    });
  }
  sim::Kernel& k_;
  Link& link_;
  uint32_t capacity_, held_ = 0;
  uint64_t rate_;
  bool draining_ = false;
};

inline std::vector<uint8_t> pattern(size_t n, uint32_t seed) {
  std::vector<uint8_t> v(n);
  uint32_t x = seed * 2654435761u + 1;
  for (auto& b : v) {
    x = x * 1103515245u + 12345u;
    b = uint8_t(x >> 16);
  }
  return v;
}

} // namespace lanaikit::net::testing
