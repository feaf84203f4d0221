#include "net/link.h"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

namespace lanaikit::net {

namespace {
// Trace tags of the link's events.
constexpr uint32_t kTagChunkSent = 0x4c01;
constexpr uint32_t kTagChunkArrived = 0x4c02;
constexpr uint32_t kTagStopGo = 0x4c03;
constexpr uint32_t kTagDeliver = 0x4c04;

uint64_t ceil_bytes_in(sim::Time t, uint64_t bytes_per_s) {
  const unsigned __int128 num = (unsigned __int128)uint64_t(t) * bytes_per_s;
  return uint64_t((num + uint64_t(sim::kSecond) - 1) / uint64_t(sim::kSecond));
}
} // namespace

Link::Link(sim::Kernel& kernel, LinkConfig config, std::string name)
    : kernel_(kernel), config_(std::move(config)), name_(std::move(name)),
      rng_(config_.faults.seed) {
  const LinkConfig& c = config_;
  auto fail = [&](const std::string& what) {
    throw std::invalid_argument("link '" + name_ + "': " + what);
  };
  if (c.bytes_per_s == 0 || c.bytes_per_s > uint64_t(sim::kSecond))
    fail("bytes_per_s must be 1 .. 10^12");
  if (c.latency_ps < 0) fail("latency_ps must not be negative");
  if (c.chunk_bytes == 0) fail("chunk_bytes must be at least 1");
  if (c.tx_fifo_bytes < c.chunk_bytes) fail("tx_fifo_bytes must hold at least one chunk");
  if (!(c.go_bytes < c.stop_bytes && c.stop_bytes <= c.slack_bytes))
    fail("need go_bytes < stop_bytes <= slack_bytes");
  byte_clock_ = sim::ClockDomain(c.bytes_per_s);
  // After the arrival that triggers STOP (at most stop-1 + chunk+1 bytes buffered), a round
  // trip's worth of bytes plus the chunk being sent when STOP lands may still arrive.
  const uint64_t need = uint64_t(c.stop_bytes) + 3ull * c.chunk_bytes + 2 +
                        ceil_bytes_in(2 * c.latency_ps, c.bytes_per_s);
  if (c.slack_bytes < need)
    fail("slack_bytes " + std::to_string(c.slack_bytes) + " cannot absorb a STOP round trip: need " +
         std::to_string(need) + " (stop_bytes + 3 chunks + 2 + 2*latency*bandwidth)");
}

// floor(bytes * 10^12 / bytes_per_s): the start of "cycle" `bytes` of a clock ticking once
// a byte, which ClockDomain computes from the reduced fraction in 64-bit arithmetic while
// the product fits (it was a 128-bit division per chunk, a libgcc call).
sim::Time Link::wire_time(uint64_t bytes) const { return byte_clock_.time_of(bytes); }

void Link::set_sink(PacketSink* sink) {
  release_held(); // they were held for the old sink
  sink_ = sink;
  quiet_sink_ = false;
  taking_sink_ = false;
}

bool Link::hold_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("LANAIKIT_HOLD");
    return !v || std::string(v) != "0";
  }();
  return on;
}

void Link::set_sink_takes_promised(bool on) {
  if (!on) release_held();
  taking_sink_ = on;
}

void Link::set_sink_refuses_quietly(bool quiet) {
  if (!quiet) release_held();
  quiet_sink_ = quiet;
}

void Link::set_faults(const FaultPlan& faults) {
  config_.faults = faults;
  rng_.seed(faults.seed);
}

bool Link::draw(double p) {
  if (p <= 0) return false;
  const double u = double(rng_() >> 11) * 0x1.0p-53;
  return u < p;
}

void Link::send(Packet packet) { send(std::make_shared<Packet>(std::move(packet))); }

void Link::send(PacketPtr packet) {
  TxItem it;
  it.ready = uint32_t(packet->bytes.size());
  it.packet = std::move(packet);
  it.complete = true;
  enqueue(std::move(it));
}

