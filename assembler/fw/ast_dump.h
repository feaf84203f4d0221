// `--emit=ast`: the parsed files as an indented tree, one node per line.
#pragma once

#include <string>

#include "assembler/fw/sema.h"

namespace lanaikit::fw {

std::string dump_ast(const Module& m);

} // namespace lanaikit::fw
