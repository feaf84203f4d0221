#include "report/json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>

namespace lanaikit::report {
namespace {

std::string compact(const std::function<void(JsonWriter&)>& fn) {
  std::ostringstream s;
  JsonWriter w(s);
  fn(w);
  EXPECT_TRUE(w.done());
  return s.str();
}

TEST(JsonWriter, WritesNestedContainersCompactly) {
  EXPECT_EQ(compact([](JsonWriter& w) {
              w.begin_object().member("a", int64_t(1)).key("b").begin_array();
              w.value(true).value(false).null().value("x").begin_object().end_object().begin_array().end_array();
              w.end_array().member("c", uint64_t(18446744073709551615ull)).end_object();
            }),
            R"({"a":1,"b":[true,false,null,"x",{},[]],"c":18446744073709551615})");
}

TEST(JsonWriter, PrettyPrintsWithIndentation) {
  std::ostringstream s;
  JsonWriter w(s, 2);
  w.begin_object().member("a", 1).key("b").begin_array().value(1).value(2).end_array().key("e").begin_array().end_array();
  w.end_object();
  EXPECT_EQ(s.str(), "{\n  \"a\": 1,\n  \"b\": [\n    1,\n    2\n  ],\n  \"e\": []\n}");
}

TEST(JsonWriter, EscapesQuotesBackslashesAndControlCharacters) {
  EXPECT_EQ(json_quote("a\"b\\c"), R"("a\"b\\c")");
  EXPECT_EQ(json_quote("\b\f\n\r\t"), R"("\b\f\n\r\t")");
  EXPECT_EQ(json_quote(std::string("\x01\x1f\x7f", 3)), "\"\\u0001\\u001f\x7f\"");
  EXPECT_EQ(json_quote(std::string("nul\0!", 5)), R"("nul\u0000!")");
  EXPECT_EQ(json_quote("/"), "\"/\"");
}

TEST(JsonWriter, PassesUtf8ThroughAndReplacesInvalidBytes) {
  EXPECT_EQ(json_quote("µs → 😀"), "\"µs → 😀\"");
  EXPECT_EQ(json_quote("a\xff" "b"), "\"a\xEF\xBF\xBD" "b\"");
  EXPECT_EQ(json_quote("\xC0\xAF"), "\"\xEF\xBF\xBD\xEF\xBF\xBD\""); // overlong '/'
  EXPECT_EQ(json_quote("\xED\xA0\x80"), "\"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\""); // a surrogate
  EXPECT_EQ(json_quote("\xE2\x82"), "\"\xEF\xBF\xBD\xEF\xBF\xBD\""); // truncated sequence
}

TEST(JsonWriter, DoublesAreShortestRoundTripAndStayDoubles) {
  EXPECT_EQ(json_number(0.1), "0.1");
  EXPECT_EQ(json_number(1.0), "1.0");
  EXPECT_EQ(json_number(-0.0), "-0.0");
  EXPECT_EQ(json_number(1e21), "1e+21");
  EXPECT_EQ(json_number(1.5e-7), "1.5e-07");
  EXPECT_EQ(json_number(123456.789), "123456.789");
  EXPECT_EQ(json_number(5e-324), "5e-324");
  for (double d : {0.1, 1.0 / 3, 2.0 / 3 * 1e300, 6.02214076e23, 1e-300, 0.30000000000000004}) {
    const JsonValue v = parse_json(json_number(d));
    ASSERT_TRUE(v.is_double());
    EXPECT_EQ(v.as_double(), d);
  }
}

TEST(JsonWriter, RejectsNanAndInfinity) {
  std::ostringstream s;
  JsonWriter w(s);
  w.begin_array();
  EXPECT_THROW(w.value(std::nan("")), std::invalid_argument);
  EXPECT_THROW(w.value(std::numeric_limits<double>::infinity()), std::invalid_argument);
  EXPECT_THROW(w.value(-std::numeric_limits<double>::infinity()), std::invalid_argument);
  w.value(1.5).end_array(); // the writer is still usable: nothing was written for them
  EXPECT_EQ(s.str(), "[1.5]");
}

TEST(JsonWriter, RejectsMisuse) {
  std::ostringstream s;
  {
    JsonWriter w(s);
    w.begin_object();
    EXPECT_THROW(w.value(1), std::logic_error);   // value without key
    EXPECT_THROW(w.end_array(), std::logic_error); // wrong closer
    w.key("k");
    EXPECT_THROW(w.key("k2"), std::logic_error);
    EXPECT_THROW(w.end_object(), std::logic_error);
    w.value(1).end_object();
    EXPECT_THROW(w.value(2), std::logic_error); // second top-level value
  }
  JsonWriter w2(s);
  EXPECT_THROW(w2.key("x"), std::logic_error);
}

TEST(JsonValue, BuildsAndSerializesWithInsertionOrder) {
  JsonValue o = JsonValue::object();
  o.set("zeta", 1);
  o.set("alpha", "two");
  JsonValue arr = JsonValue::array();
  arr.push_back(nullptr);
  arr.push_back(2.5);
  arr.push_back(false);
  o.set("list", arr);
  o.set("zeta", 3); // replaces in place
  EXPECT_EQ(to_json(o, false), R"({"zeta":3,"alpha":"two","list":[null,2.5,false]})");
  EXPECT_EQ(to_json(o), "{\n  \"zeta\": 3,\n  \"alpha\": \"two\",\n  \"list\": [\n    null,\n    2.5,\n"
                        "    false\n  ]\n}");
  EXPECT_EQ(parse_json(to_json(o)), o);
  EXPECT_EQ(o.at("alpha").as_string(), "two");
  EXPECT_EQ(o.find("nope"), nullptr);
  EXPECT_THROW(o.at("nope"), std::out_of_range);
  EXPECT_THROW(o.at("zeta").as_string(), std::runtime_error);
  EXPECT_EQ(o.at("list").size(), 3u);
  EXPECT_THROW(o.at("list").at(3), std::out_of_range);
}

TEST(JsonParse, ParsesEveryKindOfValue) {
  const JsonValue v = parse_json(
      " {\"i\": -42, \"big\": 9223372036854775807, \"huge\": 18446744073709551616, \"d\": 2.5e3,"
      " \"s\": \"a\\\"\\\\\\/\\b\\f\\n\\r\\t\\u0041\\u00e9\\u20ac\\ud83d\\ude00\", \"t\": true, \"f\": false,"
      " \"n\": null, \"a\": [1, [2, []], {}], \"z\": 0, \"neg0\": -0, \"e\": 1E-2}\r\n");
  EXPECT_EQ(v.at("i").as_int(), -42);
  EXPECT_EQ(v.at("big").as_int(), INT64_MAX);
  EXPECT_TRUE(v.at("huge").is_double());
  EXPECT_EQ(v.at("huge").as_double(), 18446744073709551616.0);
  EXPECT_EQ(v.at("d").as_double(), 2500.0);
  EXPECT_EQ(v.at("s").as_string(), "a\"\\/\b\f\n\r\tAé€😀");
  EXPECT_TRUE(v.at("t").as_bool());
  EXPECT_FALSE(v.at("f").as_bool());
  EXPECT_TRUE(v.at("n").is_null());
  EXPECT_EQ(v.at("a").at(1).at(1).size(), 0u);
  EXPECT_EQ(v.at("z").as_int(), 0);
  EXPECT_EQ(v.at("e").as_double(), 0.01);
  EXPECT_EQ(v.as_object()[0].first, "i"); // file order kept
  EXPECT_EQ(v.as_object().back().first, "e");
}

void expect_error(const std::string& text, const std::string& where_and_what) {
  try {
    parse_json(text);
    ADD_FAILURE() << "parsed without error: " << text;
  } catch (const JsonParseError& e) {
    EXPECT_NE(std::string(e.what()).find(where_and_what), std::string::npos)
        << "input: " << text << "\nerror: " << e.what() << "\nexpected to contain: " << where_and_what;
  }
}

TEST(JsonParse, RejectsWhatRfc8259Rejects) {
  expect_error("", "1:1: expected a value, got end of input");
  expect_error("[1,]", "1:4: expected a value, got ']'");
  expect_error("{\"a\":1,}", "1:8: expected a string key, got '}'");
  expect_error("{\"a\" 1}", "1:6: expected ':'");
  expect_error("[1 2]", "1:4: expected ',' or ']'");
  expect_error("01", "1:1: leading zero");
  expect_error("-", "1:2: expected a digit");
  expect_error("1.", "1:3: expected a digit after '.'");
  expect_error("1e", "1:3: expected a digit in the exponent");
  expect_error(".5", "1:1: expected a value, got '.'");
  expect_error("+1", "1:1: expected a value, got '+'");
  expect_error("NaN", "1:1: expected a value");
  expect_error("Infinity", "1:1: expected a value");
  expect_error("tru", "invalid literal");
  expect_error("\"a\tb\"", "1:3: raw control character");
  expect_error("\"\\x\"", "1:2: invalid escape '\\x'");
  expect_error("\"\\u12g4\"", "invalid hex digit");
  expect_error("\"\\ud83d\"", "high surrogate not followed by a low surrogate");
  expect_error("\"\\ude00\"", "unpaired low surrogate");
  expect_error("\"abc", "1:1: unterminated string");
  expect_error("\"\xff\"", "1:2: invalid UTF-8");
  expect_error("{\"a\":1,\"a\":2}", "1:8: duplicate key \"a\"");
  expect_error("1e400", "number out of the range of a double");
  expect_error("[1] [2]", "1:5: unexpected '['");
  expect_error("// c\n1", "1:1: expected a value, got '/'");
  expect_error("[1,\n  2,\n  x]", "3:3: expected a value, got 'x'");
  expect_error("\xEF\xBB\xBF{}", "1:1: expected a value, got byte 0xef"); // no BOM
  expect_error(std::string(600, '['), "nesting deeper than 512 levels");
}

TEST(JsonParse, AcceptsDeepButBoundedNestingAndTinyNumbers) {
  EXPECT_NO_THROW(parse_json(std::string(500, '[') + std::string(500, ']')));
  EXPECT_EQ(parse_json("1e-400").as_double(), 0.0);
}

TEST(JsonParse, RoundTripsWriterOutputExactly) {
  JsonValue doc = JsonValue::object();
  doc.set("text", "tab\there \"quoted\" \x01 µ");
  doc.set("min", int64_t(INT64_MIN));
  doc.set("pi", 3.141592653589793);
  doc.set("nested", JsonValue(JsonValue::Array{JsonValue(1), JsonValue(JsonValue::Object{{"k", JsonValue(true)}})}));
  for (bool pretty : {false, true}) {
    const std::string text = to_json(doc, pretty);
    EXPECT_EQ(parse_json(text), doc);
    EXPECT_EQ(to_json(parse_json(text), pretty), text);
  }
}

} // namespace
} // namespace lanaikit::report

