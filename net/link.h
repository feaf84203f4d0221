// A unidirectional Myrinet-style link: serialization at an exact byte rate, propagation
// latency, stop/go flow control against a slack buffer at the receiving end, CRC-8 per
// packet, and seeded fault injection.
//
// The CRC check's outcome is known at the sender: the byte is CRC-8 over the packet's bytes
// before any fault, and the only fault that touches bytes flips one bit (FaultPlan), which
// CRC-8 always detects (tests/net/crc8_test.cpp checks every bit of every byte). So the
// receiver's check fails exactly for a corrupted packet, and neither end computes the CRC
// (it used to be computed twice per packet per link, a byte at a time: 10% of a VMMC run).
//
// Timing is modelled per chunk (LinkConfig::chunk_bytes) but computed per byte: within a
// busy period that began at T0, wire byte n has been sent by T0 + floor(n * 10^12 /
// bytes_per_s), as sim::ClockDomain computes cycles, so a long stream never drifts. A
// chunk reaches the receiver latency_ps after its last byte left the sender; the CRC byte
// is one more wire byte at the end of each packet.
//
// Flow control (Myrinet stop/go): the receiver counts the wire bytes in its slack buffer.
// When an arrival makes the count reach stop_bytes it sends STOP, which reaches the sender
// latency_ps later; the sender finishes the chunk it is sending and injects nothing more.
// When the sink drains the count down to go_bytes it sends GO. The constructor checks the
// slack above stop_bytes covers a round trip plus two chunks, so nothing is ever dropped.
//
// Events: a chunk's departure and arrival are events, except a chunk arriving at a sink
// that is waiting and promised to wait quietly (a switch's input): that chunk is held back
// without an event and joins the buffer when someone next asks (set_sink_refuses_quietly);
// and a middle chunk that a sink promised to take whole with nothing depending on when (a
// dozing chip): it reaches the sink when someone next asks (set_sink_takes_promised).
#pragma once

#include "net/packet.h"
#include "event/fifo.h"
#include "event/kernel.h"

#include <cstdint>
#include <functional>
#include <random>
#include <set>
#include <string>

namespace lanaikit::net {

// Faults a link injects into the packets it sends. A packet is chosen by its number on
// this link (0 for the first packet the link sends) or with a probability drawn from a
// generator seeded with `seed`, so a run is repeatable.
struct FaultPlan {
  uint64_t seed = 1;
  double corrupt_probability = 0; // flip bit 0 of the last byte: the receiver flags kCrcError
  double drop_probability = 0;    // sent on the wire (takes its time) but never received
  double delay_probability = 0;   // the sender idles extra_delay_ps before the packet's head
  sim::Time extra_delay_ps = 0;
  std::set<uint64_t> corrupt_packets, drop_packets, delay_packets;
};

struct LinkConfig {
  uint64_t bytes_per_s = 160'000'000;  // Myrinet 1.28 Gb/s per direction (PLATFORMS.md)
  sim::Time latency_ps = 50 * sim::kNanosecond; // cable and transceivers, about 10 m
  uint32_t chunk_bytes = 32;     // timing granularity
  uint32_t slack_bytes = 256;    // receiver buffer
  uint32_t stop_bytes = 128;     // high-water mark: STOP when the buffer holds this many
  uint32_t go_bytes = 64;        // low-water mark: GO when it is back down to this many
  uint32_t tx_fifo_bytes = 64;   // bytes a streaming sender (a switch) may queue ahead
  FaultPlan faults;
};

struct LinkCounters {
  uint64_t packets_sent = 0, bytes_sent = 0;           // data bytes, CRC not counted
  uint64_t packets_received = 0, bytes_received = 0;   // reached the receiving end
  uint64_t crc_errors = 0;       // packets whose CRC failed on this link
  uint64_t corrupted = 0, drops = 0, delayed = 0;      // faults injected
  uint64_t stops = 0;            // STOPs the receiver sent
  sim::Time time_stopped_ps = 0; // time the sender spent stopped (closed intervals)
  uint32_t max_buffered_bytes = 0; // high mark of the slack buffer, in wire bytes
};

class Link {
public:
  // Throws std::invalid_argument if the configuration could drop bytes or makes no sense.
  Link(sim::Kernel& kernel, LinkConfig config, std::string name = "link");
  Link(const Link&) = delete;
  Link& operator=(const Link&) = delete;

  const LinkConfig& config() const { return config_; }
  // Replaces the fault plan (and reseeds its generator); packet numbers keep counting.
  void set_faults(const FaultPlan& faults);
  const std::string& name() const { return name_; }
  // As of now (held-back arrivals that are due counted in; see below).
  LinkCounters counters() const;

