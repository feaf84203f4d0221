#include "sim/profile_compare.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace lanaikit::sim {

namespace {

bool read_lines(const std::string& path, std::vector<std::string>& out) {
  std::ifstream in(path);
  if (!in) return false;
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return true;
}

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return "";
  const size_t b = s.find_last_not_of(" \t\r");
  return s.substr(a, b - a + 1);
}

// The LCS table of the middle part is at most this many cells; beyond it the middle is
// matched line by line (a file rewritten wholesale has nothing better to align anyway).
constexpr size_t kMaxCells = 16u << 20;

std::string us(Time t) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f", double(t) / double(kMicrosecond));
  return b;
}

std::string signed_num(double v, int decimals) {
  char b[48];
  std::snprintf(b, sizeof b, "%+.*f", decimals, v);
  return b;
}

std::string num(double v, int decimals) {
  char b[48];
  std::snprintf(b, sizeof b, "%.*f", decimals, v);
  return b;
}

std::string percent(double a, double b) {
  if (a == 0) return b == 0 ? "0%" : "new";
  return signed_num(100.0 * (b - a) / a, 1) + "%";
}

// Per (file, line): instructions summed over the nodes (every node runs the same build).
// File names are normalised: a header reached as echo/../lib/dma.h in one build and as
// lib/../lib/dma.h in the other is one file.
std::vector<LineCost> merged_lines(const EchoResult& r) {
  std::map<std::pair<std::string, uint32_t>, LineCost> m;
  for (const ProfileTables& t : r.tables)
    for (const LineCost& l : t.lines) {
      if (l.file.empty() || l.line == 0) continue;
      const std::string file = std::filesystem::path(l.file).lexically_normal().string();
      LineCost& c = m[{file, l.line}];
      c.file = file;
      c.line = l.line;
      c.function = l.function;
      c.instructions += l.instructions;
      c.cycles += l.cycles;
    }
  std::vector<LineCost> out;
  for (auto& [k, v] : m) out.push_back(v);
  return out;
}

} // namespace

std::vector<int> match_lines(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::vector<int> match(a.size(), -1);
  size_t pre = 0;
  while (pre < a.size() && pre < b.size() && a[pre] == b[pre]) {
    match[pre] = int(pre);
    ++pre;
  }
  size_t suf = 0;
  while (suf < a.size() - pre && suf < b.size() - pre && a[a.size() - 1 - suf] == b[b.size() - 1 - suf]) {
    match[a.size() - 1 - suf] = int(b.size() - 1 - suf);
    ++suf;
  }
  const size_t n = a.size() - pre - suf, m = b.size() - pre - suf;
  if (n == 0 || m == 0) return match;
  if ((n + 1) * (m + 1) > kMaxCells) {
    for (size_t i = 0; i < n && i < m; ++i)
      if (a[pre + i] == b[pre + i]) match[pre + i] = int(pre + i);
    return match;
  }
  // L[i][j]: LCS length of a[pre+i..] and b[pre+j..].
  std::vector<uint32_t> L((n + 1) * (m + 1), 0);
  auto at = [&](size_t i, size_t j) -> uint32_t& { return L[i * (m + 1) + j]; };
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;)
      at(i, j) = a[pre + i] == b[pre + j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
  for (size_t i = 0, j = 0; i < n && j < m;) {
    if (a[pre + i] == b[pre + j]) {
      match[pre + i] = int(pre + j);
      ++i, ++j;
    } else if (at(i + 1, j) >= at(i, j + 1)) {
      ++i;
    } else {
      ++j;
    }
  }
  return match;
}

std::vector<LineChange> align_lines(const std::vector<LineCost>& a, const std::vector<LineCost>& b,
                                    const std::vector<std::pair<std::string, std::string>>& pairs) {
  std::map<std::string, std::map<uint32_t, uint64_t>> ca, cb; // file -> line -> insns
  for (const LineCost& l : a) ca[l.file][l.line] += l.instructions;
  for (const LineCost& l : b) cb[l.file][l.line] += l.instructions;

  // File pairs: the named ones, then every remaining file with itself.
  std::vector<std::pair<std::string, std::string>> files;
  std::set<std::string> used_a, used_b;
  for (const auto& p : pairs) {
    files.push_back(p);
    used_a.insert(p.first);
    used_b.insert(p.second);
  }
  std::set<std::string> rest;
  for (const auto& [f, _] : ca)
    if (!used_a.count(f)) rest.insert(f);
  for (const auto& [f, _] : cb)
    if (!used_b.count(f)) rest.insert(f);
  for (const std::string& f : rest) files.emplace_back(used_a.count(f) ? "" : f, used_b.count(f) ? "" : f);

  std::vector<LineChange> out;
  for (const auto& [fa, fb] : files) {
    const auto& la = ca[fa];
    const auto& lb = cb[fb];
    std::vector<std::string> ta, tb;
    const bool texts = !fa.empty() && !fb.empty() && read_lines(fa, ta) && read_lines(fb, tb);
    auto text_of = [](const std::vector<std::string>& t, uint32_t line) {
      return line >= 1 && line <= t.size() ? trim(t[line - 1]) : std::string();
    };
    // Partner in b of each line of a (1-based; 0 = none).
    std::map<uint32_t, uint32_t> partner;
    if (texts) {
      const std::vector<int> m = match_lines(ta, tb);
      for (size_t i = 0; i < m.size(); ++i)
        if (m[i] >= 0) partner[uint32_t(i + 1)] = uint32_t(m[i] + 1);
    } else if (!fa.empty() && !fb.empty()) {
      for (const auto& [line, _] : la) partner[line] = line;
      for (const auto& [line, _] : lb) partner[line] = line;
    }
    std::map<uint32_t, uint32_t> partner_in_a; // the same matching, from b's side
    for (const auto& [line_a, line_b] : partner) partner_in_a.emplace(line_b, line_a);
    std::set<uint32_t> taken_b;
    std::map<uint32_t, LineChange> rows; // ordered by the line in b (or a, for removed lines)
    for (const auto& [line, n] : la) {
      LineChange c;
      c.file_a = fa;
      c.line_a = line;
      c.insns_a = n;
      c.text = text_of(ta, line);
      if (auto it = partner.find(line); it != partner.end() && !fb.empty()) {
        c.file_b = fb;
        c.line_b = it->second;
        if (auto jt = lb.find(it->second); jt != lb.end()) c.insns_b = jt->second;
        taken_b.insert(it->second);
      }
      rows.emplace(c.line_b ? c.line_b : line, c);
    }
    for (const auto& [line, n] : lb) {
      if (taken_b.count(line)) continue;
      LineChange c;
      c.file_b = fb;
      c.line_b = line;
      c.insns_b = n;
      c.text = text_of(tb, line);
      // A line of a with no count that matches this one (its partner): the same line.
      if (auto it = partner_in_a.find(line); it != partner_in_a.end()) {
        c.file_a = fa;
        c.line_a = it->second;
      }
      rows.emplace(line, c);
    }
    for (auto& [_, c] : rows) out.push_back(std::move(c));
  }
  return out;
}

