#include "assembler/asm_limits.h"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace lanaikit::assembler {

namespace {

namespace fs = std::filesystem;

using Wide = __int128;
// Sizes are clamped here while evaluating, so arithmetic on huge literals cannot overflow.
constexpr Wide kHuge = Wide(1) << 100;

Wide clamp(Wide v) {
  return v > kHuge ? kHuge : v < -kHuge ? -kHuge : v;
}

Wide mul(Wide a, Wide b) {
  if (a == 0 || b == 0) return 0;
  const Wide ma = a < 0 ? -a : a, mb = b < 0 ? -b : b;
  if (ma > kHuge / mb) return (a < 0) == (b < 0) ? kHuge : -kHuge;
  return a * b;
}

// An integer expression of literals (the forms MC reads: 42, 0x2a, 0b101010, 052, 'c'
// not included) with + - * / % << >> & | ^ ~ and parentheses; nullopt when it names a
// symbol or is anything else.
class Expr {
public:
  explicit Expr(std::string_view s) : s_(s) {}
  std::optional<Wide> value() {
    auto v = binary(0);
    skip_space();
    if (!v || pos_ != s_.size()) return std::nullopt;
    return v;
  }

private:
  void skip_space() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_])))
      ++pos_;
  }
  // Binary operators by precedence (low to high), as in GNU as.
  static int precedence(std::string_view op) {
    if (op == "|") return 1;
    if (op == "^") return 2;
    if (op == "&") return 3;
    if (op == "<<" || op == ">>") return 4;
    if (op == "+" || op == "-") return 5;
    if (op == "*" || op == "/" || op == "%") return 6;
    return 0;
  }
  std::string_view peek_op() {
    skip_space();
    if (pos_ >= s_.size()) return {};
    if (s_.compare(pos_, 2, "<<") == 0 || s_.compare(pos_, 2, ">>") == 0) return s_.substr(pos_, 2);
    if (std::string_view("|^&+-*/%").find(s_[pos_]) != std::string_view::npos)
      return s_.substr(pos_, 1);
    return {};
  }
  std::optional<Wide> binary(int min_prec) {
    auto lhs = unary();
    while (lhs) {
      const std::string_view op = peek_op();
      const int p = precedence(op);
      if (p == 0 || p <= min_prec) break;
      pos_ += op.size();
      auto rhs = binary(p);
      if (!rhs) return std::nullopt;
      const Wide a = *lhs, b = *rhs;
      if (op == "+")
        lhs = clamp(a + b);
      else if (op == "-")
        lhs = clamp(a - b);
      else if (op == "*")
        lhs = mul(a, b);
      else if (op == "/" || op == "%") {
        if (b == 0) return std::nullopt;
        lhs = op == "/" ? a / b : a % b;
      } else if (op == "<<")
        lhs = b < 0 || b >= 64 ? (a == 0 ? 0 : kHuge) : mul(a, Wide(1) << int(b));
      else if (op == ">>")
        lhs = b < 0 || b >= 100 ? 0 : a >> int(b);
      else if (op == "&")
        lhs = a & b;
      else if (op == "|")
        lhs = a | b;
      else
        lhs = a ^ b;
    }
    return lhs;
  }
  std::optional<Wide> unary() {
    skip_space();
    if (pos_ >= s_.size()) return std::nullopt;
    const char c = s_[pos_];
    if (c == '-' || c == '+' || c == '~') {
      ++pos_;
      auto v = unary();
      if (!v) return std::nullopt;
      return c == '-' ? -*v : c == '~' ? ~*v : *v;
    }
    if (c == '(') {
      ++pos_;
      auto v = binary(0);
      skip_space();
      if (!v || pos_ >= s_.size() || s_[pos_] != ')') return std::nullopt;
      ++pos_;
      return v;
    }
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    int base = 10;
    if (c == '0' && pos_ + 1 < s_.size() && (s_[pos_ + 1] == 'x' || s_[pos_ + 1] == 'X'))
      base = 16, pos_ += 2;
    else if (c == '0' && pos_ + 1 < s_.size() && (s_[pos_ + 1] == 'b' || s_[pos_ + 1] == 'B'))
      base = 2, pos_ += 2;
    else if (c == '0')
      base = 8;
    Wide v = 0;
    size_t digits = 0;
    for (; pos_ < s_.size(); ++pos_, ++digits) {
      const char d = char(std::tolower(static_cast<unsigned char>(s_[pos_])));
      int x = std::isdigit(static_cast<unsigned char>(d)) ? d - '0'
              : (d >= 'a' && d <= 'f')                    ? d - 'a' + 10
                                                          : 99;
      if (x >= base) break;
      v = clamp(mul(v, base) + x);
    }
    if (digits == 0 && base != 8) return std::nullopt;
    if (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_'))
      return std::nullopt; // 1f, 2b (local labels) or a suffix: not a plain literal
    return v;
  }

  std::string_view s_;
  size_t pos_ = 0;
};

