#include "tests/support/pcapng_reader.h"

#include <istream>
#include <iterator>
#include <stdexcept>

namespace lanaikit::report {

PcapngReader::PcapngReader(std::istream& in) {
  std::vector<uint8_t> data{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  parse(data);
}

PcapngReader::PcapngReader(std::span<const uint8_t> data) { parse(data); }

void PcapngReader::parse(std::span<const uint8_t> d) {
  bool big = false;
  size_t block_no = 0, block_at = 0;
  std::string block_name = "?";
  auto fail = [&](const std::string& what) -> void {
    throw std::runtime_error("pcapng: block " + std::to_string(block_no) + " (" + block_name + ") at byte " +
                             std::to_string(block_at) + ": " + what);
  };
  auto rd16 = [&](size_t at) -> uint16_t {
    return big ? uint16_t(d[at] << 8 | d[at + 1]) : uint16_t(d[at + 1] << 8 | d[at]);
  };
  auto rd32 = [&](size_t at) -> uint32_t {
    return big ? uint32_t(rd16(at)) << 16 | rd16(at + 2) : uint32_t(rd16(at + 2)) << 16 | rd16(at);
  };

  if (d.size() < 28) {
    block_name = "Section Header Block";
    fail("file too short for a Section Header Block (" + std::to_string(d.size()) + " bytes)");
  }
  size_t pos = 0;
  while (pos < d.size()) {
    block_at = pos;
    if (d.size() - pos < 12) fail("truncated block header (" + std::to_string(d.size() - pos) + " bytes left)");
    // The byte order is known only once the SHB's magic is read.
    const uint32_t type_le = uint32_t(d[pos]) | uint32_t(d[pos + 1]) << 8 | uint32_t(d[pos + 2]) << 16 |
                             uint32_t(d[pos + 3]) << 24;
    if (block_no == 0 && type_le != kPcapngShb) {
      block_name = "first block";
      fail("not a pcapng file: it must begin with a Section Header Block (0x0A0D0D0A)");
    }
    if (type_le == kPcapngShb) {
      block_name = "Section Header Block";
      if (block_no != 0) fail("a second section: multi-section files are not supported");
      const uint32_t magic_le = uint32_t(d[pos + 8]) | uint32_t(d[pos + 9]) << 8 |
                                uint32_t(d[pos + 10]) << 16 | uint32_t(d[pos + 11]) << 24;
      if (magic_le == kPcapngByteOrderMagic) big = false;
      else if (magic_le == 0x4D3C2B1A) big = true;
      else fail("bad byte-order magic");
    }
    const uint32_t type = rd32(pos);
    const uint32_t len = rd32(pos + 4);
    if (type == kPcapngIdb) block_name = "Interface Description Block";
    else if (type == kPcapngEpb) block_name = "Enhanced Packet Block";
    else if (type != kPcapngShb) block_name = "type " + std::to_string(type);
    if (len < 12 || len % 4) fail("block length " + std::to_string(len) + " is not a multiple of 4 of at least 12");
    if (len > d.size() - pos) fail("block length " + std::to_string(len) + " runs past the end of the file");
    if (rd32(pos + len - 4) != len) fail("trailing block length differs from the leading one");
    const size_t body = pos + 8, body_end = pos + len - 4;

    // Options from `at` to the end of the body; calls fn(code, value_at, value_len).
    auto options = [&](size_t at, auto&& fn) {
      while (at < body_end) {
        if (body_end - at < 4) fail("truncated option header");
        const uint16_t code = rd16(at), olen = rd16(at + 2);
        at += 4;
        if (code == kPcapngOptEnd) {
          if (olen != 0) fail("opt_endofopt with a non-zero length");
          if (at != body_end) fail("bytes after opt_endofopt");
          return;
        }
        const size_t padded = (size_t(olen) + 3) & ~size_t(3);
        if (padded > body_end - at) fail("option " + std::to_string(code) + " runs past the end of its block");
        fn(code, at, size_t(olen));
        at += padded;
      }
    };
    auto text = [&](size_t at, size_t n) { return std::string(reinterpret_cast<const char*>(&d[at]), n); };

    if (type == kPcapngShb) {
      if (len < 28) fail("too short");
      const uint16_t major = rd16(body + 4);
      if (major != 1) fail("unsupported version " + std::to_string(major) + "." + std::to_string(rd16(body + 6)));
      options(body + 16, [&](uint16_t code, size_t at, size_t n) {
        if (code == kPcapngOptShbUserappl) application_ = text(at, n);
      });
    } else if (type == kPcapngIdb) {
      if (len < 20) fail("too short");
      PcapngInterface i;
      i.link_type = rd16(body);
      i.snap_len = rd32(body + 4);
      options(body + 8, [&](uint16_t code, size_t at, size_t n) {
        if (code == kPcapngOptIfName) i.name = text(at, n);
        else if (code == kPcapngOptIfDescription) i.description = text(at, n);
        else if (code == kPcapngOptIfTsresol) {
          if (n != 1) fail("if_tsresol must be 1 byte long");
          i.tsresol = d[at];
        }
      });
      interfaces_.push_back(std::move(i));
    } else if (type == kPcapngEpb) {
      if (len < 32) fail("too short");
      PcapngPacket p;
      p.interface = rd32(body);
      if (p.interface >= interfaces_.size())
        fail("interface " + std::to_string(p.interface) + " not described (" +
             std::to_string(interfaces_.size()) + " so far)");
      p.timestamp = uint64_t(rd32(body + 4)) << 32 | rd32(body + 8);
      const uint32_t caplen = rd32(body + 12);
      p.original_length = rd32(body + 16);
      const size_t data_at = body + 20;
      if (caplen > body_end - data_at) fail("captured length " + std::to_string(caplen) + " runs past the block");
      if (caplen > p.original_length) fail("captured length exceeds the original length");
      p.bytes.assign(d.begin() + long(data_at), d.begin() + long(data_at + caplen));
      const size_t opts_at = data_at + ((size_t(caplen) + 3) & ~size_t(3));
      if (opts_at > body_end) fail("packet data padding runs past the block");
      options(opts_at, [&](uint16_t code, size_t at, size_t n) {
        if (code == kPcapngOptEpbFlags) {
          if (n != 4) fail("epb_flags must be 4 bytes long");
          p.flags = rd32(at);
        }
      });
      const uint8_t r = interfaces_[p.interface].tsresol;
      if (!(r & 0x80) && r <= 12) {
        uint64_t scale = 1;
        for (int k = r; k < 12; ++k) scale *= 10;
        if (p.timestamp <= uint64_t(INT64_MAX) / scale) p.time_ps = sim::Time(p.timestamp * scale);
      }
      packets_.push_back(std::move(p));
    }
    pos += len;
    ++block_no;
  }
}

} // namespace lanaikit::report
