// lanaikit debug: run a bare program under the debugger (vm/debugger.h), commands from
// standard input, one per line.
#include "base/bytes.h"
#include "base/hex.h"
#include "tools/commands.h"
#include "tools/loader.h"

#include "host/kit/image_view.h"

#include "isa/inst.h"
#include "vm/cpu.h"
#include "vm/debugger.h"
#include "vm/mmio.h"
#include "vm/sram.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <unistd.h>

namespace lanaikit::tools {

namespace {

// The debugger's commands: part of `lanaikit debug --help`, and what its `help` prints.
const char* const kCommands =
    "  break LOC          breakpoint at an address (0x...), a symbol, or FILE:LINE (needs -g)\n"
    "  delete LOC         remove it\n"
    "  watch ADDR [LEN]   stop after an instruction that changes SRAM [ADDR, ADDR+LEN)\n"
    "  watch %REG         stop after an instruction that changes a register (%r9, %sp, %sw)\n"
    "  run                start the program from its entry; again, restart it (the image\n"
    "                     reloaded into SRAM, breakpoints and watchpoints kept)\n"
    "  continue           run until a breakpoint, a watchpoint, the program's end or a fault\n"
    "  step [N]           execute N instructions (default 1)\n"
    "  next               with -g, run to the next source line of this function (or of its\n"
    "                     caller, after a return), over calls; without -g, one instruction,\n"
    "                     a branch with its delay slot, or a whole call\n"
    "  finish             run until the current function returns; print %rv\n"
    "  print PATH         a global by name, with fields and elements through the image's\n"
    "                     layout table (print slots[1].hdr.seq); a C global as a signed\n"
    "                     integer of its size; or a register (print %rv)\n"
    "  budget [N]         show or set the instruction budget of each command that runs the\n"
    "                     program (default 100000000, 0 for none; also --budget N)\n"
    "  regs               the registers\n"
    "  mem ADDR [LEN]     SRAM bytes (default 64)\n"
    "  disas [LOC] [N]    N instructions (default 8) from LOC (default pc), with source lines\n"
    "  bt                 the call stack\n"
    "  info               breakpoints and the current position\n"
    "  quit\n"
    "A command that runs the program stops it after the budget, or at Ctrl-C, and returns to\n"
    "the prompt with the position printed; Ctrl-C at the prompt is ignored (quit or end the\n"
    "input to leave).\n"
    "Program output goes to stdout as the program writes it; a fault prints its report and a\n"
    "backtrace. Exit status: the program's, 129 + fault kind after a fault, 0 on quit.\n";

// An address from "0x...", a decimal number, a symbol, or FILE:LINE.
uint32_t resolve(const assembler::FirmwareImage& image, const std::string& loc) {
  if (const auto a = image.resolve_location(loc)) return *a;
  if (loc.find(':') != std::string::npos)
    throw UsageError(image.lines.empty()
                         ? "no code for " + loc + ": the image has no line table (build with -g)"
                         : "no code at or after " + loc + " in the line table (is the file "
                           "part of this image?)");
  throw UsageError("no symbol '" + loc + "'");
}

void print_source_line(const assembler::FirmwareImage& image, uint32_t addr,
                       std::optional<std::pair<std::string, uint32_t>>& last) {
  const auto loc = image.line_at(addr);
  if (!loc || loc->line == 0) return;
  const std::pair<std::string, uint32_t> here{std::string(loc->file), loc->line};
  if (last && *last == here) return;
  last = here;
  std::ifstream in(here.first);
  std::string text;
  for (uint32_t i = 0; i < here.second && std::getline(in, text); ++i) {
  }
  std::printf("%s:%u: %s\n", here.first.c_str(), here.second, in ? text.c_str() : "");
}

// `print`: one "path = value" line per integer, pointer or unknown-typed leaf of a place,
// structs field by field and arrays element by element, up to `lines` lines.
void print_leaf(const kit::Ref& r, const vm::Sram& sram, const assembler::LayoutTable& table) {
  const std::string& t = r.type();
  if (!sram.contains(r.addr(), r.size()))
    throw UsageError("print: " + r.path() + " at " + hex32(r.addr()) + " is outside SRAM");
  const uint32_t n = r.size();
  if (n == 0 || n > 8 || (n & (n - 1))) { // not an integer: its bytes
    std::printf("%s =", r.path().c_str());
    for (uint32_t i = 0; i < n && i < 64; ++i) std::printf(" %02x", sram.data()[r.addr() + i]);
    std::printf(n > 64 ? " ...\n" : "\n");
    return;
  }
  const uint64_t v = get_be(sram.data() + r.addr(), n);
  if (!t.empty() && t[0] == '*') {
    std::printf("%s = 0x%08llx\n", r.path().c_str(), static_cast<unsigned long long>(v));
    return;
  }
  // Signed: iN, and C globals (the image gives no type; C's int is signed).
  const bool is_signed = t.empty() || t[0] == 'i';
  const int shift = int(64 - 8 * n);
  const long long sv = static_cast<long long>(int64_t(v << shift) >> shift);
  std::string variant; // an enum's variant of that value ("Kind.DATA"), if any
  const std::string prefix = t + ".";
  for (const assembler::ConstantLayout& c : table.constants)
    if (!t.empty() && c.name.compare(0, prefix.size(), prefix) == 0 && c.value == v) variant = " " + c.name;
  if (is_signed)
    std::printf("%s = %lld (0x%0*llx)%s\n", r.path().c_str(), sv, int(2 * n), static_cast<unsigned long long>(v),
                variant.c_str());
  else
    std::printf("%s = %llu (0x%0*llx)%s\n", r.path().c_str(), static_cast<unsigned long long>(v), int(2 * n),
                static_cast<unsigned long long>(v), variant.c_str());
}

void print_tree(const kit::Ref& r, const vm::Sram& sram, const assembler::LayoutTable& table, int& lines) {
  if (lines <= 0) return;
  if (r.is_array()) {
    for (uint32_t i = 0; i < r.count() && lines > 0; ++i) print_tree(r[i], sram, table, lines);
  } else if (!r.type().empty() && r.type()[0] != '*' && table.find_struct(r.type())) {
    for (const assembler::LayoutField& f : r.layout().fields) print_tree(r.field(f.name), sram, table, lines);
  } else {
    print_leaf(r, sram, table);
    if (--lines == 0) std::printf("... (more: print a field or an element)\n");
  }
}

void print_place(const kit::ImageView& view, const vm::Sram& sram, const kit::Ref& r) {
  int lines = 256;
  print_tree(r, sram, view.image().layout_table, lines);
}

// Set by SIGINT (Ctrl-C); the run loop checks it between slices of instructions.
std::atomic<bool> g_interrupted{false};
static_assert(std::atomic<bool>::is_always_lock_free);

extern "C" void on_sigint(int) { g_interrupted.store(true, std::memory_order_relaxed); }

// Instructions run between checks of the interrupt flag: a few milliseconds of the
// reference model, so Ctrl-C answers at once and the check costs nothing.
constexpr uint64_t kSlice = 64 * 1024;
constexpr uint64_t kDefaultBudget = 100'000'000;

struct Options {
  std::string path;
  BareOptions machine;
  uint64_t budget = kDefaultBudget; // per command; 0 = none
};

int debug(const Options& o) {
  const std::string& path = o.path;
  uint64_t budget = o.budget;
  const auto image = read_image("debug", path);
  if (!image) return 1;
  const auto machine = load_bare("debug", path, *image, o.machine.sram_size, {}, o.machine.stack_guard);
  if (!machine) return 1;
  vm::Sram& sram = machine->sram;
  vm::BareIo& io = machine->io;
  vm::Cpu& cpu = machine->cpu;
  vm::Debugger dbg(cpu);
  const bool tty = isatty(0);

  auto show_position = [&] {
    std::printf("%s: %s  %s\n", hex32(cpu.pc()).c_str(),
                isa::disassemble(sram.contains(cpu.pc(), 4) ? sram.read32(cpu.pc()) : 0).c_str(),
                where(*image, cpu.pc()).c_str());
  };
  auto sram_end = [&] { return " (it ends at " + hex32(sram.size()) + ")"; };
  auto print_backtrace = [&] { std::printf("%s", format_backtrace(*image, cpu).c_str()); };
  // Runs until the debugger, the program or a fault stops it, `left` instructions have
  // run (the command's budget; counted down), or Ctrl-C. Returns false when the program
  // is over. The reference model runs in slices so the interrupt flag is checked often.
  uint64_t left = 0, command_start = 0;
  auto stopped_here = [&](const char* what) {
    dbg.resume_from(cpu.pc());
    std::printf("%s", what);
    show_position();
  };
  enum class Ran { Break, Paused, Over }; // dbg stopped it (not printed yet); budget or
                                          // Ctrl-C (printed); the program ended (printed)
  auto execute = [&]() -> Ran {
    for (;;) {
      if (g_interrupted.exchange(false)) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "interrupted after %llu instructions\n",
                      static_cast<unsigned long long>(cpu.instructions() - command_start));
        stopped_here(buf);
        return Ran::Paused;
      }
      if (left == 0) {
        char buf[128];
        std::snprintf(buf, sizeof buf, "stopped after %llu instructions (the budget; `budget N` changes it)\n",
                      static_cast<unsigned long long>(cpu.instructions() - command_start));
        stopped_here(buf);
        return Ran::Paused;
      }
      const vm::RunResult r = cpu.run_instrumented(std::min(left, kSlice), false, dbg);
      left -= r.executed;
      if (r.reason == vm::StopReason::Limit || r.reason == vm::StopReason::Yield) continue;
      std::fflush(stdout);
      if (r.reason == vm::StopReason::Break) return Ran::Break;
      if (r.reason == vm::StopReason::Halted) {
        std::printf("program exited with status %u after %llu instructions\n", io.exit_status(),
                    static_cast<unsigned long long>(cpu.instructions()));
        return Ran::Over;
      }
      std::printf("%s", cpu.fault_report().c_str());
      std::printf("backtrace:\n");
      print_backtrace();
      return Ran::Over;
    }
  };
  auto report_break = [&] {
    std::printf("stopped: %s\n", dbg.reason().c_str());
    show_position();
  };
  auto go = [&]() -> bool {
    const Ran r = execute();
    if (r == Ran::Break) report_break();
    return r != Ran::Over;
  };
  // `next`: one instruction, or a whole call when that instruction enters one; with -g,
  // repeated until the pc reaches another source line (gdb's `next`). Returns false when
  // the program is over.
  auto next = [&]() -> bool {
    using Key = std::pair<std::string_view, uint32_t>;
    auto line_key = [&](uint32_t pc) -> std::optional<Key> {
      const auto l = image->line_at(pc);
      if (!l || l->line == 0) return std::nullopt;
      return Key{l->file, l->line};
    };
    const std::optional<Key> line0 = line_key(cpu.pc());
    const assembler::Symbol* fn0 = image->symbol_at(cpu.pc());
    for (;;) {
      const uint32_t prev = cpu.pc();
      dbg.step(2); // stop before the second: one executed
      Ran r = execute();
      if (r != Ran::Break) return r != Ran::Over;
      if (dbg.stop() != vm::Debugger::Stop::Step) return report_break(), true;
      // A call (docs/abi.md) ends with its branch's delay slot and leaves the return
      // address, the instruction after that slot, in %rca: run to it in this frame.
      if (cpu.pc() != prev + 4 && cpu.reg(15) == prev + 4) {
        dbg.cont();
        dbg.run_to(prev + 4, cpu.reg(4));
        r = execute();
        if (r != Ran::Break) return r != Ran::Over;
        if (dbg.stop() != vm::Debugger::Stop::Target) return report_break(), true;
      }
      // A branch is taken with its delay slot: never stop between them. Then stop at
      // another line, or in another function (returned, with or without a line there);
      // without -g, at once.
      if (cpu.npc() != cpu.pc() + 4) continue;
      const std::optional<Key> here = line_key(cpu.pc());
      if (!line0 || image->symbol_at(cpu.pc()) != fn0 || (here && here != line0)) {
        std::printf("stopped: next\n");
        show_position();
        return true;
      }
    }
  };
  // `finish`: run until the current function returns to its caller, then show %rv.
  auto finish = [&]() -> bool {
    const std::vector<vm::Frame> frames = vm::backtrace(cpu, 2);
    if (frames.size() < 2) throw UsageError("finish: the outermost frame has no caller");
    // At a function's first instruction its frame is not built yet (backtrace gives both
    // frames the caller's %fp): the caller's %sp is the current one. Later, the return
    // sets %sp to the callee's %fp.
    const bool at_entry = frames[0].fp == frames[1].fp;
    const uint32_t ret = frames[1].pc + 16, min_sp = at_entry ? cpu.reg(4) : cpu.reg(5);
    const assembler::Symbol* fn = image->symbol_at(cpu.pc());
    std::printf("run till exit from %s\n", fn ? fn->name.c_str() : hex32(cpu.pc()).c_str());
    dbg.cont();
    dbg.run_to(ret, min_sp);
    const Ran r = execute();
    if (r != Ran::Break) return r != Ran::Over;
    if (dbg.stop() != vm::Debugger::Stop::Target) return report_break(), true;
    std::printf("stopped: returned\n");
    show_position();
    const uint32_t rv = cpu.reg(8);
    std::printf("%%rv = %d (0x%08x)\n", int32_t(rv), rv);
    return true;
  };
  // The image loaded afresh (SRAM cleared first, as at start), the CPU at the entry.
  auto restart = [&] {
    sram.clear();
    cpu.invalidate_all();
    if (const std::string err = load_image(*image, cpu, o.machine.stack_guard); !err.empty())
      throw UsageError(err);
    io.reset();
    dbg.restart();
  };
  kit::ImageView view(*image, "print");
  // Every command that runs the program starts here: a fresh budget, and a Ctrl-C typed at
  // the prompt (ignored there) does not stop it.
  auto begin_command = [&] {
    left = budget ? budget : UINT64_MAX;
    command_start = cpu.instructions();
    g_interrupted.store(false);
  };

