#!/usr/bin/env python3
"""End-to-end tests of `lanaikit debug` beyond cli_test.py's: the instruction budget,
Ctrl-C (SIGINT) while the program runs, next/finish/print/restart, and the edges (a
backtrace inside the prologue, watch/mem/disas ranges past SRAM or 2^32).

usage: debug_test.py --lanaikit PATH
Prints one line per check and a final 'N passed, M failed'; exits non-zero on failure.
"""
import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile

from checker import Checker

LOOP_C = r"""
int main(void) { for (volatile int i = 0;; ++i) {} }
"""

CALLS_C = r"""int counter;
int twice(int x) {
  counter += 1;
  return 2 * x;
}
int main(void) {
  int a = twice(3);
  int b = twice(a);
  return a + b;
}
"""

PLACES_FW = r"""enum Kind: u8 { DATA = 1, ACK, NAK }
struct Header {
  kind: Kind;
  len: u16;
  seq: u32;
}
struct Slot {
  hdr: Header;
  next: *Slot;
  data: i32[2];
}
var slots: Slot[2];
var total: u32 = 7;
fn main() -> i32 {
  slots[1].hdr.kind = Kind.ACK;
  slots[1].hdr.seq = 0x1234;
  slots[1].data[0] = -5;
  return 0;
}
"""


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, **kw)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lanaikit", required=True)
    args = ap.parse_args()
    lk = os.path.abspath(args.lanaikit)
    c = Checker()

    with tempfile.TemporaryDirectory() as work:
        def build(name, text, *flags):
            src = os.path.join(work, name)
            with open(src, "w") as f:
                f.write(text)
            out = os.path.join(work, os.path.splitext(name)[0] + ".elf")
            p = run([lk, "build", *flags, "-o", out, src])
            c.check(f"build {name}", p.returncode == 0, p.stderr)
            return out

        loop = build("loop.c", LOOP_C, "-O1", "-g")

        # --- the instruction budget ---------------------------------------------------
        p = run([lk, "debug", "--budget", "5000", loop], input="run\ninfo\ncontinue\nstep 3\nquit\n")
        out = p.stdout
        c.check("budget: run of an endless loop returns with the budget message and the position",
                re.search(r"stopped after 5000 instructions \(the budget; `budget N` changes it\)\n"
                          r"0x[0-9a-f]{8}: .*main\+0x[0-9a-f]+ \(loop\.c:2\)", out) is not None, out)
        c.check("budget: info counts the instructions run", "5000 instructions," in out, out)
        c.check("budget: each command has its own budget (continue runs 5000 more)",
                out.count("stopped after 5000 instructions") == 2, out)
        c.check("budget: a step within the budget is still a step", "stopped: step" in out
                and p.returncode == 0, (p.returncode, out))
        p = run([lk, "debug", loop], input="budget 1000\nbudget\nrun\nstep 2000\nbudget 0\nquit\n")
        out = p.stdout
        c.check("budget command sets and shows it",
                out.count("budget: 1000 instructions per command") == 2
                and "budget: none (Ctrl-C stops the program)" in out, out)
        c.check("budget command: step N stops at the budget",
                out.count("stopped after 1000 instructions (the budget") == 2, out)
        p = run([lk, "debug", loop], input="budget lots\nquit\n")
        c.check("budget command: a bad count is an error, the session goes on",
                "error:" in p.stdout and "'lots'" in p.stdout and p.returncode == 0, p.stdout)
        p = run([lk, "debug", "--budget", "x", loop])
        c.check("--budget with a bad count is a usage error", p.returncode == 2 and "'x'" in p.stderr,
                (p.returncode, p.stderr))
        p = run([lk, "debug", "--help"])
        c.check("debug --help documents the budget and Ctrl-C",
                p.returncode == 0 and "--budget N" in p.stdout and "Ctrl-C" in p.stdout, p.stdout)

        # --- Ctrl-C while the program runs ----------------------------------------------
        # No budget: only the interrupt can stop the loop. The debugger says "running from"
        # (flushed) before it runs, so the signal arrives while the program runs (or just
        # before: the flag is checked before the first slice too).
        proc = subprocess.Popen([lk, "debug", "--budget", "0", loop], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        proc.stdin.write("run\n")
        proc.stdin.flush()
        first = proc.stdout.readline()
        proc.send_signal(signal.SIGINT)
        try:
            out, err = proc.communicate("regs\ninfo\nquit\n", timeout=120)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
        c.check("SIGINT: the debugger reports it is running", first.startswith("running from 0x00000000 "),
                first)
        c.check("SIGINT stops the program and prints the position",
                re.search(r"interrupted after \d+ instructions\n0x[0-9a-f]{8}: ", out) is not None, (out, err))
        c.check("SIGINT: the debugger lives on and accepts regs, info and quit",
                "%r31" in out and "instructions," in out and proc.returncode == 0, (proc.returncode, out, err))

        # --- next, finish, restart (-g, -O0: one line, one statement) ----------------------
        calls = build("calls.c", CALLS_C, "-O0", "-g")
        p = run([lk, "debug", calls],
                input="break main\nrun\nnext\nnext\nprint counter\nbreak twice\ncontinue\nfinish\n"
                      "print counter\nrun\nprint counter\ndelete twice\ncontinue\nrun\ninfo\nquit\n")
        out = p.stdout
        c.check("next: from the function's first line to the next one",
                re.search(r"stopped: next\n0x[0-9a-f]{8}: .*main\+0x[0-9a-f]+ \(calls\.c:7\)", out) is not None, out)
        c.check("next: steps over the call to the next line",
                re.search(r"stopped: next\n0x[0-9a-f]{8}: .*main\+0x[0-9a-f]+ \(calls\.c:8\)\n"
                          r"counter = 1 \(0x00000001\)\n", out) is not None, out)
        c.check("finish: runs to the caller and prints %rv",
                re.search(r"run till exit from twice\nstopped: returned\n0x[0-9a-f]{8}: .*main\+0x[0-9a-f]+ "
                          r"\(calls\.c:8\)\n%rv = 12 \(0x0000000c\)\ncounter = 2 ", out) is not None, out)
        c.check("run again restarts from the entry with the image reloaded, breakpoints kept",
                re.search(r"restarting: the image reloaded, breakpoints kept\nrunning from 0x00000000 _start\+0x0\n"
                          r"stopped: breakpoint 0x[0-9a-f]+\n0x[0-9a-f]{8}: .*main\+0x0 .*\ncounter = 0 ", out)
                is not None, out)
        c.check("run after the program exited starts it again",
                "program exited with status 18" in out and out.count("restarting:") == 2
                and out.rstrip().endswith("main+0x0 (calls.c:6)") and p.returncode == 0, (p.returncode, out))
        p = run([lk, "debug", calls], input="break calls.c:1\nbreak calls.c:99\nquit\n")
        c.check("break on a line without code moves to the next line with code, as gdb does",
                re.search(r"breakpoint at 0x[0-9a-f]{8} twice\+0x0 \(calls\.c:2\)", p.stdout) is not None
                and "no code at or after calls.c:99 in the line table" in p.stdout, p.stdout)
        p = run([lk, "debug", calls], input="finish\nrun\nfinish\nnext\nquit\n")
        c.check("finish in the outermost frame is an error",
                "error: finish: the outermost frame has no caller" in p.stdout, p.stdout)
        c.check("next and finish after the program ended are errors",
                "program exited with status 18" in p.stdout
                and p.stdout.count("error: the program is not running (run starts it again)") == 2, p.stdout)

        p = run([lk, "debug", calls], input="break twice\nrun\nnext\nnext\nnext\nnext\nquit\n")
        c.check("next: over a return to the caller's line",
                re.search(r"stopped: next\n0x[0-9a-f]{8}: .*main\+0x[0-9a-f]+ \(calls\.c:7\)", p.stdout)
                is not None, p.stdout)
        p = run([lk, "debug", calls], input="break main\nrun\nnext\nnext\nnext\nnext\nquit\n")
        c.check("next: over main's return stops in the startup code (no line there)",
                re.search(r"stopped: next\n0x[0-9a-f]{8}: .*_start\+0x[0-9a-f]+\n", p.stdout) is not None
                and "program exited" not in p.stdout, p.stdout)

        # --- edges: the prologue, lengths past SRAM or 2^32 --------------------------------
        p = run([lk, "debug", calls], input="break twice\nrun\nstep\nbt\nstep\nbt\nquit\n")
        out = p.stdout
        # Between the prologue's `st %fp, [--%sp]` and `add %sp, 0x8, %fp`, %fp is still the
        # caller's: the frame-pointer chain alone would skip main.
        c.check("bt between the prologue's first two instructions shows the caller",
                re.search(r"0x[0-9a-f]{8}: add\t%sp, 0x8, %fp  twice\+0x4 .*\n#0 0x[0-9a-f]{8} in twice\+0x4 "
                          r"\(calls\.c:2\)\n#1 0x[0-9a-f]{8} in main\+0x[0-9a-f]+ \(calls\.c:7\)\n"
                          r"#2 0x[0-9a-f]{8} in _start\+", out) is not None, out)
        c.check("bt once %fp is set shows the same caller",
                re.search(r"twice\+0x8 \(calls\.c:2\)\n#1 0x[0-9a-f]{8} in main\+0x[0-9a-f]+ \(calls\.c:7\)\n",
                          out) is not None, out)
        # The default SRAM is 256K (0x40000).
        p = run([lk, "debug", calls],
                input="watch counter 4294967300\nwatch counter 0\nwatch 0x3fffe 4\nwatch 0x50000\n"
                      "watch 0x3fffc 4\nmem 0x3fff0 4294967300\nmem 0x50000\nmem 0x3fff8 8\n"
                      "disas 0x3fff8 4294967297\ndisas 0x50000\ndisas 0x3\nquit\n")
        out = p.stdout
        c.check("watch: a length past 2^32 is refused, not wrapped to a small one",
                re.search(r"error: watch: 0x[0-9a-f]{8}\+4294967300 runs past the end of SRAM "
                          r"\(it ends at 0x00040000\)\n", out) is not None, out)
        c.check("watch: a zero length, a range past the end and a start outside SRAM are errors",
                "error: watch: a length of 0 watches nothing\n" in out
                and "error: watch: 0x0003fffe+4 runs past the end of SRAM (it ends at 0x00040000)\n" in out
                and "error: watch: 0x00050000 is outside SRAM (it ends at 0x00040000)\n" in out
                and "watching 0x0003fffc+4\n" in out, out)
        c.check("mem: a length past 2^32 shows SRAM up to its end and says where it ends",
                re.search(r"0x0003fff0:( [0-9a-f]{2}){16}\n\(16 bytes shown: SRAM ends at 0x00040000\)\n", out)
                is not None, out)
        c.check("mem: outside SRAM is an error; a range inside is shown whole",
                "error: mem: 0x00050000 is outside SRAM (it ends at 0x00040000)\n" in out
                and re.search(r"\n0x0003fff8:( [0-9a-f]{2}){8}\nerror: disas", out) is None
                and re.search(r"\n0x0003fff8:( [0-9a-f]{2}){8}\n   0x0003fff8", out) is not None, out)
        c.check("disas: past the end of SRAM shows the instructions there and says where it ends",
                re.search(r"   0x0003fff8: [0-9a-f]{8}  .*\n   0x0003fffc: [0-9a-f]{8}  .*\n"
                          r"\(2 instructions shown: SRAM ends at 0x00040000\)\n", out) is not None, out)
        c.check("disas: outside SRAM and an unaligned address are errors",
                "error: disas: 0x00050000 is outside SRAM (it ends at 0x00040000)\n" in out
                and "error: disas: 0x00000003 is not word aligned (instructions are)\n" in out
                and p.returncode == 0, (p.returncode, out))

        # Without -g, next is one instruction, or a whole call with its delay slot.
        nog = build("calls_nog.c", CALLS_C, "-O0")
        p = run([lk, "debug", nog], input="break calls.c:3\nquit\n")
        c.check("break FILE:LINE without a line table says to build with -g",
                "no code for calls.c:3: the image has no line table (build with -g)" in p.stdout, p.stdout)
        p = run([lk, "debug", nog], input="break twice\ndisas main 40\nquit\n")
        m = re.search(r"breakpoint at (0x[0-9a-f]+)", p.stdout)
        twice = int(m.group(1), 16) if m else -1
        m = re.search(r"(0x[0-9a-f]{8}): e[0-9a-f]{7}  bt\t0x%x\n" % twice, p.stdout)
        c.check("the call to twice is in main's disassembly", m is not None, p.stdout)
        if m:
            bt = int(m.group(1), 16)
            p = run([lk, "debug", nog], input="break 0x%x\nrun\nnext\nprint counter\nprint %%rv\nnext\nquit\n" % bt)
            c.check("next without -g: over the branch of a call, its delay slot and the call",
                    re.search(r"stopped: next\n0x%08x: .*\ncounter = 1 \(0x00000001\)\n%%rv = 6 \(0x00000006\)\n"
                              % (bt + 8), p.stdout) is not None, p.stdout)
            c.check("next without -g: one instruction",
                    re.search(r"stopped: next\n0x%08x: " % (bt + 12), p.stdout) is not None, p.stdout)

        # --- print: globals, struct fields and elements through the layout table -----------
        places = build("places.fw", PLACES_FW, "-g")
        p = run([lk, "debug", places],
                input="print total\nrun\nprint slots[1]\nprint slots[1].hdr.seq\nprint slots[1].data\n"
                      "print slots[2]\nprint slots[1].hdr.nosuch\nprint total.x\nprint\nprint %sp\nquit\n")
        out = p.stdout
        c.check("print: an integer global, decimal and hex", out.startswith("total = 7 (0x00000007)\n"), out)
        c.check("print: a struct field by field, enums by variant, pointers in hex, signed elements",
                "slots[1].hdr.kind = 2 (0x02) Kind.ACK\nslots[1].hdr.len = 0 (0x0000)\n"
                "slots[1].hdr.seq = 4660 (0x00001234)\nslots[1].next = 0x00000000\n"
                "slots[1].data[0] = -5 (0xfffffffb)\nslots[1].data[1] = 0 (0x00000000)\n" in out, out)
        c.check("print: a field path", "\nslots[1].hdr.seq = 4660 (0x00001234)\nslots[1].data[0] = -5" in out, out)
        c.check("print: an index past the end is an error",
                "error: print: slots[2] is past the end (2 elements)" in out, out)
        c.check("print: a missing field names the fields that exist",
                "error: print: slots[1].hdr (Header) has no field 'nosuch' (it has: kind, len, seq)" in out, out)
        c.check("print: a field of an integer is an error", "error: print: total is not a struct" in out, out)
        c.check("print without a name is an error", "error: print: what?" in out, out)
        c.check("print: a register", re.search(r"%sp = \d+ \(0x[0-9a-f]{8}\)", out) is not None
                and p.returncode == 0, out)

    print(f"{c.passed} passed, {c.failed} failed")
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())
