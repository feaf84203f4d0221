// Packet captures of simulated links in pcapng (the format of Wireshark and tcpdump,
// draft-ietf-opsawg-pcapng), written little-endian:
//
//  - one Section Header Block (version 1.0, section length unknown, shb_userappl
//    "lanaikit");
//  - one Interface Description Block per link: link type LINKTYPE_USER0 (147), snap length
//    0 (no limit), if_name = the link's name, if_description, if_tsresol = 12 (timestamps
//    in picoseconds, so simulated time is exact);
//  - one Enhanced Packet Block per packet: the 64-bit timestamp is the sim::Time at which
//    the packet's tail (its CRC byte) arrived at the link's receiving end, captured and
//    original length both the packet's byte count, epb_flags = inbound (bits 0-1 = 01),
//    plus bit 24 (link-layer CRC error) when the link's CRC check failed.
//
// An ATM cell link's interface has link type LINKTYPE_USER1 (148): one block per cell, its
// 53 bytes (header with HEC, payload), timestamped at its arrival.
//
// Packet data under LINKTYPE_USER0 is "lanaikit Myrinet-style packet": the source-route
// bytes still ahead of the packet on this link (one per switch it has yet to cross), then
// the payload. The trailing CRC-8 byte is NOT included (net::Packet never holds it; it is
// crc8() of the captured bytes for a good packet); a failed check shows as the flag above.
#pragma once

#include "event/time.h"

#include <cstdint>
#include <iosfwd>
#include <span>
#include <string>
#include <vector>

namespace lanaikit::net {
class Link;
class CellLink;
}

namespace lanaikit::report {

inline constexpr uint16_t kLinktypeUser0 = 147;
// ATM cells (net/atm.h), one per block: the 53 bytes as on the wire (the 5-byte UNI header
// with its HEC, then the 48-byte payload), timestamped at the cell's arrival.
inline constexpr uint16_t kLinktypeUser1 = 148;
// Block types and option codes the writer uses (readers, such as the tests', share them).
inline constexpr uint32_t kPcapngShb = 0x0A0D0D0A, kPcapngIdb = 1, kPcapngEpb = 6;
inline constexpr uint32_t kPcapngByteOrderMagic = 0x1A2B3C4D;
inline constexpr uint16_t kPcapngOptEnd = 0, kPcapngOptShbUserappl = 4, kPcapngOptIfName = 2,
                          kPcapngOptIfDescription = 3, kPcapngOptIfTsresol = 9,
                          kPcapngOptEpbFlags = 2;
inline constexpr uint32_t kEpbFlagInbound = 1u << 0;     // bits 0-1 = 01
inline constexpr uint32_t kEpbFlagCrcError = 1u << 24;   // link-layer-dependent error: CRC

class PcapngWriter {
public:
  // Writes the Section Header Block at once.
  explicit PcapngWriter(std::ostream& out);

  // Writes an Interface Description Block; returns its interface id (0, 1, ...).
  uint32_t add_interface(const std::string& name, uint16_t link_type = kLinktypeUser0);
  // Writes an Enhanced Packet Block. Throws std::out_of_range for an unknown interface,
  // std::invalid_argument for a negative time, std::runtime_error if the stream fails.
  void packet(uint32_t iface, sim::Time t, std::span<const uint8_t> bytes, bool crc_error);
  // Adds an interface named after `link` and sets the link's tap to record every packet
  // that arrives on it (replacing any tap the link had). The writer must outlive the run.
  uint32_t capture(net::Link& link);
  // The same for an ATM cell link: an interface of LINKTYPE_USER1, a block per cell.
  uint32_t capture(net::CellLink& link);

  uint64_t packets() const { return packets_; }

private:
  std::ostream& out_;
  uint32_t interfaces_ = 0;
  uint64_t packets_ = 0;
};

} // namespace lanaikit::report
