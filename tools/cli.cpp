// lanaikit's CLI11 conventions (tools/cli.h).
#include "tools/cli.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <regex>

namespace lanaikit::tools {

namespace {

// A command's help reads like a man page's synopsis: the usage line, what the command does,
// then its arguments and options. The top level keeps CLI11's order (description, usage,
// options, commands, then the footer pointing at each command's --help).
class Help : public CLI::Formatter {
public:
  Help() {
    label("Usage", "usage");
    label("Positionals", "arguments");
    label("SUBCOMMAND", "COMMAND");
    column_width(28);
  }

  std::string make_help(const CLI::App* app, std::string name, CLI::AppFormatMode mode) const override {
    if (mode == CLI::AppFormatMode::Sub || app->get_parent() == nullptr) return Formatter::make_help(app, name, mode);
    std::string out = make_usage(app, name) + "\n";
    if (!app->get_footer().empty()) out += app->get_footer() + "\n";
    out += make_positionals(app) + make_groups(app, mode);
    // CLI11 puts two blank lines between option groups (sweep's); one is enough.
    for (size_t at; (at = out.find("\n\n\n")) != std::string::npos;) out.erase(at, 1);
    return out;
  }

  // The footer of a command is its prose, printed above the options by make_help.
  std::string make_footer(const CLI::App* app) const override {
    return app->get_parent() == nullptr ? Formatter::make_footer(app) : std::string();
  }
};

} // namespace

void configure_app(CLI::App& app, std::function<std::string()> version) {
  app.formatter(std::make_shared<Help>());
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)->group("options");
  app.set_help_flag("-h,--help", "print this help and exit");
  app.set_version_flag("--version", std::move(version), "print the version and where lanaikit finds its files");
  app.require_subcommand(1);
}

CLI::App* add_command(CLI::App& app, const std::string& name, const std::string& summary, const std::string& prose) {
  CLI::App* cmd = app.add_subcommand(name, summary);
  cmd->footer(prose);
  cmd->group("commands");
  cmd->set_help_flag("-h,--help", "print this help and exit"); // in the group "options" too
  return cmd;
}

CLI::Option* add_count(CLI::App& cmd, const std::string& name, std::function<void(uint64_t)> take,
                       const std::string& description, const std::string& type) {
  // The option's first spelling names it in errors: "--sram-size", "-j".
  const std::string flag = name.substr(0, name.find(','));
  CLI::Option* opt = cmd.add_option_function<std::string>(
      name, [flag, take = std::move(take)](const std::string& text) { take(parse_count(flag, text)); }, description);
  return opt->type_name(type);
}

CLI::Option* add_repeated(CLI::App& cmd, const std::string& name, std::vector<std::string>& values,
                          const std::string& description, const std::string& type) {
  return cmd.add_option(name, values, description)
      ->allow_extra_args(false) // one value per occurrence: `-I DIR a.fw` keeps a.fw an input
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->option_text(type + " (repeatable)");
}

std::string usage_message(const CLI::ParseError& e, const CLI::App& cmd) {
  // An unknown option first, even when CLI11 stopped at a missing argument it may explain.
  const std::vector<std::string> extras = cmd.remaining();
  for (const std::string& x : extras)
    if (x.size() > 1 && x[0] == '-') return "unknown option '" + x + "'";
  if (dynamic_cast<const CLI::ExtrasError*>(&e) && !extras.empty())
    return "unexpected argument '" + extras.front() + "'";
  static const std::regex missing(R"(^(\S+): \d+ required .* missing$)");
  std::smatch m;
  const std::string what = e.what();
  if (std::regex_match(what, m, missing)) {
    // Every spelling of the option ("-j/--jobs"): CLI11 names it by its longest.
    std::string name = m[1].str();
    if (const CLI::Option* opt = cmd.get_option_no_throw(name)) name = opt->get_name(false, true);
    std::replace(name.begin(), name.end(), ',', '/');
    return "option " + name + " needs a value";
  }
  return what;
}

int report_usage_error(const std::string& command, const std::string& message) {
  if (command.empty())
    std::fprintf(stderr, "lanaikit: %s\n(see 'lanaikit --help')\n", message.c_str());
  else
    std::fprintf(stderr, "lanaikit %s: %s\n(see 'lanaikit %s --help')\n", command.c_str(), message.c_str(),
                 command.c_str());
  return 2;
}

} // namespace lanaikit::tools
