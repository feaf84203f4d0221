// Source files and diagnostics: "file:line:col: error: message", the source line and a
// caret under the column (columns count bytes from 1; tabs in the source line are copied
// into the caret line so the caret lines up in any tab width).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "assembler/fw/ast.h"

namespace lanaikit::fw {

struct SourceFile {
  std::string path;   // as shown in diagnostics
  std::string text;
  std::vector<uint32_t> line_starts; // offsets of each line's first byte
  void index_lines();
  // 1-based line and column of a byte offset.
  std::pair<uint32_t, uint32_t> line_col(uint32_t offset) const;
  std::string_view line_text(uint32_t line) const;
};

class SourceManager {
public:
  uint32_t add(std::string path, std::string text);
  const SourceFile& file(uint32_t id) const { return files_[id]; }
  size_t size() const { return files_.size(); }

private:
  std::vector<SourceFile> files_;
};

class Diagnostics {
public:
  explicit Diagnostics(const SourceManager& sm) : sm_(sm) {}
  void error(Pos pos, const std::string& msg) {
    // Within one statement only the first error is shown: the rest are mostly its
    // consequences (StatementScope).
    dropping_notes_ = in_statement_ && statement_errors_ > 0;
    if (dropping_notes_) return;
    ++statement_errors_;
    emit(pos, "error", msg);
    ++errors_;
  }
  void warning(Pos pos, const std::string& msg) {
    dropping_notes_ = false;
    emit(pos, "warning", msg);
  }
  void note(Pos pos, const std::string& msg) {
    if (!dropping_notes_) emit(pos, "note", msg); // a note belongs to the message before it
  }

  // While one lives, at most one error is reported (sema opens one per statement; a
  // nested statement, such as one in an `if` body, gets its own).
  class StatementScope {
  public:
    explicit StatementScope(Diagnostics& d)
        : d_(d), saved_in_(d.in_statement_), saved_errors_(d.statement_errors_) {
      d.in_statement_ = true;
      d.statement_errors_ = 0;
    }
    ~StatementScope() {
      d_.in_statement_ = saved_in_;
      d_.statement_errors_ = saved_errors_;
    }
    StatementScope(const StatementScope&) = delete;
    StatementScope& operator=(const StatementScope&) = delete;

  private:
    Diagnostics& d_;
    bool saved_in_;
    unsigned saved_errors_;
  };
  // An error with no source position ("file: error: msg" or just "error: msg").
  void error_plain(const std::string& msg) {
    entries_.push_back({~0u, ~0u, "error: " + msg + "\n"});
    ++errors_;
  }
  unsigned errors() const { return errors_; }
  // Everything reported, in source order (by file, then offset; a note stays with the
  // error before it; messages without a position come last).
  std::string text() const;

private:
  struct Entry {
    uint32_t file, offset;
    std::string text;
  };
  void emit(Pos pos, const char* kind, const std::string& msg);
  static constexpr unsigned kMaxShown = 50;
  static constexpr size_t kWindow = 120; // columns shown either side of a long line's caret
  const SourceManager& sm_;
  std::vector<Entry> entries_;
  unsigned errors_ = 0;
  bool in_statement_ = false;
  unsigned statement_errors_ = 0;
  bool dropping_notes_ = false;
  unsigned suppressed_ = 0;
  bool last_suppressed_ = false;
};

} // namespace lanaikit::fw
