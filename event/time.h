// Simulated time: integer picoseconds, and clock domains that convert cycles to time
// exactly.
//
// A clock domain never accumulates: the time of cycle n is computed from n itself
// (floor(n * 10^12 / hz), in exact integer arithmetic), so a component that has run for 10^15
// cycles is exactly where a fresh computation says, with no drift from summing rounded
// periods. Cycle n begins at time_of(n); cycle_at(t) is the cycle in progress at t.
#pragma once

#include <cstdint>
#include <numeric>
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

// The latest time a clock may read, and the longest time an argument may name: 2^62 ps
// (about 53 days). A reading plus an argument then cannot overflow the 64-bit clock; a
// clock that would pass it is an error, never a wrapped or saturated (inexact) time.
inline constexpr Time kMaxTime = Time(1) << 62;

class ClockDomain {
public:
  // `hz`: cycles per second, e.g. 33'000'000 for a LANai 4.1.
  explicit ClockDomain(uint64_t hz) : hz_(hz) {
    if (hz == 0 || hz > uint64_t(kSecond))
      throw std::invalid_argument("clock frequency must be 1 Hz .. 1 THz, got " +
                                  std::to_string(hz));
    const uint64_t g = std::gcd(hz, uint64_t(kSecond));
    num_ = hz / g;
    den_ = uint64_t(kSecond) / g;
  }

  uint64_t hz() const { return hz_; }

  // The conversions use the period as a reduced fraction den/num = 10^12/hz picoseconds
  // (33 MHz: 10^6/33), in 64-bit arithmetic while the products fit (at 33 MHz, for 6
  // simulated days), in 128-bit beyond. Each is one exact integer division.

  // Start of cycle n: floor(n * 10^12 / hz).
  Time time_of(uint64_t cycle) const {
    uint64_t p;
    if (!__builtin_mul_overflow(cycle, den_, &p)) [[likely]]
      return Time(p / num_);
    return Time((unsigned __int128)cycle * den_ / num_);
  }
  // The cycle in progress at time t (t >= 0): time_of(c) <= t < time_of(c + 1). That is
  // the last c with c * 10^12 / hz < t + 1, i.e. floor(((t + 1) * hz - 1) / 10^12).
  uint64_t cycle_at(Time t) const {
    uint64_t p;
    if (!__builtin_mul_overflow(uint64_t(t) + 1, num_, &p)) [[likely]]
      return (p - 1) / den_;
    return uint64_t(((unsigned __int128)(uint64_t(t) + 1) * num_ - 1) / den_);
  }
  // The first cycle boundary at or after t: the first c with c * 10^12 / hz >= t, i.e.
  // ceil(t * hz / 10^12).
  uint64_t next_cycle(Time t) const {
    uint64_t p;
    if (!__builtin_mul_overflow(uint64_t(t), num_, &p) && p <= ~uint64_t(0) - den_) [[likely]]
      return (p + den_ - 1) / den_;
    return uint64_t(((unsigned __int128)uint64_t(t) * num_ + den_ - 1) / den_);
  }

private:
  uint64_t hz_;
  uint64_t num_, den_; // hz / gcd, 10^12 / gcd
};

} // namespace lanaikit::sim
