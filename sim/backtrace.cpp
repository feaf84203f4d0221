#include "sim/backtrace.h"

#include "vm/debugger.h"

#include <cstdio>

namespace lanaikit::sim {

std::string where(const assembler::FirmwareImage& image, uint32_t addr) {
  std::string out;
  if (const auto* s = image.symbol_at(addr)) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "+0x%x", addr - s->address);
    out = s->name;
    out.append(buf);
  } else {
    out.assign(1, '?'); // (not = "?": GCC 12 warns a false -Wrestrict on that here)
  }
  if (const auto loc = image.line_at(addr)) {
    std::string f(loc->file);
    const size_t slash = f.rfind('/');
    if (slash != std::string::npos) f = f.substr(slash + 1);
    out.append(" (").append(f).append(":").append(std::to_string(loc->line)).append(")");
  }
  return out;
}

std::string format_backtrace(const assembler::FirmwareImage& image, const vm::Cpu& cpu) {
  // A runaway recursion repeats one frame thousands of times: a run of identical frames is
  // shown twice and counted, so the outer frames (who started it) stay in view.
  constexpr size_t kMaxLines = 64;
  std::string out;
  char buf[96];
  const auto frames = vm::backtrace(cpu, size_t(1) << 20);
  auto frame_line = [&](size_t k) {
    std::snprintf(buf, sizeof buf, "#%zu 0x%08x in ", k, frames[k].pc);
    out.append(buf).append(where(image, frames[k].pc)).push_back('\n');
  };
  size_t lines = 0, i = 0;
  while (i < frames.size()) {
    if (lines >= kMaxLines) {
      std::snprintf(buf, sizeof buf, "... %zu more frames\n", frames.size() - i);
      out += buf;
      break;
    }
    size_t run = 1;
    while (i + run < frames.size() && frames[i + run].pc == frames[i].pc) ++run;
    frame_line(i);
    if (run < 3) {
      lines += 1;
      i += 1;
      continue;
    }
    frame_line(i + 1);
    std::snprintf(buf, sizeof buf, "... the same frame %zu more times (#%zu to #%zu)\n", run - 2,
                  i + 2, i + run - 1);
    out += buf;
    lines += 3;
    i += run;
  }
  return out;
}

} // namespace lanaikit::sim
