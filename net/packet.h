// A packet as the network sees it, and the interface of whatever sits at the receiving end
// of a link (a switch input, a NIC's receive DMA, a test sink).
//
// On a wire a packet is: its leading source-route bytes (one per switch still to cross),
// its payload, then one CRC-8 byte the sending link appends (net/crc8.h). `bytes` holds
// the first two; the CRC never appears in it. Each switch strips the route byte it used,
// so the packet that reaches a node starts with its payload.
#pragma once

#include "event/time.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace lanaikit::net {

// Status bits the receiver sees once the packet's tail has arrived; sticky across hops.
enum PacketStatus : uint32_t {
  kCrcError = 1u << 0,  // the CRC byte did not match on some hop (bits were corrupted)
  kTruncated = 1u << 1, // the packet's tail never came (reserved: no model sets it yet)
};

struct Packet {
  uint64_t id = 0;            // chosen by the sender; carried unchanged across switches
  std::vector<uint8_t> bytes; // route bytes, then payload; no CRC
  uint32_t status = 0;        // PacketStatus bits; final when the tail is delivered
};
using PacketPtr = std::shared_ptr<Packet>;

// The packet a chunk comes from, as a sink sees it: the link offering the chunk owns it for
// the duration of PacketSink::accept; a sink that keeps it past that converts it to a
// PacketPtr (a copy of the shared pointer, made only then: a switch does at a packet's
// head). Offering a chunk used to copy the shared pointer, and its atomic count and the
// cache line it lives on were two fifths of Link::deliver's time in VMMC's main job.
class PacketRef {
public:
  PacketRef(const PacketPtr& p) : p_(&p) {} // NOLINT: implicit, as the PacketPtr it stands for
  Packet* operator->() const { return p_->get(); }
  Packet& operator*() const { return **p_; }
  operator const PacketPtr&() const { return *p_; } // NOLINT
  const PacketPtr& ptr() const { return *p_; }

private:
  const PacketPtr* p_;
};

// A run of a packet's bytes handed to a sink: bytes [offset, offset + length) of
// packet->bytes. The first chunk of a packet has offset 0; the last has tail set, and by
// then packet->status is final. A tail chunk may have length 0 (only the CRC was left).
struct Chunk {
  PacketRef packet;
  uint32_t offset = 0;
  uint32_t length = 0;
  bool tail = false;
  bool head() const { return offset == 0; }
  // What a sink returns to take all of the chunk: its bytes, plus one for a tail (the
  // packet's end, its CRC byte on the wire), so taking an empty tail is not a stall.
  uint32_t whole() const { return length + (tail ? 1u : 0u); }
};

// The receiving end of a link. The link offers the chunk at the front of its receive
// (slack) buffer; the sink takes 0..length bytes, and takes a tail chunk's end (the packet
// is finished with) by returning length + 1: Chunk::whole(). Returning less stalls the
// link, which keeps the rest in its buffer (so back-pressure builds up: STOP) and offers
// it again (the tail alone, with length 0, if only the end is left) after the sink calls
// Link::sink_ready(). So an empty packet (one tail chunk of length 0) is either taken (1)
// or refused (0), never lost. Bytes are never dropped here.
class PacketSink {
public:
  virtual ~PacketSink() = default;
  virtual uint32_t accept(const Chunk& chunk) = 0;
  // A sink that takes chunks as they come (a chip's receive engine) may promise, when a
  // middle chunk (neither a head nor a tail) is sent towards it, that whenever the chunk
  // arrives it will take it whole, and that nothing anyone can observe depends on when it
  // does, until the sink calls Link::release_held() (which it must before anything that
  // could break the promise) or someone reads what the chunk changes (after
  // Link::settle()). `ahead` is the data bytes of chunks already promised and still on
  // the wire, which it takes first. The link then holds the chunk back without an event
  // (Link::set_sink_takes_promised).
  virtual bool promise_whole(const Chunk& chunk, uint32_t ahead) {
    (void)chunk;
    (void)ahead;
    return false;
  }
};

} // namespace lanaikit::net
