// lanaikit exec: run a bare program (docs/abi.md) on the emulated NIC processor.
#include "sim/profile_report.h"
#include "vm/profiler.h"
#include "tools/args.h"
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

const char* const kHelp =
    "usage: lanaikit exec IMAGE.elf [--max-insns N] [--sram-size BYTES] [--trace] [--stats]\n"
    "                    [--reference] [--stack-guard BYTES]\n"
    "\n"
    "Runs the image from its entry point until it halts (a store to 0xFFFFF004) or faults.\n"
    "Program output (stores to 0xFFFFF000) goes to stdout; the exit status is the program's.\n"
    "A fault prints a report (kind, pc, instruction, registers) on stderr and exits with\n"
    "129 + the fault kind (see docs/abi.md). The process status keeps the low 8 bits of\n"
    "the program's 32-bit status, so a program may end with a status that looks like a\n"
    "fault's: --stats prints how the run ended (halt or fault) and the full status.\n"
    "\n"
    "options:\n"
    "  --max-insns N       stop with a fault after N instructions (default 10000000000)\n"
    "  --sram-size BYTES   SRAM size (default 256K; K/M suffixes accepted)\n"
    "  --stack-guard BYTES words above the image's data that a store may not touch: the\n"
    "                      stack growing into them is a 'stack overflow' fault (default 256,\n"
    "                      0 for none; docs/abi.md)\n"
    "  --trace             print every executed instruction on stderr (reference model)\n"
    "  --reference         run on the reference model instead of the fast interpreter\n"
    "                      (same results, slower; for checking the emulator itself)\n"
    "  --stats             print instructions, cycles, stalls and speed on stderr\n"
    "  --profile           print the profile on stderr: handlers, top functions, hottest\n"
    "                      lines (build with -g for lines; runs on the reference model)\n"
    "  --profile-out FILE  write the profile in callgrind format (callgrind_annotate,\n"
    "                      KCachegrind; docs/profiling.md)\n"
    "  --cost K=N,...      cycle model (docs/vm.md): base, load-use, mmio; default\n"
    "                      base=1,load-use=1,mmio=2\n";

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

} // namespace

int cmd_exec(int argc, char** argv) {
  std::string path;
  uint64_t max_insns = 10'000'000'000ull;
  uint64_t sram_size = 256 * 1024;
  uint32_t stack_guard = vm::kDefaultStackGuardBytes;
  bool trace = false, stats = false, reference = false, profile = false;
  std::string profile_out;
  vm::CostModel costs;
  try {
    Args args(argc, argv, 2);
    while (!args.empty()) {
      const std::string a = args.next();
      if (a == "--help" || a == "-h") {
        std::fputs(kHelp, stdout);
        return 0;
      } else if (a == "--max-insns") max_insns = parse_count(a, args.value_for(a));
      else if (a == "--sram-size") sram_size = parse_count(a, args.value_for(a));
      else if (a == "--stack-guard") stack_guard = parse_stack_guard(a, args.value_for(a));
      else if (a == "--trace") trace = true;
      else if (a == "--reference") reference = true;
      else if (a == "--cost") costs = parse_costs(args.value_for(a));
      else if (a == "--stats") stats = true;
      else if (a == "--profile") profile = true;
      else if (a == "--profile-out") profile_out = args.value_for(a);
      else if (!a.empty() && a[0] == '-') throw UsageError("unknown option '" + a + "'");
      else if (path.empty()) path = a;
      else throw UsageError("more than one image given ('" + path + "', '" + a + "')");
    }
    if (path.empty()) throw UsageError("no image given");
    if ((profile || !profile_out.empty()) && (trace || reference))
      throw UsageError("--profile/--profile-out run on the profiler; not with --trace or --reference");
    check_sram_size(sram_size);
  } catch (const UsageError& e) {
    return report_usage_error("exec", e);
  }

  const auto image = read_image("exec", path);
  if (!image) return 1;
  const auto machine = load_bare("exec", path, *image, sram_size, costs, stack_guard);
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
    result = cpu.run(max_insns);
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

} // namespace lanaikit::tools
