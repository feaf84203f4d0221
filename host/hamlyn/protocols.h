// Hamlyn's library, upper level (paper 3.3; docs/hamlyn.md): a Hamlyn manager per send
// terminus, receiver end points that take arrivals from it, and the paper's three
// protocols on the lower level (hamlyn.h):
//
//   * datagram: raw Hamlyn semantics; a receiver per metadata entry, ready or not, with
//     the data's offset and length (and optionally a reply ticket) in the metadata;
//   * stream: one-way, one-to-one, in order; the sender owns the receiver's ring (sender-
//     based memory management), coalesces small sends by copying, and blocks when it has
//     no ticket (metadata entry) left; the receiver hands out <start, length> without a
//     copy and release() returns space and tickets to the sender;
//   * tagged remote write: fast mode, one packet, the tag rides as the metadata word;
//     get_tag / get_specific_tag; no order.
//
// Every call that moves data is timed host work on the caller's process; the protocols'
// own software costs are Costs::trw_send, trw_recv and proto_call (docs/hamlyn.md).
#pragma once

#include "host/hamlyn/hamlyn.h"

#include <deque>
#include <map>
#include <optional>

namespace lanaikit::hamlyn {

class Receiver;

// hamlyn_manager: one per send terminus (an Application). It owns the application's
// notification queue on behalf of its receivers, and allocates buffer memory from its
// send buffers.
class Manager {
public:
  explicit Manager(Application& app, uint32_t buffer_bytes = 256 * 1024);
  Application& app() { return app_; }
  // Send-buffer memory (DMA sends and metadata come from it); 8-byte aligned.
  uint64_t alloc(uint32_t bytes);
  // A receiver takes every notification for `slot`.
  void attach(uint32_t slot, Receiver* r);
  // The next notification, if any, to its receiver's process_arrival. Returns whether
  // there was one.
  host::Op<bool> poll_nowait(host::Process& p);
  // Waits up to `timeout` for one (busy: the coherent cache makes polling free).
  host::Op<bool> poll(host::Process& p, sim::Time timeout);
  uint64_t unclaimed() const { return unclaimed_; }

private:
  Application& app_;
  Region pool_;
  uint32_t used_ = 0;
  std::map<uint32_t, Receiver*> receivers_;
  uint64_t unclaimed_ = 0;
};

class Receiver {
public:
  virtual ~Receiver() = default;
  // A notification for this receiver's slot (called by the manager, untimed: the manager
  // charged the call).
  virtual void process_arrival(const Notification& n) = 0;
};

// ---------------------------------------------------------------- datagram

struct Datagram {
  uint32_t offset = 0, len = 0;    // where in the receiver's area, how long
  std::optional<Ticket> reply;
};

class DatagramReceiver : public Receiver {
public:
  // `entries` receivers' worth of metadata entries on one slot of `area_bytes`: entry i
  // is the i-th receiver instance (ticket(i)).
  DatagramReceiver(Manager& m, uint32_t area_bytes, uint32_t entries);
  Ticket ticket(uint32_t entry, uint32_t base, uint32_t bound) const;
  bool ready(uint32_t entry) const { return ready_.at(entry).has_value(); }
  // The datagram in `entry`, leaving it not ready (waits up to `timeout` for one).
  host::Op<std::optional<Datagram>> receive(host::Process& p, uint32_t entry, sim::Time timeout);
  uint64_t area() const;
  void process_arrival(const Notification& n) override;

private:
  Manager& m_;
  uint32_t slot_;
  std::vector<std::optional<Datagram>> ready_;
};

class DatagramSender {
public:
  explicit DatagramSender(Manager& m) : m_(m), meta_(m.alloc(64)) {}
  // Sends len bytes at `data` (a send buffer of the manager, or any memory when small) to
  // the ticket's area, with a reply ticket if given.
  host::Op<Handle> send(host::Process& p, const Ticket& t, uint64_t data, uint32_t len,
                        const std::optional<Ticket>& reply = std::nullopt);

private:
  Manager& m_;
  uint64_t meta_;
  Handle last_;
};

// ---------------------------------------------------------------- stream

// What a stream receiver gives its sender (paper: "a seed object, containing tickets for
// preallocated buffers, metadata, and other information").
struct Seed {
  Ticket ring;                // the whole ring area (meta_index 0; entries are 0..tickets-1)
  uint32_t tickets = 0;       // metadata entries the sender may use
};

struct Record {
  uint32_t seq = 0;           // from 1, in stream order
  uint64_t start = 0;         // host address in the receiver's ring: no copy
  uint32_t len = 0;
};

class StreamReceiver : public Receiver {
public:
  StreamReceiver(Manager& m, uint32_t ring_bytes, uint32_t tickets);
  Seed make_seed() const;
  // The sender's acknowledgement ticket (its release channel), from StreamSender::ack_ticket.
  void accept(const Ticket& ack) { ack_ = ack; }
  // The next record in order (waits up to timeout).
  host::Op<std::optional<Record>> receive(host::Process& p, sim::Time timeout);
  // Frees every record up to and including `seq`: tells the sender (one fast-mode message).
  host::Op<void> release(host::Process& p, uint32_t seq);
  void process_arrival(const Notification& n) override;
  uint64_t out_of_order() const { return out_of_order_; }

private:
  Manager& m_;
  uint32_t slot_, tickets_;
  Ticket ack_{};
  std::map<uint32_t, Record> arrived_;
  uint32_t next_ = 1;
  uint64_t out_of_order_ = 0;
  uint64_t zero_ = 0;
};

class StreamSender : public Receiver {
public:
  // `coalesce`: sends shorter than this are copied into a staging buffer and sent together
  // (by flush, or when the staging buffer fills).
  StreamSender(Manager& m, const Seed& seed, uint32_t coalesce = 256, uint32_t stage_bytes = 4096);
  Ticket ack_ticket() const;
  // Posts len bytes at `data` (in the manager's send buffers when len >= coalesce).
  host::Op<void> send(host::Process& p, uint64_t data, uint32_t len);
  host::Op<void> flush(host::Process& p);
  uint64_t messages() const { return messages_; }
  uint64_t blocked() const { return blocked_; }
  // Records the receiver released (messages() once the stream is drained).
  uint32_t released() const { return released_; }
  void process_arrival(const Notification& n) override;

private:
  host::Op<void> post(host::Process& p, uint64_t data, uint32_t len);
  Manager& m_;
  Seed seed_;
  uint32_t coalesce_;
  uint64_t stage_;
  uint32_t stage_bytes_, staged_ = 0;
  uint64_t meta_;
  uint32_t ack_slot_;
  uint32_t seq_ = 0;          // records posted
  uint32_t released_ = 0;     // records the receiver released
  uint64_t head_ = 0;         // ring bytes allocated (monotonic)
  std::deque<std::pair<uint32_t, uint64_t>> ends_; // per record: seq, head after it
  uint64_t tail_ = 0;         // ring bytes freed
  uint64_t messages_ = 0, blocked_ = 0;
  Handle stage_handle_;
};

// ---------------------------------------------------------------- tagged remote write

class TrwReceiver : public Receiver {
public:
  TrwReceiver(Manager& m, uint32_t area_bytes);
  Ticket ticket(uint32_t base, uint32_t bound) const;
  uint64_t area() const;
  // The next tag to arrive (waits up to timeout).
  host::Op<std::optional<uint32_t>> get_tag(host::Process& p, sim::Time timeout);
  // Waits for that tag (others stay queued).
  host::Op<bool> get_specific_tag(host::Process& p, uint32_t tag, sim::Time timeout);
  void process_arrival(const Notification& n) override;

private:
  Manager& m_;
  uint32_t slot_;
  std::deque<uint32_t> tags_;
};

class TrwSender {
public:
  explicit TrwSender(Manager& m) : m_(m) {}
  host::Op<Handle> send(host::Process& p, const Ticket& t, uint64_t src, uint32_t len, uint32_t dest_offset,
                        uint32_t tag);

private:
  Manager& m_;
};

} // namespace lanaikit::hamlyn
