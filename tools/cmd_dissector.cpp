// lanaikit dissector: a Wireshark Lua plugin for a protocol's packets, generated from the
// firmware image's layout table (tools/dissector.h, docs/wireshark.md).
#include "tools/commands.h"
#include "tools/dissector.h"
#include "tools/loader.h"

#include <cstdio>
#include <fstream>
#include <memory>
#include <stdexcept>

namespace lanaikit::tools {

namespace {

int dissector(const std::string& path, DissectorOptions o, bool cell, const std::string& out_path) {
  const auto image = read_image("dissector", path);
  if (!image) return 1;
  o.source = path;
  std::string plugin;
  try {
    plugin = cell ? wireshark_cell_dissector(*image, o) : wireshark_dissector(*image, o);
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

struct Options {
  std::string path, out_path, cell;
  DissectorOptions o;
};

} // namespace

Command add_dissector(CLI::App& app) {
  CLI::App* cmd = add_command(
      app, "dissector", "write a Wireshark plugin for a firmware's packet header",
      "Writes a Wireshark Lua plugin that shows the firmware's packet header STRUCT (a struct\n"
      "of the firmware language whose first field is PacketHeader) field by field in the\n"
      "captures lanaikit writes (c:timeline{pcap = ...}, echo --pcap): offsets, sizes, types\n"
      "and enum names come from the image's layout table, so the plugin follows the firmware.\n"
      "Plugins of several protocols load together; each decodes the packets with its magic.\n"
      "  wireshark -X lua_script:vmmc.lua capture.pcapng\n"
      "  tshark -X lua_script:vmmc.lua -r capture.pcapng -T fields -e lanaikit_vmmc.pkt.src\n"
      "With --cell STRUCT instead, the plugin shows ATM cells (the captures' cell links, DART):\n"
      "each cell's header, and its 48-byte payload as STRUCT (DartCell) when the cell is a\n"
      "one-cell message, as AAL5 frame data otherwise.");
  auto opt = std::make_shared<Options>();
  add_positional(*cmd, "IMAGE", opt->path, "the firmware's Lanai ELF image")->required();
  cmd->add_option("--header", opt->o.header, "the header struct (VmmcHeader); required unless --cell")->type_name("STRUCT");
  cmd->add_option("--cell", opt->cell, "a plugin for ATM cells whose payload is STRUCT (DartCell)")->type_name("STRUCT");
  cmd->add_option("--magic", opt->o.magic, "the constant its magic equals (default: the image's one *_MAGIC)")
      ->type_name("CONST");
  cmd->add_option("--protocol", opt->o.protocol,
                  "field prefix lanaikit_NAME (default: STRUCT without 'Header',\nlower case)")
      ->type_name("NAME");
  cmd->add_option("-o", opt->out_path, "write there (default: standard output)")->type_name("FILE");
  return {[opt] {
    // Checked here rather than by CLI11's required() to say what the struct is.
    if (!opt->cell.empty() && !opt->o.header.empty()) throw UsageError("--header and --cell exclude each other");
    if (!opt->cell.empty()) {
      DissectorOptions o = opt->o;
      o.header = opt->cell;
      return dissector(opt->path, o, true, opt->out_path);
    }
    if (opt->o.header.empty())
      throw UsageError("--header STRUCT is required (the packet header struct), or --cell STRUCT");
    return dissector(opt->path, opt->o, false, opt->out_path);
  }};
}

} // namespace lanaikit::tools
