#include "report/json.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <ostream>
#include <sstream>

namespace lanaikit::report {

namespace {

// Length of the valid UTF-8 sequence starting at s[i], or 0 if there is none (overlong
// forms, surrogates and code points above U+10FFFF are invalid).
size_t utf8_sequence(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return uint8_t(s[i + k]); };
  const uint8_t c = b(0);
  if (c < 0x80) return 1;
  size_t n;
  uint32_t cp;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
    cp = c & 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    cp = c & 0x0F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    cp = c & 0x07;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((b(k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(k) & 0x3F);
  }
  if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10FFFF ||
      (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  return n;
}

} // namespace

std::string json_quote(std::string_view s) {
  static const char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (size_t i = 0; i < s.size();) {
    const uint8_t c = uint8_t(s[i]);
    if (c >= 0x80) {
      const size_t n = utf8_sequence(s, i);
      if (n == 0) {
        out += "\xEF\xBF\xBD"; // U+FFFD for a byte that is not valid UTF-8
        ++i;
      } else {
        out.append(s.substr(i, n));
        i += n;
      }
      continue;
    }
    switch (c) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\b': out += "\\b"; break;
    case '\f': out += "\\f"; break;
    case '\n': out += "\\n"; break;
    case '\r': out += "\\r"; break;
    case '\t': out += "\\t"; break;
    default:
      if (c < 0x20) {
        out += "\\u00";
        out += hex[c >> 4];
        out += hex[c & 15];
      } else {
        out += char(c);
      }
    }
    ++i;
  }
  out += '"';
  return out;
}

std::string json_number(double v) {
  if (!std::isfinite(v))
    throw std::invalid_argument("json: cannot write " + std::string(std::isnan(v) ? "NaN" : "an infinity") +
                                " (JSON has no spelling for it)");
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

// ---- JsonWriter ---------------------------------------------------------------------

JsonWriter::JsonWriter(std::ostream& out, int indent) : out_(out), indent_(indent) {}

void JsonWriter::newline_indent(size_t depth) {
  if (indent_ <= 0) return;
  out_ << '\n';
  for (size_t i = 0; i < depth * size_t(indent_); ++i) out_ << ' ';
}

void JsonWriter::before_value() {
  if (stack_.empty()) {
    if (wrote_top_) throw std::logic_error("JsonWriter: a second top-level value");
    wrote_top_ = true;
    return;
  }
  Level& l = stack_.back();
  if (l.ctx == Ctx::Object) {
    if (!l.key_pending) throw std::logic_error("JsonWriter: a value in an object needs a key first");
    l.key_pending = false;
    return;
  }
  if (!l.empty) out_ << ',';
  l.empty = false;
  newline_indent(stack_.size());
}

JsonWriter& JsonWriter::key(std::string_view k) {
  if (stack_.empty() || stack_.back().ctx != Ctx::Object)
    throw std::logic_error("JsonWriter: key outside an object");
  Level& l = stack_.back();
  if (l.key_pending) throw std::logic_error("JsonWriter: two keys in a row");
  if (!l.empty) out_ << ',';
  l.empty = false;
  l.key_pending = true;
  newline_indent(stack_.size());
  out_ << json_quote(k) << (indent_ > 0 ? ": " : ":");
  return *this;
}

JsonWriter& JsonWriter::begin_object() {
  before_value();
  out_ << '{';
  stack_.push_back({Ctx::Object});
  return *this;
}

JsonWriter& JsonWriter::begin_array() {
  before_value();
  out_ << '[';
  stack_.push_back({Ctx::Array});
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  if (stack_.empty() || stack_.back().ctx != Ctx::Object)
    throw std::logic_error("JsonWriter: end_object without an open object");
  if (stack_.back().key_pending) throw std::logic_error("JsonWriter: end_object after a key with no value");
  const bool empty = stack_.back().empty;
  stack_.pop_back();
  if (!empty) newline_indent(stack_.size());
  out_ << '}';
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  if (stack_.empty() || stack_.back().ctx != Ctx::Array)
    throw std::logic_error("JsonWriter: end_array without an open array");
  const bool empty = stack_.back().empty;
  stack_.pop_back();
  if (!empty) newline_indent(stack_.size());
  out_ << ']';
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view s) {
  before_value();
  out_ << json_quote(s);
  return *this;
}

JsonWriter& JsonWriter::value(bool b) {
  before_value();
  out_ << (b ? "true" : "false");
  return *this;
}

JsonWriter& JsonWriter::value(std::nullptr_t) {
  before_value();
  out_ << "null";
  return *this;
}

JsonWriter& JsonWriter::value(int64_t v) {
  before_value();
  char buf[32];
  out_.write(buf, std::to_chars(buf, buf + sizeof buf, v).ptr - buf);
  return *this;
}

JsonWriter& JsonWriter::value(uint64_t v) {
  before_value();
  char buf[32];
  out_.write(buf, std::to_chars(buf, buf + sizeof buf, v).ptr - buf);
  return *this;
}

JsonWriter& JsonWriter::value(double v) {
  const std::string s = json_number(v); // throws before any state changes
  before_value();
  out_ << s;
  return *this;
}

JsonWriter& JsonWriter::raw_value(std::string_view json) {
  before_value();
  out_ << json;
  return *this;
}

} // namespace lanaikit::report
