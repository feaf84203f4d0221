// Host processes: local clocks, sync, watches, posted actions, failures.
#include "host/model/process.h"

#include <gtest/gtest.h>

namespace lanaikit::host {
namespace {

using sim::kMicrosecond;
using sim::Time;

TEST(Process, ComputingAdvancesOnlyTheLocalClock) {
  sim::Kernel k;
  Process p(k, "p");
  Time seen_local = -1, seen_now = -1;
  p.start([&](Process& self) -> Task {
    self.advance(5 * kMicrosecond);
    seen_local = self.local();
    seen_now = self.kernel().now(); // the kernel has not moved: no event was needed
    co_return;
  }, kMicrosecond);
  k.run();
  EXPECT_TRUE(p.done());
  EXPECT_EQ(seen_local, 6 * kMicrosecond);
  EXPECT_EQ(seen_now, kMicrosecond);
}

TEST(Process, SyncWaitsForTheKernelToReachTheLocalClock) {
  sim::Kernel k;
  Process p(k, "p");
  Time after = -1;
  p.start([&](Process& self) -> Task {
    self.advance(3 * kMicrosecond);
    co_await self.sync();
    after = self.kernel().now();
  }, 0);
  k.run();
  EXPECT_EQ(after, 3 * kMicrosecond);
}

TEST(Process, PostRunsAtTheLocalTimeWithoutWaiting) {
  sim::Kernel k;
  Process p(k, "p");
  std::vector<Time> ran;
  p.start([&](Process& self) -> Task {
    for (int i = 0; i < 3; ++i) {
      self.post([&] { ran.push_back(k.now()); });
      self.advance(kMicrosecond);
    }
    co_return;
  }, 0);
  k.run();
  EXPECT_EQ(ran, (std::vector<Time>{0, kMicrosecond, 2 * kMicrosecond}));
}

TEST(Process, WaitIsAWatchNotALoop) {
  sim::Kernel k;
  WaitList list;
  int value = 0;
  Process p(k, "waiter");
  Time woke = -1;
  p.start([&](Process& self) -> Task {
    co_await self.wait(list, [&] { return value == 2; });
    woke = self.local();
  }, 0);
  // Two writes; only the second makes the condition true.
  k.schedule_at(10 * kMicrosecond, [&] { value = 1; list.notify(); });
  k.schedule_at(20 * kMicrosecond, [&] { value = 2; list.notify(); });
  const uint64_t events = k.run();
  EXPECT_EQ(woke, 20 * kMicrosecond);
  EXPECT_LE(events, 6u); // start, check, two writes, resume: no polling events
  EXPECT_EQ(list.waiting(), 0u);
  EXPECT_EQ(p.waited(), 20 * kMicrosecond);
}

TEST(Process, WaitThatAlreadyHoldsReturnsAtTheLocalTime) {
  sim::Kernel k;
  WaitList list;
  Process p(k, "p");
  Time woke = -1;
  p.start([&](Process& self) -> Task {
    self.advance(7 * kMicrosecond);
    co_await self.wait(list, [] { return true; });
    woke = self.local();
  }, 0);
  k.run();
  EXPECT_EQ(woke, 7 * kMicrosecond);
}

TEST(Process, AnExceptionStopsTheRunWithItsMessage) {
  sim::Kernel k;
  Process p(k, "p");
  p.start([&](Process& self) -> Task {
    co_await self.sync();
    throw std::runtime_error("payload mismatch");
  }, 0);
  EXPECT_THROW(
      {
        try {
          k.run();
        } catch (const std::runtime_error& e) {
          EXPECT_STREQ(e.what(), "payload mismatch");
          throw;
        }
      },
      std::runtime_error);
}

// A library call that blocks: waits for a condition inside a nested Op, then returns.
Op<int> wait_then_value(Process& p, WaitList& list, const int& flag, int add) {
  co_await p.wait(list, [&] { return flag != 0; });
  p.advance(kMicrosecond);
  co_return flag + add;
}

Op<> two_levels(Process& p, WaitList& list, const int& flag, int& out) {
  co_await p.sync();
  out = co_await wait_then_value(p, list, flag, 10);
}

TEST(Process, OpsNestAndResumeTheInnermostWaiter) {
  sim::Kernel k;
  WaitList list;
  int flag = 0;
  int out = 0;
  Time after = -1;
  Process p(k, "p");
  p.start([&](Process& self) -> Task {
    self.advance(2 * kMicrosecond);
    co_await two_levels(self, list, flag, out);
    after = self.local();
  }, 0);
  k.schedule_at(5 * kMicrosecond, [&] {
    flag = 3;
    list.notify();
  });
  k.run();
  EXPECT_EQ(out, 13);
  EXPECT_EQ(after, 6 * kMicrosecond); // woke at 5, then advanced 1 in the inner Op
  EXPECT_TRUE(p.done());
}

Op<int> failing(Process& p) {
  co_await p.sync();
  throw std::runtime_error("import denied");
  co_return 0;
}

TEST(Process, AnOpsExceptionIsThrownAtItsAwait) {
  sim::Kernel k;
  Process p(k, "p");
  std::string caught;
  p.start([&](Process& self) -> Task {
    try {
      (void)co_await failing(self);
    } catch (const std::runtime_error& e) {
      caught = e.what();
    }
  }, 0);
  k.run();
  EXPECT_EQ(caught, "import denied");
}

// Repeated advances each within range add up past the clock's end: an error naming the
// process and the times, with the clock left where it was (it wrapped negative before).
TEST(Process, AdvancingPastTheClocksEndIsAnError) {
  sim::Kernel k;
  Process p(k, "sender");
  p.advance(sim::kMaxTime / 2);
  p.advance(sim::kMaxTime / 2);
  EXPECT_EQ(p.local(), sim::kMaxTime); // exactly at the end is still a time
  try {
    p.advance(1);
    FAIL() << "advanced past the clock's end to " << p.local();
  } catch (const std::overflow_error& e) {
    EXPECT_EQ(std::string(e.what()), "process 'sender': advancing 1 ps from local time " +
                                         std::to_string(sim::kMaxTime) +
                                         " ps passes the clock's end (2^62 ps, about 53 days)");
  }
  EXPECT_EQ(p.local(), sim::kMaxTime);
  EXPECT_THROW(p.advance(INT64_MAX), std::overflow_error);
  Process q(k, "q");
  EXPECT_THROW(q.advance(-1), std::overflow_error);
  EXPECT_EQ(q.local(), 0);
}

} // namespace
} // namespace lanaikit::host
