#include "sim/profile_report.h"

#include "report/callgrind_out.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

namespace lanaikit::sim {

ProfileTables profile_tables(const assembler::FirmwareImage& image, const vm::Profiler& profiler) {
  ProfileTables t;
  const auto& insns = profiler.instructions_by_word();
  const auto& cycles = profiler.cycles_by_word();
  std::map<std::string, FunctionCost> fns;
  std::map<std::tuple<std::string, uint32_t, std::string>, LineCost> lines;
  for (size_t w = 0; w < insns.size(); ++w) {
    if (!insns[w]) continue;
    const uint32_t addr = uint32_t(w * 4);
    const auto* sym = image.symbol_at(addr);
    const std::string fn = sym ? sym->name : "?";
    const auto loc = image.line_at(addr);
    const std::string file = loc ? std::string(loc->file) : "";
    const uint32_t line = loc ? loc->line : 0;
    FunctionCost& f = fns[fn];
    f.name = fn;
    if (f.file.empty()) f.file = file;
    f.instructions += insns[w];
    f.cycles += cycles[w];
    LineCost& l = lines[{file, line, fn}];
    l.file = file;
    l.line = line;
    l.function = fn;
    l.instructions += insns[w];
    l.cycles += cycles[w];
    t.instructions += insns[w];
    t.cycles += cycles[w];
  }
  for (auto& [_, f] : fns) t.functions.push_back(std::move(f));
  std::sort(t.functions.begin(), t.functions.end(), [](const FunctionCost& a, const FunctionCost& b) {
    return a.instructions != b.instructions ? a.instructions > b.instructions : a.name < b.name;
  });
  for (auto& [_, l] : lines) t.lines.push_back(std::move(l));
  return t;
}

namespace {

std::string source_line(const std::string& file, uint32_t line) {
  static std::map<std::string, std::vector<std::string>> cache;
  auto it = cache.find(file);
  if (it == cache.end()) {
    std::vector<std::string> text;
    std::ifstream in(file);
    for (std::string s; std::getline(in, s);) text.push_back(s);
    it = cache.emplace(file, std::move(text)).first;
  }
  if (line == 0 || line > it->second.size()) return {};
  std::string s = it->second[line - 1];
  const size_t b = s.find_first_not_of(" \t");
  return b == std::string::npos ? std::string() : s.substr(b);
}

std::string base_name(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

} // namespace

std::string format_profile(const assembler::FirmwareImage& image, const vm::Profiler& profiler,
                           const std::string& title, size_t top) {
  const ProfileTables t = profile_tables(image, profiler);
  std::ostringstream o;
  char buf[256];
  o << "profile: " << title << "\n";
  std::snprintf(buf, sizeof buf, "%llu instructions, %llu cycles; %.1f%% of cycles inside handlers\n",
                static_cast<unsigned long long>(t.instructions), static_cast<unsigned long long>(t.cycles),
                profiler.total_cycles() ? 100.0 * double(profiler.handler_cycles()) / double(profiler.total_cycles()) : 0.0);
  o << buf;
  const auto sums = profiler.summaries();
  if (!sums.empty()) {
    o << "\n| handler | calls | insns median | p99 | min | max | cycles median | stall median | DMA-wait median | us median |\n";
    o << "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
    for (size_t h = 0; h < sums.size(); ++h) {
      const auto& s = sums[h];
      // A trap table's vectors are all registered; only those taken are worth a row.
      if (profiler.handlers()[h].trap && s.instructions.count == 0) continue;
      std::snprintf(buf, sizeof buf, "| %s | %llu | %llu | %llu | %llu | %llu | %llu | %llu | %llu | %.3f |\n",
                    s.name.c_str(), static_cast<unsigned long long>(s.instructions.count),
                    static_cast<unsigned long long>(s.instructions.median),
                    static_cast<unsigned long long>(s.instructions.p99),
                    static_cast<unsigned long long>(s.instructions.min),
                    static_cast<unsigned long long>(s.instructions.max),
                    static_cast<unsigned long long>(s.cycles.median),
                    static_cast<unsigned long long>(s.stall_cycles.median),
                    static_cast<unsigned long long>(s.dma_wait_cycles.median),
                    double(s.duration_ps.median) / 1e6);
      o << buf;
    }
    if (profiler.dropped_invocations())
      o << "(" << profiler.dropped_invocations() << " invocations beyond the limit not kept)\n";
  }
  o << "\n| function | insns | % | cycles |\n|---|---:|---:|---:|\n";
  for (size_t i = 0; i < t.functions.size() && i < top; ++i) {
    const auto& f = t.functions[i];
    std::snprintf(buf, sizeof buf, "| %s | %llu | %.1f | %llu |\n", f.name.c_str(),
                  static_cast<unsigned long long>(f.instructions),
                  t.instructions ? 100.0 * double(f.instructions) / double(t.instructions) : 0.0,
                  static_cast<unsigned long long>(f.cycles));
    o << buf;
  }
  std::vector<LineCost> hot;
  for (const auto& l : t.lines)
    if (!l.file.empty() && l.line != 0) hot.push_back(l); // line 0: code with no source line
  std::sort(hot.begin(), hot.end(), [](const LineCost& a, const LineCost& b) {
    if (a.instructions != b.instructions) return a.instructions > b.instructions;
    return std::tie(a.file, a.line) < std::tie(b.file, b.line);
  });
  if (!hot.empty()) {
    o << "\n| line | insns | cycles | source |\n|---|---:|---:|---|\n";
    for (size_t i = 0; i < hot.size() && i < top; ++i) {
      const auto& l = hot[i];
      std::snprintf(buf, sizeof buf, "| %s:%u | %llu | %llu | ", base_name(l.file).c_str(), l.line,
                    static_cast<unsigned long long>(l.instructions),
                    static_cast<unsigned long long>(l.cycles));
      std::string src = source_line(l.file, l.line);
      std::string escaped;
      for (char c : src) {
        if (c == '|') escaped += '\\';
        escaped += c;
      }
      o << buf << escaped << " |\n";
    }
  } else {
    o << "\n(no line table: build the firmware with -g for per-line counts)\n";
  }
  return o.str();
}

} // namespace lanaikit::sim

namespace lanaikit::sim {

void write_callgrind_profile(std::ostream& out, const std::string& command, const ProfileTables& tables) {
  std::vector<report::CostLine> lines;
  lines.reserve(tables.lines.size());
  for (const LineCost& l : tables.lines)
    lines.push_back({l.file.empty() ? "???" : l.file, l.function, l.line, l.instructions, l.cycles});
  report::write_callgrind(out, command, lines);
}

} // namespace lanaikit::sim
