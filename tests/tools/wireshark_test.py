#!/usr/bin/env python3
"""Wireshark dissectors generated from firmware layouts (`lanaikit dissector`, tools/dissector.h):
captures of VMMC and raw exchanges decode with tshark (Debian's), every packet by its own
protocol's plugin with both plugins loaded, and the values tshark prints are what the
firmware wrote (source node, payload length against the packet's size, the magic, route
bytes only where a switch is still ahead). Bad requests are clear errors.

usage: wireshark_test.py --lanaikit PATH --source-dir DIR
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

from checker import Checker

PROTOCOLS = {  # name: (firmware source, header struct, header bytes, magic)
    "vmmc": ("firmware/vmmc/vmmc.fw", "VmmcHeader", 28, 0x564D4331),
    "raw": ("firmware/raw/raw.fw", "RawHeader", 16, 0x52415730),
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lanaikit", required=True)
    ap.add_argument("--source-dir", required=True)
    o = ap.parse_args()
    lk = os.path.abspath(o.lanaikit)
    c = Checker()
    tshark = shutil.which("tshark")
    if not tshark:
        print("tshark is not installed (scripts/setup.sh installs it)")
        return 1

    def run(cmd, **kw):
        return subprocess.run(cmd, capture_output=True, text=True, cwd=o.source_dir, **kw)

    with tempfile.TemporaryDirectory() as work:
        plugins, captures = {}, {}
        for name, (src, header, _, _) in PROTOCOLS.items():
            elf = os.path.join(work, name + ".elf")
            p = run([lk, "build", "-o", elf, src])
            c.check(f"{name}: firmware builds", p.returncode == 0, p.stderr)
            plugins[name] = os.path.join(work, name + ".lua")
            p = run([lk, "dissector", elf, "--header", header, "-o", plugins[name]])
            c.check(f"{name}: dissector generated", p.returncode == 0, p.stderr)
            captures[name] = os.path.join(work, name + ".pcapng")
            p = run([lk, "run", "tests/tools/capture.lua", "--protocol", name, "--out", captures[name]])
            c.check(f"{name}: capture written", p.returncode == 0, p.stdout + p.stderr)

        both = []
        for name in PROTOCOLS:
            both += ["-X", "lua_script:" + plugins[name]]
        for name, (_, _, header_bytes, magic) in PROTOCOLS.items():
            other = [n for n in PROTOCOLS if n != name][0]
            f = "lanaikit_" + name
            p = run([tshark, *both, "-r", captures[name], "-T", "fields", "-E", "separator=|",
                     "-e", "frame.interface_name", "-e", "frame.len", "-e", f + ".route",
                     "-e", f + ".pkt.magic", "-e", f + ".pkt.src", "-e", f + ".pkt.len",
                     "-e", "lanaikit_" + other + ".pkt.src"])
            c.check(f"{name}: tshark reads the capture", p.returncode == 0, p.stderr)
            rows = [line.split("|") for line in p.stdout.splitlines() if line]
            c.check(f"{name}: packets captured", len(rows) >= 12, p.stdout)
            bad = []
            for link, flen, route, mag, src, plen, theirs in rows:
                if src == "" or theirs != "":
                    bad.append(("not decoded by its own plugin", link))
                    continue
                a, b = link.split("->")
                # Two nodes through one switch: a node's own link still carries the route
                # byte; the switch's link to a node does not. The source is the sending node.
                want_route = 1 if a.startswith("node") else 0
                want_src = int(a[4:]) if a.startswith("node") else 1 - int(b[4:])
                route_bytes = len(route) // 2
                if route_bytes != want_route:
                    bad.append(("route bytes", link, route))
                if int(src) != want_src:
                    bad.append(("src", link, src, want_src))
                if int(plen) != int(flen) - route_bytes - header_bytes:
                    bad.append(("len against the packet's size", link, plen, flen))
                if int(mag, 16) != magic:
                    bad.append(("magic", link, mag))
            c.check(f"{name}: every packet decodes with the values the firmware wrote "
                    f"(src, len, magic, route bytes; {len(rows)} packets)", not bad, bad[:5])
            c.check(f"{name}: multi-packet messages are in the capture",
                    any(int(r[5]) >= 1024 for r in rows if r[5]), rows[:3])
            p = run([tshark, *both, "-r", captures[name], "-V"])
            c.check(f"{name}: the protocol tree shows the header's fields by name",
                    f"pkt.src: " in p.stdout and "payload" in p.stdout, p.stdout[:2000])

        # An enum-typed field shows its variants' names (BIP's packet kind).
        bip = os.path.join(work, "bip.elf")
        p = run([lk, "build", "-o", bip, "firmware/bip/bip.fw"])
        c.check("bip: firmware builds", p.returncode == 0, p.stderr)
        p = run([lk, "dissector", bip, "--header", "BipHeader"])
        c.check("bip: an enum field carries its variants' names",
                p.returncode == 0 and 'ProtoField.uint8("lanaikit_bip.kind", "kind", base.DEC, {' in p.stdout
                and '"SHORT"' in p.stdout, p.stdout[:3000] + p.stderr)

        elf = os.path.join(work, "vmmc.elf")
        p = run([lk, "dissector", elf, "--header", "NoSuchHeader"])
        c.check("an unknown struct is an error naming the structs there are",
                p.returncode == 1 and "no struct 'NoSuchHeader' in the image's layout table (it has: " in p.stderr
                and "VmmcHeader" in p.stderr, p.stderr)
        p = run([lk, "dissector", elf, "--header", "PacketHeader"])
        c.check("a struct that does not start with PacketHeader is an error",
                p.returncode == 1 and "does not start with a PacketHeader field" in p.stderr, p.stderr)
        p = run([lk, "dissector", elf])
        c.check("--header is required", p.returncode == 2 and "--header STRUCT is required" in p.stderr, p.stderr)
        p = run([lk, "dissector", elf, "--header", "VmmcHeader", "--magic", "NOPE"])
        c.check("an unknown magic constant is an error", p.returncode == 1 and "no constant 'NOPE'" in p.stderr,
                p.stderr)
    print(f"{c.passed} passed, {c.failed} failed")
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())
