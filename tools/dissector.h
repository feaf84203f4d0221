// Wireshark dissectors generated from a firmware image's layout table (docs/wireshark.md).
//
// A protocol's packet header is a struct of the firmware language whose first field is the
// library's PacketHeader (magic, src, len). The generated Lua plugin shows that struct
// field by field (nested structs flattened with dotted names, enum-typed fields with their
// variants' names, arrays as bytes) in the captures lanaikit writes (report/pcapng.h:
// LINKTYPE_USER0, the route bytes still ahead of the packet, then the packet). It finds
// the header by its magic within the first MAX_ROUTE bytes, so packets that still carry
// route bytes decode too, and it passes a packet that is not its protocol's to the plugin
// loaded before it: one plugin per protocol, all loaded together, each taking its own.
#pragma once

#include "assembler/image.h"

#include <cstdint>
#include <string>

namespace lanaikit::tools {

struct DissectorOptions {
  std::string header;   // the header struct (VmmcHeader)
  std::string magic;    // the constant its magic must equal; "" = the image's only *_MAGIC
  std::string protocol; // Wireshark's short name; "" = the header's name without "Header",
                        // lower case (vmmc): fields are lanaikit_<protocol>.<field path>
  std::string source;   // what the plugin names as its origin (the image's path)
};

// The plugin's Lua source. Throws std::invalid_argument naming what is missing (no such
// struct, no PacketHeader first, no or several magic constants, a field type it cannot
// show).
std::string wireshark_dissector(const assembler::FirmwareImage& image, const DissectorOptions& o);

// A plugin for ATM cells (LINKTYPE_USER1 captures: the 53 bytes of each cell, report/
// pcapng.h) whose 48-byte payload is the struct `o.header` (DART's DartCell): the cell
// header's fields (GFC, VPI, VCI, PTI, CLP, HEC), then the struct field by field for a
// cell that is a PDU of its own (end-of-SDU, the previous cell on its VCI ended a PDU
// too: a one-cell message, such as a control cell), or the payload as bytes for a cell
// inside a multi-cell AAL5 frame (block data; tracked per VCI in capture order). `magic`
// is unused; `protocol` defaults to the struct's name without "Cell", lower case. Throws
// std::invalid_argument if the struct is not 48 bytes or cannot be shown.
std::string wireshark_cell_dissector(const assembler::FirmwareImage& image, const DissectorOptions& o);

} // namespace lanaikit::tools
