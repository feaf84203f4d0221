#include "host/model/address_space.h"

#include <algorithm>

namespace lanaikit::host {

PageFault::PageFault(VirtAddr vaddr, const std::string& what)
    : HostError(what + ": page fault at virtual address " + hex(vaddr) + " (not mapped)"),
      vaddr_(vaddr) {}

AddressSpace::AddressSpace(PhysicalMemory& mem, AddressSpaceParams params)
    : mem_(mem), params_(params) {
  if ((params_.base & kPageMask) || (params_.limit & kPageMask) || params_.base >= params_.limit)
    throw HostError("address space: base " + hex(params_.base) + " and limit " +
                    hex(params_.limit) + " must be page-aligned with base < limit");
}

AddressSpace::~AddressSpace() {
  for (const auto& [vpage, e] : table_) mem_.free_page(e.ppage);
}

VirtAddr AddressSpace::map(uint64_t bytes) {
  if (bytes == 0) throw HostError("map: zero-length region");
  const uint64_t need = (bytes + kPageMask) >> kPageShift;
  const uint64_t lo = params_.base >> kPageShift, hi = params_.limit >> kPageShift;
  if (bytes > params_.limit - params_.base)
    throw HostError("map: " + std::to_string(bytes) + " bytes exceed the address space");
  // First fit: walk the regions in address order, looking at the gap before each.
  uint64_t cursor = lo;
  bool found = false;
  for (const auto& [start, count] : regions_) {
    if (start - cursor >= need) {
      found = true;
      break;
    }
    cursor = start + count;
  }
  if (!found && hi - cursor < need)
    throw HostError("map: no free virtual range of " + std::to_string(need) + " pages in [" +
                    hex(params_.base) + ", " + hex(params_.limit) + ")");
  const std::vector<uint64_t> phys = mem_.allocate_pages(need); // all or nothing
  for (uint64_t i = 0; i < need; ++i) table_.emplace(cursor + i, Entry{phys[i]});
  regions_.emplace(cursor, need);
  return cursor << kPageShift;
}

void AddressSpace::unmap(VirtAddr start) {
  const auto it = (start & kPageMask) ? regions_.end() : regions_.find(start >> kPageShift);
  if (it == regions_.end()) throw HostError("unmap: no region starts at " + hex(start));
  const auto [first, count] = *it;
  for (uint64_t p = first; p < first + count; ++p)
    if (table_.at(p).pins != 0)
      throw PinError("unmap: page at " + hex(p << kPageShift) + " of the region at " +
                     hex(start) + " is pinned " + std::to_string(table_.at(p).pins) + " times");
  for (uint64_t p = first; p < first + count; ++p) {
    mem_.free_page(table_.at(p).ppage);
    table_.erase(p);
  }
  regions_.erase(it);
}

bool AddressSpace::is_mapped(VirtAddr vaddr) const {
  return table_.count(vaddr >> kPageShift) != 0;
}

std::optional<PhysAddr> AddressSpace::try_translate(VirtAddr vaddr) const {
  const auto it = table_.find(vaddr >> kPageShift);
  if (it == table_.end()) return std::nullopt;
  return (it->second.ppage << kPageShift) | (vaddr & kPageMask);
}

PhysAddr AddressSpace::translate(VirtAddr vaddr) const {
  if (auto p = try_translate(vaddr)) return *p;
  throw PageFault(vaddr, "translate");
}

std::pair<uint64_t, uint64_t> AddressSpace::page_span(VirtAddr vaddr, uint64_t len,
                                                      const char* what) {
  if (len - 1 > ~vaddr) // vaddr + len - 1 overflows
    throw HostError(std::string(what) + ": range [" + hex(vaddr) + ", +" +
                    std::to_string(len) + ") wraps around the address space");
  return {vaddr >> kPageShift, (vaddr + len - 1) >> kPageShift};
}

void AddressSpace::check_mapped(VirtAddr vaddr, uint64_t len, const char* what) const {
  if (len == 0) return;
  const auto [first, last] = page_span(vaddr, len, what);
  for (uint64_t p = first; p <= last; ++p)
    if (!table_.count(p)) throw PageFault(std::max(vaddr, p << kPageShift), what);
}

void AddressSpace::check_pinned(VirtAddr vaddr, uint64_t len, const char* what) const {
  check_mapped(vaddr, len, what);
  if (len == 0) return;
  const auto [first, last] = page_span(vaddr, len, what);
  for (uint64_t p = first; p <= last; ++p)
    if (table_.at(p).pins == 0)
      throw PinError(std::string(what) + ": page at " + hex(p << kPageShift) +
                     " is not pinned");
}

void AddressSpace::copy_in(VirtAddr dst, std::span<const uint8_t> src) {
  check_mapped(dst, src.size(), "copy_in");
  uint64_t done = 0;
  while (done < src.size()) {
    const VirtAddr v = dst + done;
    const uint64_t n = std::min<uint64_t>(kPageSize - (v & kPageMask), src.size() - done);
    mem_.write(translate(v), src.subspan(done, n));
    done += n;
  }
}

void AddressSpace::copy_out(VirtAddr src, std::span<uint8_t> dst) const {
  check_mapped(src, dst.size(), "copy_out");
  uint64_t done = 0;
  while (done < dst.size()) {
    const VirtAddr v = src + done;
    const uint64_t n = std::min<uint64_t>(kPageSize - (v & kPageMask), dst.size() - done);
    mem_.read(translate(v), dst.subspan(done, n));
    done += n;
  }
}

uint32_t AddressSpace::read32(VirtAddr vaddr) const {
  uint8_t b[4];
  copy_out(vaddr, b);
  return uint32_t(b[0]) | uint32_t(b[1]) << 8 | uint32_t(b[2]) << 16 | uint32_t(b[3]) << 24;
}

void AddressSpace::write32(VirtAddr vaddr, uint32_t v) {
  const uint8_t b[4] = {uint8_t(v), uint8_t(v >> 8), uint8_t(v >> 16), uint8_t(v >> 24)};
  copy_in(vaddr, b);
}

sim::Time AddressSpace::pin(VirtAddr vaddr, uint64_t len) {
  if (len == 0) return 0;
  check_mapped(vaddr, len, "pin");
  const auto [first, last] = page_span(vaddr, len, "pin");
  for (uint64_t p = first; p <= last; ++p) {
    Entry& e = table_.at(p);
    if (e.pins == UINT32_MAX) throw PinError("pin: pin count overflow at " + hex(p << kPageShift));
    ++e.pins;
  }
  return params_.pin.of(last - first + 1);
}

sim::Time AddressSpace::unpin(VirtAddr vaddr, uint64_t len) {
  if (len == 0) return 0;
  check_pinned(vaddr, len, "unpin");
  const auto [first, last] = page_span(vaddr, len, "unpin");
  for (uint64_t p = first; p <= last; ++p) --table_.at(p).pins;
  return params_.unpin.of(last - first + 1);
}

uint32_t AddressSpace::pin_count(VirtAddr vaddr) const {
  const auto it = table_.find(vaddr >> kPageShift);
  return it == table_.end() ? 0 : it->second.pins;
}

uint64_t AddressSpace::pinned_pages_total() const {
  return uint64_t(std::count_if(table_.begin(), table_.end(),
                                [](const auto& kv) { return kv.second.pins != 0; }));
}

std::vector<PhysAddr> AddressSpace::pinned_pages(VirtAddr vaddr, uint64_t len) const {
  std::vector<PhysAddr> out;
  if (len == 0) return out;
  check_pinned(vaddr, len, "pinned_pages");
  const auto [first, last] = page_span(vaddr, len, "pinned_pages");
  for (uint64_t p = first; p <= last; ++p) out.push_back(table_.at(p).ppage << kPageShift);
  return out;
}

std::vector<PhysSegment> AddressSpace::pinned_segments(VirtAddr vaddr, uint64_t len) const {
  std::vector<PhysSegment> out;
  if (len == 0) return out;
  check_pinned(vaddr, len, "pinned_segments");
  uint64_t done = 0;
  while (done < len) {
    const VirtAddr v = vaddr + done;
    const uint64_t n = std::min<uint64_t>(kPageSize - (v & kPageMask), len - done);
    out.push_back({translate(v), uint32_t(n)});
    done += n;
  }
  return out;
}

} // namespace lanaikit::host
