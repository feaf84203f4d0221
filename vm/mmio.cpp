#include "vm/mmio.h"

namespace lanaikit::vm {

MmioStatus BareIo::read(uint32_t addr, isa::Width width, uint32_t& value) {
  if (addr == kSramSize) {
    if (width != isa::Width::Word) return MmioStatus::BadWidth;
    value = sram_size_;
    return MmioStatus::Ok;
  }
  if (addr == kPutc || addr == kExit) return MmioStatus::BadWidth; // write-only
  return next_ ? next_->read(addr, width, value) : MmioStatus::Unmapped;
}

MmioStatus BareIo::write(uint32_t addr, isa::Width width, uint32_t value) {
  if (addr == kPutc || addr == kExit) {
    if (width != isa::Width::Word) return MmioStatus::BadWidth;
    if (addr == kPutc) {
      if (echo_) std::fputc(int(value & 0xFF), echo_);
      else output_.push_back(char(value & 0xFF));
      return MmioStatus::Ok;
    }
    exited_ = true;
    exit_status_ = value;
    return MmioStatus::Halt;
  }
  if (addr == kSramSize) return MmioStatus::BadWidth; // read-only
  return next_ ? next_->write(addr, width, value) : MmioStatus::Unmapped;
}

} // namespace lanaikit::vm
