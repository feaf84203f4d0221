#include "sim/node.h"

#include "base/bytes.h"
#include "sim/backtrace.h"
#include "vm/debugger.h"

#include <cstdio>
#include <stdexcept>

namespace lanaikit::sim {

namespace {
constexpr uint32_t kTagPio = 0x4E4F0001;
constexpr uint32_t kTagIrq = 0x4E4F0002;
} // namespace

Node::Node(Kernel& kernel, NodeParams params, uint32_t index, std::string name)
    : kernel_(kernel), params_(std::move(params)), index_(index), name_(std::move(name)),
      memory_(params_.host_pages), pci_(kernel, params_.pci),
      chip_(kernel, params_.chip, name_ + ".chip") {
  chip_.attach_host(this);
}

Node::~Node() { chip_.attach_host(nullptr); }

void Node::load(std::shared_ptr<const assembler::FirmwareImage> image) {
  load(*image);
  image_ = std::move(image);
}

std::string Node::report() const {
  std::string out = chip_.report();
  const vm::Cpu& cpu = chip_.cpu();
  if (!cpu.fault()) return out;
  out += "  backtrace:\n";
  if (image_) {
    const std::string bt = format_backtrace(*image_, cpu);
    for (size_t at = 0; at < bt.size();) {
      const size_t nl = bt.find('\n', at);
      out += "    " + bt.substr(at, nl - at + 1);
      at = nl == std::string::npos ? bt.size() : nl + 1;
    }
  } else {
    char buf[40];
    for (const vm::Frame& f : vm::backtrace(cpu, 32)) {
      std::snprintf(buf, sizeof buf, "    0x%08x\n", f.pc);
      out += buf;
    }
  }
  return out;
}

void Node::load(const assembler::FirmwareImage& image) {
  image_.reset();
  vm::Sram& sram = chip_.sram();
  if (image.end() > sram.size())
    throw std::invalid_argument(name_ + ": firmware image ends at " + std::to_string(image.end()) +
                                " bytes, beyond the chip's " + std::to_string(sram.size()) +
                                "-byte SRAM");
  chip_.reset(image.entry);
  sram.clear(); // host pages beyond the image stay uncommitted (docs/sim.md)
  for (const auto& seg : image.segments)
    std::copy(seg.bytes.begin(), seg.bytes.end(), sram.data() + seg.address);
  chip_.cpu().invalidate_all();
  chip_.cpu().set_stack_guard(image.data_end(), params_.chip.stack_guard_bytes);
  loaded_ = true;
}

host::Process& Node::spawn(std::string name, host::Process::Body body, Time at) {
  processes_.push_back(std::make_unique<host::Process>(kernel_, name_ + "." + name));
  host::Process& p = *processes_.back();
  p.start(std::move(body), std::max(at, kernel_.now()));
  return p;
}

// ---- PIO ----------------------------------------------------------------------------------

void Node::pio_write(host::Process& p, uint32_t sram_offset, std::span<const uint8_t> bytes) {
  // One PCI write per store (4 or 8 bytes, pio_store_bytes); its bytes travel packed in
  // the event.
  const size_t width = pci_.params().pio_store_bytes;
  for (size_t i = 0; i < bytes.size(); i += width) {
    const uint32_t n = uint32_t(std::min(width, bytes.size() - i));
    uint64_t packed = 0;
    for (uint32_t k = 0; k < n; ++k) packed |= uint64_t(bytes[i + k]) << (8 * k);
    const uint32_t at = sram_offset + uint32_t(i);
    p.post([this, at, n, packed] {
      pci_.pio_write(n, [this, at, n, packed] {
        uint8_t word[8];
        for (uint32_t k = 0; k < n; ++k) word[k] = uint8_t(packed >> (8 * k));
        chip_.host_write_sram(at, std::span<const uint8_t>(word, n));
      });
    }, kTagPio);
    p.advance(pci_.params().pio_write_issue);
  }
}

void Node::pio_write_word(host::Process& p, uint32_t sram_offset, uint32_t value) {
  const uint8_t be[4] = {uint8_t(value >> 24), uint8_t(value >> 16), uint8_t(value >> 8),
                         uint8_t(value)};
  pio_write(p, sram_offset, be);
}

void Node::pio_write_reg(host::Process& p, uint32_t reg_offset, uint32_t value) {
  p.post([this, reg_offset, value] {
    pci_.pio_write(4, [this, reg_offset, value] { chip_.host_write_reg(reg_offset, value); });
  }, kTagPio);
  p.advance(pci_.params().pio_write_issue);
}

uint32_t Node::sram_word(uint32_t sram_offset) {
  uint8_t b[4];
  chip_.host_read_sram(sram_offset, b);
  return load_be32(b);
}

host::Process::Awaiter Node::pio_read_word(host::Process& p, uint32_t sram_offset, uint32_t& out) {
  return p.suspend([this, &p, sram_offset, &out] {
    p.post([this, &p, sram_offset, &out] {
      pci_.pio_read(4, [this, &p, sram_offset, &out] {
        out = sram_word(sram_offset);
        p.resume();
      });
    }, kTagPio);
  });
}

host::Process::Awaiter Node::pio_poll_word(host::Process& p, WordPoll& poll) {
  return p.suspend([this, &p, &poll] { p.post([this, &p, &poll] { poll_read(p, poll); }, kTagPio); });
}

void Node::poll_read(host::Process& p, WordPoll& poll) {
  pci_.pio_read(4, [this, &p, &poll] {
    const uint32_t v = sram_word(poll.sram_offset);
    *poll.value = v;
    ++*poll.reads;
    // Not there yet: the process would resume now and post its next read at once, two
    // events at now. When nothing else is due at now they run next, so the next read is
    // posted here (the process's clock catches up when it does resume: waited() sums the
    // same). An empty bus queue (the finished read has left it) keeps the bus's order
    // beyond doubt: a waiting transaction of zero length could otherwise finish, and its
    // completion make a request, before the read would have been posted.
    if (!poll.until(v) && pci_.queued() == 0 && kernel_.next_in_line()) {
      poll_read(p, poll);
      return;
    }
    p.resume();
  });
}

host::Process::Awaiter Node::pio_read_reg(host::Process& p, uint32_t reg_offset, uint32_t& out) {
  return p.suspend([this, &p, reg_offset, &out] {
    p.post([this, &p, reg_offset, &out] {
      pci_.pio_read(4, [this, &p, reg_offset, &out] {
        out = chip_.host_read_reg(reg_offset);
        p.resume();
      });
    }, kTagPio);
  });
}

void Node::pio_write_block(host::Process& p, uint32_t addr, uint32_t value) {
  p.post([this, addr, value] {
    pci_.pio_write(4, [this, addr, value] { chip_.host_write_block(addr, value); });
  }, kTagPio);
  p.advance(pci_.params().pio_write_issue);
}

host::Process::Awaiter Node::pio_read_block(host::Process& p, uint32_t addr, uint32_t& out) {
  return p.suspend([this, &p, addr, &out] {
    p.post([this, &p, addr, &out] {
      pci_.pio_read(4, [this, &p, addr, &out] {
        out = chip_.host_read_block(addr);
        p.resume();
      });
    }, kTagPio);
  });
}

// ---- the chip's side ----------------------------------------------------------------------

bool Node::host_range_ok(uint64_t addr, uint64_t len) const {
  return addr <= memory_.size() && len <= memory_.size() - addr;
}

void Node::dma(bool to_host, uint32_t len, std::function<void()> done) {
  pci_.dma(to_host ? host::DmaDirection::ToHost : host::DmaDirection::FromHost, len,
           std::move(done));
}

void Node::host_read(uint64_t addr, std::span<uint8_t> out) { memory_.read(addr, out); }

void Node::host_write(uint64_t addr, std::span<const uint8_t> in) {
  memory_.write(addr, in);
  memory_watch_.notify();
}

void Node::interrupt(bool asserted) {
  if (!asserted) return;
  kernel_.schedule_in(params_.interrupt_latency, [this] {
    // Delivered only if the line is still up (the firmware may have withdrawn it).
    if (!chip_.interrupt_asserted()) return;
    ++interrupts_;
    if (on_interrupt_) on_interrupt_();
    interrupt_watch_.notify();
  }, kTagIrq);
}

} // namespace lanaikit::sim
