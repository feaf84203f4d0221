// What one point of a sweep produced, how outcomes travel between MPI ranks, and the
// merged table (docs/sweep.md). The merged files are a pure function of the grid and the
// outcomes in point order, so a sweep under mpirun writes the same bytes as `-j N`.
#pragma once

#include "tools/sweep_grid.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace lanaikit::tools::sweep {

// A point's result as read from its file (nlohmann-json; members kept in file order).
using Json = nlohmann::ordered_json;

struct Outcome {
  uint64_t index = 0;
  bool ok = false;
  Json result;              // ok: an object of named numbers, strings and booleans
  std::string failure;      // !ok: why, for the list at the end
};

// Checks a point's result file (what lua-scripts/lib/sweep.lua writes): a JSON object
// with at least one member, every value a number, string or boolean, no name equal to a
// grid parameter's. Returns "" if it is fine, else what is wrong.
std::string check_result(const Json& v, const Grid& grid);

// One line of JSON per outcome ({"i":..,"ok":true,"r":{..}} or {"i":..,"ok":false,
// "why":".."}) and back; parse_outcomes throws std::runtime_error on anything else.
std::string serialize_outcomes(const std::vector<Outcome>& outcomes);
std::vector<Outcome> parse_outcomes(const std::string& text);

// The merged table of the successful points, in point order: the grid's parameters, then
// every result name that any point has, sorted. CSV (report/csv.h): point values as
// written on the command line, an empty cell where a point lacks a result. JSON: an array
// of one object per point, keys in column order, a point value as a number when it is
// spelled as a JSON number, else as a string; a missing result is left out.
std::vector<std::string> merged_columns(const Grid& grid, const std::vector<Outcome>& outcomes);
std::string merged_csv(const Grid& grid, const std::vector<Outcome>& outcomes);
std::string merged_json(const Grid& grid, const std::vector<Outcome>& outcomes);

} // namespace lanaikit::tools::sweep
