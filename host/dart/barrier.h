// A barrier across N nodes built from DART's compound operations (docs/dart.md,
// "Compound operations"). The first member is the coordinator: its card holds the arrival
// counter, an address register that every other member's connection window shares. A
// member arrives with one FETCH that adds 1 to it (answered by the coordinator's card,
// not its host) and then watches its own memory for the release word; the coordinator's
// host polls the counter by PIO until every other member of this episode has arrived, then
// releases each one with a one-word WRITE. Neither host is interrupted.
#pragma once

#include "host/dart/driver.h"
#include "host/dart/ops.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace lanaikit::dart {

class Barrier {
public:
  struct Member {
    Endpoint endpoint;
    host::AddressSpace* space = nullptr;
  };
  // area_bytes(N) at `area` in every member's endpoint belong to the barrier: the release
  // word, then the scratch of the member's operations (the coordinator's: one per other
  // member, so releases queued on different slots never share staged words). Set-up:
  // connections (one per member to the coordinator), before Driver::go().
  static constexpr uint32_t area_bytes(uint32_t members) { return 4 + (members - 1) * Ops::kScratchBytes; }
  Barrier(Driver& driver, sim::Cluster& cluster, std::vector<Member> members, uint32_t area);
  ~Barrier();

  // Member m (its index in `members`) arrives; returns once all have arrived at this
  // episode. Each member calls it from its own process, once per episode.
  host::Op<void> arrive(host::Process& p, uint32_t m);

  uint32_t size() const { return uint32_t(members_.size()); }
  uint32_t counter_register() const { return counter_; }
  uint64_t counter_polls() const { return polls_; } // the coordinator's PIO reads

private:

  Driver& driver_;
  sim::Cluster& cluster_;
  std::vector<Member> members_;
  uint32_t area_;
  uint32_t counter_ = 0; // the coordinator's register
  std::vector<Connection> conns_;              // conns_[m - 1]: member m to the coordinator
  std::vector<std::unique_ptr<Ops>> arrive_;   // member m's end (m >= 1)
  std::vector<std::unique_ptr<Ops>> release_;  // the coordinator's end towards member m
  std::vector<uint32_t> episode_;              // per member
  uint64_t polls_ = 0;
};

} // namespace lanaikit::dart
