// Outcomes of a sweep's points and the merged CSV and JSON (tools/sweep_merge.h).
#include "tools/sweep_merge.h"

#include "report/csv.h"
#include "report/json.h"

#include <algorithm>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

namespace lanaikit::tools::sweep {

namespace {

// A point value spelled as an RFC 8259 number goes into the JSON as that number.
bool is_json_number(const std::string& s) {
  static const std::regex number(R"(-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?)");
  return std::regex_match(s, number);
}

// The name of a JSON value's type in messages ("an array", "a string", ...).
std::string type_name(const Json& v) {
  if (v.is_boolean()) return "bool";
  if (v.is_number_integer()) return "integer";
  return v.type_name(); // null, number (a double), string, array, object
}

report::CsvCell csv_cell(const Json& v) {
  if (v.is_number_unsigned()) {
    const uint64_t u = v.get<uint64_t>();
    if (u <= uint64_t(INT64_MAX)) return int64_t(u);
    return double(u);
  }
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_number_float()) return v.get<double>();
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return std::string(v.get<bool>() ? "true" : "false");
  return std::monostate{};
}

// A result value into the streaming writer (numbers keep their kind: integers stay
// integers, doubles are written in their shortest round-trip form).
void write_value(report::JsonWriter& w, const Json& v) {
  if (v.is_number_unsigned()) w.value(v.get<uint64_t>());
  else if (v.is_number_integer()) w.value(v.get<int64_t>());
  else if (v.is_number_float()) w.value(v.get<double>());
  else if (v.is_string()) w.value(v.get_ref<const std::string&>());
  else if (v.is_boolean()) w.value(v.get<bool>());
  else w.null();
}

} // namespace

std::string check_result(const Json& v, const Grid& grid) {
  if (!v.is_object()) return std::string("the result is a JSON ") + type_name(v) + ", not an object";
  if (v.empty()) return "the result has no values";
  const std::vector<std::string> names = grid.names();
  for (const auto& [key, value] : v.items()) {
    if (!(value.is_number() || value.is_string() || value.is_boolean())) {
      const std::string type = type_name(value);
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
    Json line = Json::object();
    line["i"] = o.index;
    line["ok"] = o.ok;
    if (o.ok) line["r"] = o.result;
    else line["why"] = o.failure;
    out += line.dump(-1, ' ', false, Json::error_handler_t::replace);
    out += '\n';
  }
  return out;
}

std::vector<Outcome> parse_outcomes(const std::string& text) {
  std::vector<Outcome> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    Outcome o;
    try {
      const Json v = Json::parse(line);
      o.index = v.at("i").get<uint64_t>();
      o.ok = v.at("ok").get<bool>();
      if (o.ok) o.result = v.at("r");
      else o.failure = v.at("why").get<std::string>();
    } catch (const nlohmann::json::exception& e) {
      throw std::runtime_error(std::string("sweep: a malformed outcome line: ") + e.what());
    }
    out.push_back(std::move(o));
  }
  return out;
}

std::vector<std::string> merged_columns(const Grid& grid, const std::vector<Outcome>& outcomes) {
  std::vector<std::string> columns = grid.names();
  std::set<std::string> results;
  for (const Outcome& o : outcomes)
    if (o.ok)
      for (const auto& [key, value] : o.result.items()) results.insert(key);
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
      const auto v = o.result.find(columns[c]);
      row.push_back(v != o.result.end() ? csv_cell(*v) : report::CsvCell{});
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
      if (const auto v = o.result.find(columns[c]); v != o.result.end()) {
        w.key(columns[c]);
        write_value(w, *v);
      }
    w.end_object();
  }
  w.end_array();
  out << '\n';
  return out.str();
}

} // namespace lanaikit::tools::sweep
