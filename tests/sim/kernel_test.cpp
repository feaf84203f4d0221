// The discrete-event kernel and clock domains: ordering rules, cancellation, limits,
// exact cycle/time conversion over long runs, and determinism of the trace hash.
#include "sim/kernel.h"
#include "sim/time.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

using namespace lanaikit::sim;

TEST(Kernel, RunsEventsInTimeOrder) {
  Kernel k;
  std::string log;
  k.schedule_at(30, [&] { log += "c"; });
  k.schedule_at(10, [&] { log += "a"; });
  k.schedule_at(20, [&] { log += "b"; });
  EXPECT_EQ(k.run(), 3u);
  EXPECT_EQ(log, "abc");
  EXPECT_EQ(k.now(), 30);
}

TEST(Kernel, EqualTimesRunByOrderThenFifo) {
  Kernel k;
  std::string log;
  k.schedule_at(5, [&] { log += "x1"; }, 0, 1);
  k.schedule_at(5, [&] { log += "y0"; }, 0, 0);
  k.schedule_at(5, [&] { log += "x2"; }, 0, 1);
  k.schedule_at(5, [&] { log += "z-1"; }, 0, -1);
  k.schedule_at(5, [&] { log += "y1"; }, 0, 0);
  k.run();
  EXPECT_EQ(log, "z-1y0y1x1x2");
}

TEST(Kernel, EventsScheduledNowFromAnEventRunAfterItInFifoOrder) {
  Kernel k;
  std::string log;
  k.schedule_at(7, [&] {
    log += "a";
    k.schedule_in(0, [&] { log += "c"; });
  });
  k.schedule_at(7, [&] { log += "b"; });
  k.run();
  EXPECT_EQ(log, "abc");
  EXPECT_EQ(k.now(), 7);
}

TEST(Kernel, CancelledEventsDoNotRun) {
  Kernel k;
  int ran = 0;
  const EventId a = k.schedule_at(10, [&] { ran += 1; });
  k.schedule_at(20, [&] { ran += 10; });
  const EventId c = k.schedule_at(30, [&] { ran += 100; });
  EXPECT_TRUE(k.cancel(a));
  EXPECT_FALSE(k.cancel(a));
  EXPECT_EQ(k.pending(), 2u);
  k.run_until(25);
  EXPECT_EQ(ran, 10);
  EXPECT_TRUE(k.cancel(c));
  EXPECT_TRUE(k.idle());
  k.run();
  EXPECT_EQ(ran, 10);
  EXPECT_FALSE(k.cancel(12345));
}

TEST(Kernel, RunUntilStopsAtTheLimitAndAdvancesTime) {
  Kernel k;
  int ran = 0;
  k.schedule_at(100, [&] { ++ran; });
  k.schedule_at(200, [&] { ++ran; });
  EXPECT_EQ(k.run_until(150), 1u);
  EXPECT_EQ(k.now(), 150);
  EXPECT_EQ(k.next_time(), 200);
  EXPECT_EQ(k.run_until(200), 1u); // inclusive
  EXPECT_EQ(ran, 2);
  EXPECT_EQ(k.run_until(500), 0u);
  EXPECT_EQ(k.now(), 500);
}

TEST(Kernel, SchedulingInThePastIsAnError) {
  Kernel k;
  k.run_until(1000);
  EXPECT_THROW(k.schedule_at(999, [] {}), std::logic_error);
}

TEST(Kernel, StopEndsRunAfterTheCurrentEvent) {
  Kernel k;
  int ran = 0;
  k.schedule_at(1, [&] {
    ++ran;
    k.stop();
  });
  k.schedule_at(2, [&] { ++ran; });
  k.run();
  EXPECT_EQ(ran, 1);
  k.run();
  EXPECT_EQ(ran, 2);
}

TEST(Kernel, ManyCancellationsKeepBookkeepingBounded) {
  // Timers rescheduled over and over (the common case for a CPU's next event).
  Kernel k;
  EventId timer = 0;
  int fired = 0;
  for (int i = 0; i < 100000; ++i) {
    if (timer) k.cancel(timer);
    timer = k.schedule_in(1000, [&] { ++fired; });
    k.run_until(k.now() + 10);
  }
  k.run();
  EXPECT_EQ(fired, 1);
  EXPECT_TRUE(k.idle());
}

// A workload of components that reschedule each other with random delays and orders.
static uint64_t random_workload_hash(uint32_t seed, uint64_t* events = nullptr) {
  Kernel k;
  std::mt19937_64 rng(seed);
  std::function<void(int)> tick = [&](int component) {
    k.trace(uint64_t(component));
    const int n = int(rng() % 3);
    for (int i = 0; i < n && k.pending() < 200; ++i)
      k.schedule_in(Time(rng() % 5000), [&, c = int(rng() % 16)] { tick(c); }, uint32_t(component),
                    int8_t(rng() % 3));
  };
  for (int c = 0; c < 16; ++c) k.schedule_at(0, [&, c] { tick(c); }, uint32_t(c));
  k.run_until(5 * kMillisecond);
  if (events) *events = k.events_run();
  return k.trace_hash();
}

TEST(Kernel, SameInputsSameTraceHash) {
  uint64_t events1 = 0, events2 = 0;
  const uint64_t h1 = random_workload_hash(42, &events1);
  const uint64_t h2 = random_workload_hash(42, &events2);
  EXPECT_EQ(h1, h2);
  EXPECT_EQ(events1, events2);
  EXPECT_GT(events1, 10000u);
  EXPECT_NE(h1, random_workload_hash(43));
}

TEST(ClockDomain, CycleTimesAreExactForDivisorFrequencies) {
  const ClockDomain c40(40'000'000); // 25 ns per cycle
  EXPECT_EQ(c40.time_of(0), 0);
  EXPECT_EQ(c40.time_of(1), 25'000);
  EXPECT_EQ(c40.time_of(4'000'000'000ull), 100 * kSecond);
  EXPECT_EQ(c40.cycle_at(25'000), 1u);
  EXPECT_EQ(c40.cycle_at(24'999), 0u);
  EXPECT_EQ(c40.next_cycle(25'001), 2u);
  EXPECT_EQ(c40.next_cycle(25'000), 1u);
}

TEST(ClockDomain, NoDriftOverLongRunsAtAnAwkwardFrequency) {
  // 33 MHz: 30303.03... ps per cycle. Summing a rounded period drifts by 0.03 ps a cycle
  // (30 us after 10^9 cycles); the domain computes every cycle's start from its number.
  const ClockDomain lanai(33'000'000);
  EXPECT_EQ(lanai.time_of(33'000'000), kSecond);               // exactly one second
  EXPECT_EQ(lanai.time_of(33'000'000ull * 3600), 3600 * kSecond); // and one hour
  EXPECT_EQ(lanai.time_of(1), 30'303);
  EXPECT_EQ(lanai.time_of(3), 90'909);
  // cycle_at inverts time_of everywhere, including just before and at boundaries.
  std::mt19937_64 rng(7);
  for (int i = 0; i < 100000; ++i) {
    const uint64_t c = 1 + rng() % (uint64_t(1) << 45);
    const Time t = lanai.time_of(c);
    EXPECT_EQ(lanai.cycle_at(t), c);
    EXPECT_EQ(lanai.cycle_at(t - 1), c - 1) << c;
    EXPECT_GT(lanai.time_of(c + 1), t);
  }
}

TEST(ClockDomain, RejectsImpossibleFrequencies) {
  EXPECT_THROW(ClockDomain(0), std::invalid_argument);
  EXPECT_THROW(ClockDomain(2'000'000'000'000ull), std::invalid_argument);
}
