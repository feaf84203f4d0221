#include "host/dart/delayed_queue.h"

#include "base/bytes.h"

#include <stdexcept>

namespace lanaikit::dart {

DelayedQueue::DelayedQueue(Driver& driver, const Endpoint& owner, host::AddressSpace& owner_space, uint32_t ring,
                           uint32_t entries, uint32_t slack)
    : driver_(driver), owner_(owner), space_(owner_space), ring_(ring), entries_(entries), slack_(slack) {
  const uint32_t bytes = entries * 32;
  if (entries < 2 || entries > 128 || (entries & (entries - 1)) != 0 || slack == 0 || slack >= entries)
    throw std::invalid_argument("dart::DelayedQueue: entries a power of two from 2 to 128, slack 1 .. entries - 1");
  if (ring % (2 * bytes) != 0 || ring > owner.bytes || owner.bytes - ring < bytes)
    throw std::invalid_argument("dart::DelayedQueue: the ring must lie in the endpoint, aligned to twice its size");
  regs_ = driver_.alloc_registers(owner.node, 3);
  driver_.set_register(owner.node, regs_, ring);
  driver_.set_register(owner.node, regs_ + 1, warn_position());
  driver_.set_register(owner.node, regs_ + 2, ring | (bytes - 1));
  std::vector<uint8_t> zero(bytes, 0);
  space_.copy_in(owner.base + ring, zero);
}

// The tail at which `slack` entries are left before the owner's next unread one.
uint32_t DelayedQueue::warn_position() const {
  return ring_ + ((head_ + entries_ - slack_) % entries_) * 32;
}

Connection DelayedQueue::attach(const Endpoint& poster) {
  return driver_.connect(poster, owner_, 3, {.at_a = std::nullopt, .at_b = regs_});
}

host::Op<void> DelayedQueue::post(host::Process& p, Ops& ops, const std::vector<uint32_t>& words, uint32_t stamp) {
  if (words.size() > 7 || stamp == 0) throw std::invalid_argument("dart::DelayedQueue::post: up to 7 words and a non-zero stamp");
  std::vector<uint32_t> data(words);
  data.resize(7, 0);
  data.push_back(stamp);
  const Cell post = Cell::make(Op::Write, 0xFF, Amode::Indirect, 32)
                        .regs(0, 1, 2)
                        .reg_ops(RegOp::Add, Sel::I, Src::Operand, RegOp::And, Sel::I, Src::K)
                        .cond(Cmp::Eq, Sel::I, Src::J);
  co_await ops.send(p, post, data);
}

host::Op<std::vector<DelayedQueue::Entry>> DelayedQueue::drain(host::Process& p) {
  std::vector<Entry> out;
  for (;;) {
    const uint32_t at = owner_.base + ring_ + head_ * 32;
    std::array<uint8_t, 32> b{};
    space_.copy_out(at, b);
    if (load_be32(b.data() + 28) == 0) break;
    Entry e{};
    for (uint32_t w = 0; w < 7; ++w) e[w] = load_be32(b.data() + 4 * w);
    out.push_back(e);
    const std::array<uint8_t, 4> zero{};
    space_.copy_in(at + 28, zero);
    head_ = (head_ + 1) % entries_;
    ++drained_;
  }
  if (!out.empty())
    driver_.cluster().node(owner_.node).pio_write_word(p, driver_.reg_address(regs_ + 1), warn_position());
  co_await p.sync();
  co_return out;
}

} // namespace lanaikit::dart
