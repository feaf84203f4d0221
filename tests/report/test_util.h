// Helpers shared by the report tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

namespace lanaikit::report::testing {

// A fresh directory for this test's files, removed at the end.
class TempDir {
public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = std::filesystem::temp_directory_path() /
            ("lanaikit_report_" + std::string(info->test_suite_name()) + "_" + info->name() + "_" +
             std::to_string(getpid()));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }
  const std::filesystem::path& path() const { return path_; }

private:
  std::filesystem::path path_;
};

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void write_file(const std::filesystem::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

// Runs a shell command; returns its exit status and puts stdout+stderr in `output`.
inline int run(const std::string& command, std::string* output) {
  std::string cmd = command + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return -1;
  char buf[4096];
  size_t n;
  output->clear();
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) output->append(buf, n);
  const int status = pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// The first line of `text` containing `needle`, or "" if none.
inline std::string line_containing(const std::string& text, const std::string& needle) {
  const size_t at = text.find(needle);
  if (at == std::string::npos) return "";
  const size_t b = text.rfind('\n', at);
  const size_t e = text.find('\n', at);
  return text.substr(b == std::string::npos ? 0 : b + 1, e == std::string::npos ? std::string::npos : e - (b + 1));
}

// True if the line holding `needle` starts (after blanks) with the given counts, in order,
// each followed by a percentage: "  1,000 (23.72%)  1,500 (29.52%)  needle".
inline bool counts_before(const std::string& text, const std::string& needle, const std::string& ir,
                          const std::string& cycles) {
  const std::string l = line_containing(text, needle);
  if (l.empty()) return false;
  const size_t a = l.find_first_not_of(' ');
  if (a == std::string::npos || l.compare(a, ir.size() + 2, ir + " (") != 0) return false;
  const size_t p = l.find(") ", a);
  if (p == std::string::npos) return false;
  const size_t c = l.find_first_not_of(' ', p + 1);
  return c != std::string::npos && l.compare(c, cycles.size() + 2, cycles + " (") == 0 &&
         l.find(needle, c) != std::string::npos;
}

inline bool have_program(const std::string& name) {
  std::string out;
  return run("command -v " + name, &out) == 0;
}

} // namespace lanaikit::report::testing
