// lanaikit dissector: a Wireshark Lua plugin for a protocol's packets, generated from the
// firmware image's layout table (tools/dissector.h, docs/wireshark.md).
#include "tools/args.h"
#include "tools/commands.h"
#include "tools/dissector.h"
#include "tools/loader.h"

#include <cstdio>
#include <fstream>
#include <stdexcept>

namespace lanaikit::tools {

namespace {
const char* const kHelp =
    "usage: lanaikit dissector IMAGE.elf --header STRUCT [--magic CONST] [--protocol NAME]\n"
    "                         [-o FILE]\n"
    "\n"
    "Writes a Wireshark Lua plugin that shows the firmware's packet header STRUCT (a struct\n"
    "of the firmware language whose first field is PacketHeader) field by field in the\n"
    "captures lanaikit writes (c:timeline{pcap = ...}, echo --pcap): offsets, sizes, types\n"
    "and enum names come from the image's layout table, so the plugin follows the firmware.\n"
    "Plugins of several protocols load together; each decodes the packets with its magic.\n"
    "  wireshark -X lua_script:vmmc.lua capture.pcapng\n"
    "  tshark -X lua_script:vmmc.lua -r capture.pcapng -T fields -e lanaikit_vmmc.pkt.src\n"
    "\n"
    "options:\n"
    "  --header STRUCT   the header struct (VmmcHeader)\n"
    "  --magic CONST     the constant its magic equals (default: the image's one *_MAGIC)\n"
    "  --protocol NAME   field prefix lanaikit_NAME (default: STRUCT without 'Header',\n"
    "                    lower case)\n"
    "  -o FILE           write there (default: standard output)\n";
}

int cmd_dissector(int argc, char** argv) {
  std::string path, out_path;
  DissectorOptions o;
  try {
    Args args(argc, argv, 2);
    while (!args.empty()) {
      const std::string a = args.next();
      if (a == "--help" || a == "-h") {
        std::fputs(kHelp, stdout);
        return 0;
      } else if (a == "--header") o.header = args.value_for(a);
      else if (a == "--magic") o.magic = args.value_for(a);
      else if (a == "--protocol") o.protocol = args.value_for(a);
      else if (a == "-o") out_path = args.value_for(a);
      else if (!a.empty() && a[0] == '-') throw UsageError("unknown option '" + a + "'");
      else if (path.empty()) path = a;
      else throw UsageError("more than one image given");
    }
    if (path.empty()) throw UsageError("no image given");
    if (o.header.empty()) throw UsageError("--header STRUCT is required (the packet header struct)");
  } catch (const UsageError& e) {
    return report_usage_error("dissector", e);
  }
  const auto image = read_image("dissector", path);
  if (!image) return 1;
  o.source = path;
  std::string plugin;
  try {
    plugin = wireshark_dissector(*image, o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lanaikit dissector: %s: %s\n", path.c_str(), e.what());
    return 1;
  }
  if (out_path.empty()) {
    std::fputs(plugin.c_str(), stdout);
    return 0;
  }
  std::ofstream out(out_path, std::ios::binary);
  out << plugin;
  if (!out.flush()) {
    std::fprintf(stderr, "lanaikit dissector: cannot write %s\n", out_path.c_str());
    return 1;
  }
  return 0;
}

} // namespace lanaikit::tools
