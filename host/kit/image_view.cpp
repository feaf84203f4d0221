// The image view: names to SRAM places through the layout table (image_view.h).
#include "host/kit/image_view.h"

#include <charconv>

namespace lanaikit::kit {

namespace {

// "T[N]" -> ("T", N): the last suffix is the outermost dimension (u8[4][2] is 2 x u8[4]).
bool split_array(std::string_view type, std::string_view& elem, uint32_t& count) {
  if (type.empty() || type.back() != ']') return false;
  const size_t open = type.rfind('[');
  if (open == std::string_view::npos) return false;
  const std::string_view digits = type.substr(open + 1, type.size() - open - 2);
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), count);
  if (ec != std::errc() || ptr != digits.data() + digits.size()) return false;
  elem = type.substr(0, open);
  return true;
}

std::string names_of(const std::vector<assembler::LayoutField>& fields) {
  std::string s;
  for (const auto& f : fields)
    s.append(s.empty() ? "" : ", ").append(f.name);
  return s;
}

} // namespace

ImageView::ImageView(const assembler::FirmwareImage& image, std::string who, std::string expected)
    : image_(image), who_(std::move(who)), expected_(std::move(expected)) {}

void ImageView::fail(const std::string& what) const {
  throw KitError(who_ + ": " + what);
}

bool ImageView::has_global(std::string_view name) const {
  const assembler::GlobalLayout* g = image_.layout_table.find_global(name);
  return (g && g->pinned_address) || image_.symbol(name).has_value();
}

Ref ImageView::global(std::string_view name) const {
  const assembler::GlobalLayout* g = image_.layout_table.find_global(name);
  std::optional<uint32_t> at = image_.symbol(name);
  if (!at && g && g->pinned_address) at = *g->pinned_address;
  if (!at) {
    std::string msg = "the image has no global '" + std::string(name) + "'";
    if (!expected_.empty()) msg += " (is it " + expected_ + "?)";
    fail(msg);
  }
  uint32_t size = g ? g->size : 0;
  if (size == 0)
    for (const assembler::Symbol* s : image_.symbols_named(name))
      if (s->size) {
        size = s->size;
        break;
      }
  if (size == 0) fail("the image does not give the size of '" + std::string(name) + "'");
  return Ref(*this, *at, size, g ? g->type : std::string(), std::string(name));
}

const assembler::StructLayout& ImageView::layout(std::string_view struct_name) const {
  const assembler::StructLayout* s = image_.layout_table.find_struct(struct_name);
  if (!s) {
    std::string have;
    for (const auto& st : image_.layout_table.structs)
      have.append(have.empty() ? "" : ", ").append(st.name);
    fail("the image has no struct '" + std::string(struct_name) +
         "' (it has: " + (have.empty() ? "none" : have) + ")");
  }
  return *s;
}

uint32_t ImageView::offset(std::string_view struct_name, std::string_view field) const {
  const assembler::StructLayout& s = layout(struct_name);
  for (const auto& f : s.fields)
    if (f.name == field) return f.offset;
  fail("struct " + s.name + " has no field '" + std::string(field) +
       "' (it has: " + names_of(s.fields) + ")");
}

uint32_t ImageView::size(std::string_view struct_name) const {
  return layout(struct_name).size;
}

uint64_t ImageView::constant(std::string_view name) const {
  const assembler::ConstantLayout* c = image_.layout_table.find_constant(name);
  if (!c) {
    std::string msg = "the image has no constant '" + std::string(name) + "'";
    if (!expected_.empty()) msg += " (is it " + expected_ + "?)";
    fail(msg);
  }
  return c->value;
}

uint32_t ImageView::constant32(std::string_view name) const {
  const assembler::ConstantLayout* c = image_.layout_table.find_constant(name);
  const uint64_t v = constant(name);
  const bool fits =
      c->is_signed ? int64_t(v) >= INT32_MIN && int64_t(v) <= int64_t(UINT32_MAX) : v <= UINT32_MAX;
  if (!fits)
    fail("constant '" + std::string(name) + "' = " + std::to_string(v) + " does not fit 32 bits");
  return uint32_t(v);
}

