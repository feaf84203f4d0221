#include "host/model/memory.h"

#include <algorithm>
#include <cstring>

namespace lanaikit::host {

PhysicalMemory::PhysicalMemory(uint64_t pages) {
  if (pages == 0) throw MemoryError("physical memory needs at least one page");
  if (pages > (uint64_t(1) << (63 - kPageShift)))
    throw MemoryError("physical memory of " + std::to_string(pages) + " pages is too large");
  pages_.resize(pages);
  allocated_map_.resize(pages, false);
}

uint64_t PhysicalMemory::allocate_page() {
  uint64_t page;
  if (!freed_.empty()) {
    page = *freed_.begin();
    freed_.erase(freed_.begin());
  } else if (next_fresh_ < pages()) {
    page = next_fresh_++;
  } else {
    throw MemoryError("out of physical memory: all " + std::to_string(pages()) +
                      " pages are allocated");
  }
  allocated_map_[page] = true;
  pages_[page].reset(); // zeroed
  ++allocated_;
  return page;
}

std::vector<uint64_t> PhysicalMemory::allocate_pages(uint64_t n) {
  if (n > free_pages())
    throw MemoryError("out of physical memory: " + std::to_string(n) + " pages asked, " +
                      std::to_string(free_pages()) + " free");
  std::vector<uint64_t> out;
  out.reserve(n);
  for (uint64_t i = 0; i < n; ++i) out.push_back(allocate_page());
  return out;
}

void PhysicalMemory::free_page(uint64_t page) {
  if (page >= pages())
    throw MemoryError("free_page: page " + std::to_string(page) + " is beyond memory (" +
                      std::to_string(pages()) + " pages)");
  if (!allocated_map_[page])
    throw MemoryError("free_page: page " + std::to_string(page) + " is not allocated");
  allocated_map_[page] = false;
  pages_[page].reset();
  freed_.insert(page);
  --allocated_;
}

bool PhysicalMemory::is_allocated(uint64_t page) const {
  return page < pages() && allocated_map_[page];
}

void PhysicalMemory::check(PhysAddr addr, uint64_t len, const char* what) const {
  if (addr > size() || len > size() - addr)
    throw MemoryError(std::string(what) + ": physical range [" + hex(addr) + ", +" +
                      std::to_string(len) + ") is outside memory of " + hex(size()) +
                      " bytes");
}

PhysicalMemory::Page& PhysicalMemory::backing(uint64_t page) {
  auto& p = pages_[page];
  if (!p) p = std::make_unique<Page>(Page{});
  return *p;
}

void PhysicalMemory::read(PhysAddr addr, std::span<uint8_t> out) const {
  check(addr, out.size(), "read");
  uint64_t done = 0;
  while (done < out.size()) {
    const PhysAddr a = addr + done;
    const uint64_t off = a & kPageMask;
    const uint64_t n = std::min<uint64_t>(kPageSize - off, out.size() - done);
    const auto& p = pages_[a >> kPageShift];
    if (p)
      std::memcpy(out.data() + done, p->data() + off, n);
    else
      std::memset(out.data() + done, 0, n);
    done += n;
  }
}

void PhysicalMemory::write(PhysAddr addr, std::span<const uint8_t> in) {
  check(addr, in.size(), "write");
  uint64_t done = 0;
  while (done < in.size()) {
    const PhysAddr a = addr + done;
    const uint64_t off = a & kPageMask;
    const uint64_t n = std::min<uint64_t>(kPageSize - off, in.size() - done);
    std::memcpy(backing(a >> kPageShift).data() + off, in.data() + done, n);
    done += n;
  }
}

void PhysicalMemory::fill(PhysAddr addr, uint64_t len, uint8_t value) {
  check(addr, len, "fill");
  uint64_t done = 0;
  while (done < len) {
    const PhysAddr a = addr + done;
    const uint64_t off = a & kPageMask;
    const uint64_t n = std::min<uint64_t>(kPageSize - off, len - done);
    std::memset(backing(a >> kPageShift).data() + off, value, n);
    done += n;
  }
}

uint64_t PhysicalMemory::read_le(PhysAddr addr, unsigned bytes) const {
  uint8_t b[8];
  read(addr, std::span<uint8_t>(b, bytes));
  uint64_t v = 0;
  for (unsigned i = 0; i < bytes; ++i) v |= uint64_t(b[i]) << (8 * i);
  return v;
}

void PhysicalMemory::write_le(PhysAddr addr, uint64_t v, unsigned bytes) {
  uint8_t b[8];
  for (unsigned i = 0; i < bytes; ++i) b[i] = uint8_t(v >> (8 * i));
  write(addr, std::span<const uint8_t>(b, bytes));
}

uint8_t PhysicalMemory::read8(PhysAddr a) const { return uint8_t(read_le(a, 1)); }
uint16_t PhysicalMemory::read16(PhysAddr a) const { return uint16_t(read_le(a, 2)); }
uint32_t PhysicalMemory::read32(PhysAddr a) const { return uint32_t(read_le(a, 4)); }
uint64_t PhysicalMemory::read64(PhysAddr a) const { return read_le(a, 8); }
void PhysicalMemory::write8(PhysAddr a, uint8_t v) { write_le(a, v, 1); }
void PhysicalMemory::write16(PhysAddr a, uint16_t v) { write_le(a, v, 2); }
void PhysicalMemory::write32(PhysAddr a, uint32_t v) { write_le(a, v, 4); }
void PhysicalMemory::write64(PhysAddr a, uint64_t v) { write_le(a, v, 8); }

uint64_t PhysicalMemory::backed_pages() const {
  return uint64_t(std::count_if(pages_.begin(), pages_.end(), [](const auto& p) { return bool(p); }));
}

} // namespace lanaikit::host
