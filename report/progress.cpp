#include "report/progress.h"

#include <algorithm>
#include <cmath>
#include <unistd.h>

namespace lanaikit::report {

namespace {
constexpr auto kMinRedrawInterval = std::chrono::milliseconds(100);
constexpr int kBarWidth = 30;

std::string clock_text(double seconds) {
  const uint64_t s = uint64_t(std::max(0.0, std::round(seconds)));
  char buf[64];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%llu:%02llu:%02llu", (unsigned long long)(s / 3600),
                  (unsigned long long)(s / 60 % 60), (unsigned long long)(s % 60));
  else
    std::snprintf(buf, sizeof buf, "%llu:%02llu", (unsigned long long)(s / 60), (unsigned long long)(s % 60));
  return buf;
}
} // namespace

Progress::Progress(std::string label, uint64_t total, std::FILE* out)
    : label_(std::move(label)), total_(total), out_(out),
      tty_(out != nullptr && isatty(fileno(out)) == 1), start_(std::chrono::steady_clock::now()) {}

Progress::~Progress() {
  if (tty_ && redraws_ > 0 && !finished_) {
    std::fputc('\n', out_);
    std::fflush(out_);
  }
}

std::string Progress::format_line(const std::string& label, uint64_t done, uint64_t total,
                                  double elapsed_s, bool finished) {
  const double frac = total == 0 ? 1.0 : double(std::min(done, total)) / double(total);
  const int fill = int(frac * kBarWidth);
  std::string bar(size_t(fill), '#');
  bar += std::string(size_t(kBarWidth - fill), '-');
  char pct[32];
  std::snprintf(pct, sizeof pct, "%5.1f%%", frac * 100.0);
  std::string s = label + " [" + bar + "] " + pct + "  " + std::to_string(std::min(done, total)) + "/" +
                  std::to_string(total) + "  ";
  if (finished)
    s += "done in " + clock_text(elapsed_s);
  else if (done == 0 || total == 0)
    s += "ETA ?";
  else
    s += "ETA " + clock_text(elapsed_s * double(total - std::min(done, total)) / double(std::min(done, total)));
  return s;
}

void Progress::draw(bool finished) {
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const std::string line = format_line(label_, done_, total_, elapsed, finished);
  std::fputc('\r', out_);
  std::fwrite(line.data(), 1, line.size(), out_);
  std::fputs("\x1b[K", out_);
  if (finished) std::fputc('\n', out_);
  std::fflush(out_);
  ++redraws_;
}

void Progress::update(uint64_t done) {
  if (!tty_ || finished_) return;
  done_ = std::min(done, total_);
  const auto now = std::chrono::steady_clock::now();
  if (redraws_ > 0 && now - last_draw_ < kMinRedrawInterval) return;
  last_draw_ = now;
  draw(false);
}

void Progress::finish() {
  if (finished_) return;
  finished_ = true;
  if (!tty_) return;
  done_ = total_;
  draw(true);
}

} // namespace lanaikit::report
