#!/usr/bin/env python3
"""End-to-end tests of the `lanaikit` command: build/exec/disasm on real programs, fault
reports and exit statuses, --stats/--trace, and bad command-line input.

usage: cli_test.py --lanaikit PATH [--objdump PATH]
Prints one line per check and a final 'N passed, M failed'; exits non-zero on failure.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

from checker import Checker

HELLO_C = r"""
#include <stdint.h>
static void out(char c) { *(volatile uint32_t*)0xFFFFF000u = (uint8_t)c; }
static void outs(const char* s) { while (*s) out(*s++); }
int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
int main(void) {
  outs("hello, lanai\n");
  int f = fib(15), i = 0;
  char b[12];
  do { b[i++] = (char)('0' + f % 10); f /= 10; } while (f);
  while (i) out(b[--i]);
  out('\n');
  return 42;
}
"""

MISALIGNED_C = r"""
#include <stdint.h>
int main(void) {
  volatile uint32_t* p = (volatile uint32_t*)0x1002;
  return (int)*p;
}
"""

OUTSIDE_C = r"""
#include <stdint.h>
int main(void) {
  *(volatile uint32_t*)0x00800000u = 1; /* past 256 KiB of SRAM, below the MMIO page */
  return 0;
}
"""

LOOP_C = r"""
int main(void) { for (volatile int i = 0;; ++i) {} }
"""

# Unbounded recursion: the stack runs down from the top of SRAM into the image's data.
RECURSE_C = r"""
int depth(int n) {
  volatile int pad[4];
  pad[0] = n;
  if (n == 0) return 0;
  return depth(n - 1) + pad[0];
}
int main(void) { return depth(1000000) & 0xff; }
"""

ILLEGAL_S = r"""
	.text
	.globl main
main:
	nop
	.long 0xd0000007
	nop
