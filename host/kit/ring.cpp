#include "host/kit/ring.h"

#include "base/bytes.h"
#include "host/kit/sram.h"

namespace lanaikit::kit {

SramQueue::SramQueue(const Ref& entries, std::string_view seq_field, const Ref& consumed)
    : base_(entries.addr()), slots_(entries.count()), entry_bytes_(entries.elem_size()),
      seq_offset_(0), consumed_addr_(consumed.addr()) {
  if (slots_ == 0 || (slots_ & (slots_ - 1)) != 0)
    throw KitError(entries.path() + " has " + std::to_string(slots_) +
                   " entries, not a power of two");
  const Ref seq = entries[0].field(seq_field);
  if (seq.size() != 4) throw KitError(seq.path() + " is not a 32-bit field");
  if (consumed.size() != 4) throw KitError(consumed.path() + " is not a 32-bit field");
  seq_offset_ = seq.addr() - base_;
}

host::Op<void> SramQueue::acquire(host::Process& p, sim::Node& node) {
  const auto has_room = [this](uint32_t consumed) { return posted_ - consumed < slots_; };
  if (has_room(consumed_)) co_return;
  sim::Node::WordPoll poll{consumed_addr_, has_room, &consumed_, &consumed_reads_};
  while (!has_room(consumed_)) co_await node.pio_poll_word(p, poll);
}

uint32_t SramQueue::publish(host::Process& p, sim::Node& node) {
  const uint32_t seq = ++posted_;
  node.pio_write_word(p, seq_addr(seq), seq);
  return seq;
}

uint32_t SramQueue::peek_consumed(sim::Node& node) const {
  return peek32(node, consumed_addr_);
}

HostRing::HostRing(host::PhysAddr base, uint32_t slots, uint32_t record_bytes, uint32_t seq_offset)
    : base_(base), slots_(slots), record_bytes_(record_bytes), seq_offset_(seq_offset) {
  if (slots_ == 0 || seq_offset_ + 4 > record_bytes_)
    throw KitError("a host ring needs slots and a stamp inside its records (" +
                   std::to_string(slots) + " slots, stamp at " + std::to_string(seq_offset) +
                   " of " + std::to_string(record_bytes) + " bytes)");
}

bool HostRing::next(const host::PhysicalMemory& memory, std::vector<uint8_t>& record) {
  record.resize(record_bytes_);
  memory.read(base_ + uint64_t(taken_ % slots_) * record_bytes_, record);
  if (load_be32(&record[seq_offset_]) != taken_ + 1) return false;
  ++taken_;
  return true;
}

} // namespace lanaikit::kit
