// The pure parts of `lanaikit sweep` (tools/sweep_grid.h, tools/sweep_merge.h): point
// numbering and file stems, the outcome lines ranks exchange, and the merged tables.
#include "tools/option_values.h"
#include "tools/sweep_grid.h"
#include "tools/sweep_merge.h"

#include <gtest/gtest.h>

namespace lanaikit::tools::sweep {
namespace {


Grid grid_of(std::initializer_list<const char*> specs) {
  Grid g;
  for (const char* s : specs) add_parameter(g, parse_parameter(s));
  return g;
}

Outcome ok(uint64_t index, Json result) {
  Outcome o;
  o.index = index;
  o.ok = true;
  o.result = std::move(result);
  return o;
}

TEST(SweepGrid, LastParameterVariesFastest) {
  const Grid g = grid_of({"x=1,2,3", "y=a,b"});
  ASSERT_EQ(g.size(), 6u);
  EXPECT_EQ(g.point(0), (std::vector<std::string>{"1", "a"}));
  EXPECT_EQ(g.point(1), (std::vector<std::string>{"1", "b"}));
  EXPECT_EQ(g.point(2), (std::vector<std::string>{"2", "a"}));
  EXPECT_EQ(g.point(5), (std::vector<std::string>{"3", "b"}));
  EXPECT_EQ(g.stem(3), "x=2,y=b");
}

TEST(SweepGrid, StemsEscapeWhatCouldNameAFolder) {
  const Grid g = grid_of({"path=a/b c,..,x%y"});
  EXPECT_EQ(g.stem(0), "path=a%2Fb%20c");
  EXPECT_EQ(g.stem(1), "path=..");
  EXPECT_EQ(g.stem(2), "path=x%25y");
  const Grid big = grid_of({("v=" + std::string(250, 'z') + ",short").c_str()});
  EXPECT_EQ(big.stem(0), "point-0");
  EXPECT_EQ(big.stem(1), "v=short");
}

TEST(SweepGrid, ErrorsNameTheArgument) {
  auto message = [](const char* spec) {
    try {
      parse_parameter(spec);
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("x"), "--grid 'x': expected NAME=V1,V2,...");
  EXPECT_EQ(message("x=1,"), "--grid 'x=1,': an empty value");
  EXPECT_EQ(message("=1"), "--grid '=1': the name '' is not an identifier (letters, digits, '_', not starting "
                           "with a digit)");
  auto values = [](const char* name, int n) {
    std::string s = std::string(name) + "=";
    for (int i = 0; i < n; ++i) {
      if (i) s += ',';
      s += std::to_string(i);
    }
    return s;
  };
  Grid g;
  add_parameter(g, parse_parameter(values("a", 100)));
  add_parameter(g, parse_parameter(values("b", 100)));
  add_parameter(g, parse_parameter(values("c", 100))); // exactly 1,000,000: allowed
  g.parameters.pop_back();
  try {
    add_parameter(g, parse_parameter(values("c", 101)));
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "--grid: 1010000 points is more than 1000000");
  }
}

TEST(SweepMerge, OutcomeLinesRoundTripExactly) {
  Json r = Json::object();
  r["third"] = 1.0 / 3;
  r["tiny"] = 4.9e-324;
  r["n"] = int64_t(-9007199254740993);
  r["whole"] = 2.0;
  r["text"] = "a \"quoted\"\nline";
  r["flag"] = true;
  Outcome bad;
  bad.index = 7;
  bad.failure = "exit status 1: lanaikit run: x.lua:3: boom [d/points/x=1.err]";
  const std::vector<Outcome> in{ok(3, r), bad};
  const std::vector<Outcome> out = parse_outcomes(serialize_outcomes(in));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].index, 3u);
  EXPECT_TRUE(out[0].ok);
  EXPECT_EQ(out[0].result, r); // types too: 2.0 stays a double, the integer an integer
  EXPECT_TRUE(out[0].result.at("whole").is_number_float());
  EXPECT_TRUE(out[0].result.at("n").is_number_integer());
  EXPECT_EQ(out[0].result.at("tiny").get<double>(), 4.9e-324);
  EXPECT_EQ(out[1].index, 7u);
  EXPECT_FALSE(out[1].ok);
  EXPECT_EQ(out[1].failure, bad.failure);
  EXPECT_THROW(parse_outcomes("{\"i\":1}\n"), std::exception);
}

TEST(SweepMerge, ColumnsAreTheGridThenEveryResultSorted) {
  const Grid g = grid_of({"clock=33,1e3,01", "mode=fast"});
  Json a = Json::object(), b = Json::object();
  a["lat"] = 1.5;
  b["bw"] = int64_t(100);
  b["lat"] = 2.0;
  Outcome failed;
  failed.index = 1;
  const std::vector<Outcome> outcomes{ok(0, a), failed, ok(2, b)};
  EXPECT_EQ(merged_columns(g, outcomes), (std::vector<std::string>{"clock", "mode", "bw", "lat"}));
  EXPECT_EQ(merged_csv(g, outcomes), "clock,mode,bw,lat\r\n33,fast,,1.5\r\n01,fast,100,2\r\n");
  // "01" is not a JSON number, so it stays a string; a missing result is left out.
  EXPECT_EQ(merged_json(g, outcomes), "[\n"
                                      "  {\n"
                                      "    \"clock\": 33,\n"
                                      "    \"mode\": \"fast\",\n"
                                      "    \"lat\": 1.5\n"
                                      "  },\n"
                                      "  {\n"
                                      "    \"clock\": \"01\",\n"
                                      "    \"mode\": \"fast\",\n"
                                      "    \"bw\": 100,\n"
                                      "    \"lat\": 2.0\n"
                                      "  }\n"
                                      "]\n");
}

TEST(SweepMerge, ResultChecks) {
  const Grid g = grid_of({"x=1"});
  Json r = Json::object();
  EXPECT_EQ(check_result(r, g), "the result has no values");
  EXPECT_EQ(check_result(Json::array(), g), "the result is a JSON array, not an object");
  r["ok"] = 1;
  EXPECT_EQ(check_result(r, g), "");
  r["x"] = 1;
  EXPECT_EQ(check_result(r, g), "the result 'x' has the name of a grid parameter");
  Json n = Json::object();
  n["list"] = Json::array();
  EXPECT_EQ(check_result(n, g), "the result 'list' is an array (expected a number, a string or a boolean)");
}

} // namespace
} // namespace lanaikit::tools::sweep
