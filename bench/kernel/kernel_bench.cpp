// The event kernel's hot paths (issue 16, "Cluster speed"):
//
//   kernel_bench
//
// BM_ClockRoundTrip: ClockDomain::next_cycle then time_of, the two conversions of a
// chip's batch (Chip::advance), a dependent chain: two divisions by a run-time constant.
// BM_QueueStreams: schedule and run events from K interleaved streams whose times only
// grow (a cluster's links, buses and processes), with a pending backlog of each stream's
// next 3 events, as in VMMC's main job (runs of 2.7 entries on average); the time per event
// is the kernel's push, pop and dispatch.
#include "event/kernel.h"
#include "event/time.h"

#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

namespace {

using namespace lanaikit::sim;

void BM_ClockRoundTrip(benchmark::State& state) {
  const ClockDomain clock(33'000'000);
  Time t = 1'234'567'890;
  for (auto _ : state) {
    t = clock.time_of(clock.next_cycle(t) + 3) + 7; // the next batch's horizon
    benchmark::DoNotOptimize(t);
  }
}
BENCHMARK(BM_ClockRoundTrip);

void BM_QueueStreams(benchmark::State& state) {
  const int streams = int(state.range(0));
  Kernel k;
  std::vector<Time> next(size_t(streams), 0);
  uint64_t fired = 0;
  // Stream s fires every 200 + 37 s ps (distinct periods, so the streams interleave); each
  // event schedules its stream's event three periods on.
  struct Fire {
    Kernel* k;
    std::vector<Time>* next;
    uint64_t* fired;
    int s;
    void operator()() const {
      ++*fired;
      Time& t = (*next)[size_t(s)];
      t += 200 + 37 * s;
      k->schedule_at(t, Fire{k, next, fired, s});
    }
  };
  for (int s = 0; s < streams; ++s)
    for (int i = 0; i < 3; ++i) {
      next[size_t(s)] += 200 + 37 * s;
      k.schedule_at(next[size_t(s)], Fire{&k, &next, &fired, s});
    }
  for (auto _ : state) k.run_until(k.now() + 100'000);
  state.counters["events/s"] = benchmark::Counter(double(fired), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_QueueStreams)->Arg(2)->Arg(4)->Arg(8);

} // namespace

BENCHMARK_MAIN();