  // Receiving end. Without a sink, arriving bytes are consumed as they come.
  void set_sink(PacketSink* sink);
  // The sink can take more: the link offers its buffered bytes again (in a new event).
  void sink_ready();
  // The same, for a caller that is an event and does nothing after this call (a switch):
  // when no other event is due before the new one would run (sim::Kernel::next_in_line),
  // the bytes are offered at once, which is exactly what that event would have done next,
  // and the event is not made. A switch forwarding a packet asks after every chunk its
  // output sends, so this is about a fifth of a VMMC run's events.
  void sink_ready_last();
  // The sink promises that once it has taken less than a whole chunk it will take nothing,
  // and change nothing, when offered bytes again, until it calls sink_ready() or
  // sink_ready_last() (a switch's input: it waits for its output's FIFO or for a route).
  // Chunks arriving meanwhile would only join the buffer. So a non-tail chunk that will
  // arrive while the sink waits, and cannot make the buffer send STOP, is held back: it
  // is no kernel event (its place in the kernel's order is reserved, sim::Kernel::
  // reserve_seq) and joins the buffer when the link is next asked for its bytes, or for
  // its counters. When the sink calls for bytes in time for such a chunk, or a GO makes a
  // STOP possible again, the chunks still held become events at their reserved places.
  // Either way the order of everything observable is the eager model's; only the event
  // count, the kernel's trace hash and the agents' batches (fewer, longer) differ. A
  // switch's input arrivals are a quarter of a two-node VMMC run's events.
  // set_sink() clears it; false (a test comparing with the eager model) stops holding.
  void set_sink_refuses_quietly(bool quiet = true);
  // The other kind of held-back arrival: a sink that takes whatever comes (a chip's receive
  // engine) may promise to take a middle chunk whole with no effect whose time matters
  // (PacketSink::promise_whole: a dozing chip whose loop reads none of it). Such a chunk,
  // sent while nothing is buffered or being delivered and every chunk on the wire is a
  // middle chunk of its packet, is held back: it reaches the sink when the link is next
  // asked (a later arrival, settle(), counters()) once the kernel is past its place. The sink calls settle() before anyone reads what
  // held chunks change, and release_held() before anything that could break its promise
  // (the held chunks that are due arrive, the rest become events at their places).
  void set_sink_takes_promised(bool on = true);
  // Whether sinks should ask for held-back arrivals at all: LANAIKIT_HOLD=0 turns both kinds
  // off (one event per chunk), to compare a run both ways.
  static bool hold_enabled();
  bool holding() const { return held_ > 0; }
  void settle() { catch_up(); }
  // Held chunks that are due arrive, the others become events at their reserved places.
  void release_held() {
    catch_up();
    release_held(false);
  }
  uint32_t buffered_bytes() const;
  // A capture tap (a pcapng writer, a test): called when a packet's tail has arrived at the
  // receiving end, with the packet as it crossed this link (route bytes still on, no CRC
  // byte), the arrival time, and whether this link's CRC check passed. Dropped packets
  // never arrive, so never reach the tap. One tap per link; an empty function removes it.
  // Without a tap the cost is one branch per packet tail.
  using Tap = std::function<void(const Packet&, sim::Time, bool crc_ok)>;
  void set_tap(Tap fn) { tap_ = std::move(fn); }
  // A watch (the observable trace, sim/observable_trace.h): told the moments of each
  // packet an outside observer could time, whatever events the model uses to get there:
  // its first byte starting on the wire (HeadSent), its CRC byte leaving (TailSent) and
  // its tail arriving (TailArrived, with the CRC check's result; dropped packets never
  // arrive). Times are exact (the byte-time formula), not those of the events reporting
  // them. One watch per link; an empty function removes it.
  enum class Watch : uint8_t { HeadSent, TailSent, TailArrived };
  using WatchFn = std::function<void(Watch, const Packet&, sim::Time, bool crc_ok)>;
  void set_watch(WatchFn fn) { watch_ = std::move(fn); }

  // Sending end, whole packets: queued without limit, sent in order.
  void send(Packet packet);
  void send(PacketPtr packet);

  // Sending end, streaming (a switch output): the packet's bytes become ready a few at a
  // time. At most tx_space() bytes may be appended; `on_tx_space` is called when more
  // space frees up. stream_end marks the packet complete and ORs `status` (PacketStatus
  // bits found upstream, e.g. a CRC error on the previous hop) into it.
  // stream_append(n, true, status) appends the last bytes and ends the packet in one step,
  // so the tail's bytes and CRC go out as one chunk.
  void stream_begin(PacketPtr packet);
  void stream_append(uint32_t bytes, bool last = false, uint32_t status = 0);
  void stream_end(uint32_t status = 0) { stream_append(0, true, status); }
  uint32_t tx_space() const { return config_.tx_fifo_bytes - fifo_bytes_; }
  void set_on_tx_space(std::function<void()> fn) { on_tx_space_ = std::move(fn); }

