#include "tools/dissector.h"

#include "host/model/memory.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <stdexcept>
#include <vector>

namespace lanaikit::tools {

namespace {

using assembler::FirmwareImage;
using assembler::LayoutTable;
using assembler::StructLayout;

// The route bytes a packet may still carry on a link (firmware/lib/packet.fw, MAX_ROUTE):
// where the plugin looks for the magic.
constexpr uint32_t kMaxRouteBytes = 8;

// One field the plugin shows: a leaf of the header's struct tree.
struct Leaf {
  std::string path;  // pkt.magic
  uint32_t offset;   // in the header
  uint32_t size;
  enum Kind { Unsigned, Signed, Bytes } kind;
  bool hex = false;  // pointers, magics: shown in hex
  std::vector<std::pair<uint64_t, std::string>> names; // an enum's variants
};

bool is_int_type(const std::string& t, bool& is_signed) {
  static const char* const kUnsigned[] = {"u8", "u16", "u32", "u64", "bool"};
  static const char* const kSigned[] = {"i8", "i16", "i32", "i64"};
  for (const char* u : kUnsigned)
    if (t == u) return is_signed = false, true;
  for (const char* s : kSigned)
    if (t == s) return is_signed = true, true;
  return false;
}

// Variants of enum `type`: the constants "type.NAME" (docs/image.md, "Enums").
std::vector<std::pair<uint64_t, std::string>> enum_variants(const LayoutTable& t, const std::string& type) {
  std::vector<std::pair<uint64_t, std::string>> out;
  const std::string prefix = type + ".";
  for (const auto& c : t.constants)
    if (c.name.size() > prefix.size() && c.name.compare(0, prefix.size(), prefix) == 0)
      out.emplace_back(c.value, c.name.substr(prefix.size()));
  return out;
}

void flatten(const LayoutTable& t, const StructLayout& s, const std::string& prefix, uint32_t base,
             int depth, std::vector<Leaf>& out) {
  if (depth > 16) throw std::invalid_argument("struct " + s.name + " nests deeper than 16 levels");
  for (const auto& f : s.fields) {
    const std::string path = prefix + f.name;
    const uint32_t at = base + f.offset;
    bool is_signed = false;
    if (is_int_type(f.type, is_signed) && (f.size == 1 || f.size == 2 || f.size == 4 || f.size == 8)) {
      const bool magic = f.name == "magic"; // a tag, read as text in hex ("VMC1")
      out.push_back({path, at, f.size, is_signed ? Leaf::Signed : Leaf::Unsigned, magic, {}});
    } else if (!f.type.empty() && f.type[0] == '*' && f.size == 4) {
      out.push_back({path, at, 4, Leaf::Unsigned, true, {}});
    } else if (const StructLayout* inner = t.find_struct(f.type)) {
      flatten(t, *inner, path + ".", at, depth + 1, out);
    } else if (auto names = enum_variants(t, f.type);
               !names.empty() && (f.size == 1 || f.size == 2 || f.size == 4 || f.size == 8)) {
      out.push_back({path, at, f.size, Leaf::Unsigned, false, std::move(names)});
    } else {
      out.push_back({path, at, f.size, Leaf::Bytes, false, {}}); // arrays and the rest
    }
  }
}

std::string lua_string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') out += '\\', out += char(c);
    else if (c >= 0x20 && c < 0x7F) out += char(c);
    else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\%03u", c);
      out += buf;
    }
  }
  return out + "\"";
}

} // namespace

