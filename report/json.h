// JSON (RFC 8259): a streaming writer for reports and traces, and a small document type
// with a strict parser for tests and trace checks.
//
// Output is deterministic: doubles are written in their shortest round-trip form
// (std::to_chars), with ".0" appended when that form looks like an integer so a double
// stays a double when read back; NaN and infinities are rejected (JSON has no spelling for
// them). Strings are escaped as RFC 8259 requires (", \, control characters); other bytes
// pass through as UTF-8, and a byte that is not part of valid UTF-8 becomes U+FFFD.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace lanaikit::report {

// Streaming writer. Misuse (a value where a key is due, end_array closing an object,
// finishing inside a container) throws std::logic_error; NaN/Inf throw
// std::invalid_argument. `indent` > 0 pretty-prints with that many spaces per level;
// 0 writes compactly.
class JsonWriter {
public:
  explicit JsonWriter(std::ostream& out, int indent = 0);

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(std::string_view k);

  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(const std::string& s) { return value(std::string_view(s)); }
  JsonWriter& value(bool b);
  JsonWriter& value(std::nullptr_t);
  JsonWriter& value(int64_t v);
  JsonWriter& value(uint64_t v);
  JsonWriter& value(int v) { return value(int64_t(v)); }
  JsonWriter& value(unsigned v) { return value(uint64_t(v)); }
  JsonWriter& value(double v);
  JsonWriter& null() { return value(nullptr); }
  // Writes `json` verbatim as one value; the caller vouches that it is valid JSON
  // (used for numbers formatted exactly elsewhere, e.g. trace timestamps).
  JsonWriter& raw_value(std::string_view json);

  // Key and value in one call.
  template <typename T> JsonWriter& member(std::string_view k, const T& v) {
    key(k);
    return value(v);
  }

  // True once the top-level value is complete.
  bool done() const { return stack_.empty() && wrote_top_; }

private:
  enum class Ctx : uint8_t { Object, Array };
  struct Level {
    Ctx ctx;
    bool empty = true;
    bool key_pending = false; // object: a key was written, its value is due
  };
  void before_value(); // separators, indentation, state checks
  void newline_indent(size_t depth);

  std::ostream& out_;
  int indent_;
  std::vector<Level> stack_;
  bool wrote_top_ = false;
};

// The JSON spelling of a string (with quotes) and of a double (shortest round trip,
// ".0" added to integral values; throws std::invalid_argument for NaN/Inf).
std::string json_quote(std::string_view s);
std::string json_number(double v);

// A parsed or built JSON document. Integers that fit int64 are kept as int64, every other
// number as double. Objects keep their keys in insertion (file) order.
class JsonValue {
public:
  using Array = std::vector<JsonValue>;
  using Object = std::vector<std::pair<std::string, JsonValue>>;
  enum class Type : uint8_t { Null, Bool, Int, Double, String, Array, Object };

  JsonValue() = default;
  JsonValue(std::nullptr_t) {}
  JsonValue(bool b) : v_(b) {}
  JsonValue(int v) : v_(int64_t(v)) {}
  JsonValue(int64_t v) : v_(v) {}
  JsonValue(unsigned v) : v_(int64_t(v)) {}
  JsonValue(uint64_t v); // an int64 if it fits, else the nearest double
  JsonValue(double v) : v_(v) {}
  JsonValue(const char* s) : v_(std::string(s)) {}
  JsonValue(std::string s) : v_(std::move(s)) {}
  JsonValue(Array a) : v_(std::move(a)) {}
  JsonValue(Object o) : v_(std::move(o)) {}
  static JsonValue array() { return JsonValue(Array{}); }
  static JsonValue object() { return JsonValue(Object{}); }

  Type type() const { return Type(v_.index()); }
  bool is_null() const { return type() == Type::Null; }
  bool is_bool() const { return type() == Type::Bool; }
  bool is_int() const { return type() == Type::Int; }
  bool is_double() const { return type() == Type::Double; }
  bool is_number() const { return is_int() || is_double(); }
  bool is_string() const { return type() == Type::String; }
  bool is_array() const { return type() == Type::Array; }
  bool is_object() const { return type() == Type::Object; }

  // Typed access; the wrong type throws std::runtime_error naming both types.
  bool as_bool() const;
  int64_t as_int() const;
  double as_double() const; // an Int converts
  const std::string& as_string() const;
  const Array& as_array() const;
  Array& as_array();
  const Object& as_object() const;
  Object& as_object();

  // Object members: find returns nullptr when absent; at() throws std::out_of_range.
  const JsonValue* find(std::string_view key) const;
  const JsonValue& at(std::string_view key) const;
  const JsonValue& at(size_t index) const;
  size_t size() const; // elements of an array or members of an object
  // Appends to an array, or sets (replacing in place, else appending) an object member.
  JsonValue& push_back(JsonValue v);
  JsonValue& set(std::string key, JsonValue v);

  friend bool operator==(const JsonValue& a, const JsonValue& b) { return a.v_ == b.v_; }

private:
  std::variant<std::nullptr_t, bool, int64_t, double, std::string, Array, Object> v_;
};

const char* json_type_name(JsonValue::Type t);

// Serializes a document (pretty: two-space indentation, one member per line).
std::string to_json(const JsonValue& v, bool pretty = true);
void write_json(JsonWriter& w, const JsonValue& v);

// Strict RFC 8259 parser: one value with optional surrounding whitespace (space, tab, LF,
// CR), no comments, no trailing commas, no leading zeros, no NaN, strings valid UTF-8 with
// no raw control characters, \u escapes with paired surrogates. Duplicate object keys are
// rejected too (RFC 8259 allows them but leaves their meaning open). Nesting is limited to
// 512 levels. Errors throw JsonParseError: "json: LINE:COL: what" (1-based; COL counts
// bytes).
class JsonParseError : public std::runtime_error {
public:
  JsonParseError(size_t line, size_t col, const std::string& what);
  size_t line, col;
};
JsonValue parse_json(std::string_view text);

} // namespace lanaikit::report
