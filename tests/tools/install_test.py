#!/usr/bin/env python3
"""An installed lanaikit finds its own files and runs the main job like the build tree.

Default: `cmake --install BUILD --prefix T/a`, then the prefix is moved to T/moved (an
install is relocatable). With --installed BIN (scripts/package.sh --test, after installing
the .deb): that executable instead. Either way:
  - `lanaikit --version` says the installed layout, with data, runtime objects and cache
    under the prefix and $HOME (or $LANAIKIT_CACHE);
  - the main job (lua-scripts/main.lua from the installed share dir, a fresh cache) prints
    the same table as the build tree's lanaikit, line for line (the wall-time line aside),
    with the source and build trees hidden when the machine allows a mount namespace
    (`unshare -m`, as root), so nothing can come from them.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile


def fail(msg):
    print("install_test: FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def table(text):
    return [l for l in text.splitlines() if "wall time" not in l]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lanaikit", required=True, help="the build tree's lanaikit")
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--installed", help="an installed lanaikit to check instead of installing")
    a = ap.parse_args()

    tmp = tempfile.mkdtemp(prefix="lk-install-")
    try:
        if a.installed:
            exe = os.path.realpath(a.installed)
        else:
            subprocess.run(["cmake", "--install", a.build_dir, "--prefix", tmp + "/a"],
                           check=True, stdout=subprocess.DEVNULL)
            os.rename(tmp + "/a", tmp + "/moved")
            exe = tmp + "/moved/bin/lanaikit"
        prefix = os.path.dirname(os.path.dirname(exe))
        home = tmp + "/home"
        os.makedirs(home)
        env = {k: v for k, v in os.environ.items()
               if k not in ("LANAIKIT_CACHE", "XDG_CACHE_HOME")}
        env["HOME"] = home

        v = subprocess.run([exe, "--version"], env=env, capture_output=True, text=True)
        if v.returncode != 0:
            fail("--version exited %d: %s" % (v.returncode, v.stderr))
        want = {
            "layout": "installed",
            "data": prefix + "/share/lanaikit",
            "runtime": prefix + "/lib/lanaikit/runtime/crt0.o",
            "cache": home + "/.cache/lanaikit",
        }
        got = {}
        for line in v.stdout.splitlines()[1:]:
            k, _, rest = line.partition(":")
            got[k.strip()] = rest.strip()
        if got != want:
            fail("--version: got %r, want %r" % (got, want))
        c = subprocess.run([exe, "--version"], env=dict(env, LANAIKIT_CACHE=tmp + "/c"),
                           capture_output=True, text=True)
        if ("cache:    " + tmp + "/c") not in c.stdout:
            fail("$LANAIKIT_CACHE not used: " + c.stdout)
        for f in [want["runtime"], want["data"] + "/firmware/lib/lanai.fw",
                  want["data"] + "/lua-scripts/main.lua",
                  want["data"] + "/lua-scripts/platforms/vmmc.lua"]:
            if not os.path.isfile(f):
                fail("not installed: " + f)

        ref = subprocess.run([a.lanaikit, "run", a.source_dir + "/lua-scripts/main.lua"],
                             capture_output=True, text=True)
        if ref.returncode != 0:
            fail("build tree's main job failed: " + ref.stderr)
        script = want["data"] + "/lua-scripts/main.lua"
        cmd = [exe, "run", script]
        hidden = False
        if os.geteuid() == 0 and shutil.which("unshare") and subprocess.run(
                ["unshare", "-m", "true"], capture_output=True).returncode == 0:
            # Hide the checkout (and a build dir outside it) in a private mount namespace.
            mounts = []
            for d in (os.path.realpath(a.source_dir), os.path.realpath(a.build_dir)):
                if not any(d == m or d.startswith(m + "/") for m in mounts):
                    mounts.append(d)
            shell = " && ".join("mount -t tmpfs none '%s'" % m for m in mounts)
            shell += " && test -z \"$(ls -A '%s')\" && exec \"$@\"" % mounts[0]
            cmd = ["unshare", "-m", "sh", "-c", shell, "sh"] + cmd
            hidden = True
        r = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=tmp)
        if r.returncode != 0:
            fail("installed main job exited %d:\n%s" % (r.returncode, r.stderr))
        if table(r.stdout) != table(ref.stdout):
            import difflib
            fail("installed main job differs from the build tree's:\n" + "\n".join(
                difflib.unified_diff(table(ref.stdout), table(r.stdout), lineterm="")))
        if not os.listdir(want["cache"]):
            fail("the installed run cached no image in " + want["cache"])
        print("install_test: OK (%s; source and build trees %s)" %
              (prefix, "hidden" if hidden else "visible: no mount namespace here"))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
