// BIP's host library (docs/bip.md): the host side of the BIP MCP (firmware/bip/bip.fw) on a
// simulated cluster, after the paper's API (../shared/seeds/003): processes numbered
// 0..n-1, blocking and non-blocking send and receive with tags, one send and one receive
// pending per process, long messages in ready mode.
//
//   bip::Bip b(cluster, image, bip::costs_from_platform(platform));   // loads, starts
//   bip::Endpoint& e = b.endpoint(0);                                  // node 0's process
//   VirtAddr buf = e.alloc(4096);                                      // untimed set-up
//   ... in node 0's process: SendResult r = co_await e.send(p, 1, tag, buf, 4);
//   ... in node 1's process: RecvResult m = co_await f.recv(p, tag, rbuf, 4096);
//
// Misuse of the API (an unaligned or unmapped buffer, a second pending send, a tag out of
// range) throws BipError and posts nothing; what the network does to a message (a ready-mode
// violation, a lost packet, truncation) comes back in the results.
#pragma once

#include "assembler/image.h"
#include "host/bip/pipeline.h"
#include "host/model/address_space.h"
#include "host/model/process.h"
#include "sim/cluster.h"
#include "sim/platform.h"

#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace lanaikit::bip {

using host::VirtAddr;

class BipError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// Host software costs. costs_from_platform takes the platform's `host.costs` of these names
// (ns; copy_mb_per_s as a rate) and lanaikit's estimate for the others, listed in
// `defaulted`. PIO costs are not here: they are the node's PCI parameters.
struct Costs {
  host::PageCost pin;         // pinning on first use: pin_call + pin_page per page
  double copy_mb_per_s = 0;   // the host's memcpy (ring -> user buffer); 0: free
  sim::Time send_post = 0;    // library software per send, beyond its PIO writes
  sim::Time recv_post = 0;    // library software per receive
  std::vector<std::string> defaulted;
  sim::Time copy(uint64_t bytes) const;
};
Costs costs_from_platform(const sim::Platform& platform);

struct Options {
  uint32_t credits = 8;      // ring slots each node reserves per (source, tag)
  uint32_t copy_max = 0;     // sends of at most this many bytes are PIO-copied (0: the
                             //   library's measured default, docs/bip.md "Thresholds")
  uint32_t direct_min = 0;   // short messages this long or longer go straight into a posted
                             //   receive; shorter ones are copied out of the ring (0: default)
  uint32_t packet = 0;       // long messages: 0 adaptive (the pipeline model), else this
                             //   fixed packet size (a multiple of 4, at most MAX_PKT)
};

struct SendResult {
  bool ok = false;
  std::string error;         // why not (a ready-mode violation the receiver reported)
  uint32_t seq = 0;          // the send's number on this endpoint, from 1
  uint32_t packet = 0;       // long: the packet size used; 0 for a short send
  bool copied = false;       // short, PIO-copied
};

struct RecvResult {
  bool ok = false;
  std::string error;         // a lost packet, a dead sender
  uint32_t src = 0;
  uint32_t len = 0;          // the message's length
  uint32_t received = 0;     // bytes written into the buffer: min(len, maxlen)
  bool truncated = false;    // len > maxlen
  bool from_ring = false;    // copied out of the tag's intermediate buffer
};

class Bip;

// One BIP process: the node's only user of the interface, as in the paper.
class Endpoint {
public:
  uint32_t mynode() const;
  uint32_t numnodes() const;
  sim::Node& node();
  host::AddressSpace& space();

  // Untimed set-up: fresh zeroed pages (page-aligned) in the process's space.
  VirtAddr alloc(uint64_t bytes);
  void write(VirtAddr va, std::span<const uint8_t> bytes);
  std::vector<uint8_t> read(VirtAddr va, uint64_t len);

  // Blocking send: returns when the buffer may be reused (a short message copied into the
  // interface at once; a DMAed or long one once the MCP has fetched it). `va` and `len`
  // must be multiples of 4 and the buffer mapped; dest < numnodes, tag < MAX_TAGS.
  host::Op<SendResult> send(host::Process& p, uint32_t dest, uint32_t tag, VirtAddr va, uint32_t len);
  // Non-blocking: posts and returns the send's seq; one send may be pending.
  host::Op<uint32_t> isend(host::Process& p, uint32_t dest, uint32_t tag, VirtAddr va, uint32_t len);
  bool send_done() const;                        // the pending send (if any) is complete
  // Sends posted and not yet complete in the MCP (a copied send is complete for the caller at
  // once, but holds its MCP slot until its packet has left): a program that must never
  // block in isend (it waits for a slot when SEND_SLOTS are in flight) posts when this is 0.
  uint32_t sends_in_flight() const;
  host::Op<SendResult> wait_send(host::Process& p);

  // Blocking receive of the next message on `tag` from any source into [va, va + maxlen)
  // (truncated to maxlen: docs/bip.md "Truncation").
  host::Op<RecvResult> recv(host::Process& p, uint32_t tag, VirtAddr va, uint32_t maxlen);
  host::Op<void> irecv(host::Process& p, uint32_t tag, VirtAddr va, uint32_t maxlen);
  bool recv_done();                              // the pending receive (if any) is complete
  // Whether a message is waiting in `tag`'s intermediate buffer: a recv on that tag would
  // complete at once, without the MCP (MPI's Iprobe, for one tag and any source).
  bool probe(uint32_t tag) const;
  host::Op<RecvResult> wait_recv(host::Process& p);

  struct Counters {
    uint32_t send_consumed, sent, received, short_ring, short_direct, long_msgs, credit_packets,
        credit_waits, bad_send, bad_crc, bad_magic, bad_len, lost, stale, not_posted, dropped,
        truncated, ring_overflow, nacked;
  };
  Counters counters() const;
  uint64_t pinned_pages() const;   // pages pinned so far (each cost one pin on first use)
  uint64_t pin_calls() const;

  ~Endpoint();
  struct Impl; // the library's (host/bip/state.h)
  explicit Endpoint(std::unique_ptr<Impl> impl);

private:
  std::unique_ptr<Impl> impl_;
};

// One per cluster: loads the MCP on every node, sets up each node's rings and records,
// writes the routes and starts the chips. It must outlive every run of its cluster.
class Bip {
public:
  Bip(sim::Cluster& cluster, const assembler::FirmwareImage& mcp, Costs costs, Options options = {});
  ~Bip();
  Bip(const Bip&) = delete;
  Bip& operator=(const Bip&) = delete;

  Endpoint& endpoint(uint32_t node);
  sim::Cluster& cluster();

  // The MCP's sizes (from its layout table) and the thresholds in use.
  struct Limits {
    uint32_t max_nodes, max_tags, short_max, max_pkt, send_slots, max_ring;
    uint32_t copy_max, direct_min, credits;
  };
  const Limits& limits() const;
  const Costs& costs() const;
  // The pipeline model long messages are cut by (docs/bip.md, "Packet size").
  const PipelineModel& model() const;

  struct Impl;

private:
  std::unique_ptr<Impl> impl_;
};

} // namespace lanaikit::bip
