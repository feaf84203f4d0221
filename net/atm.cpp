#include "net/atm.h"

#include "net/crc8.h"

#include <algorithm>
#include <stdexcept>

namespace lanaikit::net {

namespace {
// Trace tags of the cell link's events.
constexpr uint32_t kTagCellSent = 0x4101;
constexpr uint32_t kTagCellArrived = 0x4102;
constexpr uint32_t kTagDeliver = 0x4103;

struct Crc32Table {
  uint32_t v[256];
  constexpr Crc32Table() : v() {
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t r = i << 24;
      for (int b = 0; b < 8; ++b) r = (r & 0x80000000u) ? (r << 1) ^ 0x04C11DB7u : r << 1;
      v[i] = r;
    }
  }
};
constexpr Crc32Table kCrc32;

} // namespace

uint32_t crc32_aal5_update(uint32_t reg, std::span<const uint8_t> data) {
  for (const uint8_t b : data) reg = (reg << 8) ^ kCrc32.v[((reg >> 24) ^ b) & 0xFF];
  return reg;
}

uint8_t atm_hec(std::span<const uint8_t, 4> header) {
  return uint8_t(crc8(std::span<const uint8_t>(header.data(), 4)) ^ 0x55);
}

std::vector<uint8_t> aal5_pdu(std::span<const uint8_t> sdu) {
  const size_t n = sdu.size();
  if (n > kAal5MaxSdu)
    throw std::invalid_argument("an AAL5 SDU holds at most 65535 bytes, got " + std::to_string(n));
  std::vector<uint8_t> pdu(size_t(CellLink::aal5_cells(n)) * kCellPayloadBytes, 0);
  std::copy(sdu.begin(), sdu.end(), pdu.begin());
  const size_t t = pdu.size() - kAal5TrailerBytes; // CPCS-UU, CPI stay 0
  pdu[t + 2] = uint8_t(n >> 8);
  pdu[t + 3] = uint8_t(n);
  const uint32_t crc = crc32_aal5(std::span<const uint8_t>(pdu.data(), pdu.size() - 4));
  for (int i = 0; i < 4; ++i) pdu[t + 4 + i] = uint8_t(crc >> (24 - 8 * i));
  return pdu;
}

CellLink::CellLink(sim::Kernel& kernel, CellLinkConfig config, std::string name)
    : kernel_(kernel), config_(std::move(config)), name_(std::move(name)),
      rng_(config_.faults.seed) {
  const CellLinkConfig& c = config_;
  auto fail = [&](const std::string& what) {
    throw std::invalid_argument("cell link '" + name_ + "': " + what);
  };
  if (c.line_bits_per_s == 0 || c.line_bits_per_s > 8 * uint64_t(sim::kSecond))
    fail("line_bits_per_s must be 1 .. 8 * 10^12");
  if (c.cell_rate_num == 0 || c.cell_rate_den == 0 || c.cell_rate_num > c.cell_rate_den)
    fail("the cell share of the line rate (cell_rate_num / cell_rate_den) must be in (0, 1]");
  if (c.latency_ps < 0) fail("latency_ps must not be negative");
  cell_num_ = (unsigned __int128)kCellBits * c.cell_rate_den * uint64_t(sim::kSecond);
  cell_den_ = (unsigned __int128)c.line_bits_per_s * c.cell_rate_num;
}

sim::Time CellLink::cells_time(uint64_t cells) const {
  return sim::Time(cells * cell_num_ / cell_den_);
}

double CellLink::cell_rate() const {
  return double(config_.line_bits_per_s) * config_.cell_rate_num / config_.cell_rate_den /
         double(kCellBits);
}

bool CellLink::draw(double p) {
  if (p <= 0) return false;
  const double u = double(rng_() >> 11) * 0x1.0p-53;
  return u < p;
}

CellLink::Cell CellLink::make_cell(uint16_t vci, uint8_t pti) {
  Cell c;
  uint8_t* h = c.bytes.data();
  // UNI header: GFC 0, VPI 0, VCI, PTI, CLP 0; then the HEC.
  h[0] = 0;
  h[1] = uint8_t(vci >> 12);
  h[2] = uint8_t(vci >> 4);
  h[3] = uint8_t(((vci & 0xF) << 4) | ((pti & 0x7) << 1));
  h[4] = atm_hec(std::span<const uint8_t, 4>(h, 4));
  c.vci = vci;
  c.end = (pti & kPtiEndOfSdu) != 0;
  return c;
}

void CellLink::send(Packet packet, uint16_t vci) {
  if (config_.raw_vcis.count(vci))
    throw std::invalid_argument("cell link '" + name_ + "': VCI " + std::to_string(vci) +
                                " carries raw cells; use send_cell");
  const size_t n = packet.bytes.size();
  if (n > kAal5MaxSdu)
    throw std::invalid_argument("cell link '" + name_ + "': an AAL5 SDU holds at most 65535 bytes, got " +
                                std::to_string(n));
  const std::vector<uint8_t> pdu = aal5_pdu(packet.bytes);
  const uint32_t cells = uint32_t(pdu.size() / kCellPayloadBytes);

  ++counters_.frames_sent;
  counters_.sdu_bytes_sent += n;
  for (uint32_t i = 0; i < cells; ++i) {
    const bool last = i + 1 == cells;
    Cell c = make_cell(vci, last ? kPtiEndOfSdu : 0);
    std::copy_n(pdu.begin() + size_t(i) * kCellPayloadBytes, kCellPayloadBytes,
                c.bytes.begin() + kCellHeaderBytes);
    c.id = packet.id;
    tx_.push_back(c);
  }
  try_transmit();
}

