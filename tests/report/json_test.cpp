#include "report/json.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

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

// The writer's output read back by nlohmann-json (the reader lanaikit's tests use): random
// documents written compactly and pretty come back with every value, doubles bit for bit.
using Json = nlohmann::ordered_json;

Json random_value(std::mt19937_64& rng, int depth) {
  const int kind = int(rng() % (depth > 3 ? 5 : 7));
  switch (kind) {
  case 0: return Json(nullptr);
  case 1: return Json(bool(rng() & 1));
  case 2: return Json(int64_t(rng()));
  case 3: {
    double d;
    do {
      const uint64_t bits = rng();
      std::memcpy(&d, &bits, sizeof d);
    } while (!std::isfinite(d));
    return Json(d);
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
    return Json(s);
  }
  case 5: {
    Json a = Json::array();
    for (size_t i = 0, n = rng() % 5; i < n; ++i) a.push_back(random_value(rng, depth + 1));
    return a;
  }
  default: {
    Json o = Json::object();
    for (size_t i = 0, n = rng() % 5; i < n; ++i)
      o["k" + std::to_string(i)] = random_value(rng, depth + 1);
    return o;
  }
  }
}

void write(JsonWriter& w, const Json& v) {
  switch (v.type()) {
  case Json::value_t::null: w.null(); break;
  case Json::value_t::boolean: w.value(v.get<bool>()); break;
  case Json::value_t::number_integer: w.value(v.get<int64_t>()); break;
  case Json::value_t::number_unsigned: w.value(v.get<uint64_t>()); break;
  case Json::value_t::number_float: w.value(v.get<double>()); break;
  case Json::value_t::string: w.value(v.get_ref<const std::string&>()); break;
  case Json::value_t::array:
    w.begin_array();
    for (const Json& e : v) write(w, e);
    w.end_array();
    break;
  default:
    w.begin_object();
    for (const auto& [k, e] : v.items()) {
      w.key(k);
      write(w, e);
    }
    w.end_object();
  }
}

TEST(JsonWriter, RandomDocumentsReadBackByNlohmannJson) {
  std::mt19937_64 rng(12345);
  for (int i = 0; i < 2000; ++i) {
    const Json v = random_value(rng, 0);
    for (int indent : {0, 2}) {
      std::ostringstream s;
      JsonWriter w(s, indent);
      write(w, v);
      ASSERT_TRUE(w.done());
      Json back;
      ASSERT_NO_THROW(back = Json::parse(s.str())) << s.str();
      ASSERT_EQ(back, v) << s.str();
    }
  }
}

TEST(JsonWriter, DoublesReadBackAsDoubles) {
  for (double d : {0.1, 1.0, 1.0 / 3, 2.0 / 3 * 1e300, 6.02214076e23, 1e-300, 0.30000000000000004, 5e-324}) {
    const Json v = Json::parse(json_number(d));
    ASSERT_TRUE(v.is_number_float()) << json_number(d);
    EXPECT_EQ(v.get<double>(), d);
  }
}

} // namespace
} // namespace lanaikit::report
