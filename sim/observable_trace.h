// The observable trace of a cluster run: what an outside observer with a probe on every
// link and every chip could time, independent of how the models schedule their events.
// It is the exactness oracle for changes to the event structure (issue 16): a change that
// merges, splits or reorders events inside a model must leave this trace identical, while
// the kernel's event-level trace hash (event/kernel.h) may change.
//
// Recorded, per link (net::Link::set_watch): each packet's head starting on the wire,
// its tail (CRC byte) leaving, and its tail arriving, with the packet's id, size, status
// and CRC; per chip (vm::Chip::on_event): every vm::ChipEvent (doorbells, send start and
// done, receive head and tail, host DMA start and done, host writes) with its time, the
// CPU's instruction count at that moment and its byte count.
//
// Each (link or chip, kind of record) is a stream folded into its own FNV-1a hash in the
// order its records come. Within one stream that order is fixed by the hardware (a link
// sends and delivers packets in order; a chip's records of one kind are in time order), so
// the trace does not depend on how events at the same instant interleave across streams.
// The trace's hash folds every stream's record count and hash, in a fixed stream order.
#pragma once

#include "event/time.h"

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace lanaikit::sim {

class Cluster;

class ObservableTrace {
public:
  // Starts watching every link and chip of `cluster` (replacing the links' watches). If
  // `text_path` is not empty, every record is also written there, one line each, in the
  // order they are made (sort the file to compare two runs line by line). Throws
  // std::runtime_error if the file cannot be opened.
  explicit ObservableTrace(Cluster& cluster, const std::string& text_path = "");
  ~ObservableTrace(); // stops watching (the cluster must still exist)
  ObservableTrace(const ObservableTrace&) = delete;
  ObservableTrace& operator=(const ObservableTrace&) = delete;

  uint64_t hash() const;
  uint64_t records() const { return records_; }

private:
  struct Stream {
    uint64_t hash = 0xcbf29ce484222325ull;
    uint64_t count = 0;
    void fold(uint64_t v);
  };
  static constexpr size_t kLinkKinds = 3, kChipKinds = 8;
  Stream& link_stream(size_t link, size_t kind) { return streams_[link * kLinkKinds + kind]; }
  Stream& chip_stream(size_t chip, size_t kind) {
    return streams_[links_ * kLinkKinds + chip * kChipKinds + kind];
  }

  Cluster& cluster_;
  size_t links_ = 0;
  std::vector<Stream> streams_;
  std::vector<size_t> listeners_; // per chip
  uint64_t records_ = 0;
  std::FILE* text_ = nullptr;
};

} // namespace lanaikit::sim
