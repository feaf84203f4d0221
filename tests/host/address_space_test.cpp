// Per-process virtual address spaces: first-fit mapping, translation, page faults, copies
// across page boundaries, unmapping, pin counts, pin costs and the physical pages of a
// pinned range.
#include "host/model/address_space.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace lanaikit::host;
using lanaikit::sim::kNanosecond;

namespace {
constexpr VirtAddr kBase = 0x10000000;

AddressSpaceParams range(VirtAddr base, VirtAddr limit) {
  AddressSpaceParams p;
  p.base = base;
  p.limit = limit;
  return p;
}

std::vector<uint8_t> pattern(size_t n) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = uint8_t(i * 13 + 1);
  return v;
}
} // namespace

TEST(AddressSpace, MapsRegionsFirstFitOnFreshPages) {
  PhysicalMemory mem(64);
  mem.allocate_page(); // physical page 0 is someone else's
  AddressSpace as(mem);
  const VirtAddr a = as.map(10000); // 3 pages
  EXPECT_EQ(a, kBase);
  const VirtAddr b = as.map(1);
  EXPECT_EQ(b, kBase + 3 * kPageSize);
  EXPECT_EQ(as.mapped_pages(), 4u);
  EXPECT_EQ(as.translate(a), 1 * kPageSize);
  EXPECT_EQ(as.translate(a + kPageSize + 5), 2 * kPageSize + 5);
  EXPECT_EQ(as.translate(b + 4095), 4 * kPageSize + 4095);
  EXPECT_EQ(mem.allocated_pages(), 5u);
  // Unmapping leaves a gap that the next fitting request reuses.
  as.unmap(a);
  EXPECT_EQ(mem.allocated_pages(), 2u);
  EXPECT_EQ(as.map(2 * kPageSize), kBase);
  EXPECT_EQ(as.map(2 * kPageSize), kBase + 4 * kPageSize); // the 1-page gap is too small
  EXPECT_EQ(as.map(kPageSize), kBase + 2 * kPageSize);
}

TEST(AddressSpace, MapErrors) {
  PhysicalMemory mem(4);
  AddressSpace as(mem, range(0x1000, 0x5000));
  EXPECT_THROW(as.map(0), HostError);
  EXPECT_THROW(as.map(5 * kPageSize), HostError); // larger than the address space
  PhysicalMemory small(2);
  AddressSpace as2(small);
  EXPECT_THROW(as2.map(3 * kPageSize), MemoryError);
  EXPECT_EQ(as2.mapped_pages(), 0u);
  EXPECT_EQ(small.free_pages(), 2u);
  EXPECT_THROW(as.unmap(0x1234), HostError);
  EXPECT_THROW(AddressSpace(mem, range(0x1001, 0x5000)), HostError);
}

TEST(AddressSpace, UnmappedAddressesFault) {
  PhysicalMemory mem(8);
  AddressSpace as(mem);
  const VirtAddr a = as.map(kPageSize);
  EXPECT_TRUE(as.is_mapped(a + 4095));
  EXPECT_FALSE(as.is_mapped(a + 4096));
  EXPECT_FALSE(as.try_translate(a + 4096).has_value());
  try {
    as.translate(a + 4096 + 8);
    FAIL() << "no fault";
  } catch (const PageFault& f) {
    EXPECT_EQ(f.vaddr(), a + 4096 + 8);
    const std::string msg = f.what();
    EXPECT_NE(msg.find("page fault"), std::string::npos) << msg;
    EXPECT_NE(msg.find("0x10001008"), std::string::npos) << msg;
  }
  EXPECT_THROW(as.translate(0), PageFault);
  EXPECT_THROW(as.read32(a + 4094), PageFault); // straddles into the unmapped page
}

TEST(AddressSpace, CopiesCrossPageBoundaries) {
  PhysicalMemory mem(16);
  mem.allocate_page();
  AddressSpace as(mem);
  const VirtAddr a = as.map(4 * kPageSize);
  const auto data = pattern(2 * kPageSize + 100);
  as.copy_in(a + 4000, data);
  std::vector<uint8_t> back(data.size());
  as.copy_out(a + 4000, back);
  EXPECT_EQ(back, data);
  // The bytes are where the page table says.
  EXPECT_EQ(mem.read8(as.translate(a + 4000)), data[0]);
  EXPECT_EQ(mem.read8(as.translate(a + 4096)), data[96]);
  EXPECT_EQ(mem.read8(as.translate(a + 8192 + 3)), data[4096 + 99]);
  as.write32(a + 4094, 0xCAFEF00D);
  EXPECT_EQ(as.read32(a + 4094), 0xCAFEF00Du);
  EXPECT_EQ(mem.read16(as.translate(a + 4096)), 0xCAFE);
}

