// Outcomes of a sweep's points and the merged CSV and JSON (tools/sweep_merge.h).
#include "tools/sweep_merge.h"

#include "report/csv.h"

#include <algorithm>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

namespace lanaikit::tools::sweep {

namespace {

using report::JsonValue;

// A point value spelled as an RFC 8259 number goes into the JSON as that number.
bool is_json_number(const std::string& s) {
  static const std::regex number(R"(-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?)");
  return std::regex_match(s, number);
}

report::CsvCell csv_cell(const JsonValue& v) {
  switch (v.type()) {
  case JsonValue::Type::Int: return v.as_int();
  case JsonValue::Type::Double: return v.as_double();
  case JsonValue::Type::String: return v.as_string();
  case JsonValue::Type::Bool: return std::string(v.as_bool() ? "true" : "false");
  default: return std::monostate{};
  }
}

} // namespace

std::string check_result(const JsonValue& v, const Grid& grid) {
  if (!v.is_object()) return std::string("the result is a JSON ") + report::json_type_name(v.type()) + ", not an object";
  if (v.size() == 0) return "the result has no values";
  const std::vector<std::string> names = grid.names();
  for (const auto& [key, value] : v.as_object()) {
    if (!(value.is_number() || value.is_string() || value.is_bool())) {
      const std::string type = report::json_type_name(value.type());
      return "the result '" + key + "' is " + (type[0] == 'a' || type[0] == 'o' ? "an " : "a ") + type +
             " (expected a number, a string or a boolean)";
    }
    if (std::find(names.begin(), names.end(), key) != names.end())
      return "the result '" + key + "' has the name of a grid parameter";
  }
  return "";
}

std::string serialize_outcomes(const std::vector<Outcome>& outcomes) {
  std::string out;
  for (const Outcome& o : outcomes) {
    JsonValue line = JsonValue::object();
    line.set("i", JsonValue(o.index));
    line.set("ok", JsonValue(o.ok));
    if (o.ok) line.set("r", o.result);
    else line.set("why", JsonValue(o.failure));
    out += report::to_json(line, false);
    out += '\n';
  }
  return out;
}

std::vector<Outcome> parse_outcomes(const std::string& text) {
  std::vector<Outcome> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const JsonValue v = report::parse_json(line);
    Outcome o;
    o.index = uint64_t(v.at("i").as_int());
    o.ok = v.at("ok").as_bool();
    if (o.ok) o.result = v.at("r");
    else o.failure = v.at("why").as_string();
    out.push_back(std::move(o));
  }
  return out;
}

std::vector<std::string> merged_columns(const Grid& grid, const std::vector<Outcome>& outcomes) {
  std::vector<std::string> columns = grid.names();
  std::set<std::string> results;
  for (const Outcome& o : outcomes)
    if (o.ok)
      for (const auto& [key, value] : o.result.as_object()) results.insert(key);
  columns.insert(columns.end(), results.begin(), results.end());
  return columns;
}

std::string merged_csv(const Grid& grid, const std::vector<Outcome>& outcomes) {
  const std::vector<std::string> columns = merged_columns(grid, outcomes);
  const size_t n_params = grid.parameters.size();
  std::vector<std::vector<report::CsvCell>> rows;
  for (const Outcome& o : outcomes) {
    if (!o.ok) continue;
    std::vector<report::CsvCell> row;
    for (const std::string& v : grid.point(o.index)) row.emplace_back(v);
    for (size_t c = n_params; c < columns.size(); ++c) {
      const JsonValue* v = o.result.find(columns[c]);
      row.push_back(v ? csv_cell(*v) : report::CsvCell{});
    }
    rows.push_back(std::move(row));
  }
  std::ostringstream out;
  report::write_csv(out, columns, rows);
  return out.str();
}

std::string merged_json(const Grid& grid, const std::vector<Outcome>& outcomes) {
  const std::vector<std::string> columns = merged_columns(grid, outcomes);
  const size_t n_params = grid.parameters.size();
  std::ostringstream out;
  report::JsonWriter w(out, 2);
  w.begin_array();
  for (const Outcome& o : outcomes) {
    if (!o.ok) continue;
    w.begin_object();
    const std::vector<std::string> values = grid.point(o.index);
    for (size_t k = 0; k < n_params; ++k) {
      w.key(columns[k]);
      if (is_json_number(values[k])) w.raw_value(values[k]);
      else w.value(values[k]);
    }
    for (size_t c = n_params; c < columns.size(); ++c)
      if (const JsonValue* v = o.result.find(columns[c])) {
        w.key(columns[c]);
        report::write_json(w, *v);
      }
    w.end_object();
  }
  w.end_array();
  out << '\n';
  return out.str();
}

} // namespace lanaikit::tools::sweep
