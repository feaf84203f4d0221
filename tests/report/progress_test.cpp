#include "report/progress.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fcntl.h>
#include <pty.h>
#include <string>
#include <thread>
#include <unistd.h>

namespace lanaikit::report {
namespace {

TEST(Progress, FormatsBarPercentageAndEta) {
  EXPECT_EQ(Progress::format_line("sweep", 0, 100, 0, false),
            "sweep [------------------------------]   0.0%  0/100  ETA ?");
  EXPECT_EQ(Progress::format_line("sweep", 50, 100, 10, false),
            "sweep [###############---------------]  50.0%  50/100  ETA 0:10");
  EXPECT_EQ(Progress::format_line("x", 1, 4, 1500, false),
            "x [#######-----------------------]  25.0%  1/4  ETA 1:15:00");
  EXPECT_EQ(Progress::format_line("x", 7, 4, 3, true), "x [##############################] 100.0%  4/4  done in 0:03");
  EXPECT_EQ(Progress::format_line("none", 0, 0, 0, false),
            "none [##############################] 100.0%  0/0  ETA ?");
}

TEST(Progress, IsSilentWhenNotATerminal) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    Progress p("quiet", 10, f);
    EXPECT_FALSE(p.active());
    for (uint64_t i = 0; i <= 10; ++i) p.update(i);
    p.finish();
    EXPECT_EQ(p.redraws(), 0u);
  }
  std::fflush(f);
  EXPECT_EQ(std::ftell(f), 0L);
  std::fclose(f);
}

TEST(Progress, DrawsOnATerminalAtMostTenTimesASecond) {
  int master, slave;
  if (openpty(&master, &slave, nullptr, nullptr, nullptr) != 0) GTEST_SKIP() << "no pseudo-terminal";
  std::FILE* out = fdopen(slave, "w");
  ASSERT_NE(out, nullptr);
  {
    Progress p("run", 1'000'000, out);
    EXPECT_TRUE(p.active());
    const auto start = std::chrono::steady_clock::now();
    for (uint64_t i = 0; i < 1'000'000; ++i) p.update(i);
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
    EXPECT_GE(p.redraws(), 1u);
    // One draw at once, then at most one per 100 ms: a million updates are not a million draws.
    EXPECT_LE(p.redraws(), 1u + uint64_t(ms) / 100 + 1) << ms << " ms";
    p.finish();
  }
  std::fclose(out);
  fcntl(master, F_SETFL, O_NONBLOCK);
  std::string text;
  char buf[4096];
  ssize_t n;
  while ((n = read(master, buf, sizeof buf)) > 0) text.append(buf, size_t(n));
  close(master);
  EXPECT_NE(text.find("run ["), std::string::npos) << text;
  EXPECT_NE(text.find("100.0%  1000000/1000000  done in"), std::string::npos) << text;
  EXPECT_NE(text.find('\r'), std::string::npos);
}

} // namespace
} // namespace lanaikit::report