"""

BAD_C = "int main(void) { return undeclared_thing; }\n"

UNDEF_C = "int helper(int);\nint main(void) { return helper(1); }\n"

DEBUG_C = r"""
#include <stdint.h>
int counter;
int fact(int n) {
  counter += 1;
  return n <= 1 ? 1 : n * fact(n - 1);
}
int main(void) {
  int f = fact(5);
  return *(volatile int*)(f == 120 ? 0x900000 : 0); /* a deliberate bus error */
}
"""


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lanaikit", required=True)
    ap.add_argument("--objdump", default="llvm-objdump-14")
    args = ap.parse_args()
    lk = os.path.abspath(args.lanaikit)
    c = Checker()

    with tempfile.TemporaryDirectory() as work:
        def src(name, text):
            path = os.path.join(work, name)
            with open(path, "w") as f:
                f.write(text)
            return path

        def build(name, text, *flags):
            """name carries the source's extension (.c or .s)."""
            out = os.path.join(work, os.path.splitext(name)[0] + ".elf")
            p = run([lk, "build", *flags, "-o", out, src(name, text)])
            return out, p

        # --- usage errors -----------------------------------------------------------
        p = run([lk])
        c.check("no command: status 2 and usage", p.returncode == 2 and "usage:" in p.stderr, p)
        p = run([lk, "frobnicate"])
        c.check("unknown command", p.returncode == 2 and "unknown command" in p.stderr, p)
        for sub in ["build", "exec", "disasm"]:
            p = run([lk, sub, "--help"])
            c.check(f"{sub} --help", p.returncode == 0 and "usage: lanaikit " + sub in p.stdout, p)
        p = run([lk, "build", src("a.c", HELLO_C)])
        c.check("build without -o", p.returncode == 2 and "-o" in p.stderr, p.stderr)
        p = run([lk, "build", "-O7", "-o", "x.elf", "a.c"], cwd=work)
        c.check("build unknown option", p.returncode == 2 and "'-O7'" in p.stderr, p.stderr)
        p = run([lk, "build", "-o", os.path.join(work, "x.elf"), os.path.join(work, "missing.c")])
        c.check("build missing input names it", p.returncode == 1 and "missing.c" in p.stderr,
                p.stderr)
        same = src("same.c", HELLO_C)
        p = run([lk, "build", "-o", same, same])
        with open(same) as f:
            kept = f.read() == HELLO_C
        c.check("build -o onto its own input is refused and the source kept",
                p.returncode == 2 and "would be overwritten" in p.stderr and kept, p.stderr)
        p = run([lk, "build", "-o", "./same.c", "same.c"], cwd=work)
        c.check("build -o onto its input by another spelling is refused",
                p.returncode == 2 and "would be overwritten" in p.stderr, p.stderr)

        # --- assembly MC would abort on or run for minutes: refused first, with its place ---
        for name, text, want in [
                ("fill.s", "\t.data\n\t.fill 0x40000000, 4, 0\n", "fill.s:2:2: error: '.fill' fills"),
                ("incbin.s", "\t.data\n\t.incbin \"/dev/zero\"\n", "incbin.s:2:2: error: '.incbin' of '/dev/zero'"),
                ("rept.s", "\t.rept 100000000\n\tnop\n\t.endr\n", "rept.s:1:2: error: '.rept' expands"),
                ("self.s", "\t.include \"self.s\"\n", "self.s:1:2: error: '.include' of 'self.s' is a cycle")]:
            src(name, text)
            p = run([lk, "build", "-nostdlib", "-o", "x.elf", name], cwd=work, timeout=60)
            c.check(f"build refuses {name} with file:line:col", p.returncode == 1 and want in p.stderr,
                    p.stderr[:300])
        # --- the firmware library needs no -I ---------------------------------------
        out, p = build("lib.fw", 'import "debug.fw";\nfn main() -> i32 { PUTC = 104; return 0; }\n')
        q = run([lk, "exec", out]) if p.returncode == 0 else p
        c.check("import of a firmware-library file without -I", p.returncode == 0 and
                q.returncode == 0 and q.stdout == "h", (p.stderr, q.stdout))
        _, p = build("lib.c", '#include "lanai.h"\nint main(void) { return 0; }\n')
        c.check("#include of a firmware-library header without -I", p.returncode == 0, p.stderr)
        _, p = build("nolib.fw", 'import "no_such_lib.fw";\n')
        c.check("a failed import says where it looked", p.returncode == 1 and
                "/firmware/lib/no_such_lib.fw" in p.stderr, p.stderr)
        _, p = build("float.c", "float g(float a) { return a * 2.5f; }\n"
                                "int main(void) { volatile float x = 3; return (int)g(x); }\n")
        c.check("float in C: the link names the soft-float helpers and says why",
                p.returncode == 1 and "floating point is not available: __fixsfsi, __mulsf3 are"
                in p.stderr and "no floating-point unit" in p.stderr, p.stderr)
        out, p = build("prof.fw", "var n: u32;\nhandler tick() { n += 1; }\n"
                               "fn main() -> i32 { for i in 0..10 { tick(); } return n as i32; }\n", "-g")
        cg = os.path.join(work, "prof.callgrind")
        q = run([lk, "exec", "--profile", "--profile-out", cg, out])
        with open(cg) if os.path.exists(cg) else open(os.devnull) as f:
            callgrind = f.read()
        c.check("exec --profile: the handler's ten calls, functions and lines",
                q.returncode == 10 and re.search(r"\| tick \| 10 \|", q.stderr) is not None
                and "prof.fw:2" in q.stderr, q.stderr)
        c.check("exec --profile-out writes callgrind with the lines", callgrind.startswith(
            "# callgrind format") and re.search(r"fn=\(\d+\) tick", callgrind) is not None, callgrind[:300])
        out, p = build("status.c", "int main(void) { return 0x12345678; }\n")
        q = run([lk, "exec", "--stats", out])
        c.check("exec --stats prints the whole 32-bit status and how the run ended",
                p.returncode == 0 and q.returncode == 0x78 and
                "ended: halt, program status 305419896 (0x12345678), exit status 120" in q.stderr,
                (p.stderr, q.stderr))
        out, p = build("misaligned.c", "int main(void) { volatile int *p = (int *)3; return *p; }\n")
        q = run([lk, "exec", "--stats", out])
        c.check("exec --stats names a fault as the ending",
                q.returncode >= 129 and f"ended: fault (misaligned memory access), exit status {q.returncode}"
                in q.stderr, q.stderr)
        _, p = build("bad.c", BAD_C)
        c.check("build compile error is file:line:col", p.returncode == 1 and
                re.search(r"bad\.c:1:\d+: error", p.stderr) is not None, p.stderr)
        _, p = build("undef.c", UNDEF_C)
        c.check("build undefined symbol names symbol and object",
                p.returncode == 1 and "helper" in p.stderr and "undef" in p.stderr, p.stderr)
        p = run([lk, "exec"])
        c.check("exec without image", p.returncode == 2, p.stderr)
        p = run([lk, "exec", os.path.join(work, "nothing.elf")])
        c.check("exec missing image", p.returncode == 1 and "nothing.elf" in p.stderr, p.stderr)
        p = run([lk, "exec", src("text.elf", "not an elf\n")])
        c.check("exec non-ELF input", p.returncode == 1, p.stderr)

        # --- a real program ---------------------------------------------------------
        hello, p = build("hello.c", HELLO_C, "-O2", "-g")
        c.check("build hello", p.returncode == 0, p.stderr)
        p = run([lk, "exec", hello, "--max-insns", "abc"])
        c.check("exec bad --max-insns", p.returncode == 2 and "--max-insns" in p.stderr, p.stderr)
        p = run([lk, "exec", hello, "--sram-size", "6"])
        c.check("exec bad --sram-size", p.returncode == 2 and "--sram-size" in p.stderr, p.stderr)
        p = run([lk, "exec", hello, "--sram-size", "1K"])
        c.check("exec image larger than SRAM", p.returncode == 1 and "SRAM" in p.stderr, p.stderr)
        p = run([lk, "exec", hello, "--stats"])
        c.check("exec hello output and status",
                p.returncode == 42 and p.stdout == "hello, lanai\n610\n", (p.returncode, p.stdout))
        stats = dict(re.findall(r"^(instructions|cycles|mips): ([0-9.]+)$", p.stderr, re.M))
        c.check("exec --stats lines", set(stats) == {"instructions", "cycles", "mips"} and
                int(stats["cycles"]) >= int(stats["instructions"]) > 0, p.stderr)
        p2 = run([lk, "exec", hello, "--stats"])
        c.check("exec is deterministic", p2.stdout == p.stdout and
                re.findall(r"^(?:instructions|cycles): \d+$", p2.stderr, re.M) ==
                re.findall(r"^(?:instructions|cycles): \d+$", p.stderr, re.M))
        # the cycle model is configurable: cycles = insns * base + stalls
        p3 = run([lk, "exec", hello, "--stats", "--cost", "base=3,load-use=0,mmio=0"])
        st3 = dict(re.findall(r"^(instructions|cycles|stall cycles): (\d+)$", p3.stderr, re.M))
        c.check("exec --cost changes the cycle model",
                p3.returncode == 42 and st3.get("stall cycles") == "0" and
                int(st3["cycles"]) == 3 * int(st3["instructions"]), p3.stderr)
        p3 = run([lk, "exec", hello, "--cost", "speed=9"])
        c.check("exec --cost rejects unknown keys", p3.returncode == 2 and "speed" in p3.stderr,
                p3.stderr)
        p = run([lk, "exec", hello, "--trace"])
        trace = [l for l in p.stderr.splitlines() if re.match(r"^[0-9a-f]{8}: [0-9a-f]{8}  ", l)]
        c.check("exec --trace prints every instruction",
                p.returncode == 42 and len(trace) == int(stats.get("instructions", -1)),
                (len(trace), stats))
        c.check("trace starts at the reset vector",
                trace and trace[0].startswith("00000000: ") and "ld\t-4088[%r0], %sp" in trace[0],
                trace[:1])

        # --- faults -----------------------------------------------------------------
        def fault_case(name, text, kind_text, status, *exec_flags, asm=False):
            elf, bp = build(name + ".c", text, "-O1") if not asm else build(name + ".s", text)
            if bp.returncode != 0:
                c.check(f"fault {name}: builds", False, bp.stderr)
                return
            p = run([lk, "exec", elf, *exec_flags])
            ok = (p.returncode == status and f"fault: {kind_text}" in p.stderr and
                  re.search(r"pc [0-9a-f]{8}: [0-9a-f]{8}  \S", p.stderr) is not None and
                  "%sp " in p.stderr and "%rca " in p.stderr)
            c.check(f"fault {name}: status {status}, kind, pc, instruction, registers", ok,
                    (p.returncode, p.stderr))
            return p

        fault_case("illegal", ILLEGAL_S, "illegal instruction", 129, asm=True)
        fault_case("misaligned", MISALIGNED_C, "misaligned memory access", 132)
        fault_case("outside", OUTSIDE_C, "access outside SRAM", 133)
        p = fault_case("runaway", LOOP_C, "instruction budget exceeded", 135, "--max-insns",
                       "100000")
        if p:
            c.check("runaway fault names the function", " in main +0x" in p.stderr, p.stderr)

        # --- the stack guard --------------------------------------------------------
        rec_elf, bp = build("recurse.c", RECURSE_C, "-g")
        c.check("stack guard: the recursion builds", bp.returncode == 0, bp.stderr)
        p = run([lk, "exec", rec_elf])
        c.check("stack guard: a runaway recursion is a stack overflow (status 136) with the guard named",
                p.returncode == 136 and "fault: stack overflow (a store into the stack guard [" in p.stderr,
                (p.returncode, p.stderr))
        c.check("stack guard: the backtrace counts the repeated frame and shows who started it",
                re.search(r"#0 0x[0-9a-f]+ in depth\+0x[0-9a-f]+ \(recurse\.c:\d+\)", p.stderr) is not None
                and re.search(r"\.\.\. the same frame \d+ more times \(#\d+ to #\d+\)", p.stderr) is not None
                and re.search(r"#\d+ 0x[0-9a-f]+ in main\+0x[0-9a-f]+ \(recurse\.c:\d+\)", p.stderr) is not None
                and "in _start+" in p.stderr, p.stderr)
        p = run([lk, "exec", "--stack-guard", "0", rec_elf])
        c.check("stack guard: --stack-guard 0 removes it (the stack then runs through the image)",
                p.returncode != 136 and "stack overflow" not in p.stderr, (p.returncode, p.stderr))
        p = run([lk, "exec", "--stack-guard", "6", rec_elf])
        c.check("stack guard: a size that is not a multiple of 4 is a usage error",
                p.returncode == 2 and "--stack-guard must be a multiple of 4" in p.stderr, p.stderr)
        p = run([lk, "debug", rec_elf], input="run\nbt\n")
        c.check("stack guard: the debugger stops at the overflow with the backtrace",
                "fault: stack overflow" in p.stdout and "the same frame" in p.stdout
                and p.returncode == 136, (p.returncode, p.stdout, p.stderr))

        # --- disasm against llvm-objdump --------------------------------------------
        p = run([lk, "disasm", hello])
        ours = {}
        for line in p.stdout.splitlines():
            m = re.match(r"^([0-9a-f]{8}): ([0-9a-f]{8})  (.*)$", line)
            if m:
                ours[int(m.group(1), 16)] = (m.group(2), m.group(3))
        c.check("disasm prints words", p.returncode == 0 and len(ours) > 50, p.stderr)
        try:
            od = run([args.objdump, "-d", hello])
        except FileNotFoundError:
            od = None
        if od is None or od.returncode != 0:
            print("  skip disasm vs llvm-objdump (objdump not available)")
        else:
            theirs = {}
            for line in od.stdout.splitlines():
                m = re.match(r"^\s*([0-9a-f]+):\s+((?:[0-9a-f]{2} ){4})\s*(.*)$", line)
                if m:
                    text = re.sub(r" <[^>]*>$", "", m.group(3))  # objdump's symbol annotation
                    theirs[int(m.group(1), 16)] = (m.group(2).replace(" ", ""), text)
            mismatches = [(a, ours.get(a), t) for a, t in theirs.items() if ours.get(a) != t]
            c.check(f"disasm equals llvm-objdump -d on {len(theirs)} words",
                    len(theirs) == len(ours) and not mismatches, mismatches[:5])

        # --- echo: the simulated two-node experiment --------------------------------
        p = run([lk, "echo", "--help"])
        c.check("echo --help", p.returncode == 0 and "usage: lanaikit echo" in p.stdout, p)
        p = run([lk, "echo", "--sizes", "4,64", "--iterations", "2", "--warmup", "0"])
        c.check("echo prints latency, instruction counts, breakdown and speed",
                p.returncode == 0 and re.search(r"^\| 4 \| \d+\.\d+ \|", p.stdout, re.M) is not None
                and "one-way latency breakdown" in p.stdout and "simulated us per wall second" in p.stdout
                and ", 0 packets rejected" in p.stdout, p.stdout + p.stderr)
        prefix = os.path.join(work, "prof")
        outs = {k: os.path.join(work, "echo." + k) for k in ("csv", "svg", "json", "pcapng")}
        p = run([lk, "echo", "--sizes", "4,256", "--iterations", "2", "--profile-out", prefix,
                 "--csv", outs["csv"], "--svg", outs["svg"], "--trace", outs["json"], "--pcap", outs["pcapng"]])
        c.check("echo writes profile, callgrind, CSV, SVG, trace and capture", p.returncode == 0 and
                all(os.path.getsize(f) > 0 for f in outs.values()) and
                os.path.exists(prefix + ".node1.callgrind"), p.stdout + p.stderr)
        if p.returncode == 0:
            with open(outs["csv"]) as f:
                rows = f.read().splitlines()
            c.check("echo CSV: header and one row per size", len(rows) == 3 and rows[0].startswith("bytes,") and
                    rows[1].startswith("4,") and rows[2].startswith("256,"), rows)
            with open(outs["svg"]) as f:
                svg = f.read()
            c.check("echo SVG is an svg document with the series", svg.lstrip().startswith("<svg") or "<svg" in svg[:200],
                    svg[:200])
            import json
            with open(outs["json"]) as f:
                events = json.load(f)["traceEvents"]
            c.check("echo trace: handler, DMA and packet spans", {"send_message", "deliver", "DMA", "packet"} <=
                    {e.get("name") for e in events if e.get("ph") == "X"}, sorted({e.get("name") for e in events})[:20])
            with open(outs["pcapng"], "rb") as f:
                head = f.read(4)
            c.check("echo capture is pcapng", head == b"\x0a\x0d\x0d\x0a", head)
            try:
                ann = run(["callgrind_annotate", prefix + ".node1.callgrind"])
                c.check("callgrind_annotate reads the firmware profile", ann.returncode == 0 and
                        "echo.c:deliver" in ann.stdout and "echo.c:send_message" in ann.stdout, ann.stdout + ann.stderr)
            except FileNotFoundError:
                print("  skip callgrind_annotate (not installed)")
        p = run([lk, "echo", "--platform", "nosuch"])
        c.check("echo unknown platform names the file", p.returncode == 1 and "nosuch.lua" in p.stderr,
                p.stderr)
        p = run([lk, "echo", "--platform", "dart"])
        c.check("echo on a platform without a NIC", p.returncode == 1 and "no LANai-style NIC" in p.stderr,
                p.stderr)
        p = run([lk, "echo", "--sizes", "4,x"])
        c.check("echo bad size", p.returncode == 2 and "'x'" in p.stderr, p.stderr)
        stuck = src("stuck.c", "int main(void) { for (;;) {} }\n")
        p = run([lk, "echo", "--firmware", stuck, "--sizes", "4", "--time-limit-ms", "1"])
        c.check("echo with stuck firmware stops at the time limit with each chip's pc and registers",
                p.returncode == 1 and "not finished after 1000.000 simulated us: 0 of " in p.stderr
                and "runaway or stuck firmware?" in p.stderr
                and "node1.chip (running)" in p.stderr and "%r31" in p.stderr, p.stderr)
        p = run([lk, "echo", "--sizes", "4096", "--iterations", "100", "--time-limit-ms", "1"])
        c.check("echo stopped by the time limit while progressing says so, not 'stuck'",
                p.returncode == 1 and "round trips done (the last at" in p.stderr and
                "the time limit stopped a run that was progressing" in p.stderr and
                "stuck" not in p.stderr, p.stderr[:400])
        crash = src("crash.c", "int main(void) { return *(volatile int*)0x00900000; }\n")
        p = run([lk, "echo", "--firmware", crash, "--sizes", "4"])
        c.check("echo with faulting firmware prints the fault report",
                p.returncode == 1 and "the firmware stopped" in p.stderr and "fault:" in p.stderr, p.stderr)

        # --- debug: breakpoints, stepping, watchpoints, backtraces -----------------------
        dbg_c = src("dbg.c", DEBUG_C)
        dbg_elf = os.path.join(work, "dbg.elf")
        p = run([lk, "build", "-O1", "-g", "-o", dbg_elf, dbg_c])
        c.check("debug: build the program with -g", p.returncode == 0, p.stderr)
        script = "break fact\nrun\nbt\nstep 3\ninfo\nwatch counter\ncontinue\ndelete fact\n" \
                 "break nosuch\nregs\nmem counter 4\ncontinue\ncontinue\ncontinue\ncontinue\ncontinue\n"
        p = run([lk, "debug", dbg_elf], input=script)
        out = p.stdout
        c.check("debug: breakpoint by symbol with file:line", re.search(r"breakpoint at 0x[0-9a-f]+ fact\+0x0 \(dbg\.c:\d+\)", out) is not None, out)
        c.check("debug: backtrace at a function's entry names the caller",
                re.search(r"#0 0x[0-9a-f]+ in fact\+0x0.*\n#1 0x[0-9a-f]+ in main\+0x[0-9a-f]+ \(dbg\.c:\d+\)", out) is not None, out)
        c.check("debug: step 3 executes three instructions", "stopped: step" in out and
                re.search(r"fact\+0xc ", out) is not None, out)
        c.check("debug: watchpoint on a global stops after the store",
                re.search(r"stopped: watchpoint 0x[0-9a-f]+\+4 written by 0x", out) is not None, out)
        c.check("debug: unknown symbol is an error, the session goes on",
                "error: no symbol 'nosuch'" in out and "%r31" in out, out)
        c.check("debug: the fault prints a backtrace with source lines and the status is the fault's",
                "backtrace:" in out and re.search(r"#0 0x[0-9a-f]+ in main\+0x[0-9a-f]+ \(dbg\.c:\d+\)", out) is not None
                and p.returncode == 133, (p.returncode, out))
        p = run([lk, "debug", dbg_elf], input="break dbg.c:9\nrun\ndisas\nquit\n")
        c.check("debug: breakpoint by file:line, disassembly with source",
                re.search(r"breakpoint at 0x[0-9a-f]+ main\+0x[0-9a-f]+ \(dbg\.c:9\)", p.stdout) is not None
                and re.search(r"dbg\.c:9: .*fact\(5\)", p.stdout) is not None and "=> 0x" in p.stdout
                and p.returncode == 0, p.stdout)
        p = run([lk, "exec", dbg_elf])
        c.check("exec: a fault prints a backtrace", p.returncode == 133 and "backtrace:" in p.stderr
                and re.search(r"#0 0x[0-9a-f]+ in main\+", p.stderr) is not None, p.stderr)

        # --- -D NAME=VALUE sets an `option const` of the .fw inputs ----------------
        opt_fw = src("opt.fw", "option const CODE: u8 = 7;\nconst FIXED = 1;\n"
                               "fn main() -> i32 { return CODE as i32; }\n")
        opt_elf = os.path.join(work, "opt.elf")
        p = run([lk, "build", "-o", opt_elf, opt_fw])
        p2 = run([lk, "exec", opt_elf])
        c.check("-D: the default value is built", p.returncode == 0 and p2.returncode == 7,
                (p.stderr, p2.returncode))
        p = run([lk, "build", "-D", "CODE=42", "-o", opt_elf, opt_fw])
        p2 = run([lk, "exec", opt_elf])
        c.check("-D CODE=42 is built", p.returncode == 0 and p2.returncode == 42,
                (p.stderr, p2.returncode))
        p = run([lk, "build", "-DCODE=0x2b", "-DCODE=0b101", "-o", opt_elf, opt_fw])
        p2 = run([lk, "exec", opt_elf])
        c.check("-D: joined form, hex and binary, the last one wins",
                p.returncode == 0 and p2.returncode == 5, (p.stderr, p2.returncode))
        d_errors = [
            (["-D", "NOPE=1"], f"-D NOPE=1: no constant 'NOPE' in {opt_fw} or their imports\n"),
            (["-D", "FIXED=2"], f"{opt_fw}:2:7: error: -D FIXED=2: constant 'FIXED' is not "
                                "overridable (declare it 'option const FIXED' to let -D set it)"),
            (["-D", "CODE=seven"], f"{opt_fw}:1:14: error: -D CODE=seven: 'seven' is not an "
                                   "integer (decimal, 0x hex or 0b binary)"),
            (["-D", "CODE=256"], f"{opt_fw}:1:14: error: -D CODE=256: 256 does not fit "
                                 "constant 'CODE' of type u8 (0 to 255)"),
            (["-D", "CODE"], "malformed -D 'CODE': expected NAME=VALUE, NAME an option "
                             "constant of a .fw input and VALUE an integer\n"),
        ]
        for flags, text in d_errors:
            p = run([lk, "build", *flags, "-o", opt_elf, opt_fw])
            c.check(f"-D error: {' '.join(flags)}", p.returncode == 1 and text in p.stderr,
                    p.stderr)
        p = run([lk, "build", "--emit=ast", "-D", "CODE=9", opt_fw])
        c.check("-D with --emit: the syntax tree has the new value",
                p.returncode == 0 and "OptionConst CODE: u8" in p.stdout and "9" in p.stdout,
                p.stdout + p.stderr)
        p = run([lk, "build", "--emit=ast", "-D", "NOPE=9", opt_fw])
        c.check("-D with --emit: an unknown name is an error", p.returncode == 1 and
                f"-D NOPE=9: no constant 'NOPE' in {opt_fw} or its imports" in p.stderr, p.stderr)

    print(f"{c.passed} passed, {c.failed} failed")
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())
