#include "host/dart/ops.h"

#include "base/bytes.h"

#include <functional>
#include <stdexcept>

namespace lanaikit::dart {

Ops::Ops(Driver& driver, host::AddressSpace& space, const Connection& c, bool from_a, uint32_t scratch)
    : Ops(std::make_unique<Sender>(driver, space, c, from_a), nullptr, driver, space, c, from_a, scratch) {}

Ops::Ops(Sender& sender, Driver& driver, host::AddressSpace& space, const Connection& c, bool from_a, uint32_t scratch)
    : Ops(nullptr, &sender, driver, space, c, from_a, scratch) {}

Ops::Ops(std::unique_ptr<Sender> own, Sender* borrowed, Driver& driver, host::AddressSpace& space, const Connection& c,
         bool from_a, uint32_t scratch)
    : node_(driver.cluster().node(from_a ? c.a.node : c.b.node)), space_(space), base_(from_a ? c.a.base : c.b.base),
      scratch_(scratch), own_(std::move(own)), sender_(own_ ? own_.get() : borrowed) {
  const uint32_t bytes = from_a ? c.a.bytes : c.b.bytes;
  if (scratch % 4 != 0 || scratch > bytes || bytes - scratch < kScratchBytes)
    throw std::invalid_argument("dart::Ops: the scratch area must be word-aligned and lie inside the endpoint");
}

// Each queued cell's words have their own place: the card fetches them when it takes the
// send, and up to kSlotDepth sends may still be queued when the next is staged.
uint32_t Ops::stage(const std::array<uint32_t, kDataWords>& words) {
  const uint32_t at = scratch_ + uint32_t(staged_++ % kStaging) * 32;
  std::array<uint8_t, 32> b{};
  for (uint32_t w = 0; w < kDataWords; ++w) store_be32(b.data() + 4 * w, words[w]);
  space_.copy_in(base_ + at, b);
  return at;
}

uint32_t word_at(const host::AddressSpace& space, uint64_t va) {
  std::array<uint8_t, 4> b{};
  space.copy_out(va, b);
  return load_be32(b.data());
}

uint32_t Ops::answer_word(uint32_t w) const { return word_at(space_, base_ + scratch_ + kStaging * 32 + 4 * w); }

// A FETCH or FETCH_IF: the answer (the register's old value and the tag) lands in the
// answer area in one DMA.
host::Op<uint32_t> Ops::fetch(host::Process& p, Cell c) {
  const uint32_t tag = ++tag_;
  c.data[0] = scratch_ + kStaging * 32;
  c.data[1] = tag;
  const uint32_t at = stage(c.data);
  co_await sender_->send(p, c, at, 12);
  const std::function<bool()> in = [this, tag] { return answer_word(1) == tag; };
  co_await p.wait(node_.memory_watch(), in);
  co_return answer_word(0);
}

host::Op<uint32_t> Ops::fetch_and_add(host::Process& p, uint32_t reg, uint32_t delta) {
  co_return co_await fetch(p, Cell::make(Op::Fetch, 0, Amode::Direct, delta).regs(reg).reg_ops(RegOp::Add, Sel::I, Src::Operand));
}

host::Op<uint32_t> Ops::swap(host::Process& p, uint32_t reg, uint32_t value) {
  Cell c = Cell::make(Op::Fetch, 0, Amode::Direct, 0).regs(reg).reg_ops(RegOp::Load, Sel::I, Src::Value);
  c.data[2] = value;
  co_return co_await fetch(p, c);
}

host::Op<uint32_t> Ops::compare_and_swap(host::Process& p, uint32_t reg, uint32_t expected, uint32_t desired) {
  Cell c = Cell::make(Op::FetchIf, 0, Amode::Direct, expected)
               .regs(reg)
               .cond(Cmp::Eq, Sel::I, Src::Operand)
               .reg_ops(RegOp::Load, Sel::I, Src::Value);
  c.data[2] = desired;
  co_return co_await fetch(p, c);
}

host::Op<uint32_t> Ops::read_register(host::Process& p, uint32_t reg) {
  co_return co_await fetch(p, Cell::make(Op::Fetch, 0, Amode::Direct, 0).regs(reg));
}

host::Op<void> Ops::read(host::Process& p, uint32_t remote, uint32_t bytes, uint32_t local) {
  if (bytes == 0 || bytes > 28 || bytes % 4 != 0)
    throw std::invalid_argument("dart::Ops::read: 4 to 28 bytes, a multiple of 4 (word 7 carries the tag)");
  const uint32_t tag = ++tag_;
  Cell c = Cell::make(Op::Read, (1u << (bytes / 4)) - 1, Amode::Direct, remote);
  c.data[0] = local;
  c.data[1] = tag;
  const uint32_t at = stage(c.data);
  co_await sender_->send(p, c, at, 8);
  const std::function<bool()> in = [this, local, tag] { return word_at(space_, base_ + local + 28) == tag; };
  co_await p.wait(node_.memory_watch(), in);
}

host::Op<void> Ops::read_block(host::Process& p, uint32_t remote, uint32_t bytes, uint32_t local, uint32_t tag_reg) {
  Cell c = Cell::make(Op::ReadMultiple, 0, Amode::Direct, remote);
  c.data[0] = local;
  c.data[1] = bytes;
  const uint32_t at = stage(c.data);
  co_await sender_->send(p, c, at, 8);
  co_await read_register(p, tag_reg);
}

host::Op<void> Ops::send(host::Process& p, const Cell& control, const std::vector<uint32_t>& data) {
  if (data.size() > kDataWords) throw std::invalid_argument("dart::Ops::send: at most 8 data words");
  std::array<uint32_t, kDataWords> words{};
  for (size_t w = 0; w < data.size(); ++w) words[w] = data[w];
  const uint32_t at = stage(words);
  co_await sender_->send(p, control, at, uint32_t(4 * data.size()));
}

} // namespace lanaikit::dart
