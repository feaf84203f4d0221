// DART's operations as library calls (docs/dart.md, "Compound operations"): one end of a
// connection, sending through its Send Registers (dart::Sender) with the cells' data
// words staged in its own endpoint and the answers landing there too.
//
// Remote operations are answered by the remote card alone: a call sends one cell and
// waits, polling its own memory, for the answer whose tag is the call's own (a fresh tag
// per call, so an older answer is never taken for this one). Nothing interrupts either
// host. A call blocks its process until the answer is in; calls on one Ops are sequential.
#pragma once

#include "host/dart/cell.h"
#include "host/dart/driver.h"
#include "host/dart/sender.h"
#include "host/model/address_space.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace lanaikit::dart {

// The big-endian word at virtual `va` of `space`, as the card deposits words (the answers,
// tags and release words the library polls for).
uint32_t word_at(const host::AddressSpace& space, uint64_t va);

class Ops {
public:
  // The scratch area this object owns in the sending end's endpoint: kScratchBytes at
  // `scratch` (word-aligned): data words of up to kStaging queued cells, then the answers.
  static constexpr uint32_t kStaging = SendRegisters::kSlotDepth + 4;
  static constexpr uint32_t kScratchBytes = kStaging * 32 + 32;

  // The end `from_a` of connection `c`; `space` is that end's address space.
  Ops(Driver& driver, host::AddressSpace& space, const Connection& c, bool from_a, uint32_t scratch);
  // The same over an existing Sender of that end (one slot has one Sender: it caches
  // what the slot's registers hold), which must outlive this.
  Ops(Sender& sender, Driver& driver, host::AddressSpace& space, const Connection& c, bool from_a, uint32_t scratch);

  // <reg> += delta at the other end; the value before.
  host::Op<uint32_t> fetch_and_add(host::Process& p, uint32_t reg, uint32_t delta);
  // <reg> = value; the value before.
  host::Op<uint32_t> swap(host::Process& p, uint32_t reg, uint32_t value);
  // If <reg> == expected then <reg> = desired; the value before (== expected: swapped).
  host::Op<uint32_t> compare_and_swap(host::Process& p, uint32_t reg, uint32_t expected, uint32_t desired);
  // <reg> (a FETCH with no operation).
  host::Op<uint32_t> read_register(host::Process& p, uint32_t reg);
  // `bytes` (4 .. 28, a multiple of 4) at `remote` in the other end's endpoint, into
  // `local` in this end's (word 7 of the answer, the tag, lands at local + 28).
  host::Op<void> read(host::Process& p, uint32_t remote, uint32_t bytes, uint32_t local);
  // A block (4 .. MAX_BLOCK bytes, multiple of 4) by READ_MULTIPLE, followed by a
  // register read on the same connection whose answer, behind the block on the same
  // circuit, says the block is in. `tag_reg`: any register of the window.
  host::Op<void> read_block(host::Process& p, uint32_t remote, uint32_t bytes, uint32_t local, uint32_t tag_reg = 0);
  // Sends `data` (up to 32 bytes) as a WRITE of `control` (its mask and address fields):
  // the words are staged in the scratch area first. Does not wait for anything.
  host::Op<void> send(host::Process& p, const Cell& control, const std::vector<uint32_t>& data);

  Sender& sender() { return *sender_; }
  uint64_t calls() const { return tag_; }

private:
  Ops(std::unique_ptr<Sender> own, Sender* borrowed, Driver& driver, host::AddressSpace& space, const Connection& c,
      bool from_a, uint32_t scratch);
  host::Op<uint32_t> fetch(host::Process& p, Cell c);
  uint32_t stage(const std::array<uint32_t, kDataWords>& words); // offset of the staged words
  uint32_t answer_word(uint32_t w) const;

  sim::Node& node_;
  host::AddressSpace& space_;
  uint32_t base_;    // the endpoint's virtual base
  uint32_t scratch_;
  std::unique_ptr<Sender> own_;
  Sender* sender_;
  uint64_t staged_ = 0;
  uint32_t tag_ = 0;
};

} // namespace lanaikit::dart
