// Hamlyn's host library, lower level (paper 3.2; docs/hamlyn.md): the application side of
// firmware/hamlyn/hamlyn.fw on a simulated cluster.
//
//   hamlyn::Hamlyn h(cluster, image, hamlyn::costs_from_platform(platform));  // loads, starts
//   hamlyn::Application& a = h.open(0);          // node 0: a send terminus, a notification queue
//   hamlyn::Application& b = h.open(1);
//   uint32_t s = b.open_slot(64 * 1024, 16);     // a message area and 16 metadata entries
//   Ticket t = b.ticket(s, 0, 0, 4096);          // permission to write [0, 4096) of it
//   Region buf = a.alloc_send(8192);             // a send buffer (DMA sends come from these)
//   ... in node 0's process: Handle hd = co_await a.h_send_msg(p, t, buf.addr, 16, 0, 0);
//   ... in node 1's process: std::optional<Notification> n = co_await b.h_recv_block(p, 1ms);
//
// Set-up (open, open_slot, alloc_send, ticket) is the driver's and untimed; sends and
// receives are timed host work (the library's software costs, PIO stores to the card,
// waits). Memory is host physical and contiguous, as the workstation's I/O mapping made
// it for the card (paper section 4); the application reads and writes it directly.
// Misuse (a ticket that does not fit, a buffer outside every send buffer, metadata over 60
// bytes) throws HamlynError and posts nothing.
#pragma once

#include "assembler/image.h"
#include "host/hamlyn/driver.h"
#include "host/kit/image_view.h"
#include "host/model/process.h"
#include "sim/cluster.h"
#include "sim/platform.h"

#include <array>
#include <functional>
#include <map>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace lanaikit::hamlyn {

class HamlynError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// Host software costs, beyond the PIO stores (the node's PCI parameters) and waits.
// costs_from_platform takes the platform's `host.costs` of these names (ns) and lanaikit's
// estimate for the others, listed in `defaulted` (docs/hamlyn.md, "Costs").
struct Costs {
  sim::Time send_call = 0;      // h_send_msg: ticket check, buffer -> <tag, offset>, request
  sim::Time recv_call = 0;      // h_recv finding a message: the entry decoded, cursor moved
  sim::Time recv_poll = 0;      // h_recv finding none (a cached load: no bus traffic)
  sim::Time context_switch = 0; // a sleeping receiver woken by the driver
  // The upper level (protocols.h). A tagged remote write's whole send and receive calls
  // (the lower level's included), and any other protocol call's own work.
  sim::Time trw_send = 0;
  sim::Time trw_recv = 0;
  sim::Time proto_call = 0;
  std::vector<std::string> defaulted;
};
Costs costs_from_platform(const sim::Platform& platform);

// Permission to send into one metadata entry and part of a message area (paper 3.2).
// Location-independent: encode() is what travels in a message, decode() what the
// receiver of it rebuilds.
struct Ticket {
  uint32_t node = 0;        // destination node
  uint32_t slot = 0;
  uint32_t meta_index = 0;  // kFastIndex: fast mode (one metadata word, no entry)
  uint64_t key = 0;
  uint32_t base = 0;        // the part of the message area it may write: [base, base + bound)
  uint32_t bound = 0;
  uint32_t delta = 0;       // Y, the packet counter's start: 0 for a message of its own; a
                            //   share of 2^32 for group receive (paper 2.5)
  uint32_t flags = 0;
  static constexpr uint32_t kFastIndex = 0xFFFF;
  static constexpr size_t kBytes = 32;
  std::array<uint8_t, kBytes> encode() const;
  static Ticket decode(std::span<const uint8_t> bytes);
  bool operator==(const Ticket&) const = default;
};

// A notification queue entry (Table 3), decoded.
struct Notification {
  uint32_t slot = 0;
  uint32_t meta_index = 0;  // Ticket::kFastIndex in fast mode
  uint64_t meta_addr = 0;   // the metadata entry (not in fast mode)
  uint32_t fast_word = 0;   // fast mode: the metadata word
  bool fast() const { return meta_index == Ticket::kFastIndex; }
};

// What h_send_msg returns: the entry's number on its terminus. Its buffers may be reused
// once Application::released(handle).
struct Handle {
  uint32_t seq = 0;
};

struct SlotInfo {
  Region area;
  Region meta;
  uint64_t key = 0;
  SlotMode mode = SlotMode::Normal;
};

class Hamlyn;

// One application process's Hamlyn resources on a node: a send terminus (its work queue,
// its send buffers, its sequence word), a notification queue, and the slots it receives
// on. Its calls are made from that node's processes.
class Application {
public:
  Application(Hamlyn& h, uint32_t node, uint32_t terminus, uint32_t nqcb);
  uint32_t node() const { return node_; }
  uint32_t terminus() const { return terminus_; }
  const Costs& costs() const;
  sim::Node& host() const;

