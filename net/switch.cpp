#include "net/switch.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace lanaikit::net {

namespace {
constexpr uint32_t kTagRoute = 0x5301;
constexpr uint32_t kTagArbitrate = 0x5302;
// Arbitration runs after every other event of its instant, so simultaneous requests compete.
constexpr int8_t kOrderArbitrate = 1;
} // namespace

Switch::Switch(sim::Kernel& kernel, SwitchConfig config, std::string name)
    : kernel_(kernel), config_(config), name_(std::move(name)), inputs_(config.ports),
      outputs_(config.ports) {
  if (config_.ports == 0 || config_.ports > 256)
    throw std::invalid_argument("switch '" + name_ + "': ports must be 1 .. 256");
  if (config_.fall_through_ps < 0)
    throw std::invalid_argument("switch '" + name_ + "': fall_through_ps must not be negative");
  for (uint32_t i = 0; i < config_.ports; ++i) {
    inputs_[i].sw = this;
    inputs_[i].index = i;
  }
  counters_.discarded_by_port.assign(config_.ports, 0);
  counters_.routed_by_port.assign(config_.ports, 0);
}

void Switch::check(uint32_t port) const {
  if (port >= config_.ports)
    throw std::out_of_range("switch '" + name_ + "': no port " + std::to_string(port) + " (has " +
                            std::to_string(config_.ports) + ")");
}

void Switch::attach_input(uint32_t port, Link& link) {
  check(port);
  inputs_[port].link = &link;
  link.set_receiver_in_switch();
  link.set_sink(&inputs_[port]);
  // Switch::accept takes nothing and changes nothing while an input waits for its route or
  // its output's FIFO, and calls sink_ready_last when that changes.
  link.set_sink_refuses_quietly(Link::hold_enabled());
}

void Switch::attach_output(uint32_t port, Link& link) {
  check(port);
  outputs_[port].link = &link;
  link.set_sender_in_switch();
  link.set_on_tx_space([this, port] {
    const int h = outputs_[port].holder;
    // The last thing the output's chunk-sent event does (Link::chunk_sent).
    if (h >= 0 && inputs_[h].link) inputs_[h].link->sink_ready_last();
  });
}

void Switch::set_port_down(uint32_t port, bool down) {
  check(port);
  outputs_[port].down = down;
}

bool Switch::port_down(uint32_t port) const {
  check(port);
  return outputs_[port].down;
}

int Switch::holder(uint32_t out_port) const {
  check(out_port);
  return outputs_[out_port].holder;
}

uint32_t Switch::accept(Input& in, const Chunk& c) {
  switch (in.state) {
  case State::Idle:
    // A new head (an empty packet too: it finds no route byte and is discarded): route it after the fall-through time; until then its bytes wait.
    in.state = State::Routing;
    in.in_packet = c.packet;
    kernel_.schedule_in(config_.fall_through_ps, [this, &in] { route(in); }, kTagRoute, 0, sim::Kernel::Reach::Distant);
    return 0;
  case State::Routing:
  case State::Waiting:
    return 0;
  case State::Discarding:
    if (c.tail) {
      in.state = State::Idle;
      in.in_packet.reset();
    }
    return c.whole();
  case State::Forwarding:
    break;
  }
  Link& out = *outputs_[in.out].link;
  // The route byte this switch used is consumed, not forwarded.
  const uint32_t skip = c.head() ? 1 : 0;
  const uint32_t n = std::min(c.length - skip, out.tx_space());
  const uint32_t taken = skip + n;
  const bool last = c.tail && taken == c.length;
  // The bytes are copied as they pass: the sender may still be producing the packet (a
  // NIC's send DMA streams it), so its end is not known when the head goes through.
  if (n > 0) {
    const auto first = c.packet->bytes.begin() + c.offset + skip;
    in.out_packet->bytes.insert(in.out_packet->bytes.end(), first, first + n);
  }
  // The tail carries upstream status (a CRC error seen on an earlier hop) onward.
  if (n > 0 || last) out.stream_append(n, last, last ? in.in_packet->status : 0);
  if (last) {
    Output& o = outputs_[in.out];
    o.holder = -1;
    in.state = State::Idle;
    in.in_packet.reset();
    in.out_packet.reset();
    if (!o.waiting.empty()) schedule_arbitration(in.out);
    return taken + 1; // and the packet's end
  }
  return taken;
}

void Switch::route(Input& in) {
  const Packet& p = *in.in_packet;
  const bool has_route = !p.bytes.empty() && p.bytes[0] < config_.ports;
  const uint32_t out = has_route ? p.bytes[0] : 0;
  if (!has_route || outputs_[out].down || !outputs_[out].link) {
    ++counters_.packets_discarded;
    if (!has_route || !outputs_[out].link)
      ++counters_.bad_routes;
    else
      ++counters_.discarded_by_port[out];
    in.state = State::Discarding;
    in.link->sink_ready_last(); // route() is an event's whole work: this is its end
    return;
  }
  in.state = State::Waiting;
  in.out = out;
  outputs_[out].waiting.push_back(in.index);
  schedule_arbitration(out);
}

void Switch::schedule_arbitration(uint32_t out) {
  Output& o = outputs_[out];
  if (o.arbitration_pending) return;
  o.arbitration_pending = true;
  kernel_.schedule_in(0, [this, out] { arbitrate(out); }, kTagArbitrate, kOrderArbitrate,
                      sim::Kernel::Reach::Distant);
}

void Switch::arbitrate(uint32_t out) {
  Output& o = outputs_[out];
  o.arbitration_pending = false;
  if (o.holder >= 0 || o.waiting.empty()) return;
  // Round robin: the first waiting input at or after `next`, cyclically.
  auto distance = [&](uint32_t i) { return (i + config_.ports - o.next) % config_.ports; };
  auto it = std::min_element(o.waiting.begin(), o.waiting.end(),
                             [&](uint32_t a, uint32_t b) { return distance(a) < distance(b); });
  const uint32_t winner = *it;
  o.waiting.erase(it);
  o.next = (winner + 1) % config_.ports;
  o.holder = int(winner);
  Input& in = inputs_[winner];
  in.state = State::Forwarding;
  in.out_packet = std::make_shared<Packet>();
  in.out_packet->id = in.in_packet->id;
  // Its bytes come chunk by chunk; the sender's capacity is its size (a NIC reserves each
  // piece it sends), so reserve it rather than grow by doubling.
  in.out_packet->bytes.reserve(in.in_packet->bytes.capacity());
  ++counters_.packets_routed;
  ++counters_.routed_by_port[out];
  kernel_.trace(uint64_t(winner) << 32 | out);
  o.link->stream_begin(in.out_packet);
  in.link->sink_ready_last(); // arbitrate() is an event's whole work: this is its end
}

} // namespace lanaikit::net
