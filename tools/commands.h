// The subcommands of `lanaikit`. Each returns the process exit status.
#pragma once

namespace lanaikit::tools {

int cmd_build(int argc, char** argv);
int cmd_exec(int argc, char** argv);
int cmd_disasm(int argc, char** argv);
int cmd_echo(int argc, char** argv);
int cmd_debug(int argc, char** argv);
int cmd_run(int argc, char** argv);
int cmd_dissector(int argc, char** argv);
int cmd_compare(int argc, char** argv);
int cmd_sweep(int argc, char** argv);

} // namespace lanaikit::tools
