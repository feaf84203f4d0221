// CSV tables (RFC 4180): a header row of column names, then one record per row, CRLF
// line ends. A field is quoted (with "" for a quote inside) exactly when it contains a
// comma, a quote, CR or LF, or begins or ends with a space; everything else is written
// bare. Numbers are deterministic: integers in decimal, doubles in their shortest
// round-trip form (std::to_chars: 0.1 -> "0.1", 1e21 -> "1e+21", 2.0 -> "2"), NaN and the
// infinities as "nan", "inf", "-inf" (what Python's float() and pandas read).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <variant>
#include <vector>

namespace lanaikit::report {

// One field: empty, text, an integer or a double.
using CsvCell = std::variant<std::monostate, std::string, int64_t, double>;

// Throws std::invalid_argument if a row's length differs from the header's (naming the
// row) or if there are no columns.
void write_csv(std::ostream& out, const std::vector<std::string>& columns,
               const std::vector<std::vector<CsvCell>>& rows);

// The text of one field as write_csv writes it (quoted if needed).
std::string csv_field(const CsvCell& cell);

// Reads back what write_csv writes (RFC 4180 records, CRLF or LF line ends, quoted fields
// with "" escapes); every field as text. For tests. Throws std::invalid_argument on an
// unterminated quote or a quote in the middle of a bare field.
std::vector<std::vector<std::string>> parse_csv(const std::string& text);

} // namespace lanaikit::report
