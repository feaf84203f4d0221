#include "net/cell_switch.h"

#include <stdexcept>

namespace lanaikit::net {

namespace {
constexpr uint32_t kTagTransit = 0x4301;
} // namespace

// The sink on one input link: hands each cell to the switch with its port.
class CellSwitch::Input : public PacketSink {
public:
  Input(CellSwitch& sw, uint32_t port) : sw_(sw), port_(port) {}
  uint32_t accept(const Chunk& c) override {
    sw_.cell_in(port_, static_cast<const AtmPacket&>(*c.packet));
    return c.whole();
  }

private:
  CellSwitch& sw_;
  uint32_t port_;
};

CellSwitch::CellSwitch(sim::Kernel& kernel, CellSwitchConfig config, std::string name)
    : kernel_(kernel), config_(config), name_(std::move(name)) {
  if (config_.ports == 0) throw std::invalid_argument("cell switch '" + name_ + "': no ports");
  if (config_.output_buffer_cells == 0)
    throw std::invalid_argument("cell switch '" + name_ + "': an output buffer of 0 cells");
  if (config_.transit_ps < 0)
    throw std::invalid_argument("cell switch '" + name_ + "': a negative transit time");
  outputs_.assign(config_.ports, nullptr);
  for (uint32_t p = 0; p < config_.ports; ++p) inputs_.push_back(std::make_unique<Input>(*this, p));
}

CellSwitch::~CellSwitch() = default;

void CellSwitch::check_port(uint32_t port, const char* what) const {
  if (port >= config_.ports)
    throw std::invalid_argument("cell switch '" + name_ + "': " + what + " port " + std::to_string(port) +
                                " (it has ports 0.." + std::to_string(config_.ports - 1) + ")");
}

void CellSwitch::attach_input(uint32_t port, CellLink& link) {
  check_port(port, "input");
  if (!link.config().deliver_cells)
    throw std::invalid_argument("cell switch '" + name_ + "': input link '" + link.name() +
                                "' reassembles frames; a switch input needs deliver_cells");
  link.set_sink(inputs_[port].get());
}

void CellSwitch::attach_output(uint32_t port, CellLink& link) {
  check_port(port, "output");
  outputs_[port] = &link;
}

void CellSwitch::connect(uint32_t in_port, uint16_t in_vci, uint32_t out_port, uint16_t out_vci) {
  check_port(in_port, "input");
  check_port(out_port, "output");
  circuits_[{in_port, in_vci}] = {out_port, out_vci};
}

void CellSwitch::disconnect(uint32_t in_port, uint16_t in_vci) { circuits_.erase({in_port, in_vci}); }

void CellSwitch::cell_in(uint32_t port, const AtmPacket& cell) {
  ++counters_.cells_in;
  const uint8_t* h = cell.bytes.data();
  const uint16_t vci = cell_header_vci(h);
  const uint8_t pti = cell_header_pti(h);
  const auto it = circuits_.find({port, vci});
  if (it == circuits_.end() || !outputs_[it->second.first]) {
    ++counters_.unknown_vci;
    return;
  }
  // Plain copies, not a structured binding: clang 14 (the fuzz build) cannot capture those.
  const uint32_t out_port = it->second.first;
  const uint16_t out_vci = it->second.second;
  // Transit: the cell joins the output queue transit_ps after it arrived. Events of one
  // kind, all transit_ps long, run in arrival order, so cells keep their order.
  kernel_.schedule_in(
      config_.transit_ps,
      [this, out_port, out_vci, pti, id = cell.id, bytes = cell.bytes] {
        forward(out_port, out_vci, pti, id, bytes);
      },
      kTagTransit);
}

void CellSwitch::forward(uint32_t out_port, uint16_t out_vci, uint8_t pti, uint64_t id,
                         const std::vector<uint8_t>& bytes) {
  CellLink& out = *outputs_[out_port];
  if (out.queued_cells() >= config_.output_buffer_cells) {
    ++counters_.overflow;
    return;
  }
  ++counters_.cells_out;
  out.send_cell(out_vci, std::span<const uint8_t, kCellPayloadBytes>(bytes.data() + kCellHeaderBytes,
                                                                     kCellPayloadBytes),
                id, pti);
}

} // namespace lanaikit::net
