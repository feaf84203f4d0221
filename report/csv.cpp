#include "report/csv.h"

#include <charconv>
#include <ostream>
#include <stdexcept>

namespace lanaikit::report {

namespace {

std::string quote_if_needed(const std::string& s) {
  const bool needs = s.find_first_of(",\"\r\n") != std::string::npos ||
                     (!s.empty() && (s.front() == ' ' || s.back() == ' '));
  if (!needs) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

} // namespace

std::string csv_field(const CsvCell& cell) {
  char buf[64];
  switch (cell.index()) {
  case 0: return {};
  case 1: return quote_if_needed(std::get<std::string>(cell));
  case 2: return std::string(buf, std::to_chars(buf, buf + sizeof buf, std::get<int64_t>(cell)).ptr);
  default: return std::string(buf, std::to_chars(buf, buf + sizeof buf, std::get<double>(cell)).ptr);
  }
}

void write_csv(std::ostream& out, const std::vector<std::string>& columns,
               const std::vector<std::vector<CsvCell>>& rows) {
  if (columns.empty()) throw std::invalid_argument("csv: a table needs at least one column");
  for (size_t r = 0; r < rows.size(); ++r)
    if (rows[r].size() != columns.size())
      throw std::invalid_argument("csv: row " + std::to_string(r + 1) + " has " +
                                  std::to_string(rows[r].size()) + " fields, the header has " +
                                  std::to_string(columns.size()));
  std::string line;
  for (size_t c = 0; c < columns.size(); ++c) {
    if (c) line += ',';
    line += quote_if_needed(columns[c]);
  }
  line += "\r\n";
  out << line;
  for (const auto& row : rows) {
    line.clear();
    for (size_t c = 0; c < row.size(); ++c) {
      if (c) line += ',';
      line += csv_field(row[c]);
    }
    line += "\r\n";
    out << line;
  }
}

std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> rec;
  std::string field;
  size_t i = 0;
  const size_t n = text.size();
  while (i < n) {
    // One field.
    field.clear();
    if (text[i] == '"') {
      const size_t open = i++;
      for (;;) {
        if (i >= n)
          throw std::invalid_argument("csv: unterminated quoted field starting at byte " + std::to_string(open));
        if (text[i] == '"') {
          if (i + 1 < n && text[i + 1] == '"') {
            field += '"';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        field += text[i++];
      }
      if (i < n && text[i] != ',' && text[i] != '\r' && text[i] != '\n')
        throw std::invalid_argument("csv: text after a closing quote at byte " + std::to_string(i));
    } else {
      while (i < n && text[i] != ',' && text[i] != '\r' && text[i] != '\n') {
        if (text[i] == '"') throw std::invalid_argument("csv: quote inside a bare field at byte " + std::to_string(i));
        field += text[i++];
      }
    }
    rec.push_back(field);
    if (i < n && text[i] == ',') {
      ++i;
      if (i == n) rec.emplace_back();
      continue;
    }
    if (i < n && text[i] == '\r') ++i;
    if (i < n && text[i] == '\n') ++i;
    records.push_back(std::move(rec));
    rec.clear();
  }
  if (!rec.empty()) records.push_back(std::move(rec));
  return records;
}

} // namespace lanaikit::report
