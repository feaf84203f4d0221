#include "report/svg_plot.h"

#include "test_util.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

namespace lanaikit::report {
namespace {

using testing::TempDir;

// Compares with tests/report/golden/<name>; LANAIKIT_UPDATE_GOLDEN=1 rewrites the file.
void expect_golden(const std::string& name, const std::string& text) {
  const std::filesystem::path p = std::filesystem::path(REPORT_TEST_DIR) / "golden" / name;
  if (const char* u = std::getenv("LANAIKIT_UPDATE_GOLDEN"); u && std::string(u) == "1") {
    testing::write_file(p, text);
    GTEST_SKIP() << "rewrote " << p;
  }
  ASSERT_TRUE(std::filesystem::exists(p)) << p << " is missing (run with LANAIKIT_UPDATE_GOLDEN=1)";
  EXPECT_EQ(testing::read_file(p), text) << "differs from " << p;
}

// Well-formed XML, if xmllint is installed.
void expect_well_formed(const std::string& svg) {
  if (!testing::have_program("xmllint")) return;
  TempDir dir;
  testing::write_file(dir / "p.svg", svg);
  std::string out;
  EXPECT_EQ(testing::run("xmllint --noout " + (dir / "p.svg").string(), &out), 0) << out;
}

PlotSpec latency_plot() {
  PlotSpec p;
  p.title = "One-way latency <VMMC & BIP>";
  p.x_label = "message size (bytes)";
  p.y_label = "latency (us)";
  p.series.push_back({"vmmc", {{4, 5.65}, {64, 7.1}, {256, 13.2}, {1024, 52.0}}});
  p.series.push_back({"bip", {{4, 4.3}, {64, 5.0}, {256, 8.8}, {1024, 23.5}}});
  p.series.push_back({"single", {{512, 30}}});
  return p;
}

TEST(SvgPlot, LinearPlotMatchesGolden) {
  const std::string svg = render_svg(latency_plot());
  expect_well_formed(svg);
  expect_golden("linear.svg", svg);
}

TEST(SvgPlot, LogLogPlotMatchesGolden) {
  PlotSpec p;
  p.title = "Bandwidth";
  p.x_label = "bytes";
  p.y_label = "MB/s";
  p.log_x = p.log_y = true;
  p.width = 640;
  p.height = 400;
  for (int s = 0; s < 6; ++s) {
    Series ser{"series " + std::to_string(s), {}};
    for (int k = 0; k <= 20; ++k) {
      const double x = std::ldexp(1.0, k);
      ser.points.push_back({x, 100.0 * x / (x + 64.0 * (s + 1)) + 0.5});
    }
    p.series.push_back(ser);
  }
  const std::string svg = render_svg(p);
  expect_well_formed(svg);
  expect_golden("loglog.svg", svg);
}

TEST(SvgPlot, HasTheExpectedParts) {
  const std::string svg = render_svg(latency_plot());
  EXPECT_NE(svg.find("viewBox=\"0 0 720 480\""), std::string::npos);
  EXPECT_NE(svg.find("One-way latency &lt;VMMC &amp; BIP&gt;"), std::string::npos); // escaped title
  EXPECT_EQ(svg.find("<VMMC"), std::string::npos);
  EXPECT_NE(svg.find(">message size (bytes)</text>"), std::string::npos);
  EXPECT_NE(svg.find("rotate(-90"), std::string::npos);
  // x ticks: 0..1200 by 200 (1-2-5 steps); y ticks 0..60 by 10.
  for (const char* t : {">0</text>", ">200</text>", ">1200</text>", ">60</text>"})
    EXPECT_NE(svg.find(t), std::string::npos) << t;
  // One polyline per multi-point series, each in its own colour and dash pattern.
  const std::string poly = "<polyline fill=\"none\" stroke=\"";
  std::vector<std::string> colours;
  for (size_t at = svg.find(poly); at != std::string::npos; at = svg.find(poly, at + 1))
    colours.push_back(svg.substr(at + poly.size(), 7));
  ASSERT_EQ(colours.size(), 2u);
  EXPECT_NE(colours[0], colours[1]);
  EXPECT_NE(svg.find("stroke-dasharray=\"6 3\""), std::string::npos);
  // Legend with all three names.
  for (const char* n : {">vmmc</text>", ">bip</text>", ">single</text>"}) EXPECT_NE(svg.find(n), std::string::npos);
  EXPECT_EQ(render_svg(latency_plot()), svg); // deterministic
}

TEST(SvgPlot, TickLabelsAreExactDecimals) {
  EXPECT_EQ(tick_label(0, 5), "0");
  EXPECT_EQ(tick_label(2, 0), "2");
  EXPECT_EQ(tick_label(15, 3), "15000");
  EXPECT_EQ(tick_label(1, 6), "1000000");
  EXPECT_EQ(tick_label(1, 7), "1e7");
  EXPECT_EQ(tick_label(25, 7), "2.5e8");
  EXPECT_EQ(tick_label(2, -1), "0.2");
  EXPECT_EQ(tick_label(-15, -2), "-0.15");
  EXPECT_EQ(tick_label(5, -6), "0.000005");
  EXPECT_EQ(tick_label(1, -7), "1e-7");
  EXPECT_EQ(tick_label(30, -1), "3");
}

TEST(SvgPlot, LinearTicksUseOneTwoFiveSteps) {
  PlotSpec p;
  p.series.push_back({"s", {{0.0013, -0.2}, {0.0041, 0.7}}});
  const std::string svg = render_svg(p);
  for (const char* t : {">0.001</text>", ">0.0015</text>", ">0.0045</text>", ">-0.2</text>", ">0.8</text>"})
    EXPECT_NE(svg.find(t), std::string::npos) << t << "\n" << svg;
}

TEST(SvgPlot, LogAxesTickOnDecades) {
  PlotSpec p;
  p.log_x = true;
  p.series.push_back({"s", {{3, 1}, {2e5, 2}}});
  const std::string svg = render_svg(p);
  for (const char* t : {">1</text>", ">10</text>", ">100</text>", ">1000000</text>"})
    EXPECT_NE(svg.find(t), std::string::npos) << t;
  EXPECT_EQ(svg.find(">3</text>"), std::string::npos);
  // A short log axis also labels 2 and 5.
  PlotSpec q;
  q.log_y = true;
  q.series.push_back({"s", {{0, 1.5}, {1, 40}}});
  const std::string s2 = render_svg(q);
  for (const char* t : {">1</text>", ">2</text>", ">5</text>", ">10</text>", ">20</text>", ">50</text>", ">100</text>"})
    EXPECT_NE(s2.find(t), std::string::npos) << t;
}

TEST(SvgPlot, RejectsNonPositiveValuesOnLogAxes) {
  PlotSpec p;
  p.title = "t";
  p.log_y = true;
  p.series.push_back({"bw", {{1, 5}, {2, 0}}});
  try {
    render_svg(p);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "plot \"t\": series \"bw\" point 2 has y = 0, but the y axis is logarithmic "
                           "(log_y): every y must be > 0");
  }
  p.log_y = false;
  p.log_x = true;
  p.series[0].points = {{-1, 1}};
  EXPECT_THROW(render_svg(p), std::invalid_argument);
  p.log_x = false;
  p.series[0].points = {{std::nan(""), 1}};
  EXPECT_THROW(render_svg(p), std::invalid_argument);
  p.series[0].points = {{1, 1}};
  p.width = 10;
  EXPECT_THROW(render_svg(p), std::invalid_argument);
}

TEST(SvgPlot, HandlesEmptyAndDegenerateData) {
  PlotSpec empty;
  EXPECT_NO_THROW(expect_well_formed(render_svg(empty)));
  PlotSpec one;
  one.series.push_back({"", {{5, 5}}});
  const std::string svg = render_svg(one);
  expect_well_formed(svg);
  EXPECT_NE(svg.find(">series 1</text>"), std::string::npos); // unnamed series get a name
  PlotSpec flat;
  flat.log_x = flat.log_y = true;
  flat.series.push_back({"f", {{100, 100}, {100, 100}}});
  expect_well_formed(render_svg(flat));
}

} // namespace
} // namespace lanaikit::report
