// An N-port Myrinet-style crossbar switch: source routed, wormhole, round-robin.
//
// Each packet's leading byte names the output port (0 .. ports-1); the switch consumes it.
// The head claims that output fall_through_ps after the head's chunk arrived, and holds it
// until the tail has passed into the output link; meanwhile other inputs routed to the same
// output wait, leaving their bytes in their incoming links' slack buffers, so back-pressure
// (STOP) spreads upstream and nothing is dropped. Among inputs waiting for one output the
// grant goes round robin, starting after the input served last. Requests made at the same
// instant are arbitrated together (arbitration runs after them, at the same time).
//
// A port marked down (its node powered off, its cable pulled) or a route byte naming no
// port makes the switch discard the packet, counting it, instead of blocking forever.
#pragma once

#include "net/link.h"
#include "net/packet.h"
#include "event/kernel.h"

#include <cstdint>
#include <string>
#include <vector>

namespace lanaikit::net {

struct SwitchConfig {
  uint32_t ports = 8;                                 // M2F-SW8
  sim::Time fall_through_ps = 500 * sim::kNanosecond; // Hamlyn paper: about 0.5 us
};

struct SwitchCounters {
  uint64_t packets_routed = 0;
  uint64_t packets_discarded = 0; // routed to a down port or to no port at all
  uint64_t bad_routes = 0;        // of those, route byte out of range or no route byte
  std::vector<uint64_t> discarded_by_port; // per output port that was down
  std::vector<uint64_t> routed_by_port;    // per output port
};

class Switch {
public:
  Switch(sim::Kernel& kernel, SwitchConfig config, std::string name = "switch");
  Switch(const Switch&) = delete;
  Switch& operator=(const Switch&) = delete;

  const SwitchConfig& config() const { return config_; }
  const std::string& name() const { return name_; }
  const SwitchCounters& counters() const { return counters_; }
  uint32_t ports() const { return config_.ports; }

  // Wires a link arriving at `port` (the switch becomes its sink) and a link leaving it.
  void attach_input(uint32_t port, Link& link);
  void attach_output(uint32_t port, Link& link);

  // A down port's packets are discarded as they come (the decision is made when a head
  // claims the port; a packet already holding it finishes).
  void set_port_down(uint32_t port, bool down);
  bool port_down(uint32_t port) const;

  // The input currently holding an output, or -1.
  int holder(uint32_t out_port) const;

private:
  enum class State { Idle, Routing, Waiting, Forwarding, Discarding };
  struct Input : PacketSink {
    Switch* sw = nullptr;
    uint32_t index = 0;
    Link* link = nullptr;
    State state = State::Idle;
    uint32_t out = 0;
    PacketPtr in_packet, out_packet;
    uint32_t accept(const Chunk& chunk) override { return sw->accept(*this, chunk); }
  };
  struct Output {
    Link* link = nullptr;
    bool down = false;
    int holder = -1;
    std::vector<uint32_t> waiting; // inputs requesting this output
    uint32_t next = 0;             // round-robin pointer: first input to consider
    bool arbitration_pending = false;
  };

  uint32_t accept(Input& in, const Chunk& chunk);
  void route(Input& in);
  void schedule_arbitration(uint32_t out);
  void arbitrate(uint32_t out);
  void check(uint32_t port) const;

  sim::Kernel& kernel_;
  SwitchConfig config_;
  std::string name_;
  SwitchCounters counters_;
  std::vector<Input> inputs_;
  std::vector<Output> outputs_;
};

} // namespace lanaikit::net
