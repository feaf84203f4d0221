#include "report/callgrind_out.h"

#include <map>
#include <ostream>
#include <stdexcept>

namespace lanaikit::report {

namespace {

// Name compression tables: one for files, one for functions (the format keeps them apart).
class Names {
public:
  explicit Names(bool compress) : compress_(compress) {}
  std::string operator()(const std::string& name) {
    if (!compress_) return name;
    std::string out = "(";
    if (auto it = ids_.find(name); it != ids_.end()) {
      out += std::to_string(it->second);
      out += ')';
      return out;
    }
    const size_t id = ids_.size() + 1;
    ids_.emplace(name, id);
    out += std::to_string(id);
    out += ") ";
    out += name;
    return out;
  }

private:
  bool compress_;
  std::map<std::string, size_t> ids_;
};

void check_name(const std::string& s, const char* what) {
  if (s.find_first_of("\r\n") != std::string::npos)
    throw std::invalid_argument(std::string("callgrind: ") + what + " contains a newline: " + s);
}

} // namespace

void write_callgrind(std::ostream& out, const std::string& command, const std::vector<CostLine>& costs,
                     const std::vector<CallArc>& calls, const CallgrindOptions& options) {
  // Group by (file, function) in order of first appearance.
  struct Group {
    std::string file, function;
    std::vector<const CostLine*> lines;
    std::vector<const CallArc*> arcs;
  };
  std::vector<Group> groups;
  std::map<std::pair<std::string, std::string>, size_t> index;
  auto group = [&](const std::string& file, const std::string& fn) -> Group& {
    auto [it, fresh] = index.emplace(std::make_pair(file, fn), groups.size());
    if (fresh) groups.push_back({file, fn, {}, {}});
    return groups[it->second];
  };
  uint64_t total_ir = 0, total_cycles = 0;
  for (const CostLine& c : costs) {
    check_name(c.file, "file name");
    check_name(c.function, "function name");
    group(c.file, c.function).lines.push_back(&c);
    total_ir += c.instructions;
    total_cycles += c.cycles;
  }
  for (const CallArc& a : calls) {
    check_name(a.caller_file, "file name");
    check_name(a.callee_file, "file name");
    check_name(a.caller_function, "function name");
    check_name(a.callee_function, "function name");
    group(a.caller_file, a.caller_function).arcs.push_back(&a);
  }

  std::string cmd = command;
  for (char& ch : cmd)
    if (ch == '\n' || ch == '\r') ch = ' ';
  const std::string totals = std::to_string(total_ir) + " " + std::to_string(total_cycles);

  std::string o;
  o += "# callgrind format\n";
  o += "version: 1\n";
  o += "creator: " + options.creator + "\n";
  o += "cmd: " + cmd + "\n";
  o += "positions: line\n";
  o += "event: Ir : Instructions executed\n";
  o += "event: Cycles : Chip cycles\n";
  o += "events: Ir Cycles\n";
  o += "summary: " + totals + "\n";

  Names files(options.compress_names), fns(options.compress_names);
  for (const Group& g : groups) {
    o += "\nfl=" + files(g.file) + "\n";
    o += "fn=" + fns(g.function) + "\n";
    for (const CostLine* c : g.lines)
      o += std::to_string(c->line) + " " + std::to_string(c->instructions) + " " + std::to_string(c->cycles) + "\n";
    for (const CallArc* a : g.arcs) {
      if (a->callee_file != g.file) o += "cfi=" + files(a->callee_file) + "\n";
      o += "cfn=" + fns(a->callee_function) + "\n";
      o += "calls=" + std::to_string(a->calls) + " " + std::to_string(a->callee_line) + "\n";
      o += std::to_string(a->caller_line) + " " + std::to_string(a->inclusive_instructions) + " " +
           std::to_string(a->inclusive_cycles) + "\n";
    }
  }
  o += "\ntotals: " + totals + "\n";
  out << o;
}

} // namespace lanaikit::report
