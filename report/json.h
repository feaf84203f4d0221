// JSON (RFC 8259): the streaming writer behind traces and reports whose size is bounded
// while they are written (report/chrome_trace.h). Whole documents (lk.write_json) are
// nlohmann-json's ordered_json, and tests read JSON with nlohmann-json's parser.
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

} // namespace lanaikit::report
