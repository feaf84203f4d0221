// lanaikit's command line through CLI11: one CLI::App with a subcommand per command, each
// command file adding its own options (commands.h), so that every command's --help is
// generated from the options it accepts and cannot drift from them.
#pragma once

#include "tools/option_values.h"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace lanaikit::tools {

// What a command file hands main.cpp besides its subcommand.
struct Command {
  Command() = default;
  Command(std::function<int()> run_, std::vector<std::pair<std::string, std::string>> spellings_ = {})
      : run(std::move(run_)), spellings(std::move(spellings_)) {}

  // Runs the command once its options are parsed; returns the exit status. A UsageError it
  // throws (a check that needs several options, or a file) is reported as a usage error.
  std::function<int()> run;
  // Arguments replaced before parsing: spellings CLI11 cannot read (build's -nostdlib, a
  // single-dash long name that CLI11 would read as -n with the value "ostdlib").
  std::vector<std::pair<std::string, std::string>> spellings;
  // False where another process reports the same usage error (sweep under mpirun: rank 0).
  bool report_usage_errors = true;
};

// The top-level application: its help layout (usage line first, lower-case labels), the
// --version flag (`version` prints the text), and every option's default of "the last
// one given wins" for an option that is not a list.
void configure_app(CLI::App& app, std::function<std::string()> version);

// The subcommand `name`: `summary` is its line in `lanaikit --help`; `prose` (what the
// command does and prints) follows the usage line of `lanaikit NAME --help`, before the
// options.
CLI::App* add_command(CLI::App& app, const std::string& name, const std::string& summary,
                      const std::string& prose);

// An option whose value is a count (parse_count: decimal, 0x hex, K/M/G suffixes), handed to
// `take`, which may check it and throw UsageError. `type` is the value's name in the help.
CLI::Option* add_count(CLI::App& cmd, const std::string& name, std::function<void(uint64_t)> take,
                       const std::string& description, const std::string& type = "N");

// The same, stored in `target` (an unsigned integer, a size_t, ...).
template <class T>
CLI::Option* add_count(CLI::App& cmd, const std::string& name, T& target, const std::string& description,
                       const std::string& type = "N") {
  return add_count(cmd, name, [&target](uint64_t v) { target = T(v); }, description, type);
}

// An option that may be given several times (-I DIR -I DIR), one value each time, in order.
CLI::Option* add_repeated(CLI::App& cmd, const std::string& name, std::vector<std::string>& values,
                          const std::string& description, const std::string& type);

// A positional argument, named `name` in the usage line, with no type shown.
template <class T>
CLI::Option* add_positional(CLI::App& cmd, const std::string& name, T& target, const std::string& description) {
  return cmd.add_option(name, target, description)->type_name("");
}

// The message for a CLI11 parse error of `cmd` in lanaikit's words: "unknown option '--x'",
// "option --x needs a value", else CLI11's own.
std::string usage_message(const CLI::ParseError& e, const CLI::App& cmd);

// "lanaikit CMD: message" and a pointer to CMD's --help, on stderr ("lanaikit: ..." when
// `command` is empty); returns the usage status 2.
int report_usage_error(const std::string& command, const std::string& message);

} // namespace lanaikit::tools
