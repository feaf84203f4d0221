// Host physical memory: a little-endian byte array cut into 4 KB pages, with a
// deterministic page allocator (the lowest free page first) and bounds-checked access.
//
// Storage is lazy: a page gets its 4 KB of backing store the first time it is written, and
// a page never written reads as zeros, so a simulated host can have gigabytes of physical
// memory and a cluster of them costs only what its processes touch. Allocating a page
// hands it out zeroed (like a kernel does), so a run never sees an earlier owner's data.
//
// Access checks only the physical bounds, not whether a page is allocated: like real RAM,
// a device may DMA into a page nobody owns. Ownership is the business of AddressSpace.
#pragma once

#include <array>
#include "base/hex.h" // hex(), for error messages
#include <cstdint>
#include <memory>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace lanaikit::host {

using PhysAddr = uint64_t; // byte address in host physical memory
using VirtAddr = uint64_t; // byte address in a process's virtual address space

inline constexpr uint64_t kPageShift = 12;
inline constexpr uint64_t kPageSize = uint64_t(1) << kPageShift; // 4096
inline constexpr uint64_t kPageMask = kPageSize - 1;

// Every error of the host model: a bad address, an exhausted memory, a misuse of pinning.
class HostError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// An access outside physical memory, or an allocator misuse (double free, out of pages).
class MemoryError : public HostError {
public:
  using HostError::HostError;
};

class PhysicalMemory {
public:
  // `pages`: the size of memory in 4 KB pages (e.g. 16384 for 64 MB); at least 1.
  explicit PhysicalMemory(uint64_t pages);

  uint64_t pages() const { return pages_.size(); }
  uint64_t size() const { return pages() * kPageSize; }

  // --- page allocation (page numbers, not addresses; address = page << kPageShift) ---
  // Returns the lowest free page, zeroed. Throws MemoryError when none is left.
  uint64_t allocate_page();
  // Allocates `n` pages, each the lowest free one at its turn (so ascending). All or
  // nothing: throws MemoryError, allocating none, if fewer than `n` are free.
  std::vector<uint64_t> allocate_pages(uint64_t n);
  // Returns a page to the allocator. Throws MemoryError if it is not allocated.
  void free_page(uint64_t page);
  bool is_allocated(uint64_t page) const;
  uint64_t free_pages() const { return pages() - allocated_; }
  uint64_t allocated_pages() const { return allocated_; }

  // --- byte access; every range must lie inside [0, size()) or MemoryError is thrown ---
  void read(PhysAddr addr, std::span<uint8_t> out) const;
  void write(PhysAddr addr, std::span<const uint8_t> in);
  void fill(PhysAddr addr, uint64_t len, uint8_t value);

  uint8_t read8(PhysAddr addr) const;
  uint16_t read16(PhysAddr addr) const; // little-endian; any alignment
  uint32_t read32(PhysAddr addr) const;
  uint64_t read64(PhysAddr addr) const;
  void write8(PhysAddr addr, uint8_t v);
  void write16(PhysAddr addr, uint16_t v);
  void write32(PhysAddr addr, uint32_t v);
  void write64(PhysAddr addr, uint64_t v);

  // Pages that have backing store (were written since their last allocation).
  uint64_t backed_pages() const;

private:
  using Page = std::array<uint8_t, kPageSize>;
  void check(PhysAddr addr, uint64_t len, const char* what) const;
  Page& backing(uint64_t page);
  uint64_t read_le(PhysAddr addr, unsigned bytes) const;
  void write_le(PhysAddr addr, uint64_t v, unsigned bytes);

  std::vector<std::unique_ptr<Page>> pages_; // null: all zeros
  std::vector<bool> allocated_map_;
  std::set<uint64_t> freed_; // freed pages below next_fresh_
  uint64_t next_fresh_ = 0;  // pages at or above it were never allocated
  uint64_t allocated_ = 0;
};

} // namespace lanaikit::host
