// The discrete-event kernel and clock domains: ordering rules, cancellation, limits,
// exact cycle/time conversion over long runs, and determinism of the trace hash.
#include "event/kernel.h"
#include "event/time.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <functional>
#include <memory>
#include <random>
#include <set>
#include <stdexcept>
#include <tuple>
#include <string>
#include <vector>

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

// next_in_line(order): would an event scheduled now, at now(), with that order run right
// after the current one? Checked against what actually runs next.
TEST(Kernel, NextInLineSaysWhetherAZeroDelayEventWouldRunNext) {
  Kernel k;
  EXPECT_FALSE(k.next_in_line()); // not inside an event
  std::vector<std::pair<bool, std::string>> said; // (next_in_line, what ran after it)
  std::string log;
  auto probe = [&](const char* name, int8_t order) {
    // Ask, then schedule the follow-up and record what runs next.
    said.push_back({k.next_in_line(order), ""});
    const size_t i = said.size() - 1;
    const size_t mark = log.size();
    k.schedule_in(0, [&, i, mark, name] { said[i].second = log.substr(mark) + name; log += name; }, 0, order);
  };
  k.schedule_at(5, [&] { probe("x", 0); });            // alone at 5: x runs next
  k.schedule_at(9, [&] { probe("y", 0); });            // "b" (order 0) is also at 9: it runs first
  k.schedule_at(9, [&] { log += "b"; });
  k.schedule_at(12, [&] { probe("z", 0); });           // only an order-1 event also at 12
  k.schedule_at(12, [&] { log += "o"; }, 0, 1);
  k.schedule_at(15, [&] { probe("w", 1); });           // same order as the pending one: FIFO
  k.schedule_at(15, [&] { log += "p"; }, 0, 1);
  k.schedule_at(16, [&] { probe("v", -1); });          // a lower order jumps ahead
  k.schedule_at(16, [&] { log += "q"; });
  k.run();
  ASSERT_EQ(said.size(), 5u);
  EXPECT_TRUE(said[0].first);
  EXPECT_EQ(said[0].second, "x");
  EXPECT_FALSE(said[1].first);
  EXPECT_EQ(said[1].second, "by");
  EXPECT_TRUE(said[2].first);
  EXPECT_EQ(said[2].second, "z");
  EXPECT_FALSE(said[3].first);
  EXPECT_EQ(said[3].second, "pw");
  EXPECT_TRUE(said[4].first);
  EXPECT_EQ(said[4].second, "v");
  EXPECT_FALSE(k.next_in_line());
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

TEST(Kernel, StaleIdsOfReusedSlotsCancelNothing) {
  // A slot is reused as soon as its event ran or was cancelled; the old id stays dead.
  Kernel k;
  int ran = 0;
  const EventId a = k.schedule_at(10, [&] { ran += 1; });
  k.run();
  const EventId b = k.schedule_at(20, [&] { ran += 10; });
  EXPECT_NE(a, b);
  EXPECT_FALSE(k.cancel(a));
  const EventId c = k.schedule_at(30, [&] { ran += 100; });
  EXPECT_TRUE(k.cancel(c));
  const EventId d = k.schedule_at(40, [&] { ran += 1000; });
  EXPECT_FALSE(k.cancel(c));
  EXPECT_NE(c, d);
  k.run();
  EXPECT_EQ(ran, 1011);
  EXPECT_FALSE(k.cancel(0));
  EXPECT_FALSE(k.cancel(~EventId(0)));
}

TEST(Kernel, CancellingMostPendingEventsKeepsOrder) {
  // Enough cancellations to rebuild the queue from its live entries, several times over.
  Kernel k;
  std::vector<EventId> ids;
  std::vector<int> log;
  for (int i = 0; i < 2000; ++i)
    ids.push_back(k.schedule_at(Time(1000 - i % 1000), [&log, i] { log.push_back(i); }, 0,
                                int8_t(i % 3 - 1)));
  for (int i = 0; i < 2000; ++i)
    if (i % 7 != 0) {
      EXPECT_TRUE(k.cancel(ids[size_t(i)]));
    }
  EXPECT_EQ(k.pending(), 286u);
  k.run();
  std::vector<int> want;
  for (int i = 0; i < 2000; i += 7) want.push_back(i);
  std::sort(want.begin(), want.end(), [](int a, int b) {
    const Time ta = 1000 - a % 1000, tb = 1000 - b % 1000;
    if (ta != tb) return ta < tb;
    if (a % 3 != b % 3) return a % 3 < b % 3;
    return a < b;
  });
  EXPECT_EQ(log, want);
}

TEST(Kernel, CallbackThatThrowsLeavesTheKernelUsable) {
  Kernel k;
  int ran = 0;
  k.schedule_at(1, [] { throw std::runtime_error("boom"); });
  k.schedule_at(2, [&] { ++ran; });
  EXPECT_THROW(k.run(), std::runtime_error);
  EXPECT_EQ(k.pending(), 1u);
  k.run();
  EXPECT_EQ(ran, 1);
  EXPECT_TRUE(k.idle());
}

TEST(Callback, HoldsSmallAndLargeCallablesAndMoves) {
  int n = 0;
  Callback small([&n] { ++n; });
  std::array<int, 64> big{};
  big[63] = 5;
  auto owned = std::make_shared<int>(7);
  Callback large([&n, big, owned] { n += big[63] + *owned; });
  EXPECT_EQ(owned.use_count(), 2);
  small();
  large();
  EXPECT_EQ(n, 13);
  Callback moved(std::move(large));
  EXPECT_FALSE(large);
  moved();
  EXPECT_EQ(n, 25);
  moved = std::move(small);
  EXPECT_EQ(owned.use_count(), 1); // the large callable was destroyed
  moved();
  EXPECT_EQ(n, 26);
  Callback empty(std::function<void()>{});
  EXPECT_FALSE(empty);
  Callback from_function(std::function<void()>([&n] { n += 100; }));
  ASSERT_TRUE(from_function);
  from_function();
  EXPECT_EQ(n, 126);
  // A move-only capture.
  auto p = std::make_unique<int>(3);
  Callback move_only([p = std::move(p), &n] { n += *p; });
  move_only();
  EXPECT_EQ(n, 129);
}

TEST(Kernel, SchedulesStdFunctionsAndCallbacks) {
  Kernel k;
  std::string log;
  const std::function<void()> f = [&] { log += "f"; };
  k.schedule_at(1, f); // copied
  k.schedule_at(2, Callback([&] { log += "c"; }));
  k.schedule_at(3, f);
  k.run();
  EXPECT_EQ(log, "fcf");
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

// The same workload with timers that are cancelled and rescheduled. Its hash is pinned: the
// value the first kernel (std::function events, std::deque bookkeeping, std::push_heap)
// gave, so a faster queue that changed the order or numbering of events would show here.
TEST(Kernel, TraceHashWithCancellationsIsPinned) {
  Kernel k;
  std::mt19937_64 rng(42);
  std::vector<EventId> timers(4, 0);
  std::function<void(int)> tick = [&](int component) {
    k.trace(uint64_t(component));
    const int n = int(rng() % 3);
    for (int i = 0; i < n && k.pending() < 200; ++i) {
      const Time delay = Time(rng() % 5000);
      const int c = int(rng() % 16);
      const int8_t order = int8_t(rng() % 3);
      k.schedule_in(delay, [&, c] { tick(c); }, uint32_t(component), order);
    }
    EventId& t = timers[size_t(component % 4)];
    if (t && rng() % 2) k.cancel(t);
    const Time delay = Time(rng() % 20000);
    const int8_t order = int8_t(int(rng() % 3) - 1);
    t = k.schedule_in(delay, [&, component] { k.trace(0x7157ull + uint64_t(component)); }, 99u,
                      order);
  };
  for (int c = 0; c < 16; ++c) k.schedule_at(0, [&, c] { tick(c); }, uint32_t(c));
  k.run_until(5 * kMillisecond);
  EXPECT_EQ(k.events_run(), 20989u);
  EXPECT_EQ(k.trace_hash(), 0x274ca942ce980878ull); // word-wise fold since issue 16 (was 0xeb891aa87b60e15f)
}

// Against a reference queue (a std::set ordered by time, order, scheduling number): streams
// at increasing times (what the runs take), random delays, far-future events, now-events,
// and cancellations, with events scheduling more. Every event the kernel runs must be the
// reference's earliest at that moment.
TEST(Kernel, MatchesAReferenceQueueUnderRandomLoad) {
  struct Ref {
    Time at;
    int order;
    uint64_t n;
    bool operator<(const Ref& o) const { return std::tie(at, order, n) < std::tie(o.at, o.order, o.n); }
  };
  for (uint32_t seed = 1; seed <= 10; ++seed) {
    Kernel k;
    std::mt19937_64 rng(seed);
    std::set<Ref> ref;
    std::vector<std::pair<EventId, Ref>> cancellable;
    uint64_t n = 0, ran = 0, mismatches = 0;
    std::vector<Time> stream_next(3, 0);
    std::function<void(uint64_t)> fire = [&](uint64_t me) {
      ++ran;
      if (ref.empty() || ref.begin()->n != me || ref.begin()->at != k.now()) ++mismatches;
      else ref.erase(ref.begin());
      const int spawn = int(rng() % 4);
      for (int i = 0; i < spawn && ref.size() < 3000 && n < 60000; ++i) {
        Time at = k.now();
        const int kind = int(rng() % 5);
        if (kind < 3) { // a stream: increasing times
          Time& next = stream_next[size_t(kind)];
          next = std::max(next, k.now()) + Time(rng() % 200);
          at = next;
        } else if (kind == 3) {
          at += Time(rng() % 1000);
        } else if (rng() % 8 == 0) {
          at += Time(1'000'000 + rng() % 1000);
        }
        const int order = int(rng() % 3) - 1;
        const Ref r{at, order, n++};
        ref.insert(r);
        const EventId e = k.schedule_at(at, [&fire, id = r.n] { fire(id); }, 7, int8_t(order));
        if (rng() % 4 == 0) cancellable.emplace_back(e, r);
      }
      while (!cancellable.empty() && rng() % 3 == 0) {
        const size_t i = size_t(rng() % cancellable.size());
        const bool pending = ref.erase(cancellable[i].second) > 0;
        if (k.cancel(cancellable[i].first) != pending) ++mismatches;
        cancellable.erase(cancellable.begin() + std::ptrdiff_t(i));
      }
      if (k.pending() != ref.size()) ++mismatches;
      if (k.next_time() != (ref.empty() ? -1 : ref.begin()->at)) ++mismatches;
    };
    for (int i = 0; i < 8; ++i) {
      const Ref r{Time(i), 0, n++};
      ref.insert(r);
      k.schedule_at(r.at, [&fire, id = r.n] { fire(id); });
    }
    k.run();
    EXPECT_EQ(mismatches, 0u) << "seed " << seed;
    EXPECT_TRUE(ref.empty()) << "seed " << seed;
    EXPECT_GT(ran, 1000u) << "seed " << seed;
  }
}

// The queue keeps its runs ordered by their last entries (a push takes the first that ends
// before it). Mass cancellation rebuilds the runs from their live entries and re-ranks
// them (six times here); streams that go on scheduling afterwards, and lose all their
// pending events now and then, must still come out in (time, FIFO) order.
TEST(Kernel, RunsStayOrderedAfterTheQueueIsRebuilt) {
  struct Ref {
    Time at;
    uint64_t n;
    bool operator<(const Ref& o) const { return std::tie(at, n) < std::tie(o.at, o.n); }
  };
  Kernel k;
  std::set<Ref> ref;
  std::vector<EventId> ids;
  std::vector<Ref> made; // by n
  std::vector<Time> next(6, 0);
  uint64_t n = 0, ran = 0, mismatches = 0;
  std::function<void(uint64_t, int)> fire;
  std::vector<int> stream_of; // by n
  auto add = [&](int stream) {
    Time& t = next[size_t(stream)];
    t = std::max(t, k.now()) + 100 + 17 * stream; // six streams, interleaved periods
    const Ref r{t, n++};
    ref.insert(r);
    made.push_back(r);
    stream_of.push_back(stream);
    ids.push_back(k.schedule_at(r.at, [&fire, id = r.n, stream] { fire(id, stream); }));
  };
  fire = [&](uint64_t me, int stream) {
    ++ran;
    if (ref.empty() || ref.begin()->n != me) ++mismatches;
    else ref.erase(ref.begin());
    if (n < 6000) add(stream);
    if (n < 6000 && me % 5 == 0) add((stream + 3) % 6); // another stream's run gets one more
    if (ran % 97 == 0) { // now and then a stream is cancelled whole: its runs empty
      const int victim = int(ran / 97 % 6);
      for (auto it = ref.begin(); it != ref.end();) {
        if (stream_of[it->n] == victim) {
          if (!k.cancel(ids[it->n])) ++mismatches;
          it = ref.erase(it);
        } else {
          ++it;
        }
      }
    }
  };
  for (int i = 0; i < 2400; ++i) add(i % 6);
  // Most of everything, and all of streams 0 and 1.
  for (uint64_t i = 0; i < ids.size(); ++i)
    if (i % 8 != 0 || i % 6 < 2) {
      EXPECT_TRUE(k.cancel(ids[i]));
      ref.erase(made[i]);
    }
  EXPECT_EQ(k.pending(), ref.size());
  k.run();
  EXPECT_EQ(mismatches, 0u);
  EXPECT_TRUE(ref.empty());
  EXPECT_GT(ran, 3000u);
}

TEST(Kernel, TraceIsAWordWiseFold) {
  Kernel k;
  uint64_t want = 0xcbf29ce484222325ull;
  std::mt19937_64 rng(5);
  for (int i = 0; i < 1000; ++i) {
    const uint64_t v = rng() >> (rng() % 64); // small and large values alike
    k.trace(v);
    const uint64_t h = (want ^ v) * 0x9e3779b97f4a7c15ull;
    want = h ^ (h >> 32);
  }
  EXPECT_EQ(k.trace_hash(), want);
}

// Any change to one traced value, in any bit, changes the hash.
TEST(Kernel, TraceSeesEveryBitOfAValue) {
  auto hash_of = [](uint64_t v) {
    Kernel k;
    k.trace(1);
    k.trace(v);
    k.trace(2);
    return k.trace_hash();
  };
  const uint64_t base = hash_of(0x0123456789abcdefull);
  for (int b = 0; b < 64; ++b) EXPECT_NE(hash_of(0x0123456789abcdefull ^ (uint64_t(1) << b)), base) << "bit " << b;
}

// An agent that runs exactly to whatever horizon it is given, recording each one.
struct HorizonAgent : Agent {
  std::vector<Time> horizons;
  Time advance(Time horizon) override {
    horizons.push_back(horizon);
    return horizon;
  }
};

// Each batch is counted under what set its horizon: a distant event plus the reach, the
// next near event, the run's limit; the census names the events by tag.
TEST(Kernel, BatchBoundsSayWhatEndedEachBatch) {
  for (bool census : {false, true}) {
    Kernel k;
    k.set_distant_reach(50);
    k.set_bound_census(census);
    HorizonAgent a;
    k.wake(k.add_agent(&a), 0);
    k.schedule_at(400, [] {}, 9, 0, Kernel::Reach::Distant);
    k.schedule_at(1000, [] {}, 7);
    k.run_until(2000);
    EXPECT_EQ(a.horizons, (std::vector<Time>{450, 1000, 2000}));
    const Kernel::BatchBounds& b = k.batch_bounds();
    EXPECT_EQ(b.distant_event, 1u);
    EXPECT_EQ(b.near_event, 1u);
    EXPECT_EQ(b.limit, 1u);
    EXPECT_EQ(b.other_agent, 0u);
    EXPECT_EQ(k.agent_batches(), 3u);
    using Census = std::vector<std::pair<uint64_t, uint64_t>>;
    const Census want = census ? Census{{9 | Kernel::kCensusDistant, 1}, {7, 1}} : Census{};
    EXPECT_EQ(k.bound_census(), want);
  }
}

// Two busy agents hold each other to the lookahead: each batch ends 100 ps past the
// other's time, until the limit is nearer.
TEST(Kernel, BatchBoundsCountTheLookaheadBehindAnotherAgent) {
  Kernel k;
  k.set_lookahead(100);
  HorizonAgent a, b;
  k.wake(k.add_agent(&a), 0);
  k.wake(k.add_agent(&b), 0);
  k.run_until(1000);
  EXPECT_EQ(a.horizons, (std::vector<Time>{100, 300, 500, 700, 900, 1000}));
  EXPECT_EQ(b.horizons, (std::vector<Time>{200, 400, 600, 800, 1000}));
  EXPECT_EQ(k.batch_bounds().other_agent, 9u);
  EXPECT_EQ(k.batch_bounds().limit, 2u);
  EXPECT_EQ(k.batch_bounds().near_event + k.batch_bounds().distant_event, 0u);
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

// The definitions, in 128-bit arithmetic, which the domain's reduced-fraction forms
// (64-bit while the products fit) must match everywhere.
static Time ref_time_of(uint64_t hz, uint64_t c) {
  return Time((unsigned __int128)c * uint64_t(kSecond) / hz);
}
static uint64_t ref_cycle_at(uint64_t hz, Time t) {
  uint64_t c = uint64_t((unsigned __int128)uint64_t(t) * hz / uint64_t(kSecond));
  while (ref_time_of(hz, c + 1) <= t) ++c;
  return c;
}

TEST(ClockDomain, FastFormsMatchTheDefinitions) {
  std::mt19937_64 rng(11);
  const uint64_t freqs[] = {1, 3, 7, 33'000'000, 33'333'333, 37'500'000, 40'000'000,
                            66'666'667, 132'000'000, 999'999'937, 1'000'000'000'000ull};
  for (const uint64_t hz : freqs) {
    const ClockDomain d(hz);
    for (int i = 0; i < 20000; ++i) {
      // Small, medium and huge times (past the 64-bit products), and cycle boundaries.
      const int range = int(rng() % 3);
      Time t = Time(rng() >> (range == 0 ? 40 : range == 1 ? 20 : 2));
      if (i % 4 == 0) {
        const uint64_t c = ref_cycle_at(hz, t);
        t = ref_time_of(hz, c) + Time(rng() % 3) - 1;
        if (t < 0) t = 0;
      }
      const uint64_t c = ref_cycle_at(hz, t);
      ASSERT_EQ(d.cycle_at(t), c) << hz << " " << t;
      ASSERT_EQ(d.time_of(c), ref_time_of(hz, c)) << hz << " " << c;
      ASSERT_EQ(d.next_cycle(t), ref_time_of(hz, c) == t ? c : c + 1) << hz << " " << t;
    }
  }
}

TEST(ClockDomain, RejectsImpossibleFrequencies) {
  EXPECT_THROW(ClockDomain(0), std::invalid_argument);
  EXPECT_THROW(ClockDomain(2'000'000'000'000ull), std::invalid_argument);
}

// A held-back event (reserve_seq now, schedule_reserved later) runs exactly where the
// event scheduled at reserve time would have: among events at the same time and order,
// by the place it reserved, even if others were scheduled for that instant meanwhile, and
// even from an event at that very instant. has_passed() says when its place is behind.
TEST(Kernel, AReservedPlaceKeepsTheEventWhereItWouldHaveRun) {
  auto run = [](bool reserve) {
    Kernel k;
    std::vector<std::string> log;
    auto note = [&](std::string s) { return [&log, s] { log.push_back(s); }; };
    k.schedule_at(100, note("a"));
    uint64_t seq = 0;
    if (reserve) seq = k.reserve_seq(100);
    else k.schedule_at(100, note("held"));
    k.schedule_at(100, note("b"));
    k.schedule_at(50, [&, reserve, seq] {
      k.schedule_at(100, note("c")); // scheduled later than the held one
      if (reserve) {
        EXPECT_FALSE(k.has_passed(100, seq));
        EXPECT_TRUE(k.has_passed(40, seq + 100)); // an earlier time has passed, any place
        k.schedule_reserved(100, seq, note("held"));
      }
    });
    k.schedule_at(100, [&] { log.push_back("d"); }, 0, -1); // order -1: first at 100
    k.run();
    if (reserve) {
      EXPECT_TRUE(k.has_passed(100, seq));
      EXPECT_THROW(k.schedule_reserved(100, seq, [] {}), std::logic_error); // behind now
      // A place never reserved.
      EXPECT_THROW(k.schedule_reserved(200, k.reserve_seq(200) + 1, [] {}), std::logic_error);
    }
    return log;
  };
  const std::vector<std::string> eager = run(false);
  EXPECT_EQ(eager, (std::vector<std::string>{"d", "a", "held", "b", "c"}));
  EXPECT_EQ(run(true), eager);

  // From an event at the reserved instant that comes before it: the place is still ahead
  // (has_passed is false) and the event runs there, before events scheduled after it was.
  Kernel k;
  std::vector<std::string> log;
  uint64_t seq = 0;
  k.schedule_at(100, [&] {
    EXPECT_FALSE(k.has_passed(100, seq));
    k.schedule_reserved(100, seq, [&] { log.push_back("held"); });
    k.schedule_in(0, [&] { log.push_back("now"); }); // a zero-delay follow-up: after it
  });
  seq = k.reserve_seq(100);
  k.schedule_at(100, [&] { log.push_back("later"); });
  k.run();
  EXPECT_EQ(log, (std::vector<std::string>{"held", "later", "now"}));
}

// A run paused every few steps (sim::Kernel::run_steps, what c:run does to read the wall
// clock) is the same run: the same batches with the same horizons, the same events in the
// same order, and no dozing agent settled at a pause.
struct DozyAgent : Agent {
  Kernel* k = nullptr;
  size_t index = 0;
  int settles = 0;
  std::vector<Time> horizons;
  Time advance(Time horizon) override {
    horizons.push_back(horizon);
    if (horizons.size() == 5) { // then it dozes until settled
      k->doze(index);
      return -1;
    }
    return horizon;
  }
  void settle() override {
    ++settles;
    k->wake(index, k->now());
  }
};

TEST(Kernel, APausedRunIsTheSameRun) {
  auto run = [](uint64_t steps) {
    Kernel k;
    k.set_lookahead(70);
    HorizonAgent a;
    DozyAgent d;
    d.k = &k;
    k.wake(k.add_agent(&a), 0);
    d.index = k.add_agent(&d);
    k.wake(d.index, 0);
    std::vector<std::pair<Time, int>> ran;
    for (int i = 0; i < 40; ++i)
      k.schedule_at(37 * i + 11, [&ran, &k, i] { ran.emplace_back(k.now(), i); }, 5);
    int pauses = 0;
    if (steps == 0) {
      k.run_until(2000);
    } else {
      while (!k.run_steps(2000, steps)) {
        ++pauses;
        EXPECT_EQ(d.settles, 0); // a pause settles nobody
      }
      k.settle();
    }
    EXPECT_EQ(d.settles, 1);
    return std::tuple{k.trace_hash(), a.horizons, d.horizons, ran, k.agent_batches(), pauses};
  };
  const auto whole = run(0);
  for (uint64_t steps : {1, 2, 7}) {
    SCOPED_TRACE(steps);
    const auto paused = run(steps);
    EXPECT_EQ(std::get<0>(whole), std::get<0>(paused));
    EXPECT_EQ(std::get<1>(whole), std::get<1>(paused));
    EXPECT_EQ(std::get<2>(whole), std::get<2>(paused));
    EXPECT_EQ(std::get<3>(whole), std::get<3>(paused));
    EXPECT_EQ(std::get<4>(whole), std::get<4>(paused));
    EXPECT_GT(std::get<5>(paused), 5); // it did pause, often
  }
}
