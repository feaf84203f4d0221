// The layout table: lookups, the binary encoding (docs/image.md, "The layout table") and
// merging.
#include "assembler/layout.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <unordered_map>

namespace lanaikit::assembler {

namespace {

constexpr char kMagic[4] = {'L', 'K', 'L', 'Y'};
constexpr uint32_t kVersion = 1;
constexpr size_t kHeaderSize = 24; // magic, version, length, nstructs, nglobals, nhandlers

// Smallest encodings, used to reject counts that cannot fit in the remaining bytes before
// allocating anything for them.
constexpr size_t kMinStruct = 4 + 4 + 4 + 4;  // name length, size, align, nfields
constexpr size_t kMinField = 4 + 4 + 4 + 4;   // name length, offset, size, type length
constexpr size_t kMinGlobal = 4 + 4 + 4 + 4 + 4; // name, type lengths, size, flags, address
constexpr size_t kMinHandler = 4;
// The constants block follows the handlers; a table without constants has none, so its
// bytes are those of a table written before constants existed (docs/image.md).
constexpr char kConstantsTag[4] = {'L', 'K', 'C', 'N'};
constexpr size_t kMinConstant = 4 + 4 + 4 + 4 + 4; // name, type lengths, flags, value
constexpr uint32_t kConstantSigned = 1, kConstantOverridable = 2;

class Writer {
public:
  std::vector<uint8_t> buf;
  void u32(uint32_t v) {
    buf.push_back(uint8_t(v >> 24));
    buf.push_back(uint8_t(v >> 16));
    buf.push_back(uint8_t(v >> 8));
    buf.push_back(uint8_t(v));
  }
  void str(const std::string& s) {
    u32(uint32_t(s.size()));
    buf.insert(buf.end(), s.begin(), s.end());
  }
};

class Reader {
public:
  Reader(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  size_t left() const { return size_ - pos_; }
  uint32_t u32(const char* what) {
    need(4, what);
    const uint8_t* p = data_ + pos_;
    pos_ += 4;
    return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3];
  }
  std::string str(const char* what) {
    uint32_t n = u32(what);
    need(n, what);
    std::string s(reinterpret_cast<const char*>(data_ + pos_), n);
    pos_ += n;
    return s;
  }
  // A count of entries that each take at least `min_bytes`.
  uint32_t count(const char* what, size_t min_bytes) {
    uint32_t n = u32(what);
    if (min_bytes && n > left() / min_bytes)
      fail(std::string(what) + " count " + std::to_string(n) + " exceeds the remaining " +
           std::to_string(left()) + " bytes");
    return n;
  }
  [[noreturn]] void fail(const std::string& why) const {
    throw std::runtime_error("malformed layout table: " + why + " (at byte " +
                             std::to_string(pos_) + " of " + std::to_string(size_) + ")");
  }

private:
  void need(size_t n, const char* what) {
    if (left() < n)
      fail(std::string("truncated ") + what);
  }
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

std::string join_names(const std::vector<std::string>& names) {
  if (names.empty())
    return "none";
  std::string out;
  for (size_t i = 0; i < names.size(); ++i)
    out += (i ? ", " : "") + names[i];
  return out;
}

std::string describe(const StructLayout& s) {
  std::string out = "struct " + s.name + " (size " + std::to_string(s.size) + ", align " +
                    std::to_string(s.align) + ": ";
  for (size_t i = 0; i < s.fields.size(); ++i) {
    const LayoutField& f = s.fields[i];
    out += (i ? ", " : "") + f.name + " " + f.type + " @" + std::to_string(f.offset) + "+" +
           std::to_string(f.size);
  }
  return out + ")";
}

std::string describe(const GlobalLayout& g) {
  std::string out = "global " + g.name + " (" + g.type + ", size " + std::to_string(g.size);
  if (g.pinned_address) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%x", *g.pinned_address);
    out += std::string(", @ ") + buf;
  }
  return out + ")";
}

std::string describe(const ConstantLayout& c) {
  std::string value = c.is_signed ? std::to_string(c.signed_value()) : std::to_string(c.value);
  return "constant " + c.name + " (" + c.type + " = " + value +
         (c.overridable ? ", overridable" : "") + ")";
}

template <class T>
const T* find_by_name(const std::vector<T>& v, std::string_view name) {
  for (const T& x : v)
    if (x.name == name)
      return &x;
  return nullptr;
}

template <class T> std::string conflict(const char* kind, const T& first, const T& second) {
  return std::string("layout conflict: ") + kind + " " + second.name +
         " has two different definitions: " + describe(first) + " and " + describe(second);
}

template <class T> void sort_by_name(std::vector<T>& v) {
  std::stable_sort(v.begin(), v.end(), [](const T& a, const T& b) { return a.name < b.name; });
}

// Adds `x` to `v` unless an equal entry of that name exists; a different one throws. The
// first entry of a name is the one compared against, as a linear search would find it.
template <class T>
void merge_entries(std::vector<T>& v, const std::vector<T>& from, const char* kind) {
  v.reserve(v.size() + from.size()); // first, so the views below stay valid
  std::unordered_map<std::string_view, size_t> first;
  first.reserve(v.size() + from.size());
  for (size_t i = 0; i < v.size(); ++i)
    first.try_emplace(v[i].name, i);
  for (const T& x : from) {
    auto it = first.find(x.name);
    if (it == first.end()) {
      v.push_back(x);
      first.emplace(v.back().name, v.size() - 1);
      continue;
    }
    if (!(v[it->second] == x))
      throw std::runtime_error(conflict(kind, v[it->second], x));
  }
  sort_by_name(v);
}

} // namespace

const LayoutField& StructLayout::field(std::string_view field_name) const {
  for (const LayoutField& f : fields)
    if (f.name == field_name)
      return f;
  std::vector<std::string> names;
  for (const LayoutField& f : fields)
    names.push_back(f.name);
  throw std::out_of_range("struct " + name + " has no field '" + std::string(field_name) +
                          "' (its fields: " + join_names(names) + ")");
}

bool StructLayout::has_field(std::string_view field_name) const {
  return find_by_name(fields, field_name) != nullptr;
}

const StructLayout* LayoutTable::find_struct(std::string_view name) const {
  return find_by_name(structs, name);
}

const GlobalLayout* LayoutTable::find_global(std::string_view name) const {
  return find_by_name(globals, name);
}

const ConstantLayout* LayoutTable::find_constant(std::string_view name) const {
  return find_by_name(constants, name);
}

const ConstantLayout& LayoutTable::constant(std::string_view name) const {
  if (const ConstantLayout* c = find_constant(name))
    return *c;
  std::vector<std::string> names;
  for (const ConstantLayout& c : constants)
    names.push_back(c.name);
  throw std::out_of_range("no constant '" + std::string(name) + "' in the image (constants: " +
                          join_names(names) + ")");
}

bool LayoutTable::is_handler(std::string_view name) const {
  return std::find(handlers.begin(), handlers.end(), name) != handlers.end();
}

std::vector<uint8_t> encode_layout(const LayoutTable& table) {
  Writer w;
  w.buf.insert(w.buf.end(), kMagic, kMagic + 4);
  w.u32(kVersion);
  w.u32(0); // total length, patched below
  w.u32(uint32_t(table.structs.size()));
  w.u32(uint32_t(table.globals.size()));
  w.u32(uint32_t(table.handlers.size()));
  for (const StructLayout& s : table.structs) {
    w.str(s.name);
    w.u32(s.size);
    w.u32(s.align);
    w.u32(uint32_t(s.fields.size()));
    for (const LayoutField& f : s.fields) {
      w.str(f.name);
      w.u32(f.offset);
      w.u32(f.size);
      w.str(f.type);
    }
  }
  for (const GlobalLayout& g : table.globals) {
    w.str(g.name);
    w.str(g.type);
    w.u32(g.size);
    w.u32(g.pinned_address ? 1 : 0);
    w.u32(g.pinned_address.value_or(0));
  }
  for (const std::string& h : table.handlers)
    w.str(h);
  if (!table.constants.empty()) {
    w.buf.insert(w.buf.end(), kConstantsTag, kConstantsTag + 4);
    w.u32(uint32_t(table.constants.size()));
    for (const ConstantLayout& c : table.constants) {
      w.str(c.name);
      w.str(c.type);
      w.u32((c.is_signed ? kConstantSigned : 0) | (c.overridable ? kConstantOverridable : 0));
      w.u32(uint32_t(c.value >> 32));
      w.u32(uint32_t(c.value));
    }
  }
  uint32_t length = uint32_t(w.buf.size());
  for (int i = 0; i < 4; ++i)
    w.buf[8 + i] = uint8_t(length >> (24 - 8 * i));
  return std::move(w.buf);
}

LayoutTable decode_layout(const uint8_t* data, size_t size) {
  Reader r(data, size);
  if (size < kHeaderSize || std::memcmp(data, kMagic, 4) != 0)
    r.fail(size < kHeaderSize ? "shorter than its 24-byte header"
                              : "does not start with \"LKLY\"");
  r.u32("magic");
  uint32_t version = r.u32("version");
  if (version != kVersion)
    throw std::runtime_error("layout table version " + std::to_string(version) +
                             " is not supported (expected " + std::to_string(kVersion) + ")");
  uint32_t length = r.u32("length");
  if (length != size)
    r.fail("header says " + std::to_string(length) + " bytes but there are " +
           std::to_string(size));
  uint32_t nstructs = r.u32("struct count");
  uint32_t nglobals = r.u32("global count");
  uint32_t nhandlers = r.u32("handler count");
  // Each count must fit in what is left, so a corrupt count cannot make us allocate much.
  if (nstructs > r.left() / kMinStruct || nglobals > r.left() / kMinGlobal ||
      nhandlers > r.left() / kMinHandler)
    r.fail("entry counts exceed the table's size");

  LayoutTable t;
  t.structs.reserve(nstructs);
  for (uint32_t i = 0; i < nstructs; ++i) {
    StructLayout s;
    s.name = r.str("struct name");
    s.size = r.u32("struct size");
    s.align = r.u32("struct alignment");
    uint32_t nfields = r.count("field", kMinField);
    s.fields.reserve(nfields);
    for (uint32_t j = 0; j < nfields; ++j) {
      LayoutField f;
      f.name = r.str("field name");
      f.offset = r.u32("field offset");
      f.size = r.u32("field size");
      f.type = r.str("field type");
      s.fields.push_back(std::move(f));
    }
    t.structs.push_back(std::move(s));
  }
  t.globals.reserve(nglobals);
  for (uint32_t i = 0; i < nglobals; ++i) {
    GlobalLayout g;
    g.name = r.str("global name");
    g.type = r.str("global type");
    g.size = r.u32("global size");
    uint32_t flags = r.u32("global flags");
    uint32_t address = r.u32("global address");
    if (flags & ~1u)
      r.fail("unknown global flags " + std::to_string(flags));
    if (flags & 1u)
      g.pinned_address = address;
    else if (address != 0)
      r.fail("global " + g.name + " is not pinned but has address " + std::to_string(address));
    t.globals.push_back(std::move(g));
  }
  t.handlers.reserve(nhandlers);
  for (uint32_t i = 0; i < nhandlers; ++i)
    t.handlers.push_back(r.str("handler name"));
  if (r.left() >= 4 && std::memcmp(data + (size - r.left()), kConstantsTag, 4) == 0) {
    r.u32("constants tag");
    // An empty block is never written, so accepting one would make decoding lossy.
    uint32_t nconstants = r.count("constant", kMinConstant);
    if (nconstants == 0)
      r.fail("empty constants block");
    t.constants.reserve(nconstants);
    for (uint32_t i = 0; i < nconstants; ++i) {
      ConstantLayout c;
      c.name = r.str("constant name");
      c.type = r.str("constant type");
      uint32_t flags = r.u32("constant flags");
      if (flags & ~(kConstantSigned | kConstantOverridable))
        r.fail("unknown constant flags " + std::to_string(flags));
      c.is_signed = flags & kConstantSigned;
      c.overridable = flags & kConstantOverridable;
      uint64_t hi = r.u32("constant value");
      c.value = (hi << 32) | r.u32("constant value");
      t.constants.push_back(std::move(c));
    }
  }
  if (r.left() != 0)
    r.fail(std::to_string(r.left()) + " bytes after the last entry");
  return t;
}

void merge_layout(LayoutTable& into, const LayoutTable& from) {
  LayoutTable merged = into; // `into` stays as it was if this throws
  merge_entries(merged.structs, from.structs, "struct");
  merge_entries(merged.globals, from.globals, "global");
  merge_entries(merged.constants, from.constants, "constant");
  for (const std::string& h : from.handlers)
    if (!merged.is_handler(h))
      merged.handlers.push_back(h);
  std::sort(merged.handlers.begin(), merged.handlers.end());
  into = std::move(merged);
}

template <class T>
void LayoutMerger::add_entry(std::vector<T>& into, Index& index, const T& x, unsigned input,
                             const char* kind, std::vector<Conflict>& conflicts) {
  auto [it, inserted] = index.try_emplace(x.name, Entry{into.size(), input});
  if (inserted)
    into.push_back(x);
  else if (!(into[it->second.position] == x))
    conflicts.push_back({it->second.input, conflict(kind, into[it->second.position], x)});
}

std::vector<LayoutMerger::Conflict> LayoutMerger::add(const LayoutTable& table, unsigned input) {
  std::vector<Conflict> conflicts;
  for (const StructLayout& x : table.structs)
    add_entry(table_.structs, structs_, x, input, "struct", conflicts);
  for (const GlobalLayout& x : table.globals)
    add_entry(table_.globals, globals_, x, input, "global", conflicts);
  for (const ConstantLayout& x : table.constants)
    add_entry(table_.constants, constants_, x, input, "constant", conflicts);
  for (const std::string& h : table.handlers)
    if (handlers_.insert(h).second)
      table_.handlers.push_back(h);
  return conflicts;
}

LayoutTable LayoutMerger::finish() && {
  // Names are unique here, so this is the order merge_layout's sorts leave.
  sort_by_name(table_.structs);
  sort_by_name(table_.globals);
  sort_by_name(table_.constants);
  std::sort(table_.handlers.begin(), table_.handlers.end());
  return std::move(table_);
}

LayoutTable decode_layout_section(const uint8_t* data, size_t size) {
  LayoutTable out;
  size_t pos = 0;
  while (pos < size) {
    if (data[pos] == 0) { // alignment padding between tables
      ++pos;
      continue;
    }
    if (size - pos < kHeaderSize)
      throw std::runtime_error("malformed layout table: " + std::to_string(size - pos) +
                               " stray bytes at offset " + std::to_string(pos) +
                               " of the section");
    const uint8_t* p = data + pos + 8;
    uint32_t length = (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3];
    if (length < kHeaderSize || length > size - pos)
      throw std::runtime_error("malformed layout table: the table at offset " +
                               std::to_string(pos) + " claims " + std::to_string(length) +
                               " bytes but " + std::to_string(size - pos) + " remain");
    merge_layout(out, decode_layout(data + pos, length));
    pos += length;
  }
  return out;
}

const StructLayout& LayoutTable::struct_layout(std::string_view name) const {
  if (const StructLayout* s = find_struct(name))
    return *s;
  std::vector<std::string> names;
  for (const StructLayout& s : structs)
    names.push_back(s.name);
  throw std::out_of_range("no struct layout '" + std::string(name) +
                          "' in the image (structs: " + join_names(names) + ")");
}

} // namespace lanaikit::assembler
