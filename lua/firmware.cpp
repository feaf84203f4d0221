// lk.firmware and the Firmware type: images built with assembler::build through the
// content-keyed cache (lua/firmware_cache.h).
#include "lua/internal.h"

#include <filesystem>
#include <map>

namespace lanaikit::sim::lua {

namespace fs = std::filesystem;

const assembler::FirmwareImage& image_of(const Args& a) {
  auto& fw = a.self<FirmwareUD>(kFirmware);
  if (!fw.image) a.fail_message("the firmware was collected");
  return *fw.image;
}

namespace {

// Relative paths: the source tree first, then the script's directory.
std::string resolve(const Runtime::Impl& rt, const std::string& p) {
  if (fs::path(p).is_absolute()) return p;
  std::error_code ec;
  for (const std::string& base : {rt.opt.source_dir, rt.script_dir}) {
    if (base.empty()) continue;
    const fs::path c = fs::path(base) / p;
    if (fs::exists(c, ec)) return c.lexically_normal().string();
  }
  return "";
}

assembler::OptLevel parse_opt(const TableArg& t, const std::string& s) {
  std::string o = s;
  if (o.rfind("-", 0) == 0) o.erase(0, 1);
  if (o == "O0") return assembler::OptLevel::O0;
  if (o == "O1") return assembler::OptLevel::O1;
  if (o == "O2") return assembler::OptLevel::O2;
  if (o == "Os") return assembler::OptLevel::Os;
  t.fail("opt", "expected one of \"O0\", \"O1\", \"O2\", \"Os\", got \"" + s + "\"");
}

// `defines = { "NDEBUG", PACKET_BYTES = 1024 }`: the list part as -D strings, the named
// part as NAME=VALUE (integers, or strings such as "0x400"), in name order so the cache key
// does not depend on table iteration order. Argument 1 is the options table.
void append_constant_defines(lua_State* L, const TableArg& t, std::vector<std::string>& defines) {
  lua_getfield(L, 1, "defines");
  std::map<std::string, std::string> named;
  if (lua_type(L, -1) == LUA_TTABLE) {
    lua_pushnil(L);
    while (lua_next(L, -2)) {
      if (lua_type(L, -2) == LUA_TSTRING) {
        const std::string name = lua_tostring(L, -2);
        if (lua_isinteger(L, -1))
          named[name] = std::to_string(lua_tointeger(L, -1));
        else if (lua_type(L, -1) == LUA_TSTRING)
          named[name] = lua_tostring(L, -1);
        else {
          const std::string got = describe(L, -1);
          lua_pop(L, 3);
          t.fail("defines." + name, "expected an integer, got " + got);
        }
      }
      lua_pop(L, 1);
    }
  }
  lua_pop(L, 1);
  for (const auto& [name, value] : named) defines.push_back(name + "=" + value);
}

// lk.firmware{ sources = {...}, opt =, debug =, defines =, include =, nostdlib =,
//              sram_bytes = } or lk.firmware("path")
int lk_firmware(lua_State* L) {
  Args a(L, "lk.firmware");
  Runtime::Impl& rt = runtime_of(L);
  std::vector<std::string> sources;
  assembler::BuildOptions bo;
  bo.startup = rt.opt.crt0;
  bo.runtime = rt.opt.runtime_objects;
  if (!rt.opt.source_dir.empty()) bo.library_dir = rt.opt.source_dir + "/firmware/lib";
  if (lua_type(L, 1) == LUA_TSTRING) {
    const std::string s = a.string(1);
    const std::string r = resolve(rt, s);
    if (r.empty()) a.fail(1, "no such file '" + s + "' (looked in the source tree and the script's directory)");
    sources.push_back(r);
  } else {
    const TableArg t = a.table(1);
    t.only({"sources", "opt", "debug", "defines", "include", "nostdlib", "sram_bytes", "cflags"});
    const auto srcs = t.opt_strings("sources");
    if (!srcs || srcs->empty()) t.fail("sources", "expected a source file or a list of them");
    for (size_t i = 0; i < srcs->size(); ++i) {
      const std::string r = resolve(rt, (*srcs)[i]);
      if (r.empty())
        t.fail("sources[" + std::to_string(i + 1) + "]",
               "no such file '" + (*srcs)[i] + "' (looked in the source tree and the script's directory)");
      sources.push_back(r);
    }
    if (auto o = t.opt_string("opt")) bo.opt = parse_opt(t, *o);
    bo.debug = t.opt_boolean("debug").value_or(false);
    bo.nostdlib = t.opt_boolean("nostdlib").value_or(false);
    if (auto d = t.opt_strings("defines")) bo.defines = *d;
    append_constant_defines(L, t, bo.defines);
    if (auto f = t.opt_strings("cflags")) bo.extra_cflags = *f;
    if (auto inc = t.opt_strings("include"))
      for (size_t i = 0; i < inc->size(); ++i) {
        const std::string r = resolve(rt, (*inc)[i]);
        if (r.empty())
          t.fail("include[" + std::to_string(i + 1) + "]", "no such directory '" + (*inc)[i] + "'");
        bo.include_dirs.push_back(r);
      }
    if (auto s = t.opt_positive("sram_bytes")) {
      // As `lanaikit build --sram-size`: a 32-bit chip addresses at most 2 GiB of SRAM here.
      if (*s % 4 != 0 || *s > 0x80000000ull)
        t.fail("sram_bytes", "expected a multiple of 4 up to 2 GiB (2147483648), got " + std::to_string(*s));
      bo.sram_size = uint32_t(*s);
    }
  }
  std::shared_ptr<const assembler::FirmwareImage> image;
  try {
    image = rt.firmware_cache().get(sources, bo);
  } catch (const std::exception& e) {
    a.fail_message(std::string("build failed:\n") + e.what());
  }
  std::string label;
  for (const auto& s : sources) label += (label.empty() ? "" : ", ") + fs::path(s).filename().string();
  push_udata<FirmwareUD>(L, kFirmware, std::move(image), std::move(label));
  return 1;
}


int fw_symbol(lua_State* L) {
  Args a(L, "Firmware:symbol", 1);
  const auto& img = image_of(a);
  const auto addr = img.symbol(a.string(1));
  if (addr) lua_pushinteger(L, *addr);
  else lua_pushnil(L);
  return 1;
}

int fw_layout(lua_State* L) {
  Args a(L, "Firmware:layout", 1);
  const auto& img = image_of(a);
  const std::string name = a.string(1);
  const assembler::StructLayout* s = img.layout_table.find_struct(name);
  if (!s) {
    std::string have;
    for (const auto& st : img.layout_table.structs) have += (have.empty() ? "" : ", ") + st.name;
    a.fail(1, "no struct '" + name + "' in the image's layout table (it has: " +
                  (have.empty() ? "none; layouts come from firmware-language sources" : have) + ")");
  }
  lua_createtable(L, 0, 4);
  lua_pushstring(L, s->name.c_str());
  lua_setfield(L, -2, "name");
  lua_pushinteger(L, s->size);
  lua_setfield(L, -2, "size");
  lua_pushinteger(L, s->align);
  lua_setfield(L, -2, "align");
  lua_createtable(L, 0, int(s->fields.size()));
  for (const auto& f : s->fields) {
    lua_createtable(L, 0, 3);
    lua_pushinteger(L, f.offset);
    lua_setfield(L, -2, "offset");
    lua_pushinteger(L, f.size);
    lua_setfield(L, -2, "size");
    lua_pushstring(L, f.type.c_str());
    lua_setfield(L, -2, "type");
    lua_setfield(L, -2, f.name.c_str());
  }
  lua_setfield(L, -2, "fields");
  return 1;
}

int fw_handlers(lua_State* L) {
  Args a(L, "Firmware:handlers", 1);
  const auto& img = image_of(a);
  lua_createtable(L, int(img.layout_table.handlers.size()), 0);
  lua_Integer i = 0;
  for (const auto& h : img.layout_table.handlers) {
    lua_pushstring(L, h.c_str());
    lua_rawseti(L, -2, ++i);
  }
  return 1;
}

int fw_globals(lua_State* L) {
  Args a(L, "Firmware:globals", 1);
  const auto& img = image_of(a);
  lua_createtable(L, 0, int(img.layout_table.globals.size()));
  for (const auto& g : img.layout_table.globals) {
    lua_createtable(L, 0, 3);
    lua_pushstring(L, g.type.c_str());
    lua_setfield(L, -2, "type");
    lua_pushinteger(L, g.size);
    lua_setfield(L, -2, "size");
    if (g.pinned_address) {
      lua_pushinteger(L, *g.pinned_address);
      lua_setfield(L, -2, "address");
    }
    lua_setfield(L, -2, g.name.c_str());
  }
  return 1;
}

// Lua integers are 64-bit signed: a u64 constant of 2^63 or more reads as its two's
// complement (compare with math.ult), as the layout table stores it.
int fw_constant(lua_State* L) {
  Args a(L, "Firmware:constant", 1);
  const auto& img = image_of(a);
  const std::string name = a.string(1);
  const assembler::ConstantLayout* c = img.layout_table.find_constant(name);
  if (!c) {
    std::string have;
    for (const auto& k : img.layout_table.constants) have += (have.empty() ? "" : ", ") + k.name;
    a.fail(1, "no constant '" + name + "' in the image's layout table (it has: " +
                  (have.empty() ? "none; constants come from firmware-language sources" : have) +
                  ")");
  }
  lua_pushinteger(L, lua_Integer(c->signed_value()));
  return 1;
}

int fw_constants(lua_State* L) {
  Args a(L, "Firmware:constants", 1);
  const auto& img = image_of(a);
  lua_createtable(L, 0, int(img.layout_table.constants.size()));
  for (const auto& c : img.layout_table.constants) {
    lua_pushinteger(L, lua_Integer(c.signed_value()));
    lua_setfield(L, -2, c.name.c_str());
  }
  return 1;
}

int fw_entry(lua_State* L) {
  Args a(L, "Firmware:entry", 1);
  lua_pushinteger(L, image_of(a).entry);
  return 1;
}

int fw_size(lua_State* L) {
  Args a(L, "Firmware:size", 1);
  lua_pushinteger(L, image_of(a).end());
  return 1;
}

int fw_tostring(lua_State* L) {
  auto* fw = static_cast<FirmwareUD*>(luaL_testudata(L, 1, kFirmware));
  lua_pushfstring(L, "Firmware(%s)", fw && fw->image ? fw->label.c_str() : "collected");
  return 1;
}

} // namespace

void open_firmware(lua_State* L) {
  static const luaL_Reg methods[] = {
      {"symbol", wrap<fw_symbol>},   {"layout", wrap<fw_layout>}, {"handlers", wrap<fw_handlers>},
      {"globals", wrap<fw_globals>}, {"entry", wrap<fw_entry>},   {"size", wrap<fw_size>},
      {"constant", wrap<fw_constant>}, {"constants", wrap<fw_constants>},
      {nullptr, nullptr},
  };
  new_type(L, kFirmware, methods, gc_udata<FirmwareUD>, fw_tostring);
  lua_pushcfunction(L, wrap<lk_firmware>);
  lua_setfield(L, -2, "firmware");
}

} // namespace lanaikit::sim::lua
