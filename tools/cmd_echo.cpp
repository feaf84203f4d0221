// lanaikit echo: the built-in two-node experiment (sim/echo_experiment.h) on a platform.
#include "tools/args.h"
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

const char* const kHelp =
    "usage: lanaikit echo [--platform NAME|FILE] [--sizes N,N,...] [--iterations N]\n"
    "                     [--warmup N] [--firmware FILE.c|.s|.fw] [--max-batch N]\n"
    "\n"
    "Two nodes through one switch: a host process on node 0 writes a message into its NIC by\n"
    "PIO and rings the doorbell; the echo firmware (firmware/echo/) sends it; node 1's\n"
    "firmware DMAs it into host memory; node 1's process sends it back. Prints the one-way\n"
    "latency per size, the firmware's instructions per packet, where the time of one\n"
    "message went (host, PCI, CPU, wire, switch, DMA), and the simulation's speed.\n"
    "\n"
    "options:\n"
    "  --platform P     a platform file, or a name in lua-scripts/platforms (default vmmc)\n"
    "  --sizes LIST     message sizes in bytes (default 4,16,64,256,1024,4096)\n"
    "  --iterations N   measured round trips per size (default 10)\n"
    "  --warmup N       unmeasured round trips first (default 2)\n"
    "  --firmware F     the control program (default firmware/echo/echo.c)\n"
    "  --max-batch N    at most N instructions per CPU batch (1 = the reference schedule)\n"
    "  --time-limit-ms N  stop (with every chip's state) after N simulated ms (default 1000)\n"
    "  --profile        profile the firmware: per-handler calls (--handlers), per-function and\n"
    "                   per-line counts (the firmware is built with -g); slower, same results\n"
    "  --handlers A,B   symbols profiled as handlers (default send_message,deliver)\n"
    "  --profile-out P  write node i's profile to P.node<i>.txt and P.node<i>.callgrind\n"
    "                   (callgrind_annotate, KCachegrind) instead of printing it\n"
    "  --trace FILE     a Chrome trace-event timeline (Perfetto): handlers, DMA, packets\n"
    "  --pcap FILE      a pcapng capture of every link (Wireshark; docs/report.md)\n"
    "  --csv FILE       the per-size results as CSV\n"
    "  --svg FILE       the latency curve as an SVG plot\n";

} // namespace

int cmd_echo(int argc, char** argv) {
  sim::EchoConfig config;
  std::string platform = "vmmc";
  std::string firmware = assembler::locations().data_dir + "/firmware/echo/echo.c";
  std::string profile_out, trace_path, pcap_path, csv_path, svg_path;
  try {
    Args args(argc, argv, 2);
    while (!args.empty()) {
      const std::string a = args.next();
      if (a == "--help" || a == "-h") {
        std::fputs(kHelp, stdout);
        return 0;
      } else if (echo_option(args, a, config, platform)) {
      } else if (a == "--firmware") firmware = args.value_for(a);
      else if (a == "--max-batch") config.max_batch = parse_count(a, args.value_for(a));
      else if (a == "--profile") config.profile = true;
      else if (a == "--trace") trace_path = args.value_for(a);
      else if (a == "--pcap") pcap_path = args.value_for(a);
      else if (a == "--csv") csv_path = args.value_for(a);
      else if (a == "--svg") svg_path = args.value_for(a);
      else if (a == "--profile-out") {
        profile_out = args.value_for(a);
        config.profile = true;
      } else if (a == "--time-limit-ms")
        config.time_limit = sim::Time(parse_count(a, args.value_for(a))) * sim::kMillisecond;
      else throw UsageError("unknown argument '" + a + "'");
    }
    check_echo_options(config);
  } catch (const UsageError& e) {
    return report_usage_error("echo", e);
  }
  try {
    const sim::Platform plat = echo_platform(platform);
    assembler::BuildOptions bo = echo_setup(config, plat);
    bo.debug = config.profile; // line tables for the per-line profile
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
    if (!trace_path.empty()) config.trace = (trace_file = open(trace_path)).get();
    if (!pcap_path.empty()) config.pcap = (pcap_file = open(pcap_path)).get();
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
    if (!csv_path.empty()) sim::write_echo_csv(*open(csv_path), r);
    if (!svg_path.empty()) *open(svg_path) << sim::echo_latency_svg(r, "echo one-way latency, " + plat.name);
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

} // namespace lanaikit::tools
