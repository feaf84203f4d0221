// An ATM cell switch (for DART's "through one switch" case): ports with one input and one
// output CellLink each, a virtual-circuit table that sends a cell arriving on (input port,
// VCI) to (output port, VCI'), a fixed transit time from a cell's arrival to its entry
// into the output queue, and an output buffer per port.
//
// The switch forwards cells, never frames: its input links deliver every cell on its own
// (CellLinkConfig::deliver_cells, set by attach_input), and a forwarded cell keeps its
// payload, its PTI (so AAL5's end-of-SDU mark survives) and its sender's id; the far end
// reassembles. A corrupted cell is forwarded as it is (AAL5's CRC-32 catches it at the far
// end); a dropped one never arrives. Cells leave an output in arrival order at the output
// link's cell rate. Counted and discarded: a cell whose (port, VCI) has no circuit
// (unknown_vci), and a cell that finds its output queue holding output_buffer_cells
// already (overflow): ATM has no link-level back-pressure, so a full buffer loses cells.
//
// Timing is lanaikit's default, not a measured switch: DART's paper (seeds/002) gives no
// switch latency, so transit_ps is a parameter (a platform names it as lanaikit's default).
#pragma once

#include "net/atm.h"
#include "net/packet.h"
#include "event/kernel.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace lanaikit::net {

struct CellSwitchConfig {
  uint32_t ports = 4;
  sim::Time transit_ps = 2 * sim::kMicrosecond; // lanaikit default: cell in -> output queue
  uint32_t output_buffer_cells = 1024;          // per output port
};

struct CellSwitchCounters {
  uint64_t cells_in = 0, cells_out = 0; // cells arrived / handed to an output link
  uint64_t unknown_vci = 0;              // no circuit for (port, VCI): discarded
  uint64_t overflow = 0;                 // output buffer full: discarded
};

class CellSwitch {
public:
  // Throws std::invalid_argument for no ports or a zero output buffer.
  CellSwitch(sim::Kernel& kernel, CellSwitchConfig config, std::string name = "cell-switch");
  ~CellSwitch();
  CellSwitch(const CellSwitch&) = delete;
  CellSwitch& operator=(const CellSwitch&) = delete;

  const CellSwitchConfig& config() const { return config_; }
  const std::string& name() const { return name_; }
  const CellSwitchCounters& counters() const { return counters_; }

  // The link whose cells arrive at `port`. The link must deliver cells one by one: its
  // config must have deliver_cells set (std::invalid_argument otherwise, so a frame never
  // reaches the switch whole). The switch becomes the link's sink.
  void attach_input(uint32_t port, CellLink& link);
  // The link cells leave `port` on.
  void attach_output(uint32_t port, CellLink& link);
  // A virtual circuit: cells arriving on (in_port, in_vci) leave on (out_port, out_vci).
  // Replaces an existing circuit on (in_port, in_vci). Throws for a port out of range.
  void connect(uint32_t in_port, uint16_t in_vci, uint32_t out_port, uint16_t out_vci);
  void disconnect(uint32_t in_port, uint16_t in_vci);

private:
  class Input;
  void cell_in(uint32_t port, const AtmPacket& cell);
  void forward(uint32_t out_port, uint16_t out_vci, uint8_t pti, uint64_t id,
               const std::vector<uint8_t>& bytes);
  void check_port(uint32_t port, const char* what) const;

  sim::Kernel& kernel_;
  CellSwitchConfig config_;
  std::string name_;
  CellSwitchCounters counters_;
  std::vector<std::unique_ptr<Input>> inputs_;
  std::vector<CellLink*> outputs_;
  std::map<std::pair<uint32_t, uint16_t>, std::pair<uint32_t, uint16_t>> circuits_;
};

} // namespace lanaikit::net