std::string format_comparison(const EchoResult& a, const EchoResult& b, const std::string& name_a,
                              const std::string& name_b,
                              const std::vector<std::pair<std::string, std::string>>& pairs,
                              size_t top_lines) {
  std::ostringstream o;
  o << "before: " << name_a << "\nafter:  " << name_b << "\n\n";
  o << "## Latency and bandwidth (echo ping-pong, median one-way)\n\n";
  o << "| bytes | us before | us after | change | MB/s before | MB/s after | change |\n";
  o << "|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const EchoSizeResult& sa : a.sizes)
    for (const EchoSizeResult& sb : b.sizes)
      if (sa.bytes == sb.bytes)
        o << "| " << sa.bytes << " | " << us(sa.median) << " | " << us(sb.median) << " | "
          << signed_num(double(sb.median - sa.median) / double(kMicrosecond), 2) << " ("
          << percent(double(sa.median), double(sb.median)) << ") | " << num(sa.mb_per_s, 1) << " | "
          << num(sb.mb_per_s, 1) << " | " << percent(sa.mb_per_s, sb.mb_per_s) << " |\n";

  o << "\n## Per handler (profiler, exact per call)\n\n";
  o << "| node | handler | calls before / after | insns median before | after | change | "
       "insns mean before | after | cycles median before | after | change |\n";
  o << "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (size_t n = 0; n < a.handlers.size() && n < b.handlers.size(); ++n)
    for (const vm::HandlerSummary& ha : a.handlers[n])
      for (const vm::HandlerSummary& hb : b.handlers[n])
        if (ha.name == hb.name)
          o << "| " << n << " | " << ha.name << " | " << ha.instructions.count << " / "
            << hb.instructions.count << " | " << ha.instructions.median << " | "
            << hb.instructions.median << " | "
            << signed_num(double(hb.instructions.median) - double(ha.instructions.median), 0) << " | "
            << num(ha.instructions.mean, 1) << " | " << num(hb.instructions.mean, 1) << " | "
            << ha.cycles.median << " | " << hb.cycles.median << " | "
            << signed_num(double(hb.cycles.median) - double(ha.cycles.median), 0) << " |\n";

  std::vector<LineChange> lines = align_lines(merged_lines(a), merged_lines(b), pairs);
  uint64_t total_a = 0, total_b = 0;
  for (const LineChange& c : lines) total_a += c.insns_a, total_b += c.insns_b;
  std::vector<LineChange> changed;
  for (const LineChange& c : lines)
    if (c.delta() != 0) changed.push_back(c);
  std::stable_sort(changed.begin(), changed.end(), [](const LineChange& x, const LineChange& y) {
    return std::llabs(x.delta()) > std::llabs(y.delta());
  });
  o << "\n## Per source line (executed instructions, all nodes, whole run)\n\n";
  o << "total: " << total_a << " -> " << total_b << " ("
    << signed_num(double(total_b) - double(total_a), 0) << "); " << changed.size()
    << " line(s) changed";
  if (changed.size() > top_lines) o << ", the " << top_lines << " largest changes";
  o << "\n\n| before | after | insns before | after | change | source |\n";
  o << "|---|---|---:|---:|---:|---|\n";
  auto where = [](const std::string& f, uint32_t line) {
    if (!line) return std::string("(none)");
    const size_t slash = f.rfind('/');
    return (slash == std::string::npos ? f : f.substr(slash + 1)) + ":" + std::to_string(line);
  };
  for (size_t i = 0; i < changed.size() && i < top_lines; ++i) {
    const LineChange& c = changed[i];
    std::string text = c.text;
    for (char& ch : text)
      if (ch == '|') ch = '/';
    o << "| " << where(c.file_a, c.line_a) << " | " << where(c.file_b, c.line_b) << " | " << c.insns_a
      << " | " << c.insns_b << " | " << signed_num(double(c.delta()), 0) << " | `" << text << "` |\n";
  }
  return o.str();
}

} // namespace lanaikit::sim