void Link::stream_begin(PacketPtr packet) {
  TxItem it;
  it.packet = std::move(packet);
  it.streamed = true;
  enqueue(std::move(it));
}

void Link::stream_append(uint32_t bytes, bool last, uint32_t status) {
  if (tx_.empty() || !tx_.back().streamed || tx_.back().complete)
    throw std::logic_error("link '" + name_ + "': stream_append/end without stream_begin");
  if (bytes > tx_space())
    throw std::logic_error("link '" + name_ + "': stream_append beyond tx_space()");
  TxItem& it = tx_.back();
  if (it.ready + bytes > it.packet->bytes.size())
    throw std::logic_error("link '" + name_ + "': stream_append beyond the packet's end");
  if (last && it.ready + bytes != it.packet->bytes.size())
    throw std::logic_error("link '" + name_ + "': stream ended before all bytes were appended");
  it.ready += bytes;
  fifo_bytes_ += bytes;
  if (last) {
    it.complete = true;
    it.packet->status |= status;
  }
  try_transmit();
}

void Link::enqueue(TxItem item) {
  tx_.push_back(std::move(item));
  try_transmit();
}

// Decides the packet's faults (in a fixed order, so a seed means one outcome). The CRC is
// taken over the bytes before any corruption, as the sending hardware computes it; for a
// packet whose bytes are all there that happens now, for one still being streamed (a NIC's
// send DMA can start a packet before it knows its end) when its tail is sent.
void Link::start_packet(TxItem& it) {
  const FaultPlan& f = config_.faults;
  const uint64_t n = packet_number_++;
  it.started = true;
  it.drop = f.drop_packets.count(n) || draw(f.drop_probability);
  it.corrupt = f.corrupt_packets.count(n) || draw(f.corrupt_probability);
  const bool delay = f.delay_packets.count(n) || draw(f.delay_probability);
  if (it.complete) seal_packet(it);
  if (it.drop) ++counters_.drops;
  if (delay && f.extra_delay_ps > 0) {
    ++counters_.delayed;
    // A gap on the wire before the head: later packets wait behind it, order is kept.
    period_start_ = std::max(kernel_.now(), busy_until_) + f.extra_delay_ps;
    period_bytes_ = 0;
    busy_until_ = period_start_;
  }
}

// Corruption, once the packet's bytes are final (the CRC the hardware would append now is
// taken over them; see link.h for why it need not be computed). A complete packet is
// corrupted in a copy (the sender may keep the original); a streamed one belongs to its
// sender's DMA engine, and chunks already on the wire point at it, so its last byte is
// flipped in place. An empty packet's corruption hits the CRC byte itself.
void Link::seal_packet(TxItem& it) {
  it.sealed = true;
  if (!it.corrupt) return;
  ++counters_.corrupted;
  if (it.packet->bytes.empty()) {
    // only the CRC byte is wrong
  } else if (it.started && it.sent > 0) {
    it.packet->bytes.back() ^= 1;
  } else {
    auto copy = std::make_shared<Packet>(*it.packet);
    copy->bytes.back() ^= 1;
    it.packet = std::move(copy);
  }
}

