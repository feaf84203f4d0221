#include "report/csv.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>

namespace lanaikit::report {
namespace {

TEST(Csv, WritesHeaderAndRowsWithCrlf) {
  std::ostringstream s;
  write_csv(s, {"size_bytes", "latency_us", "note"},
            {{int64_t(4), 5.65, std::string("vmmc")}, {int64_t(1024), 52.0, CsvCell{}}});
  EXPECT_EQ(s.str(), "size_bytes,latency_us,note\r\n4,5.65,vmmc\r\n1024,52,\r\n");
}

TEST(Csv, QuotesPerRfc4180) {
  EXPECT_EQ(csv_field(std::string("plain")), "plain");
  EXPECT_EQ(csv_field(std::string("a,b")), "\"a,b\"");
  EXPECT_EQ(csv_field(std::string("say \"hi\"")), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field(std::string("two\nlines")), "\"two\nlines\"");
  EXPECT_EQ(csv_field(std::string("cr\r")), "\"cr\r\"");
  EXPECT_EQ(csv_field(std::string(" padded ")), "\" padded \"");
  EXPECT_EQ(csv_field(std::string("µs")), "µs");
  EXPECT_EQ(csv_field(CsvCell{}), "");
  EXPECT_EQ(csv_field(std::string("")), "");
}

TEST(Csv, NumbersAreShortestRoundTrip) {
  EXPECT_EQ(csv_field(0.1), "0.1");
  EXPECT_EQ(csv_field(2.0), "2");
  EXPECT_EQ(csv_field(1e21), "1e+21");
  EXPECT_EQ(csv_field(1.0 / 3), "0.3333333333333333");
  EXPECT_EQ(csv_field(int64_t(-9223372036854775807 - 1)), "-9223372036854775808");
  EXPECT_EQ(csv_field(std::nan("")), "nan");
  EXPECT_EQ(csv_field(-std::numeric_limits<double>::infinity()), "-inf");
  for (double d : {0.1, 1e-300, 123456789.123, 6.02214076e23}) EXPECT_EQ(std::stod(csv_field(d)), d);
}

TEST(Csv, RejectsRaggedRowsAndNoColumns) {
  std::ostringstream s;
  try {
    write_csv(s, {"a", "b"}, {{int64_t(1), int64_t(2)}, {int64_t(3)}});
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "csv: row 2 has 1 fields, the header has 2");
  }
  EXPECT_EQ(s.str(), ""); // nothing half-written
  EXPECT_THROW(write_csv(s, {}, {}), std::invalid_argument);
}

TEST(Csv, ParsesBackWhatItWrites) {
  std::ostringstream s;
  const std::vector<std::string> cols = {"name, full", "q\"uote", "n"};
  write_csv(s, cols,
            {{std::string("a\r\nb"), std::string("\"\""), int64_t(7)},
             {CsvCell{}, std::string(","), 0.25}});
  const auto rec = parse_csv(s.str());
  ASSERT_EQ(rec.size(), 3u);
  EXPECT_EQ(rec[0], cols);
  EXPECT_EQ(rec[1], (std::vector<std::string>{"a\r\nb", "\"\"", "7"}));
  EXPECT_EQ(rec[2], (std::vector<std::string>{"", ",", "0.25"}));
  EXPECT_THROW(parse_csv("\"open"), std::invalid_argument);
  EXPECT_THROW(parse_csv("a\"b"), std::invalid_argument);
}

TEST(Csv, IsDeterministic) {
  auto once = [] {
    std::ostringstream s;
    std::vector<std::vector<CsvCell>> rows;
    for (int i = 0; i < 100; ++i) rows.push_back({int64_t(i), i / 7.0, std::string(i % 3, 'x')});
    write_csv(s, {"i", "f", "s"}, rows);
    return s.str();
  };
  EXPECT_EQ(once(), once());
}

} // namespace
} // namespace lanaikit::report
