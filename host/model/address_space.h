// A process's virtual address space: a page table from virtual pages to physical pages of
// one PhysicalMemory, mmap-like regions backed by fresh physical pages, translation with a
// clear PageFault for unmapped addresses, copies across page boundaries, and pinning.
//
// Regions are placed first-fit: the lowest page-aligned gap of [base, limit) that holds the
// request, so the same sequence of map/unmap calls gives the same addresses every run.
// Regions are separated by nothing (no guard pages); an access one byte past a region faults
// only if no other region follows it.
//
// Pinning: each virtual page has a pin count. pin() increments it for every page of a range,
// unpin() decrements it; a page with a nonzero count cannot be unmapped, and its physical
// page is what a driver may hand to a NIC for DMA (pinned_pages / pinned_segments). Pinning
// takes host-kernel time that the model does not spend itself: pin() and unpin() return it
// (a per-call plus a per-page cost, counted over every page of the range, already pinned or
// not, as a kernel walks them all) so the caller advances its own clock.
#pragma once

#include "host/model/memory.h"
#include "event/time.h"

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <vector>

namespace lanaikit::host {

// An access to a virtual address with no mapping.
class PageFault : public HostError {
public:
  PageFault(VirtAddr vaddr, const std::string& what);
  VirtAddr vaddr() const { return vaddr_; }

private:
  VirtAddr vaddr_;
};

// Misuse of pinning: unpinning a page that is not pinned, unmapping a pinned page, asking
// the physical pages of a range that is not pinned.
class PinError : public HostError {
public:
  using HostError::HostError;
};

// The simulated time an operation costs: `per_call` once, plus `per_page` for each page.
struct PageCost {
  sim::Time per_call = 0;
  sim::Time per_page = 0;
  sim::Time of(uint64_t pages) const { return per_call + per_page * sim::Time(pages); }
};

struct AddressSpaceParams {
  VirtAddr base = 0x10000000;  // lowest address map() hands out (page-aligned)
  VirtAddr limit = 0xC0000000; // one past the highest (page-aligned); 3 GB user space
  PageCost pin;                // cost of pin(): e.g. a system call plus get_user_pages
  PageCost unpin;              // cost of unpin()
};

// A piece of a virtual range inside one physical page: what a DMA descriptor points at.
struct PhysSegment {
  PhysAddr addr;
  uint32_t len;
  bool operator==(const PhysSegment&) const = default;
};

class AddressSpace {
public:
  explicit AddressSpace(PhysicalMemory& mem, AddressSpaceParams params = {});
  ~AddressSpace(); // returns every physical page (pinned or not) to memory
  AddressSpace(const AddressSpace&) = delete;
  AddressSpace& operator=(const AddressSpace&) = delete;

  const AddressSpaceParams& params() const { return params_; }
  PhysicalMemory& memory() { return mem_; }

  // Maps ceil(bytes / 4 KB) fresh, zeroed physical pages at the lowest gap that holds them;
  // returns the page-aligned start. Throws HostError if bytes == 0 or no gap is large
  // enough, MemoryError (mapping nothing) if physical memory runs out.
  VirtAddr map(uint64_t bytes);
  // Unmaps the region that starts at `start` (as returned by map) and frees its physical
  // pages. Throws HostError if no region starts there, PinError if any page is pinned.
  void unmap(VirtAddr start);

  bool is_mapped(VirtAddr vaddr) const;
  // The physical address of `vaddr`; throws PageFault if its page is not mapped.
  PhysAddr translate(VirtAddr vaddr) const;
  std::optional<PhysAddr> try_translate(VirtAddr vaddr) const;
  uint64_t mapped_pages() const { return table_.size(); }

  // Copies between the process's memory and a buffer, across page boundaries. The whole
  // range is checked first: on a PageFault nothing has been copied.
  void copy_in(VirtAddr dst, std::span<const uint8_t> src);
  void copy_out(VirtAddr src, std::span<uint8_t> dst) const;
  uint32_t read32(VirtAddr vaddr) const; // little-endian, any alignment
  void write32(VirtAddr vaddr, uint32_t v);

  // Pins every page of [vaddr, vaddr + len); returns the cost (params().pin). Every page
  // must be mapped, or PageFault is thrown and nothing is pinned. len == 0 pins nothing and
  // costs nothing.
  sim::Time pin(VirtAddr vaddr, uint64_t len);
  // Unpins every page of the range; returns the cost (params().unpin). Throws PageFault or
  // PinError (changing nothing) if a page is unmapped or not pinned.
  sim::Time unpin(VirtAddr vaddr, uint64_t len);
  // The pin count of the page holding `vaddr` (0 if unmapped).
  uint32_t pin_count(VirtAddr vaddr) const;
  uint64_t pinned_pages_total() const; // virtual pages with a nonzero count

  // The physical page addresses (page-aligned), in virtual order, of the pages covering
  // [vaddr, vaddr + len). Throws PinError if any is not pinned (PageFault if unmapped).
  std::vector<PhysAddr> pinned_pages(VirtAddr vaddr, uint64_t len) const;
  // The range cut at page boundaries, each piece with its physical address: the first piece
  // runs to the first page boundary, the others are whole pages, the last may be short.
  // Same checks as pinned_pages.
  std::vector<PhysSegment> pinned_segments(VirtAddr vaddr, uint64_t len) const;

private:
  struct Entry {
    uint64_t ppage;
    uint32_t pins = 0;
  };
  // First and last virtual page of a nonempty range; throws on overflow.
  static std::pair<uint64_t, uint64_t> page_span(VirtAddr vaddr, uint64_t len, const char* what);
  void check_mapped(VirtAddr vaddr, uint64_t len, const char* what) const;
  void check_pinned(VirtAddr vaddr, uint64_t len, const char* what) const;

  PhysicalMemory& mem_;
  AddressSpaceParams params_;
  std::map<uint64_t, Entry> table_;      // virtual page -> entry
  std::map<uint64_t, uint64_t> regions_; // first virtual page -> page count
};

} // namespace lanaikit::host