void Link::try_transmit() {
  if (transmitting_ || stopped_ || tx_.empty()) return;
  TxItem& it = tx_.front();
  if (!it.started) {
    if (it.ready == 0 && !it.complete) return; // the head's bytes are not there yet
    start_packet(it);
  }
  const uint32_t size = uint32_t(it.packet->bytes.size());
  const uint32_t data = std::min(it.ready - it.sent, config_.chunk_bytes);
  const bool tail = it.complete && it.sent + data == size;
  if (data == 0 && !tail) return; // waiting for streamed bytes
  if (tail && !it.sealed) seal_packet(it);
  const uint32_t wire = data + (tail ? 1 : 0);

  const sim::Time now = kernel_.now();
  if (busy_until_ < now) { // idle gap: a new busy period starts here
    period_start_ = now;
    period_bytes_ = 0;
  }
  // busy_until_ >= now: back to back with the previous chunk (or after an injected delay).
  if (watch_ && it.sent == 0) [[unlikely]]
    watch_(Watch::HeadSent, *it.packet, period_start_ + wire_time(period_bytes_), true);
  period_bytes_ += wire;
  const sim::Time end = period_start_ + wire_time(period_bytes_);
  if (watch_ && tail) [[unlikely]] watch_(Watch::TailSent, *it.packet, end, true);
  busy_until_ = end;
  transmitting_ = true;

  RxItem rx{it.packet, it.sent, data, tail ? 1u : 0u, tail};
  // A taking sink copies a chunk's bytes when it takes it, so a chunk is held for one only
  // if its bytes are final. Only a packet's last byte changes after it is sent: this link's
  // corruption fault flips it in place when a streamed packet's tail goes out (seal_packet;
  // a switch forwards a copy it makes as bytes arrive, so a flip upstream reaches it as it
  // would anyway). So the chunk with the last byte so far is held only if no flip is due.
  const bool final_bytes = it.sent + data < size || !it.corrupt || it.sealed;
  const bool drop = it.drop;
  const bool crc_bad = tail && it.corrupt;
  const uint32_t streamed = it.streamed ? data : 0;
  it.sent += data;
  counters_.bytes_sent += data;
  if (tail) {
    ++counters_.packets_sent;
    tx_.pop_front();
  }
  if (!drop) {
    const sim::Time at = end + config_.latency_ps;
    const bool hold =
        !tail && (may_hold(wire) || (taking_sink_ && final_bytes && may_hold_taken(rx, wire)));
    // A held chunk takes the place in the order its event would have taken.
    const uint64_t seq = hold ? kernel_.reserve_seq(at) : 0;
    in_flight_wire_ += wire;
    in_flight_data_ += data;
    in_flight_ends_ += is_end(rx) ? 1 : 0;
    if (hold) ++held_;
    in_flight_.push_back(InFlight{std::move(rx), wire, crc_bad, hold, at, seq});
    if (!hold) kernel_.schedule_at(at, [this] { next_chunk_arrived(); }, kTagChunkArrived, 0, rx_reach_);
  }
  kernel_.schedule_at(end, [this, streamed] { chunk_sent(streamed); }, kTagChunkSent, 0, tx_reach_);
}

void Link::chunk_sent(uint32_t streamed_bytes) {
  transmitting_ = false;
  fifo_bytes_ -= streamed_bytes;
  try_transmit();
  if (streamed_bytes > 0 && on_tx_space_) on_tx_space_();
}

void Link::set_stopped(bool stop) {
  const sim::Time now = kernel_.now();
  if (stop == stopped_) return;
  stopped_ = stop;
  if (stop) {
    stopped_since_ = now;
  } else {
    counters_.time_stopped_ps += now - stopped_since_;
    try_transmit();
  }
}

// A chunk sent now may arrive without an event if, from now until it arrives, the sink is
// known to refuse it quietly and no arrival can make the buffer reach STOP (even if nothing
// is drained before then). Both stay true until a delivery, which checks them again.
bool Link::may_hold(uint32_t wire) const {
  return quiet_sink_ && rx_stalled_ && !delivery_pending_ && !stop_possible(wire);
}

// A middle chunk sent now towards a taking sink may arrive without an event if nothing is
// buffered or being delivered, the chunks on the wire ahead of it are middle chunks too
// (so each arrival, held or not, goes straight into the sink, and leaves the buffer empty
// for the next), it cannot make the buffer send STOP, and the sink promises to take it
// whole after them.
bool Link::may_hold_taken(const RxItem& item, uint32_t wire) const {
  if (!sink_ || !rx_.empty() || delivery_pending_ || delivering_ || stop_sent_ ||
      wire >= config_.stop_bytes)
    return false;
  // With no head or tail on the wire, every chunk there is of this chunk's packet.
  if (in_flight_ends_ > 0) return false;
  return sink_->promise_whole(Chunk{item.packet, item.offset, item.length, false},
                             uint32_t(in_flight_data_));
}