std::optional<Wide> eval(std::string_view s) {
  return Expr(s).value();
}

// A string literal argument ("path"), unescaped; nullopt if the argument is not one.
std::optional<std::string> string_literal(std::string_view s) {
  size_t b = s.find_first_not_of(" \t");
  size_t e = s.find_last_not_of(" \t");
  if (b == std::string_view::npos || s[b] != '"' || e <= b || s[e] != '"') return std::nullopt;
  std::string out;
  for (size_t i = b + 1; i < e; ++i) {
    if (s[i] == '\\' && i + 1 < e) ++i;
    out.push_back(s[i]);
  }
  return out;
}

// Top-level comma-separated arguments (commas inside strings and parentheses do not split).
std::vector<std::string_view> split_args(std::string_view s) {
  std::vector<std::string_view> out;
  size_t start = 0;
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"')
      in_string = true;
    else if (c == '(')
      ++depth;
    else if (c == ')')
      --depth;
    else if (c == ',' && depth == 0) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  if (start < s.size() && s.find_first_not_of(" \t", start) != std::string_view::npos)
    out.push_back(s.substr(start));
  return out;
}

std::string bytes_text(Wide v) {
  if (v >= kHuge) return "more than 2^64";
  std::string s;
  using UWide = unsigned __int128;
  UWide u = UWide(v);
  do {
    s.insert(s.begin(), char('0' + int(u % 10)));
    u /= 10;
  } while (u);
  return s;
}

struct Statement {
  size_t offset;         // of the directive (or the statement) in the text
  std::string directive; // lower case, with the dot; empty for anything else
  std::string_view args;
};

// Splits assembly text into statements as MC's lexer does for Lanai: `!`, `//` and a `#`
// starting a line begin comments, `/* */` blocks are skipped, `;` and newlines separate
// statements, and labels (`name:`) in front of a statement are skipped.
std::vector<Statement> statements(std::string_view text) {
  std::vector<Statement> out;
  auto finish = [&](size_t b, size_t e) {
    while (b < e && std::isspace(static_cast<unsigned char>(text[b])))
      ++b;
    // Labels.
    for (;;) {
      size_t i = b;
      while (i < e && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_' ||
                       text[i] == '.' || text[i] == '$'))
        ++i;
      size_t j = i;
      while (j < e && (text[j] == ' ' || text[j] == '\t'))
        ++j;
      if (i > b && j < e && text[j] == ':') {
        b = j + 1;
        while (b < e && std::isspace(static_cast<unsigned char>(text[b])))
          ++b;
      } else
        break;
    }
    if (b >= e) return;
    Statement st{b, "", {}};
    if (text[b] == '.') {
      size_t i = b + 1;
      while (i < e && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_'))
        ++i;
      for (size_t k = b; k < i; ++k)
        st.directive.push_back(char(std::tolower(static_cast<unsigned char>(text[k]))));
      st.args = text.substr(i, e - i);
    }
    out.push_back(std::move(st));
  };
  size_t start = 0;
  bool line_start = true;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"' && text[i] != '\n'; ++i)
        if (text[i] == '\\') ++i;
      line_start = false;
      continue;
    }
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      const size_t end = text.find("*/", i + 2);
      i = end == std::string_view::npos ? text.size() : end + 1;
      continue;
    }
    const bool comment = c == '!' || (c == '/' && i + 1 < text.size() && text[i + 1] == '/') ||
                         (c == '#' && line_start);
    if (comment || c == '\n' || c == ';') {
      finish(start, i);
      if (comment)
        while (i < text.size() && text[i] != '\n')
          ++i;
      start = i + 1;
      line_start = true;
      continue;
    }
    if (!std::isspace(static_cast<unsigned char>(c))) line_start = false;
  }
  finish(start, text.size());
  return out;
}

