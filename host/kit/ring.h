// Sequenced rings and queues between host and firmware (docs/protocols.md, "Rings and
// queues"), with the ordering discipline written once.
//
// SramQueue: entries in SRAM that a host process fills by PIO and the firmware consumes.
//   The producer writes an entry's fields, then its `seq` field (the count of entries
//   posted so far, from 1) last: that store publishes the entry. The firmware copies the
//   fields, then publishes `consumed` (an SRAM word), and only then: publishing first lets
//   the producer's next lap overwrite fields the firmware has not read yet (the bug VMMC's
//   commit ed14907 fixed; firmware/lib's queue does it in this order). The producer reads
//   `consumed` by PIO only when every slot looks used.
//
//   kit::SramQueue q(view.ref("vmmc_procs[1].sendq"), "seq", view.ref("vmmc_procs[1].consumed"));
//   co_await q.acquire(p, node);  const uint32_t seq = q.next_seq();
//   node.pio_write_word(p, q.entry(seq) + off, ...);  q.publish(p, node, seq);
//
// HostRing: records the firmware DMAs into a ring in host memory, each stamped with its
//   sequence number (from 1) in a big-endian 32-bit field; the host consumes them in order
//   (a record is there when its stamp is taken() + 1) and tells the firmware how many it
//   took, by PIO, so the firmware never overwrites a record not yet consumed.
#pragma once

#include "host/kit/image_view.h"
#include "host/model/memory.h"
#include "host/model/process.h"
#include "sim/node.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace lanaikit::kit {

class SramQueue {
public:
  // `entries` is an array place of structs with a 32-bit field `seq_field`; `consumed` the
  // firmware's 32-bit count of entries taken. The entry count must be a power of two.
  SramQueue(const Ref& entries, std::string_view seq_field, const Ref& consumed);

  uint32_t slots() const { return slots_; }
  uint32_t entry_bytes() const { return entry_bytes_; }
  // The seq the next publish will carry, and the SRAM address of seq's entry.
  uint32_t next_seq() const { return posted_ + 1; }
  uint32_t entry(uint32_t seq) const { return base_ + ((seq - 1) & (slots_ - 1)) * entry_bytes_; }
  uint32_t seq_addr(uint32_t seq) const { return entry(seq) + seq_offset_; }

  // Waits until next_seq()'s slot is free (PIO reads of `consumed`, only when the local
  // count says every slot is in use).
  host::Op<void> acquire(host::Process& p, sim::Node& node);
  // Publishes next_seq() (its fields must be written): the seq store, posted. Returns it.
  uint32_t publish(host::Process& p, sim::Node& node);

  uint32_t posted() const { return posted_; }
  uint32_t consumed() const { return consumed_; } // as last read
  uint64_t consumed_reads() const { return consumed_reads_; }
  // The firmware's count read untimed (reports, tests).
  uint32_t peek_consumed(sim::Node& node) const;

private:
  uint32_t base_, slots_, entry_bytes_, seq_offset_, consumed_addr_;
  uint32_t posted_ = 0, consumed_ = 0;
  uint64_t consumed_reads_ = 0;
};

class HostRing {
public:
  // `slots` records of `record_bytes` at physical `base`; the stamp at `seq_offset`.
  HostRing(host::PhysAddr base, uint32_t slots, uint32_t record_bytes, uint32_t seq_offset);

  // The next record if the firmware has written it (copied into `record`, taken() + 1),
  // false otherwise.
  bool next(const host::PhysicalMemory& memory, std::vector<uint8_t>& record);
  uint32_t taken() const { return taken_; }
  uint32_t slots() const { return slots_; }
  uint32_t record_bytes() const { return record_bytes_; }
  host::PhysAddr base() const { return base_; }

private:
  host::PhysAddr base_;
  uint32_t slots_, record_bytes_, seq_offset_;
  uint32_t taken_ = 0;
};

} // namespace lanaikit::kit