// A held chunk a taking sink promised to take whole arrives, as its event would have done:
// into the empty buffer, then straight to the sink.
void Link::arrive_taken(InFlight& f) {
  const Chunk chunk{f.item.packet, f.item.offset, f.item.length, false};
  counters_.max_buffered_bytes = std::max(counters_.max_buffered_bytes, f.wire_bytes);
  counters_.bytes_received += f.item.length;
  if (sink_->accept(chunk) != chunk.length) [[unlikely]]
    throw std::logic_error("link '" + name_ + "': a sink did not take a chunk it promised to take");
}

// Could the chunks on the wire, and `more` bytes after them, make an arrival send STOP if
// nothing were drained meanwhile?
bool Link::stop_possible(uint32_t more) const {
  return !stop_sent_ && buffered_ + in_flight_wire_ + more >= config_.stop_bytes;
}

// The held chunks whose time (and place at that time) has passed arrive, as their events
// would have done: at a quiet sink they join the buffer (the sink was waiting, so their
// deliver() took nothing, and no STOP was due: may_hold); a taking sink takes each whole.
void Link::catch_up_held() {
  while (held_ > 0 && in_flight_.front().held) {
    InFlight& f = in_flight_.front();
    if (!kernel_.has_passed(f.at, f.seq)) return;
    if (taking_sink_) {
      leaving_wire(f);
      InFlight taken = std::move(f);
      in_flight_.pop_front();
      arrive_taken(taken);
      continue;
    }
    buffered_ += f.wire_bytes;
    counters_.max_buffered_bytes = std::max(counters_.max_buffered_bytes, buffered_);
    counters_.bytes_received += f.item.length;
    if (buffered_ >= config_.stop_bytes && !stop_sent_) [[unlikely]]
      throw std::logic_error("link '" + name_ + "': a held-back chunk would have sent STOP");
    leaving_wire(f);
    rx_.push_back(std::move(f.item));
    in_flight_.pop_front();
  }
}

// The held chunks become events at their reserved places: all of them, or those due at
// this instant (they would run before a delivery scheduled now).
void Link::release_held(bool only_now) {
  for (size_t i = 0; held_ > 0 && i < in_flight_.size(); ++i) {
    InFlight& f = in_flight_[i];
    if (!f.held || (only_now && f.at != kernel_.now())) continue;
    f.held = false;
    --held_;
    kernel_.schedule_reserved(f.at, f.seq, [this] { next_chunk_arrived(); }, kTagChunkArrived, 0,
                              rx_reach_);
  }
}

bool Link::held_at_now() const {
  for (size_t i = 0; held_ > 0 && i < in_flight_.size(); ++i)
    if (in_flight_[i].held && in_flight_[i].at == kernel_.now()) return true;
  return false;
}

// How many chunks at the front of in_flight_ are held and due: catch_up() would apply them.
// The readers below count them in without applying them (they are const).
size_t Link::passed_held() const {
  size_t n = 0;
  while (n < held_ && n < in_flight_.size() && in_flight_[n].held &&
         kernel_.has_passed(in_flight_[n].at, in_flight_[n].seq))
    ++n;
  return n;
}

LinkCounters Link::counters() const {
  LinkCounters c = counters_;
  uint32_t buffered = buffered_;
  for (size_t i = 0, n = passed_held(); i < n; ++i) {
    if (taking_sink_) { // taken as it arrives: the buffer held only it
      c.max_buffered_bytes = std::max(c.max_buffered_bytes, in_flight_[i].wire_bytes);
      c.bytes_received += in_flight_[i].item.length;
      continue;
    }
    buffered += in_flight_[i].wire_bytes;
    c.max_buffered_bytes = std::max(c.max_buffered_bytes, buffered);
    c.bytes_received += in_flight_[i].item.length;
  }
  return c;
}