TEST(AddressSpace, FaultingCopyChangesNothing) {
  PhysicalMemory mem(8);
  AddressSpace as(mem);
  const VirtAddr a = as.map(kPageSize);
  const auto data = pattern(200);
  EXPECT_THROW(as.copy_in(a + 4000, data), PageFault);
  EXPECT_EQ(as.read32(a + 4000), 0u);
}

TEST(AddressSpace, PinCountsPerPage) {
  PhysicalMemory mem(16);
  AddressSpace as(mem);
  const VirtAddr a = as.map(4 * kPageSize);
  as.pin(a + 100, 5000); // pages 0 and 1
  EXPECT_EQ(as.pin_count(a), 1u);
  EXPECT_EQ(as.pin_count(a + kPageSize), 1u);
  EXPECT_EQ(as.pin_count(a + 2 * kPageSize), 0u);
  as.pin(a + kPageSize, 2 * kPageSize); // pages 1 and 2
  EXPECT_EQ(as.pin_count(a + kPageSize + 7), 2u);
  EXPECT_EQ(as.pin_count(a + 2 * kPageSize), 1u);
  EXPECT_EQ(as.pinned_pages_total(), 3u);
  EXPECT_THROW(as.unmap(a), PinError);
  as.unpin(a + 100, 5000);
  EXPECT_EQ(as.pin_count(a), 0u);
  EXPECT_EQ(as.pin_count(a + kPageSize), 1u);
  // Unpinning what is not pinned fails and changes nothing.
  EXPECT_THROW(as.unpin(a, 2 * kPageSize), PinError);
  EXPECT_EQ(as.pin_count(a + kPageSize), 1u);
  as.unpin(a + kPageSize, 2 * kPageSize);
  EXPECT_EQ(as.pinned_pages_total(), 0u);
  as.unmap(a);
  EXPECT_EQ(mem.allocated_pages(), 0u);
}

TEST(AddressSpace, PinningUnmappedFaultsAndPinsNothing) {
  PhysicalMemory mem(8);
  AddressSpace as(mem);
  const VirtAddr a = as.map(kPageSize);
  EXPECT_THROW(as.pin(a, kPageSize + 1), PageFault);
  EXPECT_EQ(as.pin_count(a), 0u);
  EXPECT_EQ(as.pin(a, 0), 0);
}

TEST(AddressSpace, PinCostIsPerCallPlusPerPage) {
  PhysicalMemory mem(32);
  AddressSpaceParams p;
  p.pin = {.per_call = 2000 * kNanosecond, .per_page = 300 * kNanosecond};
  p.unpin = {.per_call = 1000 * kNanosecond, .per_page = 100 * kNanosecond};
  AddressSpace as(mem, p);
  const VirtAddr a = as.map(8 * kPageSize);
  EXPECT_EQ(as.pin(a, 1), 2300 * kNanosecond);
  EXPECT_EQ(as.pin(a + 4095, 2), 2600 * kNanosecond);     // two pages for two bytes
  EXPECT_EQ(as.pin(a, 8 * kPageSize), 4400 * kNanosecond); // already-pinned pages count
  EXPECT_EQ(as.unpin(a, 8 * kPageSize), 1800 * kNanosecond);
}

TEST(AddressSpace, PhysicalPagesOfAPinnedRange) {
  PhysicalMemory mem(32);
  AddressSpace as(mem);
  const VirtAddr a = as.map(kPageSize);
  (void)as.map(kPageSize);
  as.unmap(a);
  const VirtAddr r = as.map(3 * kPageSize); // scattered: physical pages 0, 2, 3
  EXPECT_EQ(r, kBase + 2 * kPageSize);
  EXPECT_THROW(as.pinned_pages(r, 100), PinError);
  as.pin(r + 100, 9000);
  EXPECT_EQ(as.pinned_pages(r + 100, 9000),
            (std::vector<PhysAddr>{0 * kPageSize, 2 * kPageSize, 3 * kPageSize}));
  EXPECT_EQ(as.pinned_segments(r + 100, 9000),
            (std::vector<PhysSegment>{
                {0 * kPageSize + 100, 3996}, {2 * kPageSize, 4096}, {3 * kPageSize, 908}}));
  EXPECT_EQ(as.pinned_segments(r + 10, 20), (std::vector<PhysSegment>{{10, 20}}));
  EXPECT_THROW(as.pinned_segments(r, 3 * kPageSize + 1), PageFault);
}

TEST(AddressSpace, DestructorReturnsPages) {
  PhysicalMemory mem(8);
  {
    AddressSpace as(mem);
    const VirtAddr a = as.map(3 * kPageSize);
    as.pin(a, kPageSize);
    EXPECT_EQ(mem.allocated_pages(), 3u);
  }
  EXPECT_EQ(mem.allocated_pages(), 0u);
}
