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

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += char(cp);
  } else if (cp < 0x800) {
    out += char(0xC0 | (cp >> 6));
    out += char(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += char(0xE0 | (cp >> 12));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  } else {
    out += char(0xF0 | (cp >> 18));
    out += char(0x80 | ((cp >> 12) & 0x3F));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  }
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

// ---- JsonValue ----------------------------------------------------------------------

JsonValue::JsonValue(uint64_t v) {
  if (v <= uint64_t(std::numeric_limits<int64_t>::max()))
    v_ = int64_t(v);
  else
    v_ = double(v);
}

const char* json_type_name(JsonValue::Type t) {
  switch (t) {
  case JsonValue::Type::Null: return "null";
  case JsonValue::Type::Bool: return "bool";
  case JsonValue::Type::Int: return "integer";
  case JsonValue::Type::Double: return "number";
  case JsonValue::Type::String: return "string";
  case JsonValue::Type::Array: return "array";
  case JsonValue::Type::Object: return "object";
  }
  return "?";
}

namespace {
[[noreturn]] void wrong_type(JsonValue::Type want, JsonValue::Type got) {
  throw std::runtime_error(std::string("json: expected ") + json_type_name(want) + ", got " +
                           json_type_name(got));
}
} // namespace

bool JsonValue::as_bool() const {
  if (!is_bool()) wrong_type(Type::Bool, type());
  return std::get<bool>(v_);
}
int64_t JsonValue::as_int() const {
  if (!is_int()) wrong_type(Type::Int, type());
  return std::get<int64_t>(v_);
}
double JsonValue::as_double() const {
  if (is_int()) return double(std::get<int64_t>(v_));
  if (!is_double()) wrong_type(Type::Double, type());
  return std::get<double>(v_);
}
const std::string& JsonValue::as_string() const {
  if (!is_string()) wrong_type(Type::String, type());
  return std::get<std::string>(v_);
}
const JsonValue::Array& JsonValue::as_array() const {
  if (!is_array()) wrong_type(Type::Array, type());
  return std::get<Array>(v_);
}
JsonValue::Array& JsonValue::as_array() {
  if (!is_array()) wrong_type(Type::Array, type());
  return std::get<Array>(v_);
}
const JsonValue::Object& JsonValue::as_object() const {
  if (!is_object()) wrong_type(Type::Object, type());
  return std::get<Object>(v_);
}
JsonValue::Object& JsonValue::as_object() {
  if (!is_object()) wrong_type(Type::Object, type());
  return std::get<Object>(v_);
}

const JsonValue* JsonValue::find(std::string_view key) const {
  for (const auto& [k, v] : as_object())
    if (k == key) return &v;
  return nullptr;
}

const JsonValue& JsonValue::at(std::string_view key) const {
  if (const JsonValue* v = find(key)) return *v;
  throw std::out_of_range("json: no member \"" + std::string(key) + "\"");
}

const JsonValue& JsonValue::at(size_t index) const {
  const Array& a = as_array();
  if (index >= a.size())
    throw std::out_of_range("json: index " + std::to_string(index) + " beyond an array of " +
                            std::to_string(a.size()));
  return a[index];
}

size_t JsonValue::size() const {
  if (is_array()) return as_array().size();
  return as_object().size();
}

JsonValue& JsonValue::push_back(JsonValue v) {
  Array& a = as_array();
  a.push_back(std::move(v));
  return a.back();
}

JsonValue& JsonValue::set(std::string key, JsonValue v) {
  Object& o = as_object();
  for (auto& [k, old] : o)
    if (k == key) return old = std::move(v);
  o.emplace_back(std::move(key), std::move(v));
  return o.back().second;
}

void write_json(JsonWriter& w, const JsonValue& v) {
  switch (v.type()) {
  case JsonValue::Type::Null: w.null(); break;
  case JsonValue::Type::Bool: w.value(v.as_bool()); break;
  case JsonValue::Type::Int: w.value(v.as_int()); break;
  case JsonValue::Type::Double: w.value(v.as_double()); break;
  case JsonValue::Type::String: w.value(std::string_view(v.as_string())); break;
  case JsonValue::Type::Array:
    w.begin_array();
    for (const JsonValue& e : v.as_array()) write_json(w, e);
    w.end_array();
    break;
  case JsonValue::Type::Object:
    w.begin_object();
    for (const auto& [k, e] : v.as_object()) {
      w.key(k);
      write_json(w, e);
    }
    w.end_object();
    break;
  }
}

std::string to_json(const JsonValue& v, bool pretty) {
  std::ostringstream s;
  JsonWriter w(s, pretty ? 2 : 0);
  write_json(w, v);
  return s.str();
}

// ---- parser -------------------------------------------------------------------------

JsonParseError::JsonParseError(size_t l, size_t c, const std::string& what)
    : std::runtime_error("json: " + std::to_string(l) + ":" + std::to_string(c) + ": " + what),
      line(l), col(c) {}

namespace {

class Parser {
public:
  explicit Parser(std::string_view t) : t_(t) {}

  JsonValue document() {
    skip_ws();
    JsonValue v = value(0);
    skip_ws();
    if (p_ != t_.size()) fail("unexpected " + describe() + " after the top-level value");
    return v;
  }

private:
  static constexpr int kMaxDepth = 512;

  [[noreturn]] void fail_at(size_t pos, const std::string& what) const {
    size_t line = 1, col = 1;
    for (size_t i = 0; i < pos && i < t_.size(); ++i) {
      if (t_[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    throw JsonParseError(line, col, what);
  }
  [[noreturn]] void fail(const std::string& what) const { fail_at(p_, what); }

  std::string describe() const {
    if (p_ >= t_.size()) return "end of input";
    const uint8_t c = uint8_t(t_[p_]);
    if (c >= 0x21 && c < 0x7F) return std::string("'") + char(c) + "'";
    static const char hex[] = "0123456789abcdef";
    return std::string("byte 0x") + hex[c >> 4] + hex[c & 15];
  }

  void skip_ws() {
    while (p_ < t_.size() && (t_[p_] == ' ' || t_[p_] == '\t' || t_[p_] == '\n' || t_[p_] == '\r'))
      ++p_;
  }

  void expect_literal(std::string_view lit) {
    if (t_.substr(p_, lit.size()) != lit) fail("invalid literal (expected '" + std::string(lit) + "')");
    p_ += lit.size();
  }

  JsonValue value(int depth) {
    if (p_ >= t_.size()) fail("expected a value, got end of input");
    switch (t_[p_]) {
    case '{': return object(depth + 1);
    case '[': return array(depth + 1);
    case '"': return JsonValue(string());
    case 't': expect_literal("true"); return JsonValue(true);
    case 'f': expect_literal("false"); return JsonValue(false);
    case 'n': expect_literal("null"); return JsonValue(nullptr);
    default:
      if (t_[p_] == '-' || (t_[p_] >= '0' && t_[p_] <= '9')) return number();
      fail("expected a value, got " + describe());
    }
  }

  JsonValue object(int depth) {
    if (depth > kMaxDepth) fail("nesting deeper than 512 levels");
    ++p_; // {
    JsonValue obj = JsonValue::object();
    JsonValue::Object& o = obj.as_object();
    skip_ws();
    if (p_ < t_.size() && t_[p_] == '}') {
      ++p_;
      return obj;
    }
    for (;;) {
      skip_ws();
      if (p_ >= t_.size() || t_[p_] != '"') fail("expected a string key, got " + describe());
      const size_t key_pos = p_;
      std::string k = string();
      for (const auto& m : o)
        if (m.first == k) fail_at(key_pos, "duplicate key \"" + k + "\"");
      skip_ws();
      if (p_ >= t_.size() || t_[p_] != ':') fail("expected ':' after an object key, got " + describe());
      ++p_;
      skip_ws();
      JsonValue v = value(depth);
      o.emplace_back(std::move(k), std::move(v));
      skip_ws();
      if (p_ < t_.size() && t_[p_] == ',') {
        ++p_;
        continue;
      }
      if (p_ < t_.size() && t_[p_] == '}') {
        ++p_;
        return obj;
      }
      fail("expected ',' or '}' in an object, got " + describe());
    }
  }

  JsonValue array(int depth) {
    if (depth > kMaxDepth) fail("nesting deeper than 512 levels");
    ++p_; // [
    JsonValue arr = JsonValue::array();
    skip_ws();
    if (p_ < t_.size() && t_[p_] == ']') {
      ++p_;
      return arr;
    }
    for (;;) {
      skip_ws();
      arr.as_array().push_back(value(depth));
      skip_ws();
      if (p_ < t_.size() && t_[p_] == ',') {
        ++p_;
        continue;
      }
      if (p_ < t_.size() && t_[p_] == ']') {
        ++p_;
        return arr;
      }
      fail("expected ',' or ']' in an array, got " + describe());
    }
  }

  uint32_t hex4() {
    if (p_ + 4 > t_.size()) fail("truncated \\u escape");
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = t_[p_];
      v <<= 4;
      if (c >= '0' && c <= '9') v |= uint32_t(c - '0');
      else if (c >= 'a' && c <= 'f') v |= uint32_t(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') v |= uint32_t(c - 'A' + 10);
      else fail("invalid hex digit in \\u escape");
      ++p_;
    }
    return v;
  }

  std::string string() {
    const size_t start = p_;
    ++p_; // "
    std::string out;
    for (;;) {
      if (p_ >= t_.size()) fail_at(start, "unterminated string");
      const uint8_t c = uint8_t(t_[p_]);
      if (c == '"') {
        ++p_;
        return out;
      }
      if (c < 0x20) fail("raw control character in a string (must be escaped)");
      if (c >= 0x80) {
        const size_t n = utf8_sequence(t_, p_);
        if (n == 0) fail("invalid UTF-8 in a string");
        out.append(t_.substr(p_, n));
        p_ += n;
        continue;
      }
      if (c != '\\') {
        out += char(c);
        ++p_;
        continue;
      }
      const size_t esc = p_;
      ++p_;
      if (p_ >= t_.size()) fail_at(start, "unterminated string");
      const char e = t_[p_++];
      switch (e) {
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case '/': out += '/'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'u': {
        uint32_t cp = hex4();
        if (cp >= 0xDC00 && cp <= 0xDFFF) fail_at(esc, "unpaired low surrogate in \\u escape");
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          if (t_.substr(p_, 2) != "\\u") fail_at(esc, "high surrogate not followed by a low surrogate");
          p_ += 2;
          const uint32_t lo = hex4();
          if (lo < 0xDC00 || lo > 0xDFFF) fail_at(esc, "high surrogate not followed by a low surrogate");
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        }
        append_utf8(out, cp);
        break;
      }
      default: fail_at(esc, std::string("invalid escape '\\") + e + "'");
      }
    }
  }

  JsonValue number() {
    const size_t start = p_;
    auto digit = [&] { return p_ < t_.size() && t_[p_] >= '0' && t_[p_] <= '9'; };
    if (t_[p_] == '-') ++p_;
    if (!digit()) fail("expected a digit");
    if (t_[p_] == '0') {
      ++p_;
      if (digit()) fail_at(start, "leading zero in a number");
    } else {
      while (digit()) ++p_;
    }
    bool integral = true;
    if (p_ < t_.size() && t_[p_] == '.') {
      integral = false;
      ++p_;
      if (!digit()) fail("expected a digit after '.'");
      while (digit()) ++p_;
    }
    if (p_ < t_.size() && (t_[p_] == 'e' || t_[p_] == 'E')) {
      integral = false;
      ++p_;
      if (p_ < t_.size() && (t_[p_] == '+' || t_[p_] == '-')) ++p_;
      if (!digit()) fail("expected a digit in the exponent");
      while (digit()) ++p_;
    }
    const char* b = t_.data() + start;
    const char* e = t_.data() + p_;
    if (integral) {
      int64_t i;
      const auto r = std::from_chars(b, e, i);
      if (r.ec == std::errc() && r.ptr == e) return JsonValue(i);
      // Too big for int64: fall through to double.
    }
    double d;
    const auto r = std::from_chars(b, e, d);
    if (r.ec == std::errc::result_out_of_range) {
      // Underflow is fine (it rounds to 0 or a denormal); overflow is not representable.
      bool tiny = false;
      for (const char* q = b; q < e; ++q)
        if ((*q == 'e' || *q == 'E') && q + 1 < e && q[1] == '-') tiny = true;
      if (!tiny) fail_at(start, "number out of the range of a double");
      return JsonValue(0.0);
    }
    if (r.ec != std::errc() || r.ptr != e) fail_at(start, "invalid number");
    return JsonValue(d);
  }

  std::string_view t_;
  size_t p_ = 0;
};

} // namespace

JsonValue parse_json(std::string_view text) { return Parser(text).document(); }

} // namespace lanaikit::report