namespace lanaikit::report {
namespace {

// Random documents survive writing and parsing unchanged, compact and pretty.
JsonValue random_value(std::mt19937_64& rng, int depth) {
  const int kind = int(rng() % (depth > 3 ? 5 : 7));
  switch (kind) {
  case 0: return JsonValue(nullptr);
  case 1: return JsonValue(bool(rng() & 1));
  case 2: return JsonValue(int64_t(rng()));
  case 3: {
    double d;
    do {
      const uint64_t bits = rng();
      std::memcpy(&d, &bits, sizeof d);
    } while (!std::isfinite(d));
    return JsonValue(d);
  }
  case 4: {
    std::string s;
    const size_t n = rng() % 12;
    for (size_t i = 0; i < n; ++i) {
      const uint32_t r = uint32_t(rng() % 6);
      if (r == 0) s += char(rng() % 0x20);       // control characters
      else if (r == 1) s += "\xC3\xA9";          // é
      else if (r == 2) s += "\xF0\x9F\x98\x80";  // 😀
      else if (r == 3) s += "\"\\/";
      else s += char(0x20 + rng() % 0x5F);
    }
    return JsonValue(s);
  }
  case 5: {
    JsonValue a = JsonValue::array();
    for (size_t i = 0, n = rng() % 5; i < n; ++i) a.push_back(random_value(rng, depth + 1));
    return a;
  }
  default: {
    JsonValue o = JsonValue::object();
    for (size_t i = 0, n = rng() % 5; i < n; ++i)
      o.set("k" + std::to_string(rng() % 8), random_value(rng, depth + 1));
    return o;
  }
  }
}

TEST(JsonParse, RandomDocumentsRoundTrip) {
  std::mt19937_64 rng(12345);
  for (int i = 0; i < 2000; ++i) {
    const JsonValue v = random_value(rng, 0);
    for (bool pretty : {false, true}) {
      const std::string text = to_json(v, pretty);
      JsonValue back;
      ASSERT_NO_THROW(back = parse_json(text)) << text;
      ASSERT_EQ(back, v) << text;
    }
  }
}

} // namespace
} // namespace lanaikit::report
