// lanaikit exec: run a bare program (docs/abi.md) on the emulated NIC processor.
#include "sim/profile_report.h"
#include "vm/profiler.h"
#include "tools/commands.h"
#include "tools/loader.h"

#include "isa/inst.h"
#include "vm/cpu.h"
#include "vm/mmio.h"
#include "vm/sram.h"


#include <chrono>
#include <fstream>
#include <memory>
#include <cstdio>
#include <string_view>

namespace lanaikit::tools {

namespace {

// "base=1,load-use=2,mmio=4": any subset, in any order.
vm::CostModel parse_costs(std::string_view text) {
  vm::CostModel costs;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos)
      throw UsageError("--cost expects KEY=N items, got '" + std::string(item) + "'");
    const std::string_view key = item.substr(0, eq);
    const uint64_t value = parse_count("--cost " + std::string(key), item.substr(eq + 1));
    if (value > 1000000) throw UsageError("--cost " + std::string(key) + " is implausibly large");
    if (key == "base") costs.base_cycles = uint32_t(value);
    else if (key == "load-use") costs.load_use_cycles = uint32_t(value);
    else if (key == "mmio") costs.mmio_cycles = uint32_t(value);
    else
      throw UsageError("--cost: unknown key '" + std::string(key) +
                       "' (expected base, load-use or mmio)");
  }
  return costs;
}

struct Options {
  std::string path;
  uint64_t max_insns = 10'000'000'000ull;
  BareOptions machine;
  bool trace = false, stats = false, reference = false, profile = false;
  std::string profile_out;
  vm::CostModel costs;
};

int exec(const Options& o) {
  if ((o.profile || !o.profile_out.empty()) && (o.trace || o.reference))
    throw UsageError("--profile/--profile-out run on the profiler; not with --trace or --reference");
  const std::string& path = o.path;
  const uint64_t max_insns = o.max_insns;
  const bool trace = o.trace, stats = o.stats, reference = o.reference, profile = o.profile;
  const std::string& profile_out = o.profile_out;
  const auto image = read_image("exec", path);
  if (!image) return 1;
  const auto machine = load_bare("exec", path, *image, o.machine.sram_size, o.costs, o.machine.stack_guard);
  if (!machine) return 1;
  vm::BareIo& io = machine->io;
  vm::Cpu& cpu = machine->cpu;

  // The cluster profiler's counts for a bare program: every instruction and cycle by SRAM
  // word, each `handler` of the image as an event (docs/profiling.md).
  std::unique_ptr<vm::Profiler> profiler;
  if (profile || !profile_out.empty()) {
    profiler = std::make_unique<vm::Profiler>(cpu);
    for (const std::string& h : image->layout_table.handlers)
      if (auto entry = image->handler_entry(h)) profiler->add_handler(h, *entry);
  }

  const auto start = std::chrono::steady_clock::now();
  vm::RunResult result;
  if (trace) {
    result = cpu.step_reference(max_insns, [](uint32_t pc, uint32_t word) {
      std::string text = isa::disassemble(word);
      std::fprintf(stderr, "%08x: %08x  %s\n", pc, word, text.c_str());
    });
  } else if (reference) {
    result = cpu.step_reference(max_insns);
  } else if (profiler) {
    result = cpu.run_instrumented(max_insns, false, *profiler);
  } else {
    // run() may return early after a trap's entry or return (docs/vm.md): go on.
    uint64_t done = 0;
    do {
      result = cpu.run(max_insns - done);
      done += result.executed;
    } while (result.reason == vm::StopReason::Limit && done < max_insns);
    result.executed = done;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (result.reason == vm::StopReason::Limit || result.reason == vm::StopReason::Yield)
    cpu.raise_budget_fault();
  std::fflush(stdout);

  if (stats) {
    std::fprintf(stderr, "instructions: %llu\n", (unsigned long long)cpu.instructions());
    std::fprintf(stderr, "cycles: %llu\n", (unsigned long long)cpu.cycles());
    std::fprintf(stderr, "stall cycles: %llu\n", (unsigned long long)cpu.stall_cycles());
    std::fprintf(stderr, "wall seconds: %.6f\n", seconds);
    std::fprintf(stderr, "mips: %.1f\n",
                 seconds > 0 ? double(cpu.instructions()) / (seconds * 1e6) : 0.0);
    // The process status keeps 8 bits and a fault is 129 + its kind: the whole story here.
    if (cpu.fault())
      std::fprintf(stderr, "ended: fault (%s), exit status %d\n",
                   vm::fault_kind_name(cpu.fault()->kind), 129 + int(cpu.fault()->kind));
    else
      std::fprintf(stderr, "ended: halt, program status %u (0x%08x), exit status %u\n",
                   io.exit_status(), io.exit_status(), io.exit_status() & 0xFF);
  }
  if (profiler) {
    if (profile)
      std::fputs(sim::format_profile(*image, *profiler, "lanaikit exec " + path).c_str(), stderr);
    if (!profile_out.empty()) {
      std::ofstream out(profile_out);
      sim::write_callgrind_profile(out, "lanaikit exec " + path,
                                   sim::profile_tables(*image, *profiler));
      if (!out.flush()) {
        std::fprintf(stderr, "lanaikit exec: cannot write %s\n", profile_out.c_str());
        return 1;
      }
    }
  }
  if (cpu.fault()) {
    std::string report = cpu.fault_report();
    if (const auto* fn = image->symbol_at(cpu.fault()->pc))
      report += "  in " + fn->name + " +0x" +
                [&] {
                  char buf[16];
                  std::snprintf(buf, sizeof buf, "%x", cpu.fault()->pc - fn->address);
                  return std::string(buf);
                }() +
                "\n";
    report += "backtrace:\n" + format_backtrace(*image, cpu);
    std::fprintf(stderr, "lanaikit exec: %s", report.c_str());
    return 129 + int(cpu.fault()->kind);
  }
  return int(io.exit_status() & 0xFF);
}

} // namespace

