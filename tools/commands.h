// The subcommands of `lanaikit`. Each adds its subcommand, with its options and help, to the
// application (tools/cli.h) and returns how to run it once the command line is parsed.
#pragma once

#include "tools/cli.h"

namespace lanaikit::tools {

Command add_build(CLI::App& app);
Command add_exec(CLI::App& app);
Command add_disasm(CLI::App& app);
Command add_debug(CLI::App& app);
Command add_echo(CLI::App& app);
Command add_run(CLI::App& app);
Command add_sweep(CLI::App& app);
Command add_dissector(CLI::App& app);
Command add_compare(CLI::App& app);

} // namespace lanaikit::tools