class Scanner {
public:
  struct Problem {
    std::string rendered; // file:line:col: error: message, the line and a caret
    size_t root_offset;   // in the root text (of the .include that led there)
    std::string message;  // without location in the root text, with it in an included file
  };
  // `literal_sizes`: the text is an asm statement of the firmware language, which LLVM's
  // backend hands to MC without lanaikit's guarded parser (assembler/mc_guard.h), so nothing
  // could stop a size or a count this scan cannot evaluate: there, sizes and counts must be
  // integer literals and macros are refused.
  Scanner(uint64_t sram_bytes, std::vector<Problem>& errors, bool literal_sizes = false)
      : sram_(Wide(sram_bytes)), errors_(errors), literal_sizes_(literal_sizes) {}

  // The file being assembled is the first of the include chain (`name` may be a file).
  void scan_root(std::string_view text, const std::string& name) {
    std::error_code ec;
    const fs::path canon = fs::weakly_canonical(name, ec);
    chain_.push_back(ec ? name : canon.string());
    chain_names_.push_back(name);
    scan(text, name);
  }

  void scan(std::string_view text, const std::string& name) {
    struct Block {
      size_t offset;
      Wide count;
      Wide body = 0;
      bool macro;
      std::string directive; // .rept, .irp, .irpc or .macro
    };
    std::vector<Block> blocks;
    Wide total = 0;
    auto add = [&](Wide n) {
      if (blocks.empty())
        total = clamp(total + n);
      else
        blocks.back().body = clamp(blocks.back().body + n);
    };
    for (const Statement& st : statements(text)) {
      const std::string& d = st.directive;
      auto fail = [&](const std::string& msg) { error(text, name, st.offset, msg); };
      const std::vector<std::string_view> args = split_args(st.args);
      auto arg = [&](size_t i) { return i < args.size() ? eval(args[i]) : std::nullopt; };
      auto too_big = [&](Wide bytes, const std::string& what) {
        if (bytes > sram_)
          fail("'" + d + "' " + what + " " + bytes_text(bytes) + " bytes, more than the " +
               bytes_text(sram_) + "-byte SRAM holds");
      };
      // In an asm statement, a size or count that is not made of literals.
      auto needs_literal = [&](size_t i) {
        if (!literal_sizes_ || i >= args.size() || arg(i)) return false;
        std::string_view a = args[i];
        while (!a.empty() && (a.front() == ' ' || a.front() == '\t')) a.remove_prefix(1);
        while (!a.empty() && (a.back() == ' ' || a.back() == '\t')) a.remove_suffix(1);
        fail("'" + d + "' in an asm statement needs " + (d == ".rept" ? "a count" : "a size") +
             " of integer literals, not '" + std::string(a) +
             "' (symbols are not evaluated here; a .s file may use them)");
        return true;
      };
      if (d == ".macro" && literal_sizes_) {
        fail("'.macro' is not supported in an asm statement (expansions could not be bounded; "
             "define macros in a .s file)");
        continue;
      }
      if (d == ".rept" || d == ".irp" || d == ".irpc" || d == ".macro") {
        Wide count = 1;
        if (d == ".rept" && needs_literal(0)) count = 0;
        else if (d == ".rept")
          if (auto n = arg(0)) count = *n < 0 ? 0 : *n;
        // `.irp sym, a, b, c` expands once per value, `.irpc sym, abc` once per character:
        // nested ones multiply like `.rept`.
        if (d == ".irp" && args.size() > 1) count = Wide(args.size() - 1);
        if (d == ".irpc" && args.size() > 1) count = Wide(std::max<size_t>(args[1].size(), 1));
        blocks.push_back({st.offset, count, 0, d == ".macro", d});
        continue;
      }
      if ((d == ".endr" || d == ".endm" || d == ".endmacro") && !blocks.empty()) {
        const Block b = blocks.back();
        blocks.pop_back();
        const Wide expanded = mul(b.count, b.body > 0 ? b.body : 1);
        if (expanded > Wide(kMaxExpandedStatements)) {
          error(text, name, b.offset,
                "'" + b.directive + "' expands to " + bytes_text(expanded) + " statements, more than " +
                    bytes_text(Wide(kMaxExpandedStatements)) + " (the limit of one assembly)");
          add(1);
        } else {
          add(expanded);
          if (blocks.empty() && total > Wide(kMaxExpandedStatements)) {
            error(text, name, b.offset,
                  "'" + b.directive + "' blocks expand to more than " + bytes_text(Wide(kMaxExpandedStatements)) +
                      " statements in all");
            total = 0;
          }
        }
        continue;
      }
      add(1);
      if (d == ".include" || d == ".incbin") {
        const std::optional<std::string> path =
            args.empty() ? std::nullopt : string_literal(args[0]);
        if (!path) {
          fail("'" + d +
               "' needs a file name in quotes (lanaikit checks what it reads before assembling)");
          continue;
        }
        std::error_code ec;
        const fs::file_status status = fs::status(*path, ec);
        if (ec || !fs::exists(status)) continue; // MC reports a missing file itself
        if (!fs::is_regular_file(status)) {
          fail("'" + d + "' of '" + *path +
               "': not a regular file (a device or pipe may never end)");
          continue;
        }
        if (d == ".incbin") {
          Wide bytes = Wide(fs::file_size(*path, ec));
          if (auto skip = arg(1)) bytes = *skip >= bytes ? 0 : bytes - (*skip < 0 ? 0 : *skip);
          if (auto count = arg(2); count && *count >= 0 && *count < bytes) bytes = *count;
          too_big(bytes, "of '" + *path + "' includes");
          continue;
        }
        include(text, name, st.offset, *path);
        continue;
      }
      if ((d == ".fill" && (needs_literal(0) || needs_literal(1))) ||
          ((d == ".space" || d == ".skip" || d == ".zero" || d == ".org" || d == ".align" ||
            d == ".balign" || d == ".balignw" || d == ".balignl" || d == ".p2align" ||
            d == ".p2alignw" || d == ".p2alignl") &&
           needs_literal(0)))
        continue;
      if (d == ".fill") {
        if (auto count = arg(0)) {
          Wide size = 1;
          if (args.size() > 1) {
            auto s = arg(1);
            if (!s) continue;
            size = *s > 8 ? 8 : *s; // MC truncates larger sizes to 8
          }
          if (*count > 0 && size > 0) too_big(mul(*count, size), "fills");
        }
      } else if (d == ".space" || d == ".skip" || d == ".zero") {
        if (auto n = arg(0)) too_big(*n, "reserves");
      } else if (d == ".org") {
        if (auto n = arg(0)) too_big(*n, "moves to offset");
      } else if (d == ".align" || d == ".balign" || d == ".balignw" || d == ".balignl") {
        if (auto n = arg(0)) too_big(*n, "aligns to");
      } else if (d == ".p2align" || d == ".p2alignw" || d == ".p2alignl") {
        if (auto n = arg(0); n && *n >= 0)
          too_big(*n >= 64 ? kHuge : Wide(1) << int(*n), "aligns to");
      }
    }
  }

private:
  void include(std::string_view text, const std::string& name, size_t offset,
               const std::string& path) {
    std::error_code ec;
    fs::path canon = fs::weakly_canonical(path, ec);
    const std::string key = ec ? path : canon.string();
    for (size_t i = 0; i < chain_.size(); ++i)
      if (chain_[i] == key) {
        std::string cycle;
        for (size_t j = i; j < chain_.size(); ++j)
          cycle += chain_names_[j] + " includes ";
        error(text, name, offset, "'.include' of '" + path + "' is a cycle (" + cycle + path + ")");
        return;
      }
    if (int(chain_.size()) >= kMaxIncludeDepth) {
      error(text, name, offset,
            "'.include' of '" + path + "' nests deeper than " + std::to_string(kMaxIncludeDepth) +
                " files");
      return;
    }
    std::ifstream in(path, std::ios::binary);
    std::stringstream buf;
    buf << in.rdbuf();
    const std::string contents = buf.str();
    chain_.push_back(key);
    chain_names_.push_back(path);
    if (include_offsets_.empty()) root_include_ = offset;
    include_offsets_.push_back(offset);
    scan(contents, path);
    include_offsets_.pop_back();
    chain_.pop_back();
    chain_names_.pop_back();
  }

