// Simulated time: integer picoseconds, and clock domains that convert cycles to time
// exactly.
//
// A clock domain never accumulates: the time of cycle n is computed from n itself
// (floor(n * 10^12 / hz), in 128-bit arithmetic), so a component that has run for 10^15
// cycles is exactly where a fresh computation says, with no drift from summing rounded
// periods. Cycle n begins at time_of(n); cycle_at(t) is the cycle in progress at t.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace lanaikit::sim {

// Picoseconds since the start of the simulation. 2^63 ps is about 106 days.
using Time = int64_t;

inline constexpr Time kPicosecond = 1;
inline constexpr Time kNanosecond = 1000;
inline constexpr Time kMicrosecond = 1000 * kNanosecond;
inline constexpr Time kMillisecond = 1000 * kMicrosecond;
inline constexpr Time kSecond = 1000 * kMillisecond;

class ClockDomain {
public:
  // `hz`: cycles per second, e.g. 33'000'000 for a LANai 4.1.
  explicit ClockDomain(uint64_t hz) : hz_(hz) {
    if (hz == 0 || hz > uint64_t(kSecond))
      throw std::invalid_argument("clock frequency must be 1 Hz .. 1 THz, got " +
                                  std::to_string(hz));
  }

  uint64_t hz() const { return hz_; }

  // Start of cycle n.
  Time time_of(uint64_t cycle) const {
    return Time((unsigned __int128)cycle * uint64_t(kSecond) / hz_);
  }
  // The cycle in progress at time t (t >= 0): time_of(c) <= t < time_of(c + 1).
  uint64_t cycle_at(Time t) const {
    // floor(t * hz / 10^12) is the last n with n * 10^12 / hz <= t, before flooring the
    // latter; time_of floors, so step forward while the next cycle has already begun.
    uint64_t c = uint64_t((unsigned __int128)uint64_t(t) * hz_ / uint64_t(kSecond));
    while (time_of(c + 1) <= t) ++c;
    return c;
  }
  // The first cycle boundary at or after t.
  uint64_t next_cycle(Time t) const {
    const uint64_t c = cycle_at(t);
    return time_of(c) == t ? c : c + 1;
  }

private:
  uint64_t hz_;
};

} // namespace lanaikit::sim
