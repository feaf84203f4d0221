#include "vm/debugger.h"
#include "base/hex.h"

#include "isa/inst.h"

#include <cstdio>
#include <stdexcept>

namespace lanaikit::vm {

namespace {
} // namespace

std::vector<Frame> backtrace(const Cpu& cpu, size_t max_frames) {
  std::vector<Frame> out;
  uint32_t pc = cpu.pc(), fp = cpu.reg(5);
  const Sram& sram = const_cast<Cpu&>(cpu).sram();
  // Stopped on a function's first instruction (the prologue's `st %fp, [--%sp]`), its frame
  // is not built yet: %fp is still the caller's, and the caller's call is in %rca.
  // Stopped on its second (`add %sp, 0x8, %fp`), the caller's %fp is pushed but %fp is not
  // yet moved: the same holds.
  constexpr uint32_t kPushFp = 0x9293fffc, kSetFp = 0x02900008;
  const bool at_entry = pc % 4 == 0 && sram.contains(pc, 4) && sram.read32(pc) == kPushFp;
  const bool after_push = pc % 4 == 0 && pc >= 4 && sram.contains(pc - 4, 8) &&
                          sram.read32(pc - 4) == kPushFp && sram.read32(pc) == kSetFp;
  if ((at_entry || after_push) && cpu.reg(15) >= 16 && max_frames > 1) {
    out.push_back({pc, fp});
    pc = cpu.reg(15) - 16;
  }
  while (out.size() < max_frames) {
    out.push_back({pc, fp});
    if (fp == 0 || fp % 4 || fp < 8 || !sram.contains(fp - 8, 8)) break;
    const uint32_t ret = sram.read32(fp - 4), caller_fp = sram.read32(fp - 8);
    if (ret % 4 || !sram.contains(ret, 4)) break;
    // The return address is 16 bytes past the call's first instruction (docs/abi.md):
    // report the call itself, as debuggers do.
    pc = ret >= 16 ? ret - 16 : ret;
    if (caller_fp != 0 && caller_fp <= fp) break; // a corrupted chain must not loop
    fp = caller_fp;
  }
  return out;
}

std::optional<unsigned> parse_register(std::string_view name) {
  if (!name.empty() && name[0] == '%') name.remove_prefix(1);
  if (name == "sw") return kSwReg;
  for (unsigned i = 0; i < 32; ++i)
    if (name == isa::reg_name(i)) return i;
  if (name.size() >= 2 && name[0] == 'r') { // r0 .. r31 by number, whatever the alias
    unsigned n = 0;
    for (char c : name.substr(1)) {
      if (c < '0' || c > '9' || n > 31) return std::nullopt;
      n = n * 10 + unsigned(c - '0');
    }
    if (n < 32) return n;
  }
  return std::nullopt;
}

void Debugger::watch_memory(uint32_t addr, uint32_t len) {
  if (len == 0 || !cpu_.sram().contains(addr, len))
    throw std::invalid_argument("watchpoint " + hex(addr) + "+" + std::to_string(len) +
                                " is not inside SRAM");
  MemWatch w{addr, len, std::vector<uint8_t>(len)};
  cpu_.sram().read(addr, w.last);
  mem_watches_.push_back(std::move(w));
}

void Debugger::watch_register(unsigned r) {
  if (r >= 32 && r != kSwReg) throw std::invalid_argument("no register " + std::to_string(r) + " to watch");
  reg_watches_.push_back({r, r == kSwReg ? cpu_.sw() : cpu_.reg(r)});
}

void Debugger::restart() {
  for (MemWatch& w : mem_watches_) cpu_.sram().read(w.addr, w.last);
  for (RegWatch& w : reg_watches_) w.last = w.reg == kSwReg ? cpu_.sw() : cpu_.reg(w.reg);
  steps_left_ = 0;
  stop_next_ = false;
  passed_over_.reset();
  target_.reset();
  stop_ = Stop::None;
}

bool Debugger::before(uint32_t pc) {
  if (stop_next_) {
    stop_next_ = false;
    passed_over_ = pc;
    stop_ = Stop::Watchpoint;
    return false;
  }
  if (steps_left_ > 0 && --steps_left_ == 0) {
    reason_ = "step";
    passed_over_ = pc;
    stop_ = Stop::Step;
    return false;
  }
  if (target_ && target_->pc == pc && cpu_.reg(4) >= target_->min_sp) { // r4 is %sp
    target_.reset();
    reason_ = "returned";
    passed_over_ = pc;
    stop_ = Stop::Target;
    return false;
  }
  if (breakpoints_.count(pc) && passed_over_ != pc) {
    reason_ = "breakpoint " + hex(pc);
    passed_over_ = pc;
    stop_ = Stop::Breakpoint;
    return false;
  }
  passed_over_.reset();
  return true;
}

void Debugger::after(uint32_t pc, uint32_t) {
  ++executed_;
  for (MemWatch& w : mem_watches_) {
    std::vector<uint8_t> now(w.len);
    cpu_.sram().read(w.addr, now);
    if (now != w.last) {
      reason_ = "watchpoint " + hex(w.addr) + "+" + std::to_string(w.len) + " written by " + hex(pc);
      w.last = std::move(now);
      stop_next_ = true;
    }
  }
  for (RegWatch& w : reg_watches_) {
    const uint32_t now = w.reg == kSwReg ? cpu_.sw() : cpu_.reg(w.reg);
    if (now != w.last) {
      reason_ = "watchpoint %" + std::string(w.reg == kSwReg ? "sw" : isa::reg_name(w.reg)) + " " +
                hex(w.last) + " -> " + hex(now) + " at " + hex(pc);
      w.last = now;
      stop_next_ = true;
    }
  }
}

} // namespace lanaikit::vm
