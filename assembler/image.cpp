#include "assembler/image.h"

#include <cstdlib>

#include <algorithm>

namespace lanaikit::assembler {

std::optional<uint32_t> FirmwareImage::symbol(std::string_view name) const {
  const Symbol* local = nullptr;
  for (const Symbol& s : symbols) {
    if (s.name != name)
      continue;
    if (s.binding != SymbolBinding::Local)
      return s.address;
    if (!local)
      local = &s;
  }
  if (local)
    return local->address;
  return std::nullopt;
}

const StructLayout& FirmwareImage::layout(std::string_view struct_name) const {
  return layout_table.struct_layout(struct_name);
}

const ConstantLayout& FirmwareImage::constant(std::string_view name) const {
  return layout_table.constant(name);
}

std::optional<uint32_t> FirmwareImage::handler_entry(std::string_view name) const {
  if (!layout_table.is_handler(name))
    return std::nullopt;
  return symbol(name);
}

std::vector<const Symbol*> FirmwareImage::symbols_named(std::string_view name) const {
  std::vector<const Symbol*> out;
  for (const Symbol& s : symbols)
    if (s.name == name)
      out.push_back(&s);
  return out;
}

const Segment* FirmwareImage::segment_at(uint32_t addr) const {
  for (const Segment& seg : segments)
    if (addr >= seg.address && addr - seg.address < seg.mem_size)
      return &seg;
  return nullptr;
}

const Symbol* FirmwareImage::symbol_at(uint32_t addr) const {
  // Prefer a sized function that contains addr (the smallest, if they nest).
  const Symbol* best = nullptr;
  for (const Symbol& s : symbols) {
    if (s.kind != SymbolKind::Function || s.size == 0)
      continue;
    if (addr >= s.address && addr - s.address < s.size)
      if (!best || s.size < best->size)
        best = &s;
  }
  if (best)
    return best;
  // Otherwise the closest unsized code label below addr in the same executable segment,
  // unless a sized function ends in between (then addr is in padding after it).
  const Segment* seg = segment_at(addr);
  if (!seg || !seg->exec)
    return nullptr;
  const Symbol* below = nullptr;
  for (const Symbol& s : symbols) {
    if (s.address > addr || s.address < seg->address)
      continue;
    if (s.kind == SymbolKind::Object)
      continue;
    if (!below || s.address > below->address ||
        (s.address == below->address && s.binding != SymbolBinding::Local &&
         below->binding == SymbolBinding::Local))
      below = &s;
  }
  if (below && below->size != 0)
    return nullptr; // sized and does not contain addr
  return below;
}

std::optional<uint32_t> FirmwareImage::address_of_line(std::string_view file, uint32_t line) const {
  // As a debugger does: a line without code of its own (a comment, a declaration, a line
  // the optimiser merged away) means the next line of that file that has code.
  std::optional<uint32_t> best, best_line;
  for (const LineRow& row : lines) {
    if (row.end_sequence || row.line < line || row.file >= files.size()) continue;
    const std::string& f = files[row.file];
    const bool match = f == file || (f.size() > file.size() &&
                                     f.compare(f.size() - file.size(), file.size(), file) == 0 &&
                                     f[f.size() - file.size() - 1] == '/');
    if (!match) continue;
    if (!best_line || row.line < *best_line || (row.line == *best_line && row.address < *best)) {
      best_line = row.line;
      best = row.address;
    }
  }
  return best;
}

std::optional<uint32_t> FirmwareImage::resolve_location(std::string_view loc) const {
  if (loc.empty()) return std::nullopt;
  if (loc[0] >= '0' && loc[0] <= '9') {
    const std::string text(loc);
    char* end = nullptr;
    const unsigned long long v = std::strtoull(text.c_str(), &end, 0);
    if (*end != '\0' || v > 0xFFFFFFFFull) return std::nullopt;
    return uint32_t(v);
  }
  if (const size_t colon = loc.rfind(':'); colon != std::string_view::npos) {
    const std::string num(loc.substr(colon + 1));
    char* end = nullptr;
    const unsigned long v = std::strtoul(num.c_str(), &end, 10);
    if (num.empty() || *end != '\0') return std::nullopt;
    return address_of_line(loc.substr(0, colon), uint32_t(v));
  }
  return symbol(loc);
}

std::optional<SourceLocation> FirmwareImage::line_at(uint32_t addr) const {
  auto it = std::upper_bound(lines.begin(), lines.end(), addr,
                             [](uint32_t a, const LineRow& r) { return a < r.address; });
  if (it == lines.begin())
    return std::nullopt;
  // Several rows may share the address; the last one before `it` wins, but an
  // end_sequence row at exactly addr ends a previous range and the row after it starts
  // the next, so scan back over rows with the same address for a non-terminal one.
  auto row = std::prev(it);
  for (auto r = row;; --r) {
    if (r->address != row->address)
      break;
    if (!r->end_sequence) {
      row = r;
      break;
    }
    if (r == lines.begin())
      break;
  }
  if (row->end_sequence || row->file >= files.size())
    return std::nullopt;
  return SourceLocation{files[row->file], row->line, row->column};
}

uint32_t FirmwareImage::end() const {
  uint32_t e = 0;
  for (const Segment& s : segments)
    e = std::max(e, s.end());
  return e;
}

uint32_t FirmwareImage::data_end() const {
  uint64_t e = end();
  for (const GlobalLayout& g : layout_table.globals)
    if (g.pinned_address) e = std::max<uint64_t>(e, uint64_t(*g.pinned_address) + g.size);
  return uint32_t(std::min<uint64_t>(e, UINT32_MAX));
}

std::vector<uint8_t> FirmwareImage::flatten() const {
  std::vector<uint8_t> out(end(), 0);
  for (const Segment& s : segments)
    std::copy(s.bytes.begin(), s.bytes.end(), out.begin() + s.address);
  return out;
}

uint32_t FirmwareImage::word_at(uint32_t addr) const {
  uint32_t w = 0;
  for (uint32_t i = 0; i < 4; ++i) {
    uint8_t b = 0;
    uint32_t a = addr + i;
    for (const Segment& s : segments)
      if (a >= s.address && a - s.address < s.bytes.size())
        b = s.bytes[a - s.address];
    w = (w << 8) | b;
  }
  return w;
}

} // namespace lanaikit::assembler
