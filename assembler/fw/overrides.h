// Build-time overrides of `option const` declarations (`lanaikit build -D NAME=VALUE`,
// docs/language.md, "Build options"): a packet size or queue depth becomes a build option
// without editing the source. The new value replaces the declaration's expression before
// sema, so array sizes and other constants computed from it see it too.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "assembler/fw/ast.h"
#include "assembler/fw/diagnostics.h"
#include "assembler/fw/sema.h"

namespace lanaikit::fw {

// An integer as -D spells it: an optional '-', then decimal, 0x hex or 0b binary digits
// ('_' separators allowed, as in the language). nullopt if it is not one or needs more
// than 64 bits of magnitude.
std::optional<Int> parse_override_value(std::string_view text);

// Sets every top-level constant named in `overrides` (name -> value text) in the loaded
// files of `m`. A constant that is not `option const`, a value that is not an integer and
// one that does not fit the constant's type are errors at the declaration. Names that no
// constant of the module has are left for the caller (another module may have them).
// Returns false if it reported an error.
bool apply_overrides(Module& m, const std::map<std::string, std::string>& overrides,
                     Diagnostics& diag);

} // namespace lanaikit::fw
