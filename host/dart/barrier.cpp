#include "host/dart/barrier.h"


#include <functional>
#include <stdexcept>

namespace lanaikit::dart {

Barrier::Barrier(Driver& driver, sim::Cluster& cluster, std::vector<Member> members, uint32_t area)
    : driver_(driver), cluster_(cluster), members_(std::move(members)), area_(area) {
  if (members_.size() < 2) throw std::invalid_argument("dart::Barrier: at least two members");
  for (const Member& m : members_)
    if (!m.space || area_ % 4 != 0 || area_ > m.endpoint.bytes || m.endpoint.bytes - area_ < area_bytes(size()))
      throw std::invalid_argument("dart::Barrier: every member needs an address space and area_bytes(N) at `area` in its endpoint");
  const Member& home = members_[0];
  counter_ = driver_.alloc_registers(home.endpoint.node, 1);
  driver_.set_register(home.endpoint.node, counter_, 0);
  arrive_.resize(members_.size());
  release_.resize(members_.size());
  for (uint32_t m = 1; m < members_.size(); ++m) {
    const Member& mem = members_[m];
    // The member's end is a; the coordinator's window is the counter alone.
    const Connection c = driver_.connect(mem.endpoint, home.endpoint, 1, {.at_a = std::nullopt, .at_b = counter_});
    conns_.push_back(c);
    arrive_[m] = std::make_unique<Ops>(driver_, *mem.space, c, true, area_ + 4);
    release_[m] = std::make_unique<Ops>(driver_, *home.space, c, false,
                                        area_ + 4 + (m - 1) * Ops::kScratchBytes);
  }
  episode_.assign(members_.size(), 0);
}

Barrier::~Barrier() = default;

host::Op<void> Barrier::arrive(host::Process& p, uint32_t m) {
  const uint32_t episode = ++episode_.at(m);
  if (m != 0) {
    co_await arrive_[m]->fetch_and_add(p, 0, 1);
    host::AddressSpace& space = *members_[m].space;
    const uint32_t word = members_[m].endpoint.base + area_;
    const std::function<bool()> released = [&space, word, episode] {
      return int32_t(word_at(space, word) - episode) >= 0;
    };
    co_await p.wait(cluster_.node(members_[m].endpoint.node).memory_watch(), released);
    co_return;
  }
  // The coordinator: every other member's arrival of this episode counted on its card.
  sim::Node& home = cluster_.node(members_[0].endpoint.node);
  const uint32_t target = episode * (size() - 1);
  const uint32_t addr = driver_.reg_address(counter_);
  for (;;) {
    uint32_t count = 0;
    co_await home.pio_read_word(p, addr, count);
    ++polls_;
    if (int32_t(count - target) >= 0) break;
  }
  const std::vector<uint32_t> release{episode}; // (named: GCC 12 cannot co_await with a braced list)
  for (uint32_t r = 1; r < size(); ++r) // the release word, at `area` in every member's endpoint
    co_await release_[r]->send(p, Cell::make(Op::Write, 0x01, Amode::Direct, area_), release);
}

} // namespace lanaikit::dart
