// An ATM-style cell link (for DART): a unidirectional link that carries 53-byte cells
// (5-byte header + 48-byte payload) at a fixed cell rate, with propagation latency,
// AAL5 segmentation and reassembly of packets, raw single cells, and seeded per-cell
// fault injection.
//
// Cell rate. The line rate (155.52 or 622.08 Mb/s for SONET OC-3c / OC-12c, 140 Mb/s for
// the TAXI interface of DART's Fore TCA-100) is given in bits per second; the fraction of
// it that carries cells is cell_rate_num / cell_rate_den: 26/27 for SONET (the STS-3c
// payload envelope: 149.76 of 155.52 Mb/s; 599.04 of 622.08), 1/1 for a plain cell stream.
// Within a busy period that began at T0, cell n (1-based) has left the sender by
// T0 + floor(n * 424 * den * 10^12 / (line_bits_per_s * num)) ps, computed from n each time
// (no drift); it reaches the receiver latency_ps after its last bit left.
//
// AAL5 (ITU-T I.363.5). A packet's bytes (the SDU, at most 65535) are followed by padding
// and an 8-byte trailer (CPCS-UU 0, CPI 0, 16-bit length, CRC-32) so the PDU is a multiple
// of 48 bytes, and cut into cells; the last cell has the PTI "end of SDU" bit set. The
// CRC-32 is AAL5's: polynomial 0x04C11DB7, initial all ones, MSB first, complemented
// (crc32_aal5("123456789") = 0xFC891918), over the whole PDU but the CRC field.
// Reassembly is per VCI: cells are collected until an end cell; then the cell count must
// match the trailer's length and the CRC must match. A damaged frame is delivered, not
// discarded, with its status flagged (as net::Link does): kCrcError if the CRC failed,
// kTruncated if the cell count disagrees with the length (a cell was lost). Its bytes are
// the reassembled PDU up to the trailer's length (or up to the trailer, if shorter); the
// receiver must discard it. A lost end cell merges two frames, which then fail together,
// as on real AAL5 hardware.
//
// Raw cells (DART's own 32 data + 16 control byte format): send_cell() sends one cell with
// a 48-byte payload given by the caller, no AAL5. Cells on a VCI listed in raw_vcis are
// delivered one by one, as a 53-byte packet (header with HEC, then the payload).
//
// The receiving end is a net::PacketSink, as for net::Link: a frame (or a raw cell) is
// offered as one chunk (head and tail) when its last cell has arrived; a sink that takes
// fewer bytes holds the link's deliveries until it calls sink_ready(). ATM has no link
// flow control: a stalled sink only makes frames queue in the receiver (without bound).
//
// Faults (FaultPlan, per cell: the numbers in the sets are cell numbers on this link, the
// probabilities are drawn per cell from std::mt19937_64(seed), drop then corrupt then
// delay): drop = the cell takes its wire time but never arrives; corrupt = bit 0 of the
// cell's last payload byte is flipped in flight (AAL5's CRC-32 catches it; a raw cell is
// delivered flipped and counted); delay = the sender idles extra_delay_ps before the cell.
#pragma once

#include "net/link.h"
#include "net/packet.h"
#include "event/kernel.h"

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <span>
#include <string>
#include <vector>

namespace lanaikit::net {

inline constexpr uint32_t kCellBytes = 53;
inline constexpr uint32_t kCellHeaderBytes = 5;
inline constexpr uint32_t kCellPayloadBytes = 48;
inline constexpr uint32_t kCellBits = kCellBytes * 8; // 424
inline constexpr uint32_t kAal5TrailerBytes = 8;
inline constexpr uint32_t kAal5MaxSdu = 65535;
// PTI bits of the cell header (the 3 bits after the VCI): bit 0 of a user-data PTI is the
// ATM-user-to-ATM-user indication, AAL5's "last cell of the PDU".
inline constexpr uint8_t kPtiEndOfSdu = 0x1;

// CRC-32 as AAL5 computes it (see the top of this file); `crc32_aal5_update` continues
// over more data from a previous *uncomplemented* register (start at 0xFFFFFFFF).
uint32_t crc32_aal5_update(uint32_t reg, std::span<const uint8_t> data);
inline uint32_t crc32_aal5(std::span<const uint8_t> data) {
  return ~crc32_aal5_update(0xFFFFFFFFu, data);
}
// The HEC byte of a cell header: CRC-8 (0x07) of the first four bytes, XOR 0x55.
uint8_t atm_hec(std::span<const uint8_t, 4> header);
// The VCI and PTI fields of a UNI cell header (5 bytes: GFC, VPI, VCI, PTI, CLP, HEC).
inline uint16_t cell_header_vci(const uint8_t* h) {
  return uint16_t(((h[1] & 0x0F) << 12) | (h[2] << 4) | (h[3] >> 4));
}
inline uint8_t cell_header_pti(const uint8_t* h) { return uint8_t((h[3] >> 1) & 0x7); }

// The AAL5 PDU of an SDU of at most 65535 bytes (throws std::invalid_argument above): the
// bytes, zero padding, and the trailer with the length and CRC-32; a multiple of 48 bytes.
std::vector<uint8_t> aal5_pdu(std::span<const uint8_t> sdu);

struct CellLinkConfig {
  uint64_t line_bits_per_s = 155'520'000; // OC-3c
  // Share of the line rate that carries cells: 26/27 for SONET framing, 1/1 for none.
  uint32_t cell_rate_num = 26;
  uint32_t cell_rate_den = 27;
  sim::Time latency_ps = 50 * sim::kNanosecond; // lanaikit default (about 10 m of cable)
  std::set<uint16_t> raw_vcis; // VCIs delivered cell by cell (no AAL5 reassembly)
  // Every cell delivered on its own, as on a raw VCI, whatever its VCI: the input of a cell
  // switch (net/cell_switch.h), which forwards cells and leaves reassembly to the far end.
  bool deliver_cells = false;
  FaultPlan faults;            // per cell, see the top of this file
};

// What a sink behind a CellLink receives: a Packet (bytes = the SDU, or the 53 cell bytes
// of a raw cell) that also names its VCI. The sink may static_pointer_cast its chunk's
// packet to this type.
struct AtmPacket : Packet {
  uint16_t vci = 0;
  bool raw_cell = false;
  uint32_t cells = 0; // cells it arrived in
};

struct CellLinkCounters {
  uint64_t cells_sent = 0, cells_received = 0;
  uint64_t frames_sent = 0, frames_received = 0; // AAL5 frames (damaged ones included)
  uint64_t raw_cells_sent = 0, raw_cells_received = 0;
  uint64_t crc_errors = 0;    // frames whose CRC-32 failed
  uint64_t length_errors = 0; // frames whose cell count disagreed with the length (cell loss)
  uint64_t corrupted = 0, drops = 0, delayed = 0; // faults injected, in cells
  uint64_t sdu_bytes_sent = 0, sdu_bytes_received = 0; // received: intact frames only
};

class CellLink {
public:
  // Throws std::invalid_argument if the configuration makes no sense.
  CellLink(sim::Kernel& kernel, CellLinkConfig config, std::string name = "cell-link");
  CellLink(const CellLink&) = delete;
  CellLink& operator=(const CellLink&) = delete;