std::string wireshark_dissector(const FirmwareImage& image, const DissectorOptions& o) {
  const LayoutTable& t = image.layout_table;
  const StructLayout* header = t.find_struct(o.header);
  if (!header) {
    std::string have;
    for (const auto& s : t.structs) have += (have.empty() ? "" : ", ") + s.name;
    throw std::invalid_argument("no struct '" + o.header + "' in the image's layout table (it has: " +
                                (have.empty() ? "none: not built from the firmware language?" : have) + ")");
  }
  if (header->fields.empty() || header->fields[0].type != "PacketHeader" || header->fields[0].offset != 0)
    throw std::invalid_argument("struct " + o.header +
                                " does not start with a PacketHeader field (firmware/lib/packet.fw): "
                                "the plugin finds a packet's header by its magic");
  const uint32_t magic_at = header->fields[0].offset + t.struct_layout("PacketHeader").field("magic").offset;

  // The magic: the named constant, or the image's one *_MAGIC.
  const assembler::ConstantLayout* magic = nullptr;
  if (!o.magic.empty()) {
    magic = t.find_constant(o.magic);
    if (!magic) throw std::invalid_argument("no constant '" + o.magic + "' in the image's layout table");
  } else {
    std::vector<const assembler::ConstantLayout*> found;
    for (const auto& c : t.constants)
      if (c.name.size() > 6 && c.name.compare(c.name.size() - 6, 6, "_MAGIC") == 0) found.push_back(&c);
    if (found.size() != 1) {
      std::string names;
      for (auto* c : found) names += " " + c->name;
      throw std::invalid_argument(found.empty()
                                      ? "the image has no constant named *_MAGIC: give --magic NAME"
                                      : "the image has several *_MAGIC constants (" + names.substr(1) +
                                            "): give --magic NAME");
    }
    magic = found[0];
  }

  std::string proto = o.protocol;
  if (proto.empty()) {
    proto = o.header;
    if (proto.size() > 6 && proto.compare(proto.size() - 6, 6, "Header") == 0) proto.resize(proto.size() - 6);
    std::transform(proto.begin(), proto.end(), proto.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  }
  for (char c : proto)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
      throw std::invalid_argument("protocol name '" + proto + "': letters, digits and '_' only");
  const std::string abbr = "lanaikit_" + proto;

  std::vector<Leaf> leaves;
  flatten(t, *header, "", 0, 0, leaves);

  std::string L;
  L += "-- Wireshark dissector for lanaikit's " + proto + " packets: struct " + o.header + " of\n";
  L += "-- " + (o.source.empty() ? std::string("a firmware image") : o.source) +
       ", generated by `lanaikit dissector` from its layout table (docs/wireshark.md).\n";
  L += "-- Regenerate it when the firmware's header changes; do not edit. Load it with\n";
  L += "-- `wireshark -X lua_script:FILE` or put it in Wireshark's plugin folder.\n";
  L += "local p = Proto(" + lua_string(abbr) + ", " + lua_string("lanaikit " + proto + " (" + o.header + ")") + ")\n";
  L += "local HEADER_BYTES = " + std::to_string(header->size) + "\n";
  L += "local MAGIC = " + hex(magic->value & 0xFFFFFFFFu) + " -- " + magic->name + "\n";
  L += "local MAGIC_AT = " + std::to_string(magic_at) + "\n";
  L += "local MAX_ROUTE = " + std::to_string(kMaxRouteBytes) + "\n";
  L += "local f = {\n";
  L += "  route = ProtoField.bytes(" + lua_string(abbr + ".route") + ", \"route bytes still ahead\"),\n";
  for (size_t i = 0; i < leaves.size(); ++i) {
    const Leaf& l = leaves[i];
    L += "  [" + std::to_string(i + 1) + "] = ";
    const std::string name = lua_string(abbr + "." + l.path), label = lua_string(l.path);
    if (l.kind == Leaf::Bytes) {
      L += "ProtoField.bytes(" + name + ", " + label + ")";
    } else {
      const std::string bits = std::to_string(8 * l.size);
      L += std::string(l.kind == Leaf::Signed ? "ProtoField.int" : "ProtoField.uint") + bits + "(" + name + ", " +
           label + ", " + (l.kind == Leaf::Signed ? "base.DEC" : (l.hex ? "base.HEX" : "base.DEC"));
      if (!l.names.empty()) {
        L += ", {";
        for (size_t k = 0; k < l.names.size(); ++k)
          L += (k ? ", " : "") + std::string("[") + std::to_string(l.names[k].first) + "] = " +
               lua_string(l.names[k].second);
        L += "}";
      }
      L += ")";
    }
    L += ",\n";
  }
  L += "  payload = ProtoField.bytes(" + lua_string(abbr + ".payload") + ", \"payload\"),\n";
  L += "}\n";
  L += "local at = { -- offset and size in the header of each field above\n";
  for (size_t i = 0; i < leaves.size(); ++i)
    L += "  {" + std::to_string(leaves[i].offset) + ", " + std::to_string(leaves[i].size) + "},\n";
  L += "}\n";
  L += "local list = { f.route, f.payload }\n";
  L += "for i = 1, #at do list[#list + 1] = f[i] end\n";
  L += "p.fields = list\n";
  L += R"(
-- lanaikit's captures are LINKTYPE_USER0; a plugin for another protocol may already hold it.
local encap = DissectorTable.get("wtap_encap")
local previous = encap:get_dissector(wtap.USER0)

-- The header starts after the route bytes the packet still carries on this link.
local function find_header(tvb)
  local n = tvb:len()
  for route = 0, MAX_ROUTE do
    if route + HEADER_BYTES > n then return nil end
    if tvb(route + MAGIC_AT, 4):uint() == MAGIC then return route end
  end
  return nil
end

function p.dissector(tvb, pinfo, tree)
  local route = find_header(tvb)
  if route == nil then
    if previous then return previous:call(tvb, pinfo, tree) end
    return 0
  end
  pinfo.cols.protocol = p.name
  local t = tree:add(p, tvb(), p.description)
  if route > 0 then t:add(f.route, tvb(0, route)) end
  for i = 1, #at do t:add(f[i], tvb(route + at[i][1], at[i][2])) end
  local rest = tvb:len() - route - HEADER_BYTES
  if rest > 0 then t:add(f.payload, tvb(route + HEADER_BYTES, rest)) end
  pinfo.cols.info = string.format("%s, %d payload bytes", p.description, rest)
  return tvb:len()
end

encap:add(wtap.USER0, p)
)";
  return L;
}

} // namespace lanaikit::tools