  // An end inside a switch: its events (a chunk sent or arrived there, STOP/GO reaching
  // it, its deliveries) reach a chip only over a link, so they are distant events
  // (sim::Kernel::Reach) and do not end the chips' batches. The switch says so when it is
  // attached.
  void set_sender_in_switch() { tx_reach_ = sim::Kernel::Reach::Distant; }
  void set_receiver_in_switch() { rx_reach_ = sim::Kernel::Reach::Distant; }

  // True while the sender is held by a STOP.
  bool stopped() const { return stopped_; }
  // Time the transmitter is busy until (end of the last chunk started).
  sim::Time busy_until() const { return busy_until_; }
  // Wire time of n bytes sent back to back, exact (floor).
  sim::Time wire_time(uint64_t bytes) const;

private:
  struct TxItem {
    PacketPtr packet;      // as sent (a corrupted copy if a fault hit it)
    uint32_t ready = 0;    // bytes available to send
    uint32_t sent = 0;     // bytes sent
    bool complete = false; // all bytes ready
    bool streamed = false; // counts against the tx FIFO
    bool started = false;  // faults decided, head sent
    bool drop = false;
    bool corrupt = false;
    bool sealed = false;   // bytes final (and corruption applied)
  };
  struct RxItem {
    PacketPtr packet;
    uint32_t offset, length; // data bytes still to deliver
    uint32_t extra;          // CRC byte still in the buffer (0 or 1)
    bool tail;
  };

  void enqueue(TxItem item);
  void try_transmit();
  void start_packet(TxItem& item);
  void seal_packet(TxItem& item);
  void chunk_sent(uint32_t streamed_bytes);
  struct InFlight { // a chunk on the wire
    RxItem item;
    uint32_t wire_bytes;
    bool crc_bad; // the tail of a corrupted packet: the receiver's CRC check fails
    bool held;    // no event: it arrives when the link is next asked (set_sink_refuses_quietly)
    sim::Time at; // when it arrives
    uint64_t seq; // a held chunk's place in the kernel's order at that time
  };
  void chunk_arrived(RxItem item, uint32_t wire_bytes, bool check_crc, bool crc_bad);
  void next_chunk_arrived();
  bool may_hold(uint32_t wire) const;
  bool may_hold_taken(const RxItem& item, uint32_t wire) const;
  void arrive_taken(InFlight& f);
  bool stop_possible(uint32_t more) const;
  size_t passed_held() const;
  void catch_up() { // most calls find nothing held: inline, and the loop out of line
    if (held_ > 0) [[unlikely]] catch_up_held();
  }
  void catch_up_held();
  void release_held(bool only_now);
  bool held_at_now() const;
  void schedule_delivery();
  void deliver();
  void set_stopped(bool stop);
  bool draw(double p);

  sim::Kernel& kernel_;
  LinkConfig config_;
  sim::ClockDomain byte_clock_{1}; // ticks once a byte: wire_time (set once the rate is checked)
  std::string name_;
  LinkCounters counters_;
  PacketSink* sink_ = nullptr;
  std::function<void()> on_tx_space_;
  Tap tap_;
  WatchFn watch_;
  std::mt19937_64 rng_;
  sim::Kernel::Reach tx_reach_ = sim::Kernel::Reach::Near, rx_reach_ = sim::Kernel::Reach::Near;

  // Sender.
  sim::Fifo<TxItem> tx_;
  uint32_t fifo_bytes_ = 0;
  bool transmitting_ = false;
  bool stopped_ = false;
  sim::Time stopped_since_ = 0;
  sim::Time busy_until_ = 0;
  sim::Time period_start_ = 0;
  uint64_t period_bytes_ = 0;
  uint64_t packet_number_ = 0;

  // Chunks on the wire, in the order they arrive: every chunk takes latency_ps from the
  // end of its last byte, and the ends never go back, so the arrival events (one per
  // chunk, all alike) run in the order they were scheduled and each takes the front.
  sim::Fifo<InFlight> in_flight_;
  uint64_t in_flight_wire_ = 0; // their wire bytes
  uint64_t in_flight_data_ = 0; // their data bytes
  uint32_t in_flight_ends_ = 0; // how many are a packet's head or tail
  static bool is_end(const RxItem& i) { return i.offset == 0 || i.tail; }
  // A chunk leaves in_flight_ (it arrives): the counts above no longer include it.
  void leaving_wire(const InFlight& f) {
    in_flight_wire_ -= f.wire_bytes;
    in_flight_data_ -= f.item.length;
    in_flight_ends_ -= is_end(f.item) ? 1 : 0;
    if (f.held) --held_;
  }
  uint32_t held_ = 0;           // how many of them are held back

  // Receiver.
  sim::Fifo<RxItem> rx_;
  uint32_t buffered_ = 0;
  bool stop_sent_ = false;
  bool delivery_pending_ = false;
  bool delivering_ = false;
  bool quiet_sink_ = false;
  bool taking_sink_ = false; // set_sink_takes_promised
  bool rx_stalled_ = false; // the last delivery stopped short; no sink_ready since
};

} // namespace lanaikit::net