  // --- set-up (the driver's; untimed) ---
  // A send buffer (registered with the terminus: up to SEND_BUFFERS of them).
  Region alloc_send(uint32_t bytes);
  // A slot on this application's notification queue: a message area of `area_bytes` and
  // `meta_entries` metadata entries, with a fresh key (deterministic per cluster).
  uint32_t open_slot(uint32_t area_bytes, uint32_t meta_entries, SlotMode mode = SlotMode::Normal);
  const SlotInfo& slot(uint32_t index) const;
  // A ticket for entry `meta_index` of `slot` and [base, base + bound) of its area.
  Ticket ticket(uint32_t slot, uint32_t meta_index, uint32_t base, uint32_t bound, uint32_t delta = 0) const;
  // Paranoid modes: the entry's own key, the offsets senders may write, and (one-shot)
  // whether it may take a message. Application memory: untimed here, as a store is.
  void guard(uint32_t slot, uint32_t meta_index, uint64_t key, uint32_t low, uint32_t high, bool armed);

  // --- timed (from this node's processes) ---
  // Sends `len` bytes at host address `data` and `meta_len` bytes of metadata at `meta`
  // to the ticket's message area at ticket.base (paper 3.2). Direct I/O (STOREs of the
  // request, metadata and data into the work queue) when they fit an entry, else a DMA
  // request: then both must lie inside this terminus's send buffers. Waits while the work
  // queue is full.
  host::Op<Handle> h_send_msg(host::Process& p, const Ticket& t, uint64_t data, uint32_t len,
                              uint64_t meta, uint32_t meta_len, uint32_t fast_word = 0);
  // Whether the entry and its buffers are the application's again.
  bool released(Handle h) const;
  uint32_t sent() const;
  uint32_t posted() const { return posted_; }
  // The next notification, if one has arrived.
  host::Op<std::optional<Notification>> h_recv(host::Process& p);
  // Waits for one until `timeout` from now. Busy-waits (polling the queue costs no bus
  // traffic on the J200's coherent I/O) unless `sleep`: then it asks the card for an
  // interrupt and sleeps, paying a context switch when the driver wakes it.
  host::Op<std::optional<Notification>> h_recv_block(host::Process& p, sim::Time timeout, bool sleep = false);
  // Untimed: whether a notification is waiting (the next h_recv would find it).
  bool pending() const;

  // The driver's interrupt service: wakes this application if it sleeps.
  host::WaitList& wakeups() { return wakeups_; }
  uint32_t nqcb() const { return nqcb_; }
  uint64_t wakeups_taken() const { return woken_; }

private:
  struct Piece {
    uint32_t tag, offset;
  };
  Piece locate(uint64_t addr, uint32_t len, const char* what) const;
  std::optional<Notification> peek_note() const;
  void take_note();

  Hamlyn& h_;
  uint32_t node_, terminus_, nqcb_;
  std::vector<Region> send_buffers_;
  uint64_t seq_word_ = 0;
  uint32_t posted_ = 0;
  Region queue_;
  uint32_t queue_entries_ = 0;
  uint32_t cursor_ = 0, wrap_ = 1;
  std::map<uint32_t, SlotInfo> info_;
  host::WaitList wakeups_;
  uint64_t woken_ = 0;
};

struct Options {
  uint32_t queue_entries = 256;   // notification queue entries per application
  // The handshake (paper 2.8): the driver changes hamlyn.handshake every period; the card
  // discards packets after `handshake_ticks` RTC ticks without a change (0: no timer).
  sim::Time handshake_period = 1 * sim::kMillisecond;
  uint32_t handshake_ticks = 8000;
  // Direct I/O for metadata + data up to this many bytes (at most an entry's room, the
  // default); 0: every send is a DMA request.
  uint32_t direct_max = UINT32_MAX;
  // Adaptive routing: spread each destination's packets over the network's paths to it
  // (net::Network::paths: a Clos has one per spine), so they may arrive out of order.
  bool multipath = false;
};

// One per cluster: loads the control program on every node, the driver (set-up, the
// handshake, interrupt service) and starts the chips. It must outlive every run of its
// cluster.
class Hamlyn {
public:
  Hamlyn(sim::Cluster& cluster, const assembler::FirmwareImage& image, Costs costs, Options options = {});
  ~Hamlyn();
  Hamlyn(const Hamlyn&) = delete;
  Hamlyn& operator=(const Hamlyn&) = delete;

  // A new application on `node` (a terminus and a notification queue of its own).
  Application& open(uint32_t node);
  sim::Cluster& cluster() { return cluster_; }
  const kit::ImageView& view() const { return view_; }
  Driver& driver(uint32_t node) { return *drivers_.at(node); }
  const Costs& costs() const { return costs_; }
  const Options& options() const { return options_; }
  // Card counters of a node (struct HamlynCtl's integer fields).
  std::vector<std::pair<std::string, uint64_t>> counters(uint32_t node);
  uint64_t next_key();

  struct Layout; // offsets resolved once from the image
  const Layout& layout() const { return *layout_; }

private:
  sim::Cluster& cluster_;
  assembler::FirmwareImage image_;
  kit::ImageView view_;
  Costs costs_;
  Options options_;
  std::unique_ptr<Layout> layout_;
  std::vector<std::unique_ptr<Driver>> drivers_;
  std::vector<std::vector<std::unique_ptr<Application>>> apps_;
  std::vector<uint32_t> next_slot_;
  uint64_t key_state_ = 0x243F6A8885A308D3ull;
  struct Irq;
  std::unique_ptr<Irq> irq_;
  friend class Application;
};

} // namespace lanaikit::hamlyn
