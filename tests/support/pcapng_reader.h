// A strict pcapng reader for tests: what the writer (report/pcapng.h) produced, read back
// block by block. Test-only: lanaikit itself never reads captures (Wireshark and tshark do).
#pragma once

#include "report/pcapng.h"

#include <cstdint>
#include <iosfwd>
#include <span>
#include <string>
#include <vector>

namespace lanaikit::report {

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