uint32_t ImageView::handler(std::string_view name) const {
  const std::optional<uint32_t> at = image_.handler_entry(name);
  if (!at) fail("the image has no handler '" + std::string(name) + "'");
  return *at;
}

Ref ImageView::ref(std::string_view path) const {
  // A global name, then any number of ".field" and "[index]".
  size_t i = path.find_first_of(".[");
  Ref r = global(path.substr(0, i));
  while (i < path.size()) {
    if (path[i] == '.') {
      const size_t end = path.find_first_of(".[", i + 1);
      r = r.field(
          path.substr(i + 1, end == std::string_view::npos ? std::string_view::npos : end - i - 1));
      i = end == std::string_view::npos ? path.size() : end;
    } else {
      const size_t close = path.find(']', i);
      uint32_t index = 0;
      const char* b = path.data() + i + 1;
      const char* e =
          close == std::string_view::npos ? path.data() + path.size() : path.data() + close;
      auto [ptr, ec] = std::from_chars(b, e, index);
      if (close == std::string_view::npos || ec != std::errc() || ptr != e)
        fail("malformed path '" + std::string(path) + "' (expected global.field[index]...)");
      r = r[index];
      i = close + 1;
    }
  }
  return r;
}

const ImageView& Ref::view() const {
  if (!view_) throw KitError("an unresolved kit::Ref was used (assign it from an ImageView first)");
  return *view_;
}

Ref Ref::field(std::string_view name) const {
  const assembler::StructLayout& s = layout();
  for (const auto& f : s.fields)
    if (f.name == name)
      return Ref(view(), addr_ + f.offset, f.size, f.type, path_ + "." + std::string(name));
  view().fail(path_ + " (" + s.name + ") has no field '" + std::string(name) +
              "' (it has: " + names_of(s.fields) + ")");
}

bool Ref::is_array() const {
  std::string_view elem;
  uint32_t n = 0;
  return split_array(type_, elem, n);
}

uint32_t Ref::count() const {
  std::string_view elem;
  uint32_t n = 0;
  if (!split_array(type_, elem, n))
    view().fail(path_ + " is not an array (its type is '" + type_ + "')");
  return n;
}

uint32_t Ref::elem_size() const {
  const uint32_t n = count();
  return n ? size_ / n : 0;
}

Ref Ref::operator[](uint32_t i) const {
  std::string_view elem;
  uint32_t n = 0;
  if (!split_array(type_, elem, n))
    view().fail(path_ + " is not an array (its type is '" + type_ + "')");
  if (i >= n)
    view().fail(path_ + "[" + std::to_string(i) + "] is past the end (" + std::to_string(n) +
                " elements)");
  const uint32_t es = size_ / n;
  return Ref(view(), addr_ + i * es, es, std::string(elem), path_ + "[" + std::to_string(i) + "]");
}

bool Ref::is_integer() const {
  const std::string& t = type_;
  if (t.size() >= 2 && (t[0] == 'u' || t[0] == 'i') &&
      t.find_first_not_of("0123456789", 1) == std::string::npos)
    return true;
  if (t.empty() || !view_) return false;
  const std::string prefix = t + ".";
  for (const assembler::ConstantLayout& c : view().image_.layout_table.constants)
    if (c.name.compare(0, prefix.size(), prefix) == 0) return true;
  return false;
}

const assembler::StructLayout& Ref::layout() const {
  if (type_.empty() || type_.back() == ']' || type_[0] == '*' ||
      !view().image_.layout_table.find_struct(type_))
    view().fail(path_ + " is not a struct (its type is '" + (type_.empty() ? "unknown" : type_) +
                "')");
  return view().layout(type_);
}

} // namespace lanaikit::kit
