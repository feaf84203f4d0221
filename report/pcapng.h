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
}

namespace lanaikit::report {

inline constexpr uint16_t kLinktypeUser0 = 147;
inline constexpr uint32_t kEpbFlagInbound = 1u << 0;     // bits 0-1 = 01
inline constexpr uint32_t kEpbFlagCrcError = 1u << 24;   // link-layer-dependent error: CRC

class PcapngWriter {
public:
  // Writes the Section Header Block at once.
  explicit PcapngWriter(std::ostream& out);

  // Writes an Interface Description Block; returns its interface id (0, 1, ...).
  uint32_t add_interface(const std::string& name);
  // Writes an Enhanced Packet Block. Throws std::out_of_range for an unknown interface,
  // std::invalid_argument for a negative time, std::runtime_error if the stream fails.
  void packet(uint32_t iface, sim::Time t, std::span<const uint8_t> bytes, bool crc_error);
  // Adds an interface named after `link` and sets the link's tap to record every packet
  // that arrives on it (replacing any tap the link had). The writer must outlive the run.
  uint32_t capture(net::Link& link);

  uint64_t packets() const { return packets_; }

private:
  std::ostream& out_;
  uint32_t interfaces_ = 0;
  uint64_t packets_ = 0;
};

struct PcapngInterface {
  uint16_t link_type = 0;
  uint32_t snap_len = 0;
  std::string name, description; // if_name, if_description ("" if absent)
  uint8_t tsresol = 6;            // if_tsresol as stored (default 6: microseconds)
};

struct PcapngPacket {
  uint32_t interface = 0;
  uint64_t timestamp = 0;   // raw, in the interface's units
  sim::Time time_ps = -1;   // the timestamp in picoseconds when the unit is 10^-k s, k <= 12
  uint32_t original_length = 0;
  std::vector<uint8_t> bytes; // captured data
  uint32_t flags = 0;         // epb_flags (0 if absent)
  bool crc_error() const { return (flags & kEpbFlagCrcError) != 0; }
};

// Reads a whole pcapng file (either byte order; one section). Strict: every block length
// is checked (>= 12, a multiple of 4, equal at both ends, within the file), options must
// be well-formed and end inside their block, an Enhanced Packet Block must name a known
// interface and its data fit its block; a file must begin with a Section Header Block of
// version 1. Blocks of other types are skipped, as the format requires. Errors throw
// std::runtime_error: "pcapng: block N (TYPE) at byte OFFSET: what".
class PcapngReader {
public:
  explicit PcapngReader(std::istream& in);
  explicit PcapngReader(std::span<const uint8_t> data);

  const std::string& application() const { return application_; } // shb_userappl
  const std::vector<PcapngInterface>& interfaces() const { return interfaces_; }
  const std::vector<PcapngPacket>& packets() const { return packets_; }

private:
  void parse(std::span<const uint8_t> data);
  std::string application_;
  std::vector<PcapngInterface> interfaces_;
  std::vector<PcapngPacket> packets_;
};

} // namespace lanaikit::report
