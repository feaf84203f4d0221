#include "report/chrome_trace.h"

#include "report/json.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <sstream>

namespace lanaikit::report {
namespace {

using Json = nlohmann::json;


TEST(ChromeTrace, TimestampsAreExactMicroseconds) {
  EXPECT_EQ(trace_timestamp_us(0), "0");
  EXPECT_EQ(trace_timestamp_us(1), "0.000001");
  EXPECT_EQ(trace_timestamp_us(1'234'567), "1.234567");
  EXPECT_EQ(trace_timestamp_us(5'000'000), "5");
  EXPECT_EQ(trace_timestamp_us(5'650'000), "5.65");
  EXPECT_EQ(trace_timestamp_us(-1'500'000), "-1.5");
  EXPECT_EQ(trace_timestamp_us(INT64_MAX), "9223372036854.775807");
  // Up to 10^15 ps the value read back as a double still names the exact picosecond.
  const sim::Time t = 999'999'999'999'999;
  EXPECT_EQ(std::llround(Json::parse(trace_timestamp_us(t)).get<double>() * 1e6), t);
}

// Every event has the fields the format requires.
void check_event(const Json& e) {
  ASSERT_TRUE(e.is_object());
  const std::string ph = e.at("ph").get<std::string>();
  EXPECT_TRUE(e.at("name").is_string());
  EXPECT_TRUE(e.at("pid").is_number_integer());
  EXPECT_TRUE(e.at("tid").is_number_integer());
  if (ph != "M") {
    EXPECT_TRUE(e.at("ts").is_number());
  }
  if (ph == "X") {
    ASSERT_TRUE(e.contains("dur"));
    EXPECT_GE(e.at("dur").get<double>(), 0);
  }
  if (ph == "i") {
    EXPECT_EQ(e.at("s").get<std::string>(), "t");
  }
  if (ph == "C") {
    EXPECT_TRUE(e.at("args").at(e.at("name").get<std::string>()).is_number());
  }
}

TEST(ChromeTrace, WritesAValidTraceWithNamedTracks) {
  std::ostringstream s;
  TraceWriter w(s);
  const int cpu0 = w.track("node0", "cpu");
  const int dma0 = w.track("node0", "send dma");
  const int cpu1 = w.track("node1 \"rx\"", "cpu");
  EXPECT_EQ(w.track("node0", "cpu"), cpu0);
  w.span(cpu0, "send_handler", 1'000'000, 2'500'001, {{"insns", int64_t(45)}, {"kind", std::string("short")}});
  w.span(dma0, "dma", 2'500'001, 2'500'001);
  w.instant(cpu1, "packet tail", 3'000'000, {{"bytes", int64_t(64)}, {"util", 0.5}});
  w.counter(cpu1, "rx queue", 3'000'000, 3);
  EXPECT_THROW(w.span(cpu0, "backwards", 10, 5), std::invalid_argument);
  EXPECT_THROW(w.span(99, "nope", 0, 1), std::out_of_range);
  EXPECT_THROW(w.counter(cpu0, "nan", 0, std::nan("")), std::invalid_argument);
  w.finish();
  EXPECT_THROW(w.instant(cpu0, "late", 0), std::logic_error);

  const Json doc = Json::parse(s.str());
  EXPECT_EQ(doc.at("displayTimeUnit").get<std::string>(), "ns");
  const auto& events = doc.at("traceEvents");
  for (const Json& e : events) check_event(e);

  // Metadata naming the processes and threads comes before any event on them.
  std::map<std::pair<int64_t, int64_t>, std::string> thread_names;
  std::map<int64_t, std::string> process_names;
  for (const Json& e : events) {
    const int64_t pid = e.at("pid").get<int64_t>(), tid = e.at("tid").get<int64_t>();
    if (e.at("ph").get<std::string>() == "M") {
      if (e.at("name").get<std::string>() == "process_name") process_names[pid] = e.at("args").at("name").get<std::string>();
      if (e.at("name").get<std::string>() == "thread_name") thread_names[{pid, tid}] = e.at("args").at("name").get<std::string>();
      continue;
    }
    EXPECT_TRUE(process_names.count(pid)) << "event before its process was named";
    EXPECT_TRUE(thread_names.count({pid, tid})) << "event before its thread was named";
  }
  EXPECT_EQ(process_names[1], "node0");
  EXPECT_EQ(process_names[2], "node1 \"rx\"");
  EXPECT_EQ((thread_names[{1, 2}]), "send dma");
  EXPECT_EQ((thread_names[{2, 1}]), "cpu");

  std::vector<const Json*> timed;
  for (const Json& e : events)
    if (e.at("ph").get<std::string>() != "M") timed.push_back(&e);
  ASSERT_EQ(timed.size(), 4u);
  EXPECT_EQ(timed[0]->at("ph").get<std::string>(), "X");
  EXPECT_EQ(timed[0]->at("ts").get<double>(), 1.0);
  EXPECT_EQ(timed[0]->at("dur").get<double>(), 1.500001);
  EXPECT_EQ(timed[0]->at("args").at("insns").get<int64_t>(), 45);
  EXPECT_EQ(timed[1]->at("dur").get<double>(), 0.0);
  EXPECT_EQ(timed[2]->at("ph").get<std::string>(), "i");
  EXPECT_EQ(timed[2]->at("args").at("util").get<double>(), 0.5);
  EXPECT_EQ(timed[3]->at("ph").get<std::string>(), "C");
  EXPECT_EQ(timed[3]->at("args").at("rx queue").get<double>(), 3.0);
  for (size_t i = 1; i < timed.size(); ++i)
    EXPECT_LE(timed[i - 1]->at("ts").get<double>(), timed[i]->at("ts").get<double>()) << "events in call order";

  // The file ends with the drop record.
  const Json& last = events.back();
  EXPECT_EQ(last.at("name").get<std::string>(), "lanaikit_dropped");
  EXPECT_EQ(last.at("args").at("dropped_events").get<int64_t>(), 0);
  EXPECT_EQ(doc.at("otherData").at("kept_events").get<int64_t>(), 4);
}

TEST(ChromeTrace, BoundsTheFileByWindowSamplingAndBudget) {
  TraceLimits limits;
  limits.window_begin = 100 * sim::kNanosecond;
  limits.window_end = 900 * sim::kNanosecond;
  limits.sample_every = 2;
  limits.max_events = 100;
  std::ostringstream s;
  TraceWriter w(s, limits);
  const int t = w.track("p", "t");
  // 1000 spans [i, i+1) ns: those with i = 100..899 overlap the window (800 events); half
  // of them survive sampling, and the budget keeps the first 100 of those.
  for (int i = 0; i < 1000; ++i) w.span(t, "e", i * sim::kNanosecond, (i + 1) * sim::kNanosecond);
  w.finish();
  const TraceStats& st = w.stats();
  EXPECT_EQ(st.dropped_window, 200u);
  EXPECT_EQ(st.dropped_sampling, 400u);
  EXPECT_EQ(st.kept, 100u);
  EXPECT_EQ(st.dropped_budget, 300u);
  EXPECT_EQ(st.kept + st.dropped(), 1000u);

  const Json doc = Json::parse(s.str());
  const auto& events = doc.at("traceEvents");
  size_t x = 0;
  double prev = -1;
  for (const Json& e : events) {
    check_event(e);
    if (e.at("ph").get<std::string>() != "X") continue;
    ++x;
    const double ts = e.at("ts").get<double>();
    EXPECT_GE(ts, 0.1);
    EXPECT_LT(ts, 0.9);
    EXPECT_GT(ts, prev);
    prev = ts;
  }
  EXPECT_EQ(x, 100u);
  EXPECT_DOUBLE_EQ(events[4].at("ts").get<double>(), 0.1); // first kept: the one at 100 ns
  const Json& rec = events.back().at("args");
  EXPECT_EQ(rec.at("dropped_events").get<int64_t>(), 900);
  EXPECT_EQ(rec.at("dropped_outside_window").get<int64_t>(), 200);
  EXPECT_EQ(rec.at("dropped_by_sampling").get<int64_t>(), 400);
  EXPECT_EQ(rec.at("dropped_over_budget").get<int64_t>(), 300);
  EXPECT_EQ(doc.at("otherData").at("dropped_events").get<int64_t>(), 900);
}

TEST(ChromeTrace, SizeStaysBoundedForAnyNumberOfEvents) {
  TraceLimits limits;
  limits.max_events = 1000;
  std::ostringstream s;
  {
    TraceWriter w(s, limits);
    const int t = w.track("p", "t");
    for (int i = 0; i < 200'000; ++i) w.instant(t, "tick", i);
  } // the destructor finishes the file
  EXPECT_LT(s.str().size(), 1000u * 100);
  const Json doc = Json::parse(s.str());
  EXPECT_EQ(doc.at("otherData").at("dropped_over_budget").get<int64_t>(), 199'000);
}

TEST(ChromeTrace, IsDeterministic) {
  auto once = [] {
    std::ostringstream s;
    TraceWriter w(s);
    for (int i = 0; i < 50; ++i) {
      const int t = w.track("node" + std::to_string(i % 3), "cpu" + std::to_string(i % 2));
      w.span(t, "s", i * 1234567, i * 1234567 + 999, {{"i", int64_t(i)}, {"f", i / 3.0}});
    }
    w.finish();
    return s.str();
  };
  EXPECT_EQ(once(), once());
}

} // namespace
} // namespace lanaikit::report
