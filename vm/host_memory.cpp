#include "vm/host_memory.h"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <utility>

#include <sys/mman.h>
#include <unistd.h>

namespace lanaikit::vm {

HostMemory::HostMemory(size_t bytes, const std::string& what) : size_(bytes) {
  if (bytes == 0) return;
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    throw HostMemoryError("cannot reserve " + std::to_string(bytes) + " bytes of host memory for " +
                          what + ": " + std::strerror(errno));
  data_ = p;
}

void HostMemory::zero(size_t offset, size_t len) {
  if (len == 0) return;
  auto* const base = static_cast<uint8_t*>(data_);
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  const size_t first = (offset + page - 1) / page * page, last = (offset + len) / page * page;
  if (first >= last) {
    std::memset(base + offset, 0, len);
    return;
  }
  std::memset(base + offset, 0, first - offset);
  std::memset(base + last, 0, offset + len - last);
  // A private anonymous mapping reads as zeros after MADV_DONTNEED; should it fail, clear.
  if (madvise(base + first, last - first, MADV_DONTNEED) != 0) std::memset(base + first, 0, last - first);
}

HostMemory::~HostMemory() {
  if (data_) munmap(data_, size_);
}

HostMemory::HostMemory(HostMemory&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

HostMemory& HostMemory::operator=(HostMemory&& other) noexcept {
  if (this != &other) {
    if (data_) munmap(data_, size_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

} // namespace lanaikit::vm
