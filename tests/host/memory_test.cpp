// Host physical memory: deterministic page allocation, zeroed pages, little-endian words,
// accesses across page boundaries, and bounds errors.
#include "host/model/memory.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

using namespace lanaikit::host;

TEST(PhysicalMemory, SizeInPages) {
  PhysicalMemory m(16);
  EXPECT_EQ(m.pages(), 16u);
  EXPECT_EQ(m.size(), 16u * 4096);
  EXPECT_EQ(m.free_pages(), 16u);
  EXPECT_THROW(PhysicalMemory(0), MemoryError);
}

TEST(PhysicalMemory, AllocatesLowestFreePageFirst) {
  PhysicalMemory m(8);
  EXPECT_EQ(m.allocate_page(), 0u);
  EXPECT_EQ(m.allocate_page(), 1u);
  EXPECT_EQ(m.allocate_page(), 2u);
  EXPECT_EQ(m.allocate_page(), 3u);
  m.free_page(2);
  m.free_page(1);
  EXPECT_FALSE(m.is_allocated(1));
  EXPECT_EQ(m.allocate_page(), 1u); // lowest freed, not most recently freed
  EXPECT_EQ(m.allocate_page(), 2u);
  EXPECT_EQ(m.allocate_page(), 4u);
  EXPECT_EQ(m.allocated_pages(), 5u);
  EXPECT_EQ(m.allocate_pages(3), (std::vector<uint64_t>{5, 6, 7}));
  EXPECT_THROW(m.allocate_page(), MemoryError);
}

TEST(PhysicalMemory, AllocatePagesIsAllOrNothing) {
  PhysicalMemory m(4);
  m.allocate_page();
  EXPECT_THROW(m.allocate_pages(4), MemoryError);
  EXPECT_EQ(m.free_pages(), 3u);
  EXPECT_EQ(m.allocate_pages(3), (std::vector<uint64_t>{1, 2, 3}));
}

TEST(PhysicalMemory, FreeErrors) {
  PhysicalMemory m(4);
  EXPECT_THROW(m.free_page(0), MemoryError); // never allocated
  EXPECT_THROW(m.free_page(4), MemoryError); // beyond memory
  const uint64_t p = m.allocate_page();
  m.free_page(p);
  EXPECT_THROW(m.free_page(p), MemoryError); // double free
}

TEST(PhysicalMemory, AllocatedPagesComeZeroed) {
  PhysicalMemory m(2);
  const uint64_t p = m.allocate_page();
  m.fill(p * kPageSize, kPageSize, 0xAB);
  EXPECT_EQ(m.read8(p * kPageSize + 17), 0xAB);
  m.free_page(p);
  EXPECT_EQ(m.allocate_page(), p);
  for (uint64_t off = 0; off < kPageSize; off += 512) EXPECT_EQ(m.read8(p * kPageSize + off), 0);
}

TEST(PhysicalMemory, LittleEndianWords) {
  PhysicalMemory m(1);
  m.write32(0x10, 0x12345678);
  EXPECT_EQ(m.read8(0x10), 0x78);
  EXPECT_EQ(m.read8(0x13), 0x12);
  EXPECT_EQ(m.read16(0x11), 0x3456);
  m.write64(0x20, 0x0102030405060708ull);
  EXPECT_EQ(m.read32(0x20), 0x05060708u);
  EXPECT_EQ(m.read32(0x24), 0x01020304u);
  EXPECT_EQ(m.read64(0x20), 0x0102030405060708ull);
  m.write16(0x31, 0xBEEF); // unaligned is fine
  EXPECT_EQ(m.read16(0x31), 0xBEEF);
}

TEST(PhysicalMemory, AccessesCrossPageBoundaries) {
  PhysicalMemory m(3);
  m.write64(kPageSize - 4, 0xAABBCCDD11223344ull);
  EXPECT_EQ(m.read32(kPageSize - 4), 0x11223344u);
  EXPECT_EQ(m.read32(kPageSize), 0xAABBCCDDu);
  std::vector<uint8_t> big(2 * kPageSize + 10);
  for (size_t i = 0; i < big.size(); ++i) big[i] = uint8_t(i * 7);
  m.write(5, big);
  std::vector<uint8_t> back(big.size());
  m.read(5, back);
  EXPECT_EQ(back, big);
}

TEST(PhysicalMemory, StorageIsLazy) {
  PhysicalMemory m(1 << 20); // 4 GB of address space
  EXPECT_EQ(m.backed_pages(), 0u);
  EXPECT_EQ(m.read32(3ull << 30), 0u); // never written reads as zero, costs nothing
  EXPECT_EQ(m.backed_pages(), 0u);
  m.write8(3ull << 30, 1);
  EXPECT_EQ(m.backed_pages(), 1u);
}

TEST(PhysicalMemory, BoundsAreChecked) {
  PhysicalMemory m(2);
  const uint64_t end = m.size();
  EXPECT_NO_THROW(m.read32(end - 4));
  EXPECT_THROW(m.read32(end - 3), MemoryError);
  EXPECT_THROW(m.write8(end, 0), MemoryError);
  EXPECT_THROW(m.read64(std::numeric_limits<uint64_t>::max() - 2), MemoryError); // wraps
  std::vector<uint8_t> buf(16);
  EXPECT_THROW(m.write(end - 8, buf), MemoryError);
  EXPECT_EQ(m.read64(end - 8), 0u); // a failed write changed nothing
  try {
    m.read32(end);
    FAIL() << "no exception";
  } catch (const MemoryError& e) {
    EXPECT_NE(std::string(e.what()).find("0x2000"), std::string::npos) << e.what();
  }
}