uint32_t Link::buffered_bytes() const {
  uint32_t buffered = buffered_;
  if (taking_sink_) return buffered; // held chunks are taken as they arrive
  for (size_t i = 0, n = passed_held(); i < n; ++i) buffered += in_flight_[i].wire_bytes;
  return buffered;
}

void Link::next_chunk_arrived() {
  catch_up(); // held chunks ahead of this one
  InFlight& f = in_flight_.front();
  leaving_wire(f);
  RxItem item = std::move(f.item);
  const uint32_t wire = f.wire_bytes;
  const bool crc_bad = f.crc_bad;
  in_flight_.pop_front();
  const bool tail = item.tail;
  chunk_arrived(std::move(item), wire, tail, crc_bad);
}

void Link::chunk_arrived(RxItem item, uint32_t wire_bytes, bool check_crc, bool crc_bad) {
  buffered_ += wire_bytes;
  counters_.max_buffered_bytes = std::max(counters_.max_buffered_bytes, buffered_);
  counters_.bytes_received += item.length;
  if (check_crc) {
    ++counters_.packets_received;
    const bool crc_ok = !crc_bad;
    if (!crc_ok) {
      item.packet->status |= kCrcError;
      ++counters_.crc_errors;
    }
    if (tap_) tap_(*item.packet, kernel_.now(), crc_ok);
    if (watch_) [[unlikely]] watch_(Watch::TailArrived, *item.packet, kernel_.now(), crc_ok);
    kernel_.trace(item.packet->id);
    kernel_.trace(uint64_t(kernel_.now()));
  }
  if (buffered_ >= config_.stop_bytes && !stop_sent_) {
    stop_sent_ = true;
    ++counters_.stops;
    kernel_.schedule_in(config_.latency_ps, [this] { set_stopped(true); }, kTagStopGo, 0, tx_reach_);
  }
  rx_.push_back(std::move(item));
  deliver();
}

void Link::sink_ready() {
  if (delivery_pending_) return;
  catch_up();
  // The sink takes bytes again: held chunks due before the delivery below would offer it
  // their bytes, so they become events.
  rx_stalled_ = false;
  release_held(true);
  delivery_pending_ = true;
  kernel_.schedule_in(
      0,
      [this] {
        delivery_pending_ = false;
        deliver();
      },
      kTagDeliver, 0, rx_reach_);
}

void Link::sink_ready_last() {
  catch_up();
  if (!delivery_pending_ && !delivering_ && kernel_.next_in_line() && !held_at_now()) {
    deliver();
    return;
  }
  sink_ready();
}

void Link::deliver() {
  if (delivering_) return;
  catch_up();
  delivering_ = true;
  while (!rx_.empty()) {
    RxItem& f = rx_.front();
    const Chunk chunk{f.packet, f.offset, f.length, f.tail};
    const uint32_t whole = chunk.whole();
    const uint32_t answer = sink_ ? std::min(whole, sink_->accept(chunk)) : whole;
    const uint32_t taken = std::min(answer, f.length); // data bytes
    f.offset += taken;
    f.length -= taken;
    buffered_ -= taken;
    // Short of the whole: the sink stalled (perhaps with only the tail's end left, even
    // for an empty packet); it calls sink_ready() when it can go on.
    if (answer != whole) break;
    buffered_ -= f.extra;
    rx_.pop_front();
  }
  delivering_ = false;
  rx_stalled_ = !rx_.empty();
  if (stop_sent_ && buffered_ <= config_.go_bytes) {
    stop_sent_ = false;
    kernel_.schedule_in(config_.latency_ps, [this] { set_stopped(false); }, kTagStopGo, 0, tx_reach_);
  }
  // Still holding chunks: they stay held only while the sink waits and no STOP can come.
  if (quiet_sink_ && held_ > 0 && (!rx_stalled_ || stop_possible(0))) release_held(false);
}

} // namespace lanaikit::net