  // SA_RESTART: a Ctrl-C at the prompt must not end the read of the next command.
  struct sigaction sa {};
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGINT, &sa, nullptr);

  bool alive = true, started = false;
  std::string line;
  for (;;) {
    if (tty) {
      std::printf("(lkdb) ");
      std::fflush(stdout);
    }
    if (!std::getline(std::cin, line)) break;
    std::istringstream in(line);
    std::string cmd;
    if (!(in >> cmd) || cmd[0] == '#') continue;
    try {
      if (cmd == "quit" || cmd == "q") {
        return 0;
      } else if (cmd == "break" || cmd == "b") {
        std::string loc;
        if (!(in >> loc)) throw UsageError("break: where?");
        const uint32_t a = resolve(*image, loc);
        if (a % 4 || !sram.contains(a, 4)) throw UsageError("break: " + hex32(a) + " is not an instruction in SRAM");
        dbg.add_breakpoint(a);
        std::printf("breakpoint at %s %s\n", hex32(a).c_str(), where(*image, a).c_str());
      } else if (cmd == "delete") {
        std::string loc;
        if (!(in >> loc)) throw UsageError("delete: which?");
        const uint32_t a = resolve(*image, loc);
        std::printf(dbg.remove_breakpoint(a) ? "deleted %s\n" : "no breakpoint at %s\n", hex32(a).c_str());
      } else if (cmd == "watch") {
        std::string what;
        if (!(in >> what)) throw UsageError("watch: what?");
        if (what[0] == '%') {
          const auto reg = vm::parse_register(what);
          if (!reg) throw UsageError("watch: no register " + what);
          const unsigned r = *reg;
          dbg.watch_register(r);
          std::printf("watching %s\n", what.c_str());
        } else {
          const uint32_t a = resolve(*image, what);
          std::string len_text;
          const uint64_t len = in >> len_text ? parse_count("length", len_text) : 4;
          // Checked in 64 bits: a length near 2^32 must not wrap to a small one.
          if (len == 0) throw UsageError("watch: a length of 0 watches nothing");
          if (!sram.contains(a, 1)) throw UsageError("watch: " + hex32(a) + " is outside SRAM" + sram_end());
          if (uint64_t(a) + len > sram.size())
            throw UsageError("watch: " + hex32(a) + "+" + std::to_string(len) + " runs past the end of SRAM" +
                             sram_end());
          dbg.watch_memory(a, uint32_t(len));
          std::printf("watching %s+%u\n", hex32(a).c_str(), uint32_t(len));
        }
      } else if (cmd == "run" || cmd == "r") {
        if (started) {
          restart();
          std::printf("restarting: the image reloaded, breakpoints kept\n");
        }
        begin_command(); // before "running": a Ctrl-C after it must stop the run
        started = alive = true;
        std::printf("running from %s %s\n", hex32(cpu.pc()).c_str(), where(*image, cpu.pc()).c_str());
        std::fflush(stdout);
        dbg.cont();
        alive = go();
      } else if (cmd == "continue" || cmd == "c") {
        if (!alive) throw UsageError("the program is not running (run starts it again)");
        begin_command();
        started = true;
        dbg.cont();
        alive = go();
      } else if (cmd == "step" || cmd == "s") {
        if (!alive) throw UsageError("the program is not running (run starts it again)");
        std::string n_text;
        const uint64_t n = in >> n_text ? parse_count("step", n_text) : 1;
        begin_command();
        started = true;
        dbg.step(n == UINT64_MAX ? n : n + 1); // stop before the (n+1)-th: n executed
        alive = go();
      } else if (cmd == "next" || cmd == "n") {
        if (!alive) throw UsageError("the program is not running (run starts it again)");
        begin_command();
        started = true;
        alive = next();
      } else if (cmd == "finish") {
        if (!alive) throw UsageError("the program is not running (run starts it again)");
        begin_command();
        started = true;
        alive = finish();
      } else if (cmd == "print" || cmd == "p") {
        std::string what;
        if (!(in >> what)) throw UsageError("print: what?");
        if (what[0] == '%') {
          const auto reg = vm::parse_register(what);
          if (!reg) throw UsageError("print: no register " + what);
          const uint32_t v = *reg == vm::kSwReg ? cpu.sw() : cpu.reg(*reg);
          std::printf("%s = %d (0x%08x)\n", what.c_str(), int32_t(v), v);
        } else {
          print_place(view, sram, view.ref(what));
        }
      } else if (cmd == "budget") {
        std::string n_text;
        if (in >> n_text) budget = parse_count("budget", n_text);
        if (budget) std::printf("budget: %llu instructions per command\n", static_cast<unsigned long long>(budget));
        else std::printf("budget: none (Ctrl-C stops the program)\n");
      } else if (cmd == "regs") {
        std::printf("%s", cpu.register_dump().c_str());
      } else if (cmd == "mem" || cmd == "x") {
        std::string a_text, n_text;
        if (!(in >> a_text)) throw UsageError("mem: which address?");
        const uint32_t a = resolve(*image, a_text);
        const uint64_t asked = in >> n_text ? parse_count("length", n_text) : 64;
        if (!sram.contains(a, 1)) throw UsageError("mem: " + hex32(a) + " is outside SRAM" + sram_end());
        // What is in SRAM is shown; a range beyond its end (or past 2^32) says where it ends.
        const uint64_t n = std::min<uint64_t>(asked, sram.size() - a);
        for (uint64_t i = 0; i < n; i += 16) {
          std::printf("%s:", hex32(uint32_t(a + i)).c_str());
          for (uint64_t j = i; j < i + 16 && j < n; ++j) std::printf(" %02x", sram.data()[a + j]);
          std::printf("\n");
        }
        if (n < asked) std::printf("(%llu bytes shown: SRAM ends at %s)\n", static_cast<unsigned long long>(n),
                                   hex32(sram.size()).c_str());
      } else if (cmd == "disas") {
        std::string a_text, n_text;
        uint32_t a = cpu.pc();
        if (in >> a_text) a = resolve(*image, a_text);
        const uint64_t n = in >> n_text ? parse_count("count", n_text) : 8;
        if (a % 4) throw UsageError("disas: " + hex32(a) + " is not word aligned (instructions are)");
        if (!sram.contains(a, 4)) throw UsageError("disas: " + hex32(a) + " is outside SRAM" + sram_end());
        // Whole instructions up to the end of SRAM (a count near 2^32 must not wrap).
        const uint64_t fit = (uint64_t(sram.size()) - a) / 4;
        std::optional<std::pair<std::string, uint32_t>> last;
        for (uint64_t i = 0; i < n && i < fit; ++i) {
          const uint32_t at = uint32_t(a + 4 * i);
          print_source_line(*image, at, last);
          std::printf("%s %s: %08x  %s\n", at == cpu.pc() ? "=>" : "  ", hex32(at).c_str(), sram.read32(at),
                      isa::disassemble(sram.read32(at)).c_str());
        }
        if (n > fit) std::printf("(%llu instructions shown: SRAM ends at %s)\n", static_cast<unsigned long long>(fit),
                                 hex32(sram.size()).c_str());
      } else if (cmd == "bt" || cmd == "backtrace") {
        print_backtrace();
      } else if (cmd == "info") {
        for (uint32_t b : dbg.breakpoints()) std::printf("breakpoint %s %s\n", hex32(b).c_str(), where(*image, b).c_str());
        std::printf("%llu instructions, %llu cycles\n", static_cast<unsigned long long>(cpu.instructions()),
                    static_cast<unsigned long long>(cpu.cycles()));
        show_position();
      } else if (cmd == "help") {
        std::fputs(kCommands, stdout);
      } else {
        throw UsageError("unknown command '" + cmd + "' (try help)");
      }
    } catch (const UsageError& e) {
      std::printf("error: %s\n", e.what());
    } catch (const std::exception& e) {
      std::printf("error: %s\n", e.what());
    }
    std::fflush(stdout);
  }
  if (cpu.fault()) return 129 + int(cpu.fault()->kind);
  if (cpu.halted()) return int(io.exit_status() & 0xFF);
  return 0;
}

} // namespace

Command add_debug(CLI::App& app) {
  std::string prose = std::string("Runs a bare program (docs/abi.md) under the debugger. Commands, one per line on stdin:\n") +
                      kCommands;
  prose.pop_back(); // the help adds the line's end
  CLI::App* cmd = add_command(app, "debug", "run an image under the debugger (breakpoints, watchpoints, stepping)",
                              prose);
  auto o = std::make_shared<Options>();
  add_positional(*cmd, "IMAGE", o->path, "the Lanai ELF image")->required();
  add_bare_options(*cmd, o->machine);
  add_count(*cmd, "--budget", o->budget,
            "instructions each command that runs the program may run\n(default 100000000, 0 for none; "
            "the budget command changes it)");
  return {[o] { return debug(*o); }};
}

} // namespace lanaikit::tools