  // "file:line:col: error: msg", the line and a caret, as MC's SourceMgr prints them.
  void error(std::string_view text, const std::string& name, size_t offset,
             const std::string& msg) {
    const size_t line_begin = text.rfind('\n', offset == 0 ? 0 : offset - 1);
    const size_t b = line_begin == std::string_view::npos || offset == 0 ? 0 : line_begin + 1;
    size_t e = text.find('\n', offset);
    if (e == std::string_view::npos) e = text.size();
    size_t line = 1;
    for (size_t i = 0; i < b; ++i)
      line += text[i] == '\n';
    std::string caret(offset - b, ' ');
    for (size_t i = b; i < offset; ++i)
      if (text[i] == '\t') caret[i - b] = '\t';
    const std::string where =
        name + ":" + std::to_string(line) + ":" + std::to_string(offset - b + 1);
    const bool root = include_offsets_.empty();
    errors_.push_back(
        {where + ": error: " + msg + "\n" + std::string(text.substr(b, e - b)) + "\n" + caret + "^",
         root ? offset : root_include_, root ? msg : where + ": " + msg});
  }

  Wide sram_;
  std::vector<Problem>& errors_;
  bool literal_sizes_ = false;
  std::vector<size_t> include_offsets_;  // of the .include directives being followed
  size_t root_include_ = 0;              // the outermost one's, in the root text
  std::vector<std::string> chain_;       // canonical paths of the files being scanned
  std::vector<std::string> chain_names_; // as written
};

} // namespace

llvm::Error check_asm_limits(std::string_view source, std::string_view name, uint64_t sram_bytes) {
  std::vector<Scanner::Problem> errors;
  Scanner scanner(sram_bytes, errors);
  scanner.scan_root(source, std::string(name));
  if (errors.empty()) return llvm::Error::success();
  std::string all;
  for (const Scanner::Problem& e : errors)
    all += (all.empty() ? "" : "\n") + e.rendered;
  return llvm::make_error<llvm::StringError>(all, llvm::inconvertibleErrorCode());
}

std::vector<AsmLimitProblem> asm_limit_problems(std::string_view source, uint64_t sram_bytes) {
  std::vector<Scanner::Problem> errors;
  Scanner scanner(sram_bytes, errors, /*literal_sizes=*/true);
  scanner.scan(source, "asm");
  std::vector<AsmLimitProblem> out;
  for (Scanner::Problem& e : errors)
    out.push_back({e.root_offset, std::move(e.message)});
  return out;
}

} // namespace lanaikit::assembler
