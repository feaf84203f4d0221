#include "report/pcapng.h"

#include "net/atm.h"
#include "net/link.h"

#include <ostream>
#include <stdexcept>

namespace lanaikit::report {

namespace {

constexpr uint32_t kShb = kPcapngShb, kIdb = kPcapngIdb, kEpb = kPcapngEpb;
constexpr uint32_t kByteOrderMagic = kPcapngByteOrderMagic;
constexpr uint16_t kOptShbUserappl = kPcapngOptShbUserappl, kOptIfName = kPcapngOptIfName,
                   kOptIfDescription = kPcapngOptIfDescription,
                   kOptIfTsresol = kPcapngOptIfTsresol, kOptEpbFlags = kPcapngOptEpbFlags;
const char kDescription[] =
    "lanaikit Myrinet-style packet: route bytes, payload; the trailing CRC-8 byte is not "
    "captured (epb_flags bit 24 marks a CRC error)";

// A block under construction, little-endian.
class Block {
public:
  explicit Block(uint32_t type) { u32(type), u32(0); }
  void u8(uint8_t v) { b_.push_back(v); }
  void u16(uint16_t v) { u8(uint8_t(v)), u8(uint8_t(v >> 8)); }
  void u32(uint32_t v) { u16(uint16_t(v)), u16(uint16_t(v >> 16)); }
  void u64(uint64_t v) { u32(uint32_t(v)), u32(uint32_t(v >> 32)); }
  void bytes(std::span<const uint8_t> d) {
    b_.insert(b_.end(), d.begin(), d.end());
    while (b_.size() % 4) b_.push_back(0);
  }
  void option(uint16_t code, std::span<const uint8_t> value) {
    u16(code);
    u16(uint16_t(value.size()));
    bytes(value);
  }
  void option(uint16_t code, const std::string& s) {
    option(code, std::span(reinterpret_cast<const uint8_t*>(s.data()), s.size()));
  }
  void end_options() { u32(0); } // opt_endofopt: code 0, length 0
  void write(std::ostream& out) {
    const uint32_t len = uint32_t(b_.size() + 4);
    u32(len);
    for (int i = 0; i < 4; ++i) b_[4 + i] = uint8_t(len >> (8 * i));
    out.write(reinterpret_cast<const char*>(b_.data()), std::streamsize(b_.size()));
  }

private:
  std::vector<uint8_t> b_;
};

} // namespace

PcapngWriter::PcapngWriter(std::ostream& out) : out_(out) {
  Block b(kShb);
  b.u32(kByteOrderMagic);
  b.u16(1); // major
  b.u16(0); // minor
  b.u64(~uint64_t(0)); // section length: not given
  b.option(kOptShbUserappl, std::string("lanaikit"));
  b.end_options();
  b.write(out_);
}

uint32_t PcapngWriter::add_interface(const std::string& name, uint16_t link_type) {
  if (name.size() > 0xFFFF) throw std::invalid_argument("pcapng: interface name longer than 65535 bytes");
  Block b(kIdb);
  b.u16(link_type);
  b.u16(0); // reserved
  b.u32(0); // snap length: no limit
  if (!name.empty()) b.option(kOptIfName, name);
  b.option(kOptIfDescription, std::string(kDescription));
  const uint8_t tsresol = 12; // 10^-12 s
  b.option(kOptIfTsresol, std::span(&tsresol, 1));
  b.end_options();
  b.write(out_);
  if (!out_) throw std::runtime_error("pcapng: write failed");
  return interfaces_++;
}

void PcapngWriter::packet(uint32_t iface, sim::Time t, std::span<const uint8_t> bytes, bool crc_error) {
  if (iface >= interfaces_)
    throw std::out_of_range("pcapng: packet on interface " + std::to_string(iface) + ", but only " +
                            std::to_string(interfaces_) + " interfaces were added");
  if (t < 0) throw std::invalid_argument("pcapng: negative time " + std::to_string(t));
  if (bytes.size() > 0xFFFF'0000u) throw std::invalid_argument("pcapng: packet too large");
  Block b(kEpb);
  b.u32(iface);
  b.u32(uint32_t(uint64_t(t) >> 32));
  b.u32(uint32_t(uint64_t(t)));
  b.u32(uint32_t(bytes.size())); // captured
  b.u32(uint32_t(bytes.size())); // original
  b.bytes(bytes);
  const uint32_t flags = kEpbFlagInbound | (crc_error ? kEpbFlagCrcError : 0);
  const uint8_t f[4] = {uint8_t(flags), uint8_t(flags >> 8), uint8_t(flags >> 16), uint8_t(flags >> 24)};
  b.option(kOptEpbFlags, f);
  b.end_options();
  b.write(out_);
  if (!out_) throw std::runtime_error("pcapng: write failed");
  ++packets_;
}

uint32_t PcapngWriter::capture(net::Link& link) {
  const uint32_t iface = add_interface(link.name());
  link.set_tap([this, iface](const net::Packet& p, sim::Time t, bool crc_ok) {
    packet(iface, t, p.bytes, !crc_ok);
  });
  return iface;
}

uint32_t PcapngWriter::capture(net::CellLink& link) {
  const uint32_t iface = add_interface(link.name(), kLinktypeUser1);
  link.set_tap([this, iface](sim::Time t, std::span<const uint8_t, net::kCellBytes> cell) {
    packet(iface, t, cell, false);
  });
  return iface;
}

} // namespace lanaikit::report