  const CellLinkConfig& config() const { return config_; }
  const std::string& name() const { return name_; }
  const CellLinkCounters& counters() const { return counters_; }
  // Called for every cell that arrives at the receiving end, at its arrival (its last bit
  // in), with its 53 bytes as on the wire (header with HEC, payload; a corrupted cell as
  // corrupted); dropped cells never arrive. For captures (report/pcapng.h). One tap per
  // link; an empty function removes it.
  using CellTap = std::function<void(sim::Time, std::span<const uint8_t, kCellBytes>)>;
  void set_tap(CellTap fn) { tap_ = std::move(fn); }

  void set_sink(PacketSink* sink) { sink_ = sink; }
  void sink_ready();

  // Segments the packet with AAL5 and queues its cells on `vci` (not one of raw_vcis).
  // Throws std::invalid_argument above 65535 bytes.
  void send(Packet packet, uint16_t vci = 0);
  // Queues one raw cell with the caller's 48-byte payload. `id` names it for the sink.
  void send_cell(uint16_t vci, std::span<const uint8_t, kCellPayloadBytes> payload,
                 uint64_t id = 0, uint8_t pti = 0);

  // Cells an SDU of `bytes` takes: ceil((bytes + 8) / 48).
  static uint32_t aal5_cells(uint64_t bytes) {
    return uint32_t((bytes + kAal5TrailerBytes + kCellPayloadBytes - 1) / kCellPayloadBytes);
  }
  // Wire time of n cells sent back to back, exact (floor).
  sim::Time cells_time(uint64_t cells) const;
  // Cells per second (for reports; timing uses cells_time).
  double cell_rate() const;
  sim::Time busy_until() const { return busy_until_; }
  size_t queued_cells() const { return tx_.size(); }

private:
  struct Cell {
    std::array<uint8_t, kCellBytes> bytes{}; // header (with HEC) and payload
    std::shared_ptr<const Packet> source;   // the packet it came from (for its id), or null
    uint64_t id = 0;                         // the sender's packet / cell id
    uint16_t vci = 0;
    bool end = false; // PTI end-of-SDU
    bool raw = false;
  };
  struct Reassembly {
    std::vector<uint8_t> pdu;
    uint64_t id = 0;
    uint32_t cells = 0;
  };

  static Cell make_cell(uint16_t vci, uint8_t pti);
  void try_transmit();
  void cell_arrived(const Cell& cell);
  void frame_done(uint16_t vci, Reassembly r);
  void deliver();
  bool draw(double p);

  sim::Kernel& kernel_;
  CellLinkConfig config_;
  std::string name_;
  CellLinkCounters counters_;
  PacketSink* sink_ = nullptr;
  CellTap tap_;
  std::mt19937_64 rng_;
  unsigned __int128 cell_num_; // 424 * den * 10^12: cells_time(n) = n * cell_num_ / cell_den_
  unsigned __int128 cell_den_; // line_bits_per_s * num

  // Sender.
  std::deque<Cell> tx_;
  bool transmitting_ = false;
  sim::Time busy_until_ = 0;
  sim::Time period_start_ = 0;
  uint64_t period_cells_ = 0;
  uint64_t cell_number_ = 0;

  // Receiver.
  std::map<uint16_t, Reassembly> reassembly_;
  struct RxItem {
    std::shared_ptr<AtmPacket> packet;
    uint32_t offset = 0;
  };
  std::deque<RxItem> rx_;
  bool delivery_pending_ = false;
  bool delivering_ = false;
};

} // namespace lanaikit::net
