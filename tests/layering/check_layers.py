#!/usr/bin/env python3
"""Fails when a file includes a header from a layer above its own (docs/protocols.md, "Layers").

Every #include "dir/file.h" of the project's C and C++ sources is checked against the
layer graph below: a unit may include itself and the units it depends on, directly or
through others. tests/ and bench/ sit on top and may include anything. A folder the graph
does not know is an error too, so a new top-level folder must be placed deliberately.

  check_layers.py SOURCE_DIR [--self-test]
"""
import os
import re
import sys

# unit -> the units it may include directly (ARCHITECTURE.md's arrows, bottom to top).
DEPENDS = {
    "base": [],                           # byte order and hex spellings (header-only)
    "event": ["base"],                          # the event kernel: time, clock domains, agents
    "isa": ["base"],                      # Lanai instruction formats
    "firmware": ["base"],                 # control programs, firmware/lib (C headers)
    "net": ["event"],                     # links, switches, ATM cells
    "host/model": ["event"],              # simulated host: memory, address spaces, PCI, processes
    "report": ["event", "net"],           # file formats (pcapng needs packets)
    "assembler": ["isa"],                 # toolchain, image, layout tables
    "vm": ["isa", "event", "net"],        # the chip
    "sim": ["event", "isa", "net", "host/model", "report", "vm", "assembler", "firmware"],
    "host/kit": ["sim"],                  # the protocol kit (host side)
    "host/<p>": ["host/kit"],             # one library per protocol
    "lua": ["host/<p>", "host/kit", "sim"],  # the binding layer (protocol bindings included)
    "tools": ["lua"],
}
TOP = ("tests", "bench")  # may include anything
SOURCE_EXT = (".h", ".hpp", ".c", ".cc", ".cpp", ".in")
SKIP_DIRS = {".git", "build", "build-asan", "build-fuzz", "lua-scripts", "docs", "scripts", "examples", "cmake"}


def unit_of(path):
    """The layer unit of a path relative to the source dir, or None if the graph has none."""
    parts = path.split("/")
    if parts[0] in TOP:
        return parts[0]
    if parts[0] == "host":
        if len(parts) < 3:
            return None  # no file belongs at host/ itself
        return parts[0] + "/" + parts[1] if parts[1] in ("model", "kit") else "host/<p>"
    return parts[0] if parts[0] in DEPENDS else None


def closure():
    allowed = {}
    for u in DEPENDS:
        seen, todo = {u}, list(DEPENDS[u])
        while todo:
            d = todo.pop()
            if d not in seen:
                seen.add(d)
                todo.extend(DEPENDS[d])
        allowed[u] = seen
    return allowed


INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def check(root):
    allowed = closure()
    errors = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        if rel_dir == ".":
            dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS and not d.startswith("build")]
        for f in sorted(filenames):
            if not f.endswith(SOURCE_EXT):
                continue
            rel = os.path.normpath(os.path.join(rel_dir, f))
            if "/" not in rel:
                continue
            u = unit_of(rel)
            if u is None:
                errors.append(f"{rel}: its folder is in no layer (add it to tests/layering/check_layers.py)")
                continue
            with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as fh:
                for n, line in enumerate(fh, 1):
                    m = INCLUDE.match(line)
                    if not m or "/" not in m.group(1):
                        continue
                    inc = os.path.normpath(m.group(1))
                    if not os.path.exists(os.path.join(root, inc)):
                        continue  # relative to the file, or generated: its own unit
                    v = unit_of(inc)
                    if u in TOP:
                        continue
                    if u == "host/<p>" and v == "host/<p>" and inc.split("/")[1] != rel.split("/")[1]:
                        errors.append(f"{rel}:{n}: includes {inc}: a protocol never includes another protocol "
                                      "(what both need belongs in the kit)")
                        continue
                    if v == u:
                        continue
                    if v is None or v not in allowed[u]:
                        errors.append(f"{rel}:{n}: includes {inc}, from layer '{v}', above or beside '{u}' "
                                      f"(it may include: {', '.join(sorted(allowed[u] - {u})) or 'nothing'})")
    return errors


def self_test():
    """The checker must catch a violation: build a tiny tree with one and expect it."""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        for p, text in {
            "event/kernel.h": "",
            "sim/node.h": '#include "event/kernel.h"\n',
            "vm/chip.h": '#include "sim/node.h"\n',          # vm above sim: wrong
            "host/vmmc/a.cpp": '#include "host/bip/b.h"\n',  # protocol -> protocol: wrong
            "host/bip/b.h": "",
        }.items():
            os.makedirs(os.path.join(d, os.path.dirname(p)), exist_ok=True)
            with open(os.path.join(d, p), "w") as fh:
                fh.write(text)
        errs = check(d)
        assert any(e.startswith("vm/chip.h:1:") for e in errs), errs
        assert any(e.startswith("host/vmmc/a.cpp:1:") for e in errs), errs
        assert not any(e.startswith("sim/node.h") for e in errs), errs
    print("self-test: the checker finds both planted violations")


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    if "--self-test" in sys.argv:
        self_test()
    errors = check(sys.argv[1])
    for e in errors:
        print(e)
    if errors:
        print(f"{len(errors)} include(s) against the layers", file=sys.stderr)
        return 1
    print("layers: every include goes down the graph")
    return 0


if __name__ == "__main__":
    sys.exit(main())
