// lanaikit echo: the built-in two-node experiment (sim/echo_experiment.h) on a platform.
#include "tools/commands.h"
#include "tools/echo_options.h"

#include "assembler/build.h"
#include "assembler/locations.h"
#include "sim/echo_experiment.h"
#include "sim/platform.h"

#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

namespace lanaikit::tools {

namespace {

struct Options {
  sim::EchoConfig config;
  std::string platform = "vmmc";
  std::string firmware; // "": the echo firmware of lanaikit's data directory
  std::string profile_out, trace_path, pcap_path, csv_path, svg_path;
};

int echo(Options& o) {
  check_echo_options(o.config);
  sim::EchoConfig& config = o.config;
  const std::string& profile_out = o.profile_out;
  try {
    const sim::Platform plat = echo_platform(o.platform);
    assembler::BuildOptions bo = echo_setup(config, plat);
    bo.debug = config.profile; // line tables for the per-line profile
    const std::string firmware =
        o.firmware.empty() ? assembler::locations().data_dir + "/firmware/echo/echo.c" : o.firmware;
    auto image = assembler::build({firmware}, bo);
    if (!image) {
      std::fprintf(stderr, "lanaikit echo: %s\n", llvm::toString(image.takeError()).c_str());
      return 1;
    }
    auto open = [](const std::string& path) {
      auto f = std::make_unique<std::ofstream>(path, std::ios::binary);
      if (!*f) throw std::runtime_error("cannot write " + path);
      return f;
    };
    std::unique_ptr<std::ofstream> trace_file, pcap_file;
    std::vector<std::unique_ptr<std::ofstream>> callgrind_files;
    if (!o.trace_path.empty()) config.trace = (trace_file = open(o.trace_path)).get();
    if (!o.pcap_path.empty()) config.pcap = (pcap_file = open(o.pcap_path)).get();
    if (!profile_out.empty())
      for (int i = 0; i < 2; ++i) {
        callgrind_files.push_back(open(profile_out + ".node" + std::to_string(i) + ".callgrind"));
        config.callgrind.push_back(callgrind_files.back().get());
      }
    const sim::EchoResult r = sim::run_echo(config, *image);
    std::printf("platform %s: %s\n", plat.name.c_str(), plat.description.c_str());
    if (!plat.defaulted.empty()) {
      std::printf("lanaikit defaults (not from the paper):");
      for (const auto& d : plat.defaulted) std::printf(" %s", d.c_str());
      std::printf("\n");
    }
    std::printf("\n%s", sim::format_echo(config, r).c_str());
    if (!o.csv_path.empty()) sim::write_echo_csv(*open(o.csv_path), r);
    if (!o.svg_path.empty()) *open(o.svg_path) << sim::echo_latency_svg(r, "echo one-way latency, " + plat.name);
    for (size_t i = 0; i < r.profiles.size(); ++i) {
      if (profile_out.empty()) {
        std::printf("\n%s", r.profiles[i].c_str());
        continue;
      }
      const std::string path = profile_out + ".node" + std::to_string(i) + ".txt";
      std::FILE* f = std::fopen(path.c_str(), "w");
      if (!f) throw std::runtime_error("cannot write " + path);
      std::fputs(r.profiles[i].c_str(), f);
      std::fclose(f);
      std::printf("profile of node %zu written to %s and %s.node%zu.callgrind\n", i, path.c_str(),
                  profile_out.c_str(), i);
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lanaikit echo: %s\n", e.what());
    return 1;
  }
}

} // namespace

Command add_echo(CLI::App& app) {
  CLI::App* cmd = add_command(
      app, "echo", "run the two-node echo experiment on a simulated cluster",
      "Two nodes through one switch: a host process on node 0 writes a message into its NIC by\n"
      "PIO and rings the doorbell; the echo firmware (firmware/echo/) sends it; node 1's\n"
      "firmware DMAs it into host memory; node 1's process sends it back. Prints the one-way\n"
      "latency per size, the firmware's instructions per packet, where the time of one\n"
      "message went (host, PCI, CPU, wire, switch, DMA), and the simulation's speed.");
  auto o = std::make_shared<Options>();
  add_echo_options(*cmd, o->config, o->platform, "4,16,64,256,1024,4096");
  cmd->add_option("--firmware", o->firmware, "the control program (default firmware/echo/echo.c)")
      ->type_name("FILE.c|.s|.fw");
  add_count(*cmd, "--max-batch", o->config.max_batch,
            "at most N instructions per CPU batch (1 = the reference schedule)");
  add_count(
      *cmd, "--time-limit-ms", [o](uint64_t ms) { o->config.time_limit = sim::Time(ms) * sim::kMillisecond; },
      "stop (with every chip's state) after N simulated ms (default 1000)");
  cmd->add_flag("--profile", o->config.profile,
                "profile the firmware: per-handler calls (--handlers), per-function and\n"
                "per-line counts (the firmware is built with -g); slower, same results");
  cmd->add_option_function<std::string>(
         "--profile-out",
         [o](const std::string& path) {
           o->profile_out = path;
           o->config.profile = true;
         },
         "write node i's profile to P.node<i>.txt and P.node<i>.callgrind\n"
         "(callgrind_annotate, KCachegrind) instead of printing it; implies --profile")
      ->type_name("P");
  cmd->add_option("--trace", o->trace_path, "a Chrome trace-event timeline (Perfetto): handlers, DMA, packets")
      ->type_name("FILE");
  cmd->add_option("--pcap", o->pcap_path, "a pcapng capture of every link (Wireshark; docs/report.md)")
      ->type_name("FILE");
  cmd->add_option("--csv", o->csv_path, "the per-size results as CSV")->type_name("FILE");
  cmd->add_option("--svg", o->svg_path, "the latency curve as an SVG plot")->type_name("FILE");
  return {[o] { return echo(*o); }};
}

} // namespace lanaikit::tools