Command add_exec(CLI::App& app) {
  CLI::App* cmd = add_command(
      app, "exec", "run an image on the emulated NIC processor",
      "Runs the image from its entry point until it halts (a store to 0xFFFFF004) or faults.\n"
      "Program output (stores to 0xFFFFF000) goes to stdout; the exit status is the program's.\n"
      "A fault prints a report (kind, pc, instruction, registers) on stderr and exits with\n"
      "129 + the fault kind (see docs/abi.md). The process status keeps the low 8 bits of\n"
      "the program's 32-bit status, so a program may end with a status that looks like a\n"
      "fault's: --stats prints how the run ended (halt or fault) and the full status.");
  auto o = std::make_shared<Options>();
  add_positional(*cmd, "IMAGE", o->path, "the Lanai ELF image")->required();
  add_count(*cmd, "--max-insns", o->max_insns, "stop with a fault after N instructions (default 10000000000)");
  add_bare_options(*cmd, o->machine);
  cmd->add_flag("--trace", o->trace, "print every executed instruction on stderr (reference model)");
  cmd->add_flag("--reference", o->reference,
                "run on the reference model instead of the fast interpreter\n"
                "(same results, slower; for checking the emulator itself)");
  cmd->add_flag("--stats", o->stats, "print instructions, cycles, stalls and speed on stderr");
  cmd->add_flag("--profile", o->profile,
                "print the profile on stderr: handlers, top functions, hottest\n"
                "lines (build with -g for lines; runs on the reference model)");
  cmd->add_option("--profile-out", o->profile_out,
                  "write the profile in callgrind format (callgrind_annotate,\n"
                  "KCachegrind; docs/profiling.md)")
      ->type_name("FILE");
  cmd->add_option_function<std::string>(
         "--cost", [o](const std::string& text) { o->costs = parse_costs(text); },
         "cycle model (docs/vm.md): base, load-use, mmio; default\n"
         "base=1,load-use=1,mmio=2")
      ->type_name("K=N,...");
  return {[o] { return exec(*o); }};
}

} // namespace lanaikit::tools
