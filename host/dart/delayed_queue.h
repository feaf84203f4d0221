// A delayed-action queue (docs/dart.md, "Compound operations"): host-bound actions that
// accumulate in a ring in the owner's memory, deposited by the owner's card without
// interrupting anyone, and processed when the owner's host chooses (drain()). A node may
// have any number (the paper's contrast with Hamlyn's one per node): each is a ring and
// two address registers.
//
// A post is one cell, built from the primitives (store indirect with post-increment and a
// wrap): WRITE indirect at <i> = the next entry's offset in the endpoint, register
// operation A i += 32 (the operand), B i &= <k>, where k holds ring | (ring bytes - 1)
// (so the ring must be aligned to twice its size: the carry out of the last entry lands
// in a bit the mask clears), and the conditional i == <j>, j the position `slack` entries
// short of the owner's next unread one: a COND event when the ring nears full. An entry
// is 7 words and a non-zero stamp in word 7 that drain() clears: an entry is there when
// its stamp is. The three registers are a window every poster's connection shares.
#pragma once

#include "host/dart/driver.h"
#include "host/dart/ops.h"

#include <array>
#include <cstdint>
#include <vector>

namespace lanaikit::dart {

class DelayedQueue {
public:
  using Entry = std::array<uint32_t, 7>;
  // `entries` (a power of two, 2 .. 128) 32-byte entries at `ring` (aligned to twice the
  // ring's size) in `owner`'s endpoint; the COND warning fires when `slack` (1 .. entries - 1)
  // entries are left.
  DelayedQueue(Driver& driver, const Endpoint& owner, host::AddressSpace& owner_space, uint32_t ring,
               uint32_t entries, uint32_t slack);

  // A connection from `poster` (end a) whose window at the owner is the queue's registers.
  Connection attach(const Endpoint& poster);
  // Posts one entry through `ops` (the poster's end of an attached connection); `stamp`
  // must not be 0. Returns once the cell is queued on the poster's card.
  host::Op<void> post(host::Process& p, Ops& ops, const std::vector<uint32_t>& words, uint32_t stamp = 1);
  // The owner's host: every entry present, oldest first, each freed; then the warning
  // moved on by PIO (one posted write). Nothing is read from the card.
  // Posters must leave the owner room: a post into a full ring overwrites its oldest
  // entry (the warning event is the owner's signal to drain).
  host::Op<std::vector<Entry>> drain(host::Process& p);

  uint32_t tail_register() const { return regs_; }
  uint64_t drained() const { return drained_; }

private:
  uint32_t warn_position() const;

  Driver& driver_;
  Endpoint owner_;
  host::AddressSpace& space_;
  uint32_t ring_, entries_, slack_;
  uint32_t regs_ = 0; // <tail>, <warn>, <mask> at the owner
  uint32_t head_ = 0; // the next entry the owner reads (index)
  uint64_t drained_ = 0;
};

} // namespace lanaikit::dart
