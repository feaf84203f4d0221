// The grid of `lanaikit sweep` (docs/sweep.md): named parameters, each with a list of
// values, and the points of their Cartesian product in a fixed order. Pure functions of
// the command line, so every process of a sweep (local or an MPI rank) numbers the points
// the same way.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace lanaikit::tools::sweep {

struct Parameter {
  std::string name;                // what the script receives as --name
  std::vector<std::string> values; // as written on the command line
};

struct Grid {
  std::vector<Parameter> parameters; // in --grid order

  // How many points: the product of the value counts.
  uint64_t size() const;
  // The values of point `index`: one per parameter. The last parameter varies fastest
  // (nested loops in --grid order), so the merged table reads like the command line.
  std::vector<std::string> point(uint64_t index) const;
  // The point's file name stem in the output directory: "name=value,name=value", bytes
  // other than letters, digits and "._+-=" written as %XX (so a value never names a
  // folder); a stem longer than 200 bytes becomes "point-<index>".
  std::string stem(uint64_t index) const;
  std::vector<std::string> names() const;
};

// Parses one --grid argument "name=v1,v2,...". Throws UsageError (tools/option_values.h) for a
// missing '=', a name that is not [A-Za-z_][A-Za-z0-9_]*, an empty value or a repeated
// value.
Parameter parse_parameter(const std::string& text);

// Adds a parameter; a name given twice is a UsageError. Throws too when the grid would
// exceed 1,000,000 points (a typo, not a sweep anyone waits for).
void add_parameter(Grid& grid, Parameter p);

} // namespace lanaikit::tools::sweep