void CellLink::send_cell(uint16_t vci, std::span<const uint8_t, kCellPayloadBytes> payload,
                         uint64_t id, uint8_t pti) {
  Cell c = make_cell(vci, pti);
  std::copy(payload.begin(), payload.end(), c.bytes.begin() + kCellHeaderBytes);
  c.id = id;
  c.raw = true;
  ++counters_.raw_cells_sent;
  tx_.push_back(c);
  try_transmit();
}

void CellLink::try_transmit() {
  if (transmitting_ || tx_.empty()) return;
  Cell cell = tx_.front();
  tx_.pop_front();

  // Faults, in a fixed order so a seed means one outcome.
  const FaultPlan& f = config_.faults;
  const uint64_t n = cell_number_++;
  const bool drop = f.drop_packets.count(n) || draw(f.drop_probability);
  const bool corrupt = f.corrupt_packets.count(n) || draw(f.corrupt_probability);
  const bool delay = f.delay_packets.count(n) || draw(f.delay_probability);
  if (corrupt) {
    ++counters_.corrupted;
    cell.bytes[kCellBytes - 1] ^= 1;
  }
  if (drop) ++counters_.drops;
  const sim::Time now = kernel_.now();
  if (delay && f.extra_delay_ps > 0) {
    ++counters_.delayed;
    period_start_ = std::max(now, busy_until_) + f.extra_delay_ps;
    period_cells_ = 0;
    busy_until_ = period_start_;
  }
  if (busy_until_ < now) { // idle gap: a new busy period starts here
    period_start_ = now;
    period_cells_ = 0;
  }
  ++period_cells_;
  const sim::Time end = period_start_ + cells_time(period_cells_);
  busy_until_ = end;
  transmitting_ = true;
  ++counters_.cells_sent;
  if (!drop)
    kernel_.schedule_at(end + config_.latency_ps, [this, cell] { cell_arrived(cell); },
                        kTagCellArrived);
  kernel_.schedule_at(
      end,
      [this] {
        transmitting_ = false;
        try_transmit();
      },
      kTagCellSent);
}

void CellLink::cell_arrived(const Cell& cell) {
  ++counters_.cells_received;
  if (tap_) tap_(kernel_.now(), cell.bytes);
  const uint8_t* h = cell.bytes.data();
  const uint16_t vci = cell_header_vci(h);
  if (config_.deliver_cells || config_.raw_vcis.count(vci)) {
    auto p = std::make_shared<AtmPacket>();
    p->id = cell.id;
    p->bytes.assign(cell.bytes.begin(), cell.bytes.end());
    p->vci = vci;
    p->raw_cell = true;
    p->cells = 1;
    ++counters_.raw_cells_received;
    kernel_.trace(p->id);
    kernel_.trace(uint64_t(kernel_.now()));
    rx_.push_back({std::move(p), 0});
    deliver();
    return;
  }
  Reassembly& r = reassembly_[vci];
  if (r.cells == 0) r.id = cell.id;
  r.pdu.insert(r.pdu.end(), cell.bytes.begin() + kCellHeaderBytes, cell.bytes.end());
  ++r.cells;
  if (cell_header_pti(h) & kPtiEndOfSdu) {
    Reassembly done = std::move(r);
    reassembly_.erase(vci);
    frame_done(vci, std::move(done));
  }
}

void CellLink::frame_done(uint16_t vci, Reassembly r) {
  const size_t n = r.pdu.size();
  const size_t t = n - kAal5TrailerBytes;
  const uint32_t length = (uint32_t(r.pdu[t + 2]) << 8) | r.pdu[t + 3];
  uint32_t wire_crc = 0;
  for (int i = 0; i < 4; ++i) wire_crc = (wire_crc << 8) | r.pdu[t + 4 + i];
  const bool crc_ok = crc32_aal5(std::span<const uint8_t>(r.pdu.data(), n - 4)) == wire_crc;
  const bool length_ok = aal5_cells(length) == r.cells;

  auto p = std::make_shared<AtmPacket>();
  p->id = r.id;
  p->vci = vci;
  p->cells = r.cells;
  r.pdu.resize(std::min<size_t>(length, t));
  p->bytes = std::move(r.pdu);
  if (!crc_ok) {
    p->status |= kCrcError;
    ++counters_.crc_errors;
  }
  if (!length_ok) {
    p->status |= kTruncated;
    ++counters_.length_errors;
  }
  ++counters_.frames_received;
  if (p->status == 0) counters_.sdu_bytes_received += p->bytes.size();
  kernel_.trace(p->id);
  kernel_.trace(uint64_t(kernel_.now()) ^ (uint64_t(p->status) << 60));
  rx_.push_back({std::move(p), 0});
  deliver();
}

void CellLink::sink_ready() {
  if (delivery_pending_) return;
  delivery_pending_ = true;
  kernel_.schedule_in(
      0,
      [this] {
        delivery_pending_ = false;
        deliver();
      },
      kTagDeliver);
}

void CellLink::deliver() {
  if (delivering_) return;
  delivering_ = true;
  while (!rx_.empty()) {
    RxItem& f = rx_.front();
    const uint32_t size = uint32_t(f.packet->bytes.size());
    const uint32_t left = size - f.offset;
    const PacketPtr packet = f.packet; // as a Packet, for the chunk's PacketRef
    const Chunk chunk{packet, f.offset, left, true};
    const uint32_t answer = sink_ ? std::min(chunk.whole(), sink_->accept(chunk)) : chunk.whole();
    f.offset += std::min(answer, left);
    // Short of the whole (the frame's end counts one): the sink stalled; it calls
    // sink_ready() when it can go on.
    if (answer != chunk.whole()) break;
    rx_.pop_front();
  }
  delivering_ = false;
}

} // namespace lanaikit::net
