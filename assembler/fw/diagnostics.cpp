#include "assembler/fw/diagnostics.h"

#include <algorithm>

namespace lanaikit::fw {

void SourceFile::index_lines() {
  line_starts.clear();
  line_starts.push_back(0);
  for (uint32_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n')
      line_starts.push_back(i + 1);
}

std::pair<uint32_t, uint32_t> SourceFile::line_col(uint32_t offset) const {
  auto it = std::upper_bound(line_starts.begin(), line_starts.end(), offset);
  const uint32_t line = uint32_t(it - line_starts.begin()); // 1-based
  return {line, offset - line_starts[line - 1] + 1};
}

std::string_view SourceFile::line_text(uint32_t line) const {
  if (line == 0 || line > line_starts.size())
    return {};
  const uint32_t begin = line_starts[line - 1];
  uint32_t end = line < line_starts.size() ? line_starts[line] - 1 : uint32_t(text.size());
  if (end > begin && text[end - 1] == '\r')
    --end;
  return std::string_view(text).substr(begin, end - begin);
}

uint32_t SourceManager::add(std::string path, std::string text) {
  SourceFile f;
  f.path = std::move(path);
  f.text = std::move(text);
  // A UTF-8 byte order mark (editors on some systems write one) is not source: dropped,
  // so line 1's columns count from the first real byte.
  if (f.text.compare(0, 3, "\xEF\xBB\xBF") == 0) f.text.erase(0, 3);
  f.index_lines();
  files_.push_back(std::move(f));
  return uint32_t(files_.size() - 1);
}

void Diagnostics::emit(Pos pos, const char* kind, const std::string& msg) {
  // Beyond kMaxShown errors only the count grows (a pathological input must not produce
  // megabytes of messages).
  const bool is_note = std::string_view(kind) == "note";
  if (is_note ? last_suppressed_ : errors_ >= kMaxShown) {
    suppressed_ += is_note ? 0 : 1;
    last_suppressed_ = true;
    return;
  }
  last_suppressed_ = false;
  const SourceFile& f = sm_.file(pos.file);
  const uint32_t offset = std::min<uint32_t>(pos.offset, uint32_t(f.text.size()));
  auto [line, col] = f.line_col(offset);
  std::string text = f.path + ":" + std::to_string(line) + ":" + std::to_string(col) + ": " +
                     kind + ": " + msg + "\n";
  // Long lines are shown as a window around the column.
  std::string_view src = f.line_text(line);
  size_t from = col - 1 > kWindow ? col - 1 - kWindow : 0;
  std::string shown = from ? "..." : "";
  shown += std::string(src.substr(from, 2 * kWindow));
  if (from + 2 * kWindow < src.size()) shown += "...";
  text += shown + "\n";
  std::string caret(from ? 3 : 0, ' ');
  for (size_t i = from; i + 1 < col && i < src.size(); ++i)
    caret += src[i] == '\t' ? '\t' : ' ';
  text += caret + "^\n";
  if (is_note && !entries_.empty()) {
    entries_.back().text += text; // travels with its error
    return;
  }
  entries_.push_back({pos.file, offset, std::move(text)});
}

std::string Diagnostics::text() const {
  std::vector<const Entry*> order;
  for (const Entry& e : entries_) order.push_back(&e);
  std::stable_sort(order.begin(), order.end(), [](const Entry* a, const Entry* b) {
    return std::make_pair(a->file, a->offset) < std::make_pair(b->file, b->offset);
  });
  std::string out;
  for (const Entry* e : order) out += e->text;
  if (suppressed_)
    out += "error: too many errors; " + std::to_string(suppressed_) + " more not shown\n";
  return out;
}

} // namespace lanaikit::fw
